package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
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
// coordinates are "z coordinate k"; an ordered param's are its first
// element x[0] (log x[0] for a positive_ordered one), then the log gaps
// log(x[k] - x[k-1]) (sgvb's parts of an ordered latent), which are not its
// elements: a trial's mixture read "m1[0] moves with m1[1] (correlation
// −0.92)" where NUTS's corr(m1[0], m1[1]) is +0.19, the −0.92 being
// m1[0]'s with log(m1[1] − m1[0]). ok is false for other supports, whose
// coordinate k is element k (a simplex's, mean-field, the log of its
// element's gamma weight). An ordered param's elements are named by
// elemName (latentNamer, compile.ElemName) of its shape, so a labelled
// axis reads as in the tables: "log(c[mid] - c[low])". A matrix's entries
// are numbered: its shape here is its coordinates', [K(K−1)/2]. An
// ordered[G, K] param's coordinates are its G firsts, then its rows' log
// gaps (dist.OrderedRowIndex).
func transformCoord(name string, shape []int, s dist.Support, k int, elemName func(string, []int, int) string) (elem, scale string, ok bool) {
	switch {
	case s.IsOrdered():
		g, kk := 1, 0 // an ordered[G, K] param's rows: coordinate k is row r's (dist.OrderedRowIndex)
		if len(shape) == 2 {
			g, kk = shape[0], shape[1]
		}
		r, c := 0, k
		if g > 1 {
			r, c = dist.OrderedRowIndex(k, g, kk, s == dist.PositiveOrdered)
		}
		at := r*kk + c
		if c == 0 {
			if s == dist.PositiveOrdered {
				scale = "log"
			}
			return elemName(name, shape, at), scale, true
		}
		return elemName(name, shape, at) + " - " + elemName(name, shape, at-1), "log", true
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

// coordLabel writes a coordinate that transformCoord names as elem with
// scale as one name: "atanh L[1, 0]", "log(m1[1] - m1[0])" (a difference
// in parentheses), elem alone where scale is "".
func coordLabel(elem, scale string) string {
	switch {
	case scale == "":
		return elem
	case strings.Contains(elem, " - "):
		return scale + "(" + elem + ")"
	}
	return scale + " " + elem
}

// sumToZeroNote returns, for a message msg that names a coordinate of a
// sum-to-zero param of r ("bz coordinate 7", as transformCoord names it),
// a clause that says once what the first such coordinate is: one of the
// param's free coordinates, not an element, and for a vector which
// contrast of the elements it is, coordinate k being
// √((k+1)/(k+2))·(mean(z[:k+1]) − z[k+1]) (dist.SumToZeroCoords); "" where
// msg names none. A Lee–Carter trial's hint read "bz coordinate 7's …
// sds are about 2.7× too small … bz coordinate 7 moves with a[8]", which
// says nothing to a user who declared bz[0] … bz[19].
func sumToZeroNote(msg string, r *sgvb.Result) string {
	if r == nil {
		return ""
	}
	at, note := -1, ""
	for _, f := range r.Factors {
		if !f.Support.IsSumToZero() {
			continue
		}
		head := f.Name + " coordinate "
		i := strings.Index(msg, head)
		for i > 0 && !labelStart(msg, i) {
			j := strings.Index(msg[i+1:], head)
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		if i < 0 || at >= 0 && i > at {
			continue
		}
		digits := msg[i+len(head):]
		n := 0
		for n < len(digits) && digits[n] >= '0' && digits[n] <= '9' {
			n++
		}
		k, err := strconv.Atoi(digits[:n])
		if err != nil || k >= f.Size {
			continue
		}
		at = i
		if f.Support == dist.SumToZero {
			note = fmt.Sprintf("%s%d is one of the %d free coordinates of the sum_to_zero_vector %s, not its element %d: it moves as mean(%s[:%d]) − %s[%d] (docs/language.md, Sum-to-zero vectors)",
				head, k, f.Size, f.Name, k, f.Name, k+1, f.Name, k+1)
		} else {
			note = fmt.Sprintf("%s%d is one of the %d free coordinates of the sum_to_zero_matrix %s, not an element (docs/language.md, Sum-to-zero vectors)",
				head, k, f.Size, f.Name)
		}
	}
	if note == "" {
		return ""
	}
	return "; " + note
}

// labelStart reports whether msg[i:] starts a name: msg[i-1] is no part
// of one ("xbz coordinate 1" names no coordinate of bz).
func labelStart(msg string, i int) bool {
	return !isWordByte(msg[i-1])
}
