package main

import (
	"fmt"

	"github.com/gpplang/gpp/dist"
)

// transformCoord names coordinate k of a param of support s whose
// coordinates are not its elements (a correlation or covariance factor's,
// a sum-to-zero param's), as every message that names unconstrained
// coordinates does (the mean-field and unsettled hints, the flat
// direction, gpp diagnose, gpp logprob, the REPL's :show): the element
// whose value the coordinate moves, and the transform (scale) by which it
// does. A cholesky_factor_corr's coordinate (i, j) is atanh of the partial
// correlation of i and j given 0 … j−1, which for j = 0 is the entry
// itself: "L[1, 0]", scale "atanh", and "pcor L[2, 1]" past the first
// column (a corr_matrix's likewise, of Ω's entries); a cholesky_factor_cov's
// is L[i, j] below the diagonal and log L[i, i] on it (a cov_matrix's of
// its factor, "chol Σ[i, j]"); a sum-to-zero param's K − 1 isometric
// coordinates are "z coordinate k". ok is false for other supports, whose
// coordinate k is element k.
func transformCoord(name string, s dist.Support, k int) (elem, scale string, ok bool) {
	switch {
	case s.IsCorr():
		i, j := dist.CholCorrEntry(k)
		elem = fmt.Sprintf("%s[%d, %d]", name, i, j)
		if j > 0 {
			elem = "pcor " + elem
		}
		return elem, "atanh", true
	case s.IsCov():
		i, j := dist.CholCovEntry(k)
		elem = fmt.Sprintf("%s[%d, %d]", name, i, j)
		if s == dist.CovMatrix {
			elem = "chol " + elem
		}
		if i == j {
			scale = "log"
		}
		return elem, scale, true
	case s.IsSumToZero():
		return fmt.Sprintf("%s coordinate %d", name, k), "", true
	}
	return "", "", false
}
