package sgvb

import (
	"math"
	"testing"
)

// TestWAICHand: WAIC of two observations of two draws against the loo
// package's formulas worked by hand: likelihoods 1 and 3 give lppd log 2
// and p_waic (log 3)²/2 (the sample variance of 0 and log 3); a constant
// −1 gives lppd −1, p_waic 0; the se of two is |elpd_1 − elpd_2|.
func TestWAICHand(t *testing.T) {
	w := ComputeWAIC([][]float64{{0, math.Log(3)}, {-1, -1}})
	l3 := math.Log(3)
	e1, e2 := math.Log(2)-l3*l3/2, -1.0
	want := []WAICPoint{{ELPD: e1, P: l3 * l3 / 2}, {ELPD: e2, P: 0}}
	close := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-14 {
			t.Errorf("%s = %.17g, want %.17g", what, got, want)
		}
	}
	for i, p := range w.Points {
		close("elpd_waic", p.ELPD, want[i].ELPD)
		close("p_waic", p.P, want[i].P)
	}
	close("ELPD", w.ELPD, e1+e2)
	close("P", w.P, l3*l3/2)
	close("SE", w.SE, math.Abs(e1-e2))
	if got := w.HighP(); got != 1 { // (log 3)²/2 = 0.60 > 0.4
		t.Errorf("HighP = %d, want 1", got)
	}
}

// TestWAICNaN: a draw's NaN log likelihood makes its observation's
// elpd_waic NaN, as in the loo package, and leaves the others'; it counts
// among HighP's.
func TestWAICNaN(t *testing.T) {
	w := ComputeWAIC([][]float64{{0, math.NaN()}, {-2, -2}})
	if !math.IsNaN(w.Points[0].ELPD) || w.Points[1].ELPD != -2 || w.HighP() != 1 {
		t.Errorf("points %v, HighP %d: want NaN, -2 and 1", w.Points, w.HighP())
	}
}
