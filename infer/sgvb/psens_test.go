package sgvb

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// psensTol is the relative tolerance of CJSDist and the sensitivity
// against the mpmath transcription of priorsense (testdata/psens.py):
// float64 sums of up to 200 terms.
const psensTol = 1e-11

type psensRef struct {
	CJS []struct {
		X, Wp, Wq []float64
		CJS       float64
	}
	Powerscale []struct {
		X, C                      []float64
		Lower, Upper, Sensitivity float64
	}
}

func readPsensRef(t *testing.T) *psensRef {
	t.Helper()
	b, err := os.ReadFile("testdata/psens.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref psensRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.CJS) == 0 || len(ref.Powerscale) == 0 {
		t.Fatal("testdata/psens.json holds no cases")
	}
	return &ref
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300) }

// TestCJSDistReference: CJSDist against priorsense's cjs_dist (ties,
// zero weights, weighted bases).
func TestCJSDistReference(t *testing.T) {
	for i, c := range readPsensRef(t).CJS {
		if got := CJSDist(c.X, c.Wp, c.Wq); relErr(got, c.CJS) > psensTol {
			t.Errorf("case %d: CJSDist = %.15g, priorsense %.15g", i, got, c.CJS)
		}
	}
}

// TestPowerScaleReference: the distances of draws reweighted by
// exp((α − 1)·c) at α = 0.99 and 1.01, and the sensitivity from them.
func TestPowerScaleReference(t *testing.T) {
	for i, c := range readPsensRef(t).Powerscale {
		var d [2]float64
		for j, alpha := range []float64{PowerScaleLower, PowerScaleUpper} {
			w := make([]float64, len(c.C))
			for s, v := range c.C {
				w[s] = math.Exp((alpha - 1) * v)
			}
			d[j] = CJSDist(c.X, nil, w)
		}
		if relErr(d[0], c.Lower) > psensTol || relErr(d[1], c.Upper) > psensTol {
			t.Errorf("case %d: distances %.15g, %.15g; priorsense %.15g, %.15g", i, d[0], d[1], c.Lower, c.Upper)
		}
		if got := PowerScaleSensitivity(d[0], d[1]); relErr(got, c.Sensitivity) > psensTol {
			t.Errorf("case %d: sensitivity %.15g, priorsense %.15g", i, got, c.Sensitivity)
		}
	}
}

// TestCJSDistEdges: equal weightings are at distance 0, as are draws
// that are all equal; the distance is symmetric in the two weightings
// and unchanged by scaling either.
func TestCJSDistEdges(t *testing.T) {
	x := []float64{0.3, -1, 2, 0.5, 0.1}
	w := []float64{1, 2, 0.5, 1, 3}
	if d := CJSDist(x, w, w); d != 0 {
		t.Errorf("same weights: %g, want 0", d)
	}
	if d := CJSDist([]float64{2, 2, 2}, nil, []float64{1, 5, 2}); d != 0 {
		t.Errorf("equal draws: %g, want 0", d)
	}
	w2 := []float64{2, 4, 1, 2, 6}
	if d := CJSDist(x, nil, w2); relErr(d, CJSDist(x, w2, nil)) > 1e-14 || relErr(d, CJSDist(x, nil, w)) > 1e-14 {
		t.Errorf("CJSDist not symmetric or not scale-free: %g, %g, %g", d, CJSDist(x, w2, nil), CJSDist(x, nil, w))
	}
}

func TestPowerScaleDiagnosis(t *testing.T) {
	for _, c := range []struct {
		prior, lik float64
		want       string
	}{
		{0.01, 0.2, "-"},
		{0.2, 0.3, "potential prior-data conflict"},
		{0.05, 0.05, "potential prior-data conflict"},
		{0.2, 0.01, "potential strong prior / weak likelihood"},
		{0.05, 0.01, "-"}, // priorsense: prior > threshold for this reading
		{0.01, 0.01, "-"},
	} {
		if got := PowerScaleDiagnosis(c.prior, c.lik, 0.05); got != c.want {
			t.Errorf("PowerScaleDiagnosis(%g, %g) = %q, want %q", c.prior, c.lik, got, c.want)
		}
	}
	if k := PowerScaleKThreshold(1000); math.Abs(k-2.0/3) > 1e-15 {
		t.Errorf("k threshold for 1000 draws: %g, want 2/3", k)
	}
	if k := PowerScaleKThreshold(100000); k != 0.7 {
		t.Errorf("k threshold for 1e5 draws: %g, want 0.7", k)
	}
}

// BenchmarkCJSDists: one element's four distances over 4000 draws, as gpp
// sensitivity computes them for a sample of 4 chains × 1000.
func BenchmarkCJSDists(b *testing.B) {
	const S = 4000
	x := make([]float64, S)
	ws := make([][]float64, 4)
	for i := range ws {
		ws[i] = make([]float64, S)
	}
	for s := range x {
		x[s] = math.Sin(float64(s) * 0.7)
		for i := range ws {
			ws[i][s] = math.Exp(0.01 * float64(i+1) * x[s])
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		CJSDists(x, nil, ws)
	}
}
