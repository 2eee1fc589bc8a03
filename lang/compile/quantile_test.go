package compile

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// quantileData is the data input of x (when given) and P for the quantile
// tests.
func quantileData(t *testing.T, x, p []float64) data.Input {
	t.Helper()
	js := fmt.Sprintf(`{"P": %s}`, jsonNums(p))
	if x != nil {
		js = fmt.Sprintf(`{"x": %s, "P": %s}`, jsonNums(x), jsonNums(p))
	}
	d, err := data.ReadJSON("d.json", strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: d}
}

func jsonNums(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.17g", x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// quantile of params in outputs is evaluated at each point, as the fold
// computes it of data when the model compiles: the outputs of a param
// vector a equal, bit for bit, those of a data-only model whose x holds
// a's values (scalar p, a vector p of data, p = 0 and 1, and an x with
// ties), at random points; and those equal the type-7 definition, with
// quantile(x, [0, 1]) the minimum and the maximum. The log joint's
// gradient is untouched by them.
func TestQuantileOfParamsInOutputs(t *testing.T) {
	const body = `output q = quantile(X, 0.37)
output qv = quantile(X, P)
output ends = quantile(X, [0, 1])
output ties = quantile(append_row(X, X[0:3]), [0.1, 0.5, 0.9])
output one = quantile(X[0:1], [0, 0.3, 1])
`
	probs := []float64{0.01, 0.25, 0.5, 2.0 / 3, 0.999}
	params := "data P: real[5]\nparam a: real[7] ~ Normal(0, 1)\n" + strings.ReplaceAll(body, "X", "a")
	m := compileSrc(t, "q.gpp", params, nil, quantileData(t, nil, probs))
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	points := append(randomPoints(11, 12, m.Dim), []float64{0.5, -1, 0.5, 0.5, 2, -1, 0})
	for _, x := range points {
		_, outs, err := ev.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		folded := compileSrc(t, "d.gpp", "data x: real[7]\ndata P: real[5]\n"+strings.ReplaceAll(body, "X", "x"), nil, quantileData(t, x, probs))
		fev, err := folded.NewEvaluator()
		if err != nil {
			t.Fatal(err)
		}
		_, want, err := fev.Eval(nil)
		if err != nil {
			t.Fatal(err)
		}
		sorted := slices.Sorted(slices.Values(x))
		def := func(v []float64, ps ...float64) []float64 {
			v = slices.Sorted(slices.Values(v))
			out := make([]float64, len(ps))
			for i, p := range ps {
				out[i] = quantile7(v, p)
			}
			return out
		}
		defs := [][]float64{def(x, 0.37), def(x, probs...), {sorted[0], sorted[6]}, def(append(slices.Clone(x), x[:3]...), 0.1, 0.5, 0.9), {x[0], x[0], x[0]}}
		for i, o := range m.Outputs {
			if !slices.Equal(outs[i], want[i]) {
				t.Errorf("at %v: %s = %v of the param, %v of the data", x, o.Name, outs[i], want[i])
			}
			if !slices.Equal(want[i], defs[i]) {
				t.Errorf("at %v: %s = %v, want %v", x, o.Name, want[i], defs[i])
			}
		}
	}
	checkGradient(t, m, 5, 0.5)
}

// quantile of params fails at the draw as the fold fails of data: a p
// outside [0, 1] (a param's p) and a NaN in x are the output's NaN, with
// the positioned cause in OutputErr; a NaN in x is never sorted past (at p
// = 1 the sorted x's last element would be finite).
func TestQuantileOfParamsFails(t *testing.T) {
	const src = `param a: real[3] ~ Normal(0, 1)
output qp = quantile(a, a[0])
output qn = quantile(log(a), 1)
output ok = quantile(a, 0.5)
`
	m := compileSrc(t, "q.gpp", src, nil)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x    []float64
		bad  []bool // qp, qn NaN
		want string
	}{
		{[]float64{0.5, 1, 2}, []bool{false, false}, ""},
		{[]float64{1.5, 1, 2}, []bool{true, false}, "q.gpp:2:13: quantile: p 1.5 is outside [0, 1] at this draw"},
		{[]float64{0.5, -1, 2}, []bool{false, true}, "q.gpp:3:22: log"},
	} {
		_, outs, err := ev.Eval(c.x)
		if err != nil {
			t.Fatal(err)
		}
		for i, bad := range c.bad {
			if math.IsNaN(outs[i][0]) != bad {
				t.Errorf("at %v: %s = %v, want NaN %v", c.x, m.Outputs[i].Name, outs[i], bad)
			}
		}
		if got := math.IsNaN(outs[2][0]); got {
			t.Errorf("at %v: ok = %v", c.x, outs[2])
		}
		oerr := ev.OutputErr()
		if c.want == "" && oerr != nil || c.want != "" && (oerr == nil || !strings.HasPrefix(oerr.Error(), c.want)) {
			t.Errorf("at %v: output error %v, want %q", c.x, oerr, c.want)
		}
	}
}

// quantile7 is the type-7 sample quantile of the sorted values at p,
// written out apart from the code it checks.
func quantile7(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := int(math.Floor(h))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}
