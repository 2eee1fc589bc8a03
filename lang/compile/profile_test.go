package compile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
)

// profileSrc has a let read by two statements, a user function called in
// one, a for loop lowered as vectors and params whose transforms and priors
// count at their declarations.
const profileSrc = `fn sq(x) = x .* x
data N: int
data X: real[N, 2]
data z: real[N]
param beta: real[2] ~ Normal(0, 2)
param s: positive ~ Gamma(2, 2)
let mu = X * beta
z ~ Normal(mu, s)
target += -sum(sq(z - mu)) / s
for i in 0:N {
  z[i] ~ Normal(beta[0] * X[i, 0], s)
}
`

// profileData is n rows of X and z.
func profileData(t *testing.T, n int) data.Input {
	t.Helper()
	var xs, zs []string
	for i := range n {
		xs = append(xs, fmt.Sprintf("[%g, %g]", 0.1*float64(i%7)-0.3, 0.2*float64(i%5)))
		zs = append(zs, fmt.Sprintf("%g", 0.3*float64(i%3)-0.2))
	}
	js, err := data.ReadJSON("d.json", strings.NewReader(fmt.Sprintf(`{"X": [%s], "z": [%s]}`, strings.Join(xs, ", "), strings.Join(zs, ", "))))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: js}
}

// TestProfileStatements checks that Model.Profile gives every statement
// that builds nodes evaluated per step its own row, each computed once per
// evaluation, with the nodes of the let, the inlined function and the loop
// at their statements: the loop's count does not grow with N (one set of
// vector nodes), the function declaration has none, and the row outside
// the statements holds only the sum of their terms.
func TestProfileStatements(t *testing.T) {
	nodes := map[int]map[int]int{} // N → line → nodes
	for _, n := range []int{5, 40} {
		m := compileSrc(t, "p.gpp", profileSrc, nil, profileData(t, n))
		x := make([]float64, m.Dim)
		const evals = 3
		pr, err := m.Profile(x, evals)
		if err != nil {
			t.Fatal(err)
		}
		nodes[n] = map[int]int{}
		for _, s := range pr.Stmts {
			if s.Nodes == 0 {
				continue
			}
			if s.Evals != evals {
				t.Errorf("N=%d, line %d: computed %d times, want %d", n, s.Pos.Line, s.Evals, evals)
			}
			if s.Pos != (ast.Pos{}) && m.StmtAt(s.Pos) == nil {
				t.Errorf("N=%d: row at %v is no statement", n, s.Pos)
			}
			nodes[n][s.Pos.Line] = s.Nodes
		}
	}
	for _, line := range []int{5, 6, 7, 8, 9, 10} {
		if nodes[5][line] == 0 {
			t.Errorf("line %d has no nodes: %v", line, nodes[5])
		}
	}
	if nodes[5][1] != 0 {
		t.Errorf("the fn declaration has %d nodes: its body counts at the call", nodes[5][1])
	}
	// The call's body (a subtraction, a square, a sum, a division, a
	// negation) is more than target += alone would build.
	if nodes[5][9] < 4 {
		t.Errorf("target += with sq's body inlined has %d nodes", nodes[5][9])
	}
	if nodes[5][10] != nodes[40][10] {
		t.Errorf("the loop's nodes grow with N: %d at N=5, %d at N=40", nodes[5][10], nodes[40][10])
	}
	// Outside any statement: the sum of the terms of the priors, the ~, the
	// target += and the loop, one add per term after the first.
	if nodes[5][0] == 0 || nodes[5][0] > 6 {
		t.Errorf("%d nodes outside the statements", nodes[5][0])
	}
}
