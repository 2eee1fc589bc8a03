package dist

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// wienerValTol bounds Wiener's density against mpmath relative to the
// density: |Δ log p|, however small p; wienerGradTol its partials
// relative to max(1, |partial|).
const (
	wienerValTol  = 1e-12
	wienerGradTol = 1e-12
)

// wienerRow is a row of testdata/wiener.json (wiener.py).
type wienerRow struct {
	Y, Alpha, Tau, Beta, Delta float64
	Lp, Dy                     float64
	Dp                         []float64
}

// TestWienerReference checks the log density and its partials in the
// value and the four parameters against 50-digit mpmath over 551 points:
// standardised times t = (y − τ)/α² from 0.001 to 8 (either side of the
// switch between the small- and large-time series at ½), β from 0.001 to
// 0.999, δ from −5 to 5 and α from 0.5 to 3, and extremes (y − τ = 1e-10,
// α = 10, |δ| = 20, β = 1e-9 and 1 − 1e-9, where the unpaired small-time
// partials lost 8 digits): the density within 1e-12 of its value however
// small (down to e^−961 here; e^−1.25e9 at y − τ = 1e-10).
func TestWienerReference(t *testing.T) {
	b, err := os.ReadFile("testdata/wiener.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []wienerRow
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 500 {
		t.Fatalf("%d rows", len(rows))
	}
	var worst, worstGrad float64
	for _, r := range rows {
		d := Wiener{r.Alpha, r.Tau, r.Beta, r.Delta}
		lp := d.LogProb(r.Y)
		e := math.Abs(lp - r.Lp)
		worst = max(worst, e)
		if e > wienerValTol {
			t.Errorf("%+v: log density %.17g, mpmath %.17g", r, lp, r.Lp)
		}
		got := append([]float64{d.ScoreInput(r.Y)}, d.Score(nil, r.Y)...)
		want := append([]float64{r.Dy}, r.Dp...)
		for i := range got {
			e := math.Abs(got[i]-want[i]) / max(1, math.Abs(want[i]))
			worstGrad = max(worstGrad, e)
			if e > wienerGradTol {
				t.Errorf("%+v: partial %d = %.15g, mpmath %.15g", r, i, got[i], want[i])
			}
		}
	}
	t.Logf("worst relative error of the density %.3g, of a partial %.3g", worst, worstGrad)
}

// TestWienerPartialsFD checks the partials against central differences
// on both sides of the series switch and near the boundaries of β.
func TestWienerPartialsFD(t *testing.T) {
	for _, c := range [][5]float64{
		{0.41, 1.1, 0.4, 0.5, 1.2}, {0.9, 1.1, 0.3, 0.02, -2}, {2.5, 0.7, 0.2, 0.97, 3},
		{0.6, 2, 0.35, 0.6, -0.5}, {4, 1.5, 0, 0.3, 0.7},
	} {
		y := c[0]
		p := c[1:]
		d := Wiener{p[0], p[1], p[2], p[3]}
		got := d.Score(nil, y)
		want := fd.Gradient(nil, func(q []float64) float64 {
			return Wiener{q[0], q[1], q[2], q[3]}.LogProb(y)
		}, p, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		wantY := fd.Derivative(d.LogProb, y, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		got = append(got, d.ScoreInput(y))
		want = append(want, wantY)
		for i := range got {
			if math.Abs(got[i]-want[i]) > partialTol*max(1, math.Abs(want[i])) {
				t.Errorf("%v: partial %d = %.10g, finite difference %.10g", c, i, got[i], want[i])
			}
		}
	}
}

// TestWienerOutside: at or below τ the density is 0 (−Inf, zero
// partials); invalid parameters give NaN.
func TestWienerOutside(t *testing.T) {
	d := Wiener{1, 0.3, 0.5, 1}
	for _, y := range []float64{0.3, 0.1, -1, math.Inf(1)} {
		if lp := d.LogProb(y); !math.IsInf(lp, -1) {
			t.Errorf("y=%g: %g, want -Inf", y, lp)
		}
	}
	for _, bad := range []Wiener{{0, 0.3, 0.5, 1}, {1, -0.1, 0.5, 1}, {1, 0.3, 0, 1}, {1, 0.3, 1, 1}, {1, 0.3, 0.5, math.NaN()}} {
		if lp := bad.LogProb(1); !math.IsNaN(lp) {
			t.Errorf("%+v: %g, want NaN", bad, lp)
		}
	}
}
