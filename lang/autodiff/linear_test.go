package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"gonum.org/v1/gonum/diff/fd"
)

// linCase is a model around a linear predictor: build returns the
// predictor eta (of linN elements) from the inputs and data of linVars.
type linCase struct {
	name  string
	build func(b *Builder, v linVars) ID
	fused int // the chains fuseLinear should find
}

// linVars are a linear case's operands: scalar params mu, tau, c; vector
// params z (linJ elements, gathered by idx) and v (linN); data x (linN);
// idx repeats some of z's elements and leaves some unread.
type linVars struct {
	mu, tau, c, z, v, x ID
	idx                 []int
}

const (
	linN = 7 // not a multiple of a team's parts
	linJ = 5
)

var linIdx = []int{0, 2, 2, 4, 0, 2, 0} // 1 and 3 unused

// linLine numbers the positions of a linear case's nodes (lp), so that an
// error names the node that failed; buildLin resets it.
var linLine int

func lp() ast.Pos {
	linLine++
	return ast.Pos{File: "lin.gpp", Line: linLine, Col: 1}
}

func linCases() []linCase {
	return []linCase{
		{"h5/mu+tau*z[g]", func(b *Builder, v linVars) ID {
			return b.Add(v.mu, b.Mul(v.tau, b.Gather(v.z, v.idx, lp()), lp()), lp())
		}, 1},
		{"regression/a+b*x", func(b *Builder, v linVars) ID {
			return b.Add(v.mu, b.Mul(v.tau, v.x, lp()), lp())
		}, 1},
		{"three-terms/mu+tau*x+c*v", func(b *Builder, v linVars) ID {
			return b.Add(b.Add(v.mu, b.Mul(v.tau, v.x, lp()), lp()), b.Mul(v.c, v.v, lp()), lp())
		}, 1},
		{"differences/mu-tau*x+v-z[g]", func(b *Builder, v linVars) ID {
			e := b.Sub(v.mu, b.Mul(v.tau, v.x, lp()), lp())
			e = b.Add(e, v.v, lp())
			return b.Sub(e, b.Gather(v.z, v.idx, lp()), lp())
		}, 1},
		{"scalar-last/tau*z[g]+mu", func(b *Builder, v linVars) ID {
			return b.Add(b.Mul(v.tau, b.Gather(v.z, v.idx, lp()), lp()), v.mu, lp())
		}, 1},
		{"coefficient-right/z[g]*tau+v", func(b *Builder, v linVars) ID {
			return b.Add(b.Mul(b.Gather(v.z, v.idx, lp()), v.tau, lp()), v.v, lp())
		}, 1},
		{"scalar-twice/mu+mu*x-mu", func(b *Builder, v linVars) ID {
			return b.Sub(b.Add(v.mu, b.Mul(v.mu, v.x, lp()), lp()), v.mu, lp())
		}, 1},
		{"coefficient-twice/tau*x+tau*z[g]+mu*v", func(b *Builder, v linVars) ID {
			e := b.Add(b.Mul(v.tau, v.x, lp()), b.Mul(v.tau, b.Gather(v.z, v.idx, lp()), lp()), lp())
			return b.Add(e, b.Mul(v.mu, v.v, lp()), lp())
		}, 1},
		{"gather-first/z[g]+v-mu", func(b *Builder, v linVars) ID {
			return b.Sub(b.Add(b.Gather(v.z, v.idx, lp()), v.v, lp()), v.mu, lp())
		}, 1},
		{"interleaved/z[g]+(v-mu)", func(b *Builder, v linVars) ID { // v-mu comes between z[g] and the sum
			return b.Add(b.Gather(v.z, v.idx, lp()), b.Sub(v.v, v.mu, lp()), lp())
		}, 0},
		{"indexed-coefficients/mu+v[0]*x+v[1]*z[g]", func(b *Builder, v linVars) ID { // v[1] comes between
			e := b.Add(v.mu, b.Mul(b.Elem(v.v, 0, lp()), v.x, lp()), lp())
			return b.Add(e, b.Mul(b.Elem(v.v, 1, lp()), b.Gather(v.z, v.idx, lp()), lp()), lp())
		}, 1},
		{"indexed-gathered/mu+tau*z[g]+z[2]*x", func(b *Builder, v linVars) ID { // z[2] between adds to z's adjoint: only mu + tau*z[g]
			e := b.Add(v.mu, b.Mul(v.tau, b.Gather(v.z, v.idx, lp()), lp()), lp())
			return b.Add(e, b.Mul(b.Elem(v.z, 2, lp()), v.x, lp()), lp())
		}, 1},
		{"long/mu+tau*x+...+tau*x", func(b *Builder, v linVars) ID { // 21 terms: the first 16 fused
			e := v.mu
			for range 20 {
				e = b.Add(e, b.Mul(v.tau, v.x, lp()), lp())
			}
			return e
		}, 1},
		{"constants/2+3*z[g]-v", func(b *Builder, v linVars) ID {
			e := b.Add(b.Scalar(2, lp()), b.Mul(b.Scalar(3, lp()), b.Gather(v.z, v.idx, lp()), lp()), lp())
			return b.Sub(e, v.v, lp())
		}, 1},
		{"data-gather/mu+tau*x[g]", func(b *Builder, v linVars) ID { // x[g] is data: no gather to absorb
			return b.Add(v.mu, b.Mul(v.tau, b.Gather(v.x, v.idx, lp()), lp()), lp())
		}, 1},
		{"elementwise-term/mu+v.*x+tau*v", func(b *Builder, v linVars) ID { // v .* x is a vector term
			return b.Add(b.Add(v.mu, b.Mul(v.v, v.x, lp()), lp()), b.Mul(v.tau, v.v, lp()), lp())
		}, 1},
		{"vector-twice/mu+v+tau*v", func(b *Builder, v linVars) ID { // v read twice: not fused
			return b.Add(b.Add(v.mu, v.v, lp()), b.Mul(v.tau, v.v, lp()), lp())
		}, 0},
		{"shared-product/mu+tau*x+tau*x", func(b *Builder, v linVars) ID { // one product read twice: not fused
			m := b.Mul(v.tau, v.x, lp())
			return b.Add(b.Add(v.mu, m, lp()), m, lp())
		}, 0},
	}
}

// buildLin finishes case c in a model that reads the predictor twice: y ~
// Normal(eta, sigma) with y data, and Σ w .* exp(eta / 4), so that its
// adjoint varies from element to element. The inputs are mu, tau, c, z,
// v, log sigma; fuse false builds it unfused.
func buildLin(t *testing.T, c linCase, fuse bool, scale float64) (*Program, []float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	b := NewBuilder()
	v := linVars{idx: linIdx}
	v.mu = b.Input("mu", Scalar(), testPos)
	v.tau = b.Input("tau", Scalar(), testPos)
	v.c = b.Input("c", Scalar(), testPos)
	v.z = b.Input("z", Vector(linJ), testPos)
	v.v = b.Input("v", Vector(linN), testPos)
	ls := b.Input("ls", Scalar(), testPos)
	xs, ys, ws := make([]float64, linN), make([]float64, linN), make([]float64, linN)
	for i := range xs {
		xs[i], ys[i], ws[i] = -2+4*r.Float64(), -3+6*r.Float64(), -1+2*r.Float64()
	}
	v.x = b.Const(xs, Vector(linN), testPos)
	linLine = 0
	eta := c.build(b, v)
	lik := b.Density(*mustUnivariate(t, "Normal"), b.Const(ys, Vector(linN), testPos), []ID{eta, b.Exp(ls, testPos)}, testPos)
	w := b.Const(ws, Vector(linN), testPos)
	quarter := b.Scalar(0.25*scale, testPos)
	root := b.Add(lik, b.Sum(b.Mul(w, b.Exp(b.Mul(eta, quarter, testPos), testPos), testPos), testPos), testPos)
	noLinFuse = !fuse
	defer func() { noLinFuse = false }()
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = -1 + 2*r.Float64()
	}
	return p, x
}

// linFused counts the fused chains of p.
func linFused(p *Program) int {
	k := 0
	for _, i := range p.order {
		if p.nodes[i].lin != nil {
			k++
		}
	}
	return k
}

// TestLinearFused checks each fused linear chain against the same model
// unfused: the value and gradient bit for bit (alone, cloned, with teams
// of one and two, by ForwardJoint), the gradient against finite
// differences, and no allocations per evaluation.
func TestLinearFused(t *testing.T) {
	for _, c := range linCases() {
		t.Run(c.name, func(t *testing.T) {
			pf, x := buildLin(t, c, true, 1)
			pu, _ := buildLin(t, c, false, 1)
			if got := linFused(pf); got != c.fused {
				t.Errorf("%d chains fused, want %d", got, c.fused)
			}
			if linFused(pu) != 0 {
				t.Errorf("unfused program has fused chains")
			}
			gu := make([]float64, len(x))
			vu, err := pu.LogJoint(x, gu)
			if err != nil {
				t.Fatal(err)
			}
			same := func(what string, v float64, g []float64) {
				t.Helper()
				if math.Float64bits(v) != math.Float64bits(vu) {
					t.Errorf("%s: value %.17g, unfused %.17g", what, v, vu)
				}
				for i := range g {
					if math.Float64bits(g[i]) != math.Float64bits(gu[i]) {
						t.Errorf("%s: grad[%d] %.17g, unfused %.17g", what, i, g[i], gu[i])
					}
				}
			}
			g := make([]float64, len(x))
			v, err := pf.LogJoint(x, g)
			if err != nil {
				t.Fatal(err)
			}
			same("fused", v, g)
			if vj, err := pf.ForwardJoint(x); err != nil || math.Float64bits(vj) != math.Float64bits(vu) {
				t.Errorf("ForwardJoint: %.17g (%v), unfused %.17g", vj, err, vu)
			}
			for _, size := range []int{1, 2} {
				q := pf.Clone()
				q.SetTeam(&fakeTeam{size: size})
				gt := make([]float64, len(x))
				vt, err := q.LogJoint(x, gt)
				if err != nil {
					t.Fatal(err)
				}
				same(fmt.Sprintf("team of %d", size), vt, gt)
			}
			if a := testing.AllocsPerRun(10, func() { pf.LogJoint(x, g) }); a != 0 {
				t.Errorf("%v allocations per LogJoint", a)
			}
			f := func(x []float64) float64 {
				v, err := pf.Forward(x)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			want := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central})
			for i := range want {
				if d := math.Abs(g[i] - want[i]); d > gradTolAbs+gradTolRel*max(math.Abs(g[i]), math.Abs(want[i])) {
					t.Errorf("grad[%d] = %.10g, fd %.10g", i, g[i], want[i])
				}
			}
		})
	}
}

// TestLinearFusedErrors checks that a fused chain fails as its nodes did,
// word for word, from Forward, ForwardJoint, ForwardAll, Backward and
// Profile: a
// term that overflows forward (tau * z[g] with tau 1e308 and z 2), and
// an adjoint that overflows backward (z[g]'s, tau times the predictor's,
// with tau 1e157 and z 1e-5: the log density and the other adjoints stay
// finite).
func TestLinearFusedErrors(t *testing.T) {
	for _, tc := range []struct {
		what          string
		tau, z, sigma float64
		scale         float64
	}{{"forward", 1e308, 2, 1, 1}, {"backward", 1e157, 1e-5, 1, 0}} {
		for _, c := range linCases() {
			pf, x := buildLin(t, c, true, tc.scale)
			pu, _ := buildLin(t, c, false, tc.scale)
			x[0], x[1] = 0, tc.tau // mu, tau
			for i := range linJ {
				x[3+i] = tc.z
			}
			x[len(x)-1] = math.Log(tc.sigma)
			results := func(p *Program) []string {
				var out []string
				for _, f := range []func([]float64) (float64, error){p.Forward, p.ForwardJoint, p.ForwardAll} {
					v, err := f(x)
					out = append(out, fmt.Sprintf("%x %v", math.Float64bits(v), err))
				}
				g := make([]float64, len(x))
				_, err := p.LogJoint(x, g)
				_, perr := p.Profile(x, 1)
				return append(out, fmt.Sprint(err, g), fmt.Sprint(perr))
			}
			got, want := results(pf), results(pu)
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s, %s, call %d: fused %q, unfused %q", tc.what, c.name, i, got[i], want[i])
				}
			}
			if c.name != "h5/mu+tau*z[g]" {
				continue
			}
			// the product fails: forward its value, backward its adjoint
			if tc.what == "forward" && !strings.Contains(want[0], "lin.gpp:2:1: mul: result is +Inf") {
				t.Errorf("h5, forward: %q", want[0])
			}
			if tc.what == "backward" && (!strings.HasSuffix(want[0], "<nil>") || !strings.Contains(want[3], "lin.gpp:2:1: mul: gradient is -Inf")) {
				t.Errorf("h5, backward: %q", want)
			}
		}
	}
}

// TestLinearFusedLoopError checks that a fused chain in a loop lowered as
// vectors (InLoop) is blamed as its nodes were when an earlier node of the
// loop fails first in a later iteration: log(x - a) fails at i = 5, and
// the chain's product tau * z[g] at i = 1, so the product is named.
func TestLinearFusedLoopError(t *testing.T) {
	build := func(fuse bool) *Program {
		b := NewBuilder()
		a := b.Input("a", Scalar(), testPos)
		mu := b.Input("mu", Scalar(), testPos)
		tau := b.Input("tau", Scalar(), testPos)
		z := b.Input("z", Vector(linJ), testPos)
		xs := []float64{3, 3, 3, 3, 3, -3, 3}
		x := b.Const(xs, Vector(linN), testPos)
		ys := b.Const(make([]float64, linN), Vector(linN), testPos)
		vals := make([]int, linN)
		for i := range vals {
			vals[i] = i
		}
		linLine = 0
		done := b.InLoop(true)
		doneIter := b.AtIter(&Iters{Loop: testPos, Vars: []string{"i"}, Vals: [][]int{vals}})
		terms := b.Log(b.Sub(x, a, lp()), lp())
		eta := b.Add(mu, b.Mul(tau, b.Gather(z, linIdx, lp()), lp()), lp())
		lik := b.Density(*mustUnivariate(t, "Normal"), ys, []ID{eta, b.Scalar(1, testPos)}, lp())
		doneIter()
		done()
		noLinFuse = !fuse
		defer func() { noLinFuse = false }()
		p, err := b.Finish(b.Add(b.Sum(terms, testPos), lik, testPos))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	pf, pu := build(true), build(false)
	if linFused(pf) != 1 {
		t.Fatalf("%d chains fused, want 1", linFused(pf))
	}
	x := []float64{0, 0, 1e308, 1e-307, 1e-307, 2, 1e-307, 1e-307} // a, mu, tau, z: z[2] overflows in rows 1, 2 and 5
	_, want := pu.Forward(x)
	_, got := pf.Forward(x)
	if want == nil || !strings.Contains(want.Error(), "mul") || !strings.Contains(want.Error(), "i = 1") {
		t.Fatalf("unfused: %v", want)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fused: %v, unfused %v", got, want)
	}
}

// TestLinearFusedOneElement checks a vector of one element read both
// gathered and broadcast, mu + z[g] + z: its adjoint gets the elements'
// terms and the broadcast's sum in the unfused order, so that only
// mu + z[g] is fused, and the gradient is the unfused one bit for bit at
// points where the other order rounds differently.
func TestLinearFusedOneElement(t *testing.T) {
	build := func(fuse bool) *Program {
		r := rand.New(rand.NewPCG(3, 5))
		b := NewBuilder()
		mu := b.Input("mu", Scalar(), testPos)
		z := b.Input("z", Vector(1), testPos)
		eta := b.Add(b.Add(mu, b.Gather(z, make([]int, linN), lp()), lp()), z, lp())
		ws := make([]float64, linN)
		for i := range ws {
			ws[i] = -1 + 2*r.Float64()
		}
		w := b.Const(ws, Vector(linN), testPos)
		noLinFuse = !fuse
		defer func() { noLinFuse = false }()
		p, err := b.Finish(b.Sum(b.Mul(w, b.Exp(eta, testPos), testPos), testPos))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	pf, pu := build(true), build(false)
	if got := linFused(pf); got != 1 {
		t.Errorf("%d chains fused, want 1 (mu + z[g])", got)
	}
	gf, gu := make([]float64, 2), make([]float64, 2)
	for s := range 50 {
		x := []float64{0.1*float64(s) - 2, 0.37*float64(s%7) - 1}
		vf, errf := pf.LogJoint(x, gf)
		vu, erru := pu.LogJoint(x, gu)
		if errf != nil || erru != nil || math.Float64bits(vf) != math.Float64bits(vu) {
			t.Fatalf("x %v: value %.17g (%v), unfused %.17g (%v)", x, vf, errf, vu, erru)
		}
		for i := range gf {
			if math.Float64bits(gf[i]) != math.Float64bits(gu[i]) {
				t.Errorf("x %v: grad[%d] %.17g, unfused %.17g", x, i, gf[i], gu[i])
			}
		}
	}
}
