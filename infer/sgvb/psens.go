package sgvb

import (
	"math"
	"sort"
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
// end. Draws that are all equal are at distance 0.
func CJSDist(x, wp, wq []float64) float64 {
	return CJSDists(x, wp, [][]float64{wq})[0]
}

// CJSDists returns CJSDist(x, wp, wq) for each wq of wqs, sorting x once.
func CJSDists(x, wp []float64, wqs [][]float64) []float64 {
	out := make([]float64, len(wqs))
	n := len(x)
	if n < 2 {
		return out
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	// gap[k] = x_(k+1) − x_(k); p and q the weights in sorted order
	buf := make([]float64, 3*n)
	gap, p, q := buf[:n-1], buf[n:2*n], buf[2*n:]
	for k := range n - 1 {
		gap[k] = x[idx[k+1]] - x[idx[k]]
	}
	for k, i := range idx {
		p[k] = 1
		if wp != nil {
			p[k] = wp[i]
		}
	}
	for j, wq := range wqs {
		for k, i := range idx {
			q[k] = 1
			if wq != nil {
				q[k] = wq[i]
			}
		}
		out[j] = max(cjsSorted(gap, p, q, false), cjsSorted(gap, p, q, true))
	}
	return out
}

// cjsSorted is the signed distance of CJSDist from the weights p and q of
// the sorted draws, whose gaps are gap: the ECDFs accumulated from the
// smallest draw, or from the largest (down, the draws −x).
func cjsSorted(gap, p, q []float64, down bool) float64 {
	n := len(p)
	sp, sq := 0.0, 0.0
	for k := range n {
		sp += p[k]
		sq += q[k]
	}
	var P, Q, pInt, qInt, pq, qp float64
	for j := range n - 1 {
		k, d := j, gap[j]
		if down {
			k, d = n-1-j, gap[n-2-j]
		}
		P += p[k] / sp
		Q += q[k] / sq
		pInt += d * P
		qInt += d * Q
		lm := math.Log2(0.5*P + 0.5*Q)
		if P > 0 {
			pq += d * P * (math.Log2(P) - lm)
		}
		if Q > 0 {
			qp += d * Q * (math.Log2(Q) - lm)
		}
	}
	bound := pInt + qInt
	if !(bound > 0) {
		return 0
	}
	pq += 0.5 / math.Ln2 * (qInt - pInt)
	qp += 0.5 / math.Ln2 * (pInt - qInt)
	return math.Sqrt(max(0, (pq+qp)/bound))
}

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
// weights of S draws are unreliable: min(1 − 1/log₁₀ S, 0.7), as
// priorsense's default k_threshold (the sample-size-dependent threshold
// of Vehtari et al.'s PSIS).
func PowerScaleKThreshold(S int) float64 {
	return math.Min(1-1/math.Log10(float64(S)), 0.7)
}

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
