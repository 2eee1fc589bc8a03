package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// diffJSON is a data vector y [6] and int counts c [6].
const diffJSON = `{"y": [0.5, -1, 2, 0.25, 1.5, 4], "c": [3, 1, 4, 1, 5, 9]}`

func diffInput(t *testing.T) data.Input {
	js, err := data.ReadJSON("d.json", strings.NewReader(diffJSON))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: js}
}

// diffDecls: a real param x and a positive one p of N = 6 elements each
// (from the data), and a scale.
const diffDecls = `data y: real[N]
data c: int[N]
param x: real[N]
param p: positive[N]
param s: positive
`

// TestDiffModel: diff(x) and diff(x, d) give the log joint and gradient of
// the slices they replace (an RW1 and an RW2 prior, a third difference,
// of a positive param, of data beside a param), and the gradient matches
// finite differences.
func TestDiffModel(t *testing.T) {
	in := diffInput(t)
	var zs [][]float64
	for k := range 3 {
		z := make([]float64, 6+6+1)
		for i := range z {
			z[i] = 0.1*float64((i*(k+3))%7-3) + 0.05*float64(k)
		}
		zs = append(zs, z)
	}
	for _, c := range []plainCase{
		{"RW1", "diff(x) ~ Normal(0, s)\n", "x[1:] - x[:N-1] ~ Normal(0, s)\n"},
		{"RW2", "diff(x, 2) ~ Normal(0, s)\n", "x[2:] - 2 * x[1:N-1] + x[:N-2] ~ Normal(0, s)\n"},
		{"third", "target += -0.5 * dot_self(diff(x, 3) .* [1, 2, 3]) - s\n", "target += -0.5 * dot_self((x[3:] - 3 * x[2:N-1] + 3 * x[1:N-2] - x[:N-3]) .* [1, 2, 3]) - s\n"},
		{"positive", "diff(p, 2) ~ Normal(0, s)\ndiff(log(p)) ~ Normal(0, 1)\n", "p[2:] - 2 * p[1:N-1] + p[:N-2] ~ Normal(0, s)\nlog(p)[1:] - log(p)[:N-1] ~ Normal(0, 1)\n"},
		{"data", "target += dot_product(diff(y), diff(x)) + sum(diff(c, 2) .* diff(p, 2)) - s\n",
			"target += dot_product(y[1:] - y[:N-1], x[1:] - x[:N-1]) + sum((c[2:] - 2 * c[1:N-1] + c[:N-2]) .* (p[2:] - 2 * p[1:N-1] + p[:N-2])) - s\n"},
	} {
		m := wantSamePlain(t, diffDecls, in, zs, c)
		checkGradient(t, m, 7, 0.5)
	}
}

// TestDiffOutputs: diff's values from the definition (NumPy's diff):
// y[i+1] − y[i], and of order d the d-th differences, n − d of them, of
// data, of int data, and of a param.
func TestDiffOutputs(t *testing.T) {
	in := diffInput(t)
	m := compileSrc(t, "a.gpp", diffDecls+"target += -s + sum(x) + sum(p)\noutput a = diff(y)\noutput b = diff(y, 2)\noutput d = diff(c, 5)\noutput e = diff(x, 2)\n", nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	z := make([]float64, m.Dim)
	xs := []float64{1, 4, 9, 16, 25, 36} // squares: second differences 2
	copy(z, xs)
	_, outs, err := ev.Eval(z)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{-1.5, 3, -1.75, 1.25, 2.5},
		{4.5, -4.75, 3, 1.25},
		{9 - 5*5 + 10*1 - 10*4 + 5*1 - 3}, // Σₖ (−1)^(5−k) C(5, k) c[k]
		{2, 2, 2, 2},
	}
	for i, w := range want {
		if len(outs[i]) != len(w) {
			t.Errorf("%s = %v, want %v", m.Outputs[i].Name, outs[i], w)
			continue
		}
		for j := range w {
			if !near(outs[i][j], w[j]) {
				t.Errorf("%s = %v, want %v", m.Outputs[i].Name, outs[i], w)
				break
			}
		}
	}
}

// TestDiffAllocs: a log joint and gradient through diff costs no
// allocation.
func TestDiffAllocs(t *testing.T) {
	m := compileSrc(t, "a.gpp", diffDecls+"diff(x, 2) ~ Normal(0, s)\ndiff(p) ~ Normal(0, 1)\n", nil, diffInput(t))
	x, gr := make([]float64, m.Dim), make([]float64, m.Dim)
	for i := range x {
		x[i] = 0.1 * float64(i%5-2)
	}
	if _, err := m.LogJoint(x, gr); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(50, func() { m.LogJoint(x, gr) }); a != 0 {
		t.Errorf("%v allocations per log joint, want 0", a)
	}
}

// TestDiffErrors: an order as large as a length known only from the data
// is an error when the model compiles, at the order.
func TestDiffErrors(t *testing.T) {
	wantCompileErrors(t, "a.gpp", diffDecls, diffInput(t), []srcWant{
		{"let d = diff(x, 6)\ntarget += sum(d)\n", "a.gpp:6:17: diff of order 6 needs more than 6 elements: `x` has 6, so it has no differences of that order"},
		{"let d = diff(c, 7)\ntarget += sum(d) + sum(x)\n", "a.gpp:6:17: diff of order 7 needs more than 7 elements: `c` has 6, so"},
	})
}
