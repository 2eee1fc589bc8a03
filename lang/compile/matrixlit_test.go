package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestMatrixLitForms checks that a matrix literal means the matrix it
// writes, row-major: the log joint and gradient of each model with one
// equal those of the model written out elementwise, and its gradient,
// through elements that are params, agrees with finite differences.
func TestMatrixLitForms(t *testing.T) {
	const decls = "param a: real\nparam s: positive\nparam v: real[2]\nparam rho: real\n"
	// mvn2 is log N(v | [m0, 0], [[c11, c12], [c12, c22]]) written out.
	mvn2 := func(m0, c11, c12, c22 string) string {
		return "let d0 = v[0] - " + m0 + "\nlet det = " + c11 + " * " + c22 + " - (" + c12 + ") ^ 2\n" +
			"target += -1.8378770664093453 - 0.5 * log(det) - 0.5 * (" + c22 + " * d0 ^ 2 - 2 * " + c12 + " * d0 * v[1] + " + c11 + " * v[1] ^ 2) / det"
	}
	for _, c := range []struct{ name, lit, ref string }{
		{"constant covariance", "v ~ MvNormal([a, 0], [[1, 0.8], [0.8, 1]])", mvn2("a", "1", "0.8", "1")},
		{"params covariance", "v ~ MvNormal([a, 0], [[s, 0.5 * s], [0.5 * s, 2]])", mvn2("a", "s", "0.5 * s", "2")},
		{"cholesky factor", "let L = [[s, 0], [rho * s, 1]]\nv ~ MvNormal([a, 0], L * L')", mvn2("a", "s ^ 2", "rho * s ^ 2", "(rho ^ 2 * s ^ 2 + 1)")},
		{"int constants", "target += sum([[1, 2], [3, 4]] * v)", "target += 4 * v[0] + 6 * v[1]"},
		{"row-major", "target += sum([[1, 2], [3, 4]] * [v[0], 0]) + sum([[5, 6], [7, 8]][1] .* v)", "target += 4 * v[0] + 7 * v[0] + 8 * v[1]"},
		{"vector rows", "target += sum([v, [a, s]] .* [[1, 2], [3, 4]])", "target += v[0] + 2 * v[1] + 3 * a + 4 * s"},
		{"element", "target += [[a, s], [v[0], 1]][1, 0] * [[a, s], v][0, 1]", "target += v[0] * s"},
		{"row", "target += sum([[a, s], v][1]) * [[a, rho]][0, 1]", "target += (v[0] + v[1]) * rho"},
		{"column", "target += sum([[a, s], v][:, 1])", "target += s + v[1]"},
		{"transpose", "target += sum([[a, s], v]' * [1, 2])", "target += a + 2 * v[0] + s + 2 * v[1]"},
		{"one row", "target += sum([[a, s, rho]] * [1, 2, 3])", "target += a + 2 * s + 3 * rho"},
		{"one column", "target += sum([[a], [s]] * [[v[0], v[1]]])", "target += (a + s) * (v[0] + v[1])"},
		{"loop", "for i in 0:2 { target += [[a, i], [s, 2 * i]][1, 1] * v[i] + [[a, i], [s, rho]][i, 0] }", "target += 2 * v[1] + a + s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "a.gpp", decls+c.lit+"\n", nil)
			ref := compileSrc(t, "b.gpp", decls+c.ref+"\n", nil)
			for _, x := range [][]float64{{0.3, -0.2, 1.1, -0.4, 0.1}, {-1.5, 0.7, 0.2, 2.5, -0.6}} {
				sameLogJoint(t, m, ref, "the model written out", x, logJointTol, logJointTol)
			}
			checkGradient(t, m, 11, 0.5)
		})
	}
}

// TestMatrixLitOutput checks a matrix literal's values as an output: its
// shape [rows, cols] and its elements row by row, of params and of data.
func TestMatrixLitOutput(t *testing.T) {
	src := "data y: real[3]\nparam s: positive\nparam rho: real\n" +
		"output L = [[s, 0], [rho * s, 1], [2, rho]]\noutput Y = [y, [1, 2, 3]]\n"
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"y": {Name: "y", Shape: []int{3}, Values: []float64{0.4, -1.2, 2.0}},
	}}
	m := compileSrc(t, "m.gpp", src, nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.3, -0.7}
	s, rho := math.Exp(x[0]), x[1]
	_, outs, err := ev.Eval(x)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []struct {
		shape []int
		vals  []float64
	}{
		{[]int{3, 2}, []float64{s, 0, rho * s, 1, 2, rho}},
		{[]int{2, 3}, []float64{0.4, -1.2, 2.0, 1, 2, 3}},
	} {
		if got := m.Outputs[k].Shape; len(got) != 2 || got[0] != want.shape[0] || got[1] != want.shape[1] {
			t.Errorf("output %s has shape %v, want %v", m.Outputs[k].Name, got, want.shape)
		}
		if len(outs[k]) != len(want.vals) {
			t.Fatalf("output %s = %v, want %v", m.Outputs[k].Name, outs[k], want.vals)
		}
		for i, v := range want.vals {
			if outs[k][i] != v {
				t.Errorf("output %s = %v, want %v", m.Outputs[k].Name, outs[k], want.vals)
				break
			}
		}
	}
}

// TestMatrixLitRagged: rows whose lengths the checker could not compare
// (a size read from the data) are compared when the model compiles, and
// the error names both rows at the ragged one.
func TestMatrixLitRagged(t *testing.T) {
	src := "data x: real[N]\nparam s: positive\nlet S = [x, [1, s]]\ntarget += sum(S)\n"
	in := func(n int) data.Input {
		return data.Input{File: "d.json", JSON: map[string]*data.Array{
			"x": {Name: "x", Shape: []int{n}, Values: make([]float64, n)},
		}}
	}
	if _, err := compileSrcErr(t, "m.gpp", src, nil, in(2)); err != nil {
		t.Fatalf("rows of equal length: %v", err)
	}
	_, err := compileSrcErr(t, "m.gpp", src, nil, in(3))
	want := "m.gpp:3:13: a matrix literal's rows must have equal lengths: row 1 `[1, s]` has 2 elements, row 0 `x` has 3"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}
