package epm

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

// Overlap compares two fits of the same data.
type Overlap struct {
	A, B int // indices of the fits
	// Active is the number of active communities of fit A (see
	// activeCommunities); Matched how many of them have a community of B
	// with cosine similarity ≥ MatchCosine, and BestCosine the mean over
	// them of the best cosine with any active community of B. A community
	// c is the vector √r_c · W[·, c] of posterior means, so the cosine does
	// not depend on how a fit shares the scale between r and W.
	Active, Matched int
	BestCosine      float64
	// PredCorr is the correlation of the two fits' predictions p_unknown.
	PredCorr float64
}

// MatchCosine is the cosine similarity above which two communities count
// as the same.
const MatchCosine = 0.9

// CommunityOverlap compares every pair of fits (A < B) of the EPM with k
// communities on n nodes: whether they keep the same communities, and how
// closely their predictions agree. Fits without W and r are skipped.
func CommunityOverlap(fits []*FitResult, n, k int) []Overlap {
	comms := make([][][]float64, len(fits))
	for f, fr := range fits {
		wf, rf := fr.Result.Factor("W"), fr.Result.Factor("r")
		if wf == nil || rf == nil {
			continue
		}
		W, r := wf.Mean(), rf.Mean()
		for _, c := range activeCommunities(W, r, n, k) {
			v := make([]float64, n)
			for i := range v {
				v[i] = math.Sqrt(r[c]) * W[i*k+c]
			}
			comms[f] = append(comms[f], v)
		}
	}
	var out []Overlap
	for a := range fits {
		for b := a + 1; b < len(fits); b++ {
			if comms[a] == nil || comms[b] == nil {
				continue
			}
			o := Overlap{A: a, B: b, Active: len(comms[a]), PredCorr: stat.Correlation(fits[a].P, fits[b].P, nil)}
			for _, u := range comms[a] {
				best := 0.0
				for _, v := range comms[b] {
					best = math.Max(best, floats.Dot(u, v)/(floats.Norm(u, 2)*floats.Norm(v, 2)))
				}
				o.BestCosine += best / float64(len(comms[a]))
				if best >= MatchCosine {
					o.Matched++
				}
			}
			out = append(out, o)
		}
	}
	return out
}
