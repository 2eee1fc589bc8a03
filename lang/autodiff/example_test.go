package autodiff

import (
	"fmt"

	"github.com/gpplang/gpp/lang/ast"
)

// A model y ~ Normal(mu, sigma), mu ~ Normal(0, 10), with latent mu and
// log sigma, and its gradient.
func Example() {
	pos := func(col int) ast.Pos { return ast.Pos{File: "model.gpp", Line: 3, Col: col} }
	b := NewBuilder()
	mu := b.Input("mu", Scalar(), pos(1))
	logSigma := b.Input("log_sigma", Scalar(), pos(1))
	y := b.Const([]float64{1.2, 0.8, 1.4}, Vector(3), pos(1))
	lik := b.Density(testNormal, y, []ID{mu, b.Exp(logSigma, pos(20))}, pos(3))
	prior := b.Density(testNormal, mu, []ID{b.Scalar(0, pos(9)), b.Scalar(10, pos(12))}, pos(5))
	p, err := b.Finish(b.Add(lik, prior, pos(1)))
	if err != nil {
		fmt.Println(err)
		return
	}
	grad := make([]float64, p.Dim())
	lp, err := p.LogJoint([]float64{1, 0}, grad)
	fmt.Printf("log joint %.4f, gradient [%.4f %.4f], err %v\n", lp, grad[0], grad[1], err)

	_, err = p.LogJoint([]float64{1, 800}, grad) // exp(800) overflows
	fmt.Println(err)
	// Output:
	// log joint -6.1033, gradient [0.3900 -2.7600], err <nil>
	// model.gpp:3:20: exp: result is +Inf (argument 800)
}

// A loop `for i in 0:3 { target += log(x[i] - a) }` lowered as vectors:
// its nodes are the iterations side by side (InLoop), and AtIter gives
// each row's value of i, so that an error names the iteration that
// failed rather than an element.
func ExampleBuilder_AtIter() {
	pos := func(col int) ast.Pos { return ast.Pos{File: "model.gpp", Line: 5, Col: col} }
	b := NewBuilder()
	a := b.Input("a", Scalar(), pos(1))
	x := b.Const([]float64{1, 2, -1}, Vector(3), pos(1))
	done := b.InLoop(true)
	doneIter := b.AtIter(&Iters{Loop: pos(1), Vars: []string{"i"}, Vals: [][]int{{0, 1, 2}}})
	terms := b.Log(b.Sub(x, a, pos(17)), pos(13))
	doneIter()
	done()
	p, err := b.Finish(b.Sum(terms, pos(13)))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = p.LogJoint([]float64{0}, make([]float64, 1))
	fmt.Println(err)
	// Output:
	// model.gpp:5:13: log: argument -1 < 0 at i = 2
}
