package sgvb

import "math"

// WAIC holds the widely applicable information criterion from S draws of
// each observation's log likelihood, as the loo package's waic computes it
// (Vehtari, Gelman and Gabry 2017): lppd_i = log (1/S) Σ_s exp(ll_is),
// p_waic_i the sample variance (S − 1 denominator) of ll_is over the
// draws, elpd_waic_i = lppd_i − p_waic_i. The draws are taken as equally
// weighted: from a q that misses the posterior this is q's WAIC, not the
// posterior's (PSIS-LOO's k̂ is the check).
type WAIC struct {
	ELPD, SE float64 // Σ_i elpd_waic_i and its standard error √n·sd(elpd_waic_i)
	P        float64 // p_waic = Σ_i p_waic_i
	Points   []WAICPoint
}

// WAICPoint is one observation's share of a WAIC.
type WAICPoint struct {
	ELPD, P float64 // elpd_waic_i and p_waic_i
}

// WAICHighP is the p_waic_i above which the loo package warns that WAIC
// is unreliable and recommends PSIS-LOO.
const WAICHighP = 0.4

// ComputeWAIC returns the WAIC of the draws logLik[i][s] (observation i,
// draw s). A draw's NaN makes its observation's estimate NaN, as in the
// loo package; fewer than two draws give p_waic_i NaN.
func ComputeWAIC(logLik [][]float64) *WAIC {
	w := &WAIC{Points: make([]WAICPoint, len(logLik))}
	for i, ll := range logLik {
		S := float64(len(ll))
		mean := 0.0
		for _, x := range ll {
			mean += x
		}
		mean /= S
		ss := 0.0
		for _, x := range ll {
			ss += (x - mean) * (x - mean)
		}
		lppd := logSumExp(ll) - math.Log(S) // NaN with a draw's NaN
		p := ss / (S - 1)
		if len(ll) < 2 {
			p = math.NaN()
		}
		w.Points[i] = WAICPoint{ELPD: lppd - p, P: p}
	}
	w.ELPD, w.P, w.SE = pointTotals(w.Points, func(p WAICPoint) (float64, float64) { return p.ELPD, p.P })
	if len(w.Points) < 2 {
		w.SE = math.NaN()
	}
	return w
}

// HighP counts the observations whose p_waic_i is above WAICHighP (or not
// a number), for which the loo package warns.
func (w *WAIC) HighP() int {
	n := 0
	for _, p := range w.Points {
		if !(p.P <= WAICHighP) {
			n++
		}
	}
	return n
}
