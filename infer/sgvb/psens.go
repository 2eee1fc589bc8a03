package sgvb

import (
	"cmp"
	"math"
	"slices"
)

// Power-scaling sensitivity (Kallioinen, Paananen, Bürkner and Vehtari,
// "Detecting and diagnosing prior and likelihood sensitivity with
// power-scaling", Statistics and Computing 34, 2024; the R package
// priorsense's powerscale_sensitivity): the prior (or the likelihood) of a
// posterior raised to a power α near 1 reweights the posterior's draws by
// exp((α−1)·log p), and how far each variable's distribution moves, per
// unit of log₂ α, measures how sensitive it is to that part of the model.

// Power-scaling defaults: priorsense's lower_alpha and upper_alpha.
const (
	PowerScaleLower = 0.99
	PowerScaleUpper = 1.01
)

// CJSDist returns priorsense's cumulative Jensen–Shannon distance
// (cjs_dist, Nguyen and Vreeken 2015) between the distribution of the
// draws x under weights wp and under weights wq (nil: equal weights; any
// other non-negative weights, normalised here). With P and Q the two
// weighted ECDFs at the sorted draws x_(1) < … < x_(S−1) (the last, where
// both are 1, left out) and Δ_i = x_(i+1) − x_(i),
//
//	CJS(P‖Q) = Σ Δ_i P_i log₂(P_i / ((P_i + Q_i)/2)) + (Σ Δ_i Q_i − Σ Δ_i P_i)/(2 ln 2),
//
// (a term with P_i = 0 is 0), and the distance is
// √((CJS(P‖Q) + CJS(Q‖P)) / (Σ Δ_i P_i + Σ Δ_i Q_i)), the sum normalised
// by its upper bound. As priorsense's default (unsigned), it is the larger
// of the distances of x and of −x, whose ECDFs accumulate from the other
// end. Draws that are all equal are at distance 0; weights that sum to 0
// (or are NaN) give NaN.
func CJSDist(x, wp, wq []float64) float64 {
	return CJSDists(x, wp, [][]float64{wq})[0]
}

// CJSDists returns CJSDist(x, wp, wq) for each wq of wqs, sorting x once:
// the sort, the gaps and the base's ECDFs (both ways) serve every wq.
func CJSDists(x, wp []float64, wqs [][]float64) []float64 {
	out := make([]float64, len(wqs))
	n := len(x)
	if n < 2 {
		return out
	}
	ord := make([]sortedDraw, n)
	for i, v := range x {
		ord[i] = sortedDraw{v, i}
	}
	// by value, ties by index: the order (and so every sum) is the same
	// whatever the sort does with equal keys
	slices.SortFunc(ord, func(a, b sortedDraw) int {
		if c := cmp.Compare(a.x, b.x); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	// gap[k] = x_(k+1) − x_(k); pUp[j] and pDown[j] the base's ECDF after
	// j+1 draws from the smallest and from the largest
	buf := make([]float64, 4*n)
	gap, pUp, pDown, q := buf[:n-1], buf[n:2*n], buf[2*n:3*n], buf[3*n:]
	for k := range n - 1 {
		gap[k] = ord[k+1].x - ord[k].x
	}
	weight := func(w []float64, i int) float64 {
		if w == nil {
			return 1
		}
		return w[i]
	}
	sp := 0.0
	for _, o := range ord {
		sp += weight(wp, o.i)
	}
	var P, pIntUp, pIntDown float64
	for k, o := range ord {
		P += weight(wp, o.i) / sp
		pUp[k] = P
	}
	P = 0
	for j := range n {
		P += weight(wp, ord[n-1-j].i) / sp
		pDown[j] = P
	}
	for j := range n - 1 {
		pIntUp += gap[j] * pUp[j]
		pIntDown += gap[n-2-j] * pDown[j]
	}
	for j, wq := range wqs {
		sq := 0.0
		for k, o := range ord {
			q[k] = weight(wq, o.i)
			sq += q[k]
		}
		var Q, jsUp, qIntUp, jsDown, qIntDown float64
		for k := range n - 1 {
			Q += q[k] / sq
			qIntUp += gap[k] * Q
			jsUp += gap[k] * jsPoint(pUp[k], Q)
		}
		Q = 0
		for i := range n - 1 {
			d := gap[n-2-i]
			Q += q[n-1-i] / sq
			qIntDown += d * Q
			jsDown += d * jsPoint(pDown[i], Q)
		}
		out[j] = max(jsDist(jsUp, pIntUp+qIntUp), jsDist(jsDown, pIntDown+qIntDown))
	}
	return out
}

// sortedDraw is a draw and its index, sorted by CJSDists.
type sortedDraw struct {
	x float64
	i int
}

// jsDist is the distance of CJSDist from Σ Δ_i js(P_i, Q_i) (jsPoint) and
// its bound Σ Δ_i (P_i + Q_i). The sum is CJS(P‖Q) + CJS(Q‖P) in nats:
// their terms (Σ Δ_i Q_i − Σ Δ_i P_i)/(2 ln 2) cancel. A NaN bound (a
// weighting with no positive weight, which priorsense's cjs_dist gives NA)
// is NaN; a bound of 0 (draws all equal) is at distance 0.
func jsDist(js, bound float64) float64 {
	if math.IsNaN(bound) {
		return math.NaN()
	}
	if !(bound > 0) {
		return 0
	}
	return math.Sqrt(max(0, js/math.Ln2/bound))
}

// jsPoint is P ln(P/M) + Q ln(Q/M), M = (P + Q)/2, written as
// (P+Q)/2 · f(u) with u = (Q − P)/(P + Q) and
// f(u) = (1−u) ln(1−u) + (1+u) ln(1+u): for the small u of power-scaling
// weights, f's series Σ u^2k / (k(2k−1)) needs no logarithm and loses
// nothing to the cancellation of the two logs.
func jsPoint(P, Q float64) float64 {
	s := P + Q
	if !(s > 0) {
		return 0
	}
	u := (Q - P) / s
	var f float64
	if a := math.Abs(u); a <= jsSeriesMax {
		u2 := u * u
		// Horner over the 9 terms, u2^9/153 < 1e-18 relative
		for k := len(jsSeries) - 1; k >= 0; k-- {
			f = (f + jsSeries[k]) * u2
		}
	} else {
		if a < 1 {
			f = (1 - a) * math.Log1p(-a)
		}
		f += (1 + a) * math.Log1p(a)
	}
	return 0.5 * s * f
}

// jsSeries are the coefficients 1/(k(2k−1)) of f's series, k = 1 … 9.
var jsSeries = [9]float64{1, 1.0 / 6, 1.0 / 15, 1.0 / 28, 1.0 / 45, 1.0 / 66, 1.0 / 91, 1.0 / 120, 1.0 / 153}

// jsSeriesMax is the largest |u| that jsPoint sums f's series for: u² ≤
// 0.01, so 9 terms leave less than 1e-18 of f.
const jsSeriesMax = 0.1

// PowerScaleSensitivity combines the distances dLower and dUpper of the
// posterior power-scaled by PowerScaleLower and PowerScaleUpper from the
// base into priorsense's sensitivity, a derivative with respect to
// log₂ α: (dLower + dUpper) / (2 log₂ PowerScaleUpper), as its
// powerscale_divergence_gradients computes it (the mean of the two
// distances over the upper step, the lower's |log₂ 0.99| differing from
// log₂ 1.01 by 1 %).
func PowerScaleSensitivity(dLower, dUpper float64) float64 {
	return (dLower + dUpper) / (2 * math.Log2(PowerScaleUpper))
}

// PowerScaleKThreshold is the Pareto k̂ above which power-scaling
// weights of S draws are unreliable: priorsense's default k_threshold,
// PSIS's sample-size-dependent threshold that moment matching also
// adapts above (MMThreshold).
func PowerScaleKThreshold(S int) float64 { return MMThreshold(S) }

// PowerScaleDiagnosis is priorsense's reading of a variable's prior and
// likelihood sensitivities against threshold: both at least threshold,
// "potential prior-data conflict"; the prior above it and the likelihood
// below, "potential strong prior / weak likelihood"; else "-".
func PowerScaleDiagnosis(prior, lik, threshold float64) string {
	switch {
	case prior >= threshold && lik >= threshold:
		return "potential prior-data conflict"
	case prior > threshold && lik < threshold:
		return "potential strong prior / weak likelihood"
	}
	return "-"
}

// Mode returns the most frequent value of x (the smallest of those tied),
// how many draws hold it and how many distinct values x has.
func Mode(x []float64) (mode float64, most, distinct int) {
	count := map[float64]int{}
	for _, v := range x {
		count[v]++
		if c := count[v]; c > most || c == most && v < mode {
			mode, most = v, c
		}
	}
	return mode, most, len(count)
}

// PointMassNoise is how far a variable whose draws x sit mostly on one
// value (a 0/1 indicator P(mu > 0) near 0 or 1, an output nearly
// constant) could read sensitive by Monte Carlo error alone, in the
// units of PowerScaleSensitivity: power-scaling by α moves weight between
// the k draws off the most frequent value and the rest in proportion to
// the difference of comp's mean (the log prior or likelihood) between
// them, which k draws estimate with standard error
// sd(comp)·√(1/k − 1/S). It returns the sensitivity of a difference of
// twice that, and the weighted counts k and S (Kish's effective sizes
// under the weights w, nil for equal). Where the most frequent value
// holds fewer than half of the draws, or all of them, there is no
// point mass to read and it returns 0.
func PointMassNoise(x, w, comp []float64) (noise, k, S float64) {
	n := len(x)
	if n < 2 {
		return 0, 0, 0
	}
	mode, most, _ := Mode(x)
	if most == n || 2*most <= n {
		return 0, 0, 0
	}
	weight := func(i int) float64 {
		if w == nil {
			return 1
		}
		return w[i]
	}
	var sw, sw2, kw, kw2, mean float64
	for i, v := range x {
		wi := weight(i)
		sw += wi
		sw2 += wi * wi
		mean += wi * comp[i]
		if v != mode {
			kw += wi
			kw2 += wi * wi
		}
	}
	if !(sw > 0) || !(kw > 0) {
		return 0, 0, 0
	}
	mean /= sw
	var ss float64
	for i := range x {
		d := comp[i] - mean
		ss += weight(i) * d * d
	}
	k, S = kw*kw/kw2, sw*sw/sw2
	sd := math.Sqrt(ss / sw)
	// the relative change of the off-mode weight at α = 1.01 of a
	// difference of twice the standard error
	delta := 2 * math.Log(PowerScaleUpper) * sd * math.Sqrt(max(0, 1/k-1/S))
	if !(delta > 0) {
		return 0, k, S
	}
	wq := make([]float64, n)
	for i, v := range x {
		wq[i] = weight(i)
		if v != mode {
			wq[i] *= 1 + delta
		}
	}
	d := CJSDists(x, w, [][]float64{wq})[0]
	return PowerScaleSensitivity(d, d), k, S
}
