package main

import (
	"fmt"
	"math"
	"slices"
)

// sameModelData reports whether two compared fits are of one model (the
// same model text by its sha256 where both record it, else the same
// file, and the same --set values) and the same data (sameData), and of
// one kind of estimate (LOO, K-fold or WAIC): their elpd differ only by
// how well each approximates the one posterior.
func sameModelData(a, b *looFit) bool {
	if a.kfold != b.kfold || a.waic != b.waic || a.group != b.group || a.model == "" || b.model == "" || a.data == nil || b.data == nil {
		return false
	}
	same := baseModel(a.model) == baseModel(b.model)
	if a.modelSum != "" && b.modelSum != "" {
		same = a.modelSum == b.modelSum && a.sets == b.sets
	}
	return same && sameData(a.data, a.dataHash, b.data, b.dataHash)
}

// preferredCopy reports whether s is the fit of the one model to read
// over r: a NUTS sample over a fit of q, then the one with fewer
// observations flagged, then the one ranked first (at si < ri).
func preferredCopy(s, r looRank, si, ri int) bool {
	if s.fit.nuts != r.fit.nuts {
		return s.fit.nuts
	}
	if s.badK != r.badK {
		return s.badK < r.badK
	}
	return si < ri
}

// markCopies sets copyOf of each ranked fit that another of the same
// model and data (sameModelData) is preferred to (preferredCopy): the
// weights leave it out and copyNotes says why. A criminologist's trial
// ranked a flagged mean-field fit 55.6 ± 6.6 above NUTS of the same
// model, and stacking gave another such fit weight 1 and NUTS of its
// model 0: between copies of one model the difference is the
// approximation's error, and a weight means nothing.
func markCopies(ranks []looRank) {
	for ri := range ranks {
		best := -1
		for si := range ranks {
			if si == ri || !sameModelData(ranks[si].fit, ranks[ri].fit) {
				continue
			}
			if preferredCopy(ranks[si], ranks[ri], si, ri) && (best < 0 || preferredCopy(ranks[si], ranks[best], si, best)) {
				best = si
			}
		}
		if best >= 0 {
			ranks[ri].copyOf = ranks[best].fit.label
		}
	}
}

// hasCopies reports whether markCopies marked any of ranks a copy.
func hasCopies(ranks []looRank) bool {
	return slices.ContainsFunc(ranks, func(r looRank) bool { return r.copyOf != "" })
}

// copyNotes says of each fit markCopies marked that it and the fit it
// defers to are of one model and the same data: their difference is the
// approximation's error, not a difference between models, the preferred
// fit's estimate is the one to read, and weights between them mean
// nothing (the copy is left out of them). Where the copy's elpd is the
// higher with observations flagged, its PSIS estimate is the optimistic
// one (a mean-field q's typically is).
func copyNotes(ranks []looRank) []string {
	var notes []string
	for _, r := range ranks {
		if r.copyOf == "" {
			continue
		}
		var s looRank
		for _, x := range ranks {
			if x.fit.label == r.copyOf {
				s = x
			}
		}
		_, elpdName, _ := comparedEstimate([]looRank{r})
		diff, se := pairedDiff(r.fit.elpd, s.fit.elpd, make([]float64, len(r.fit.elpd)))
		flag := flaggedHead([]looRank{r}, "k̂ above 0.7", "p_waic_i above 0.4")
		how := "NUTS's"
		if !s.fit.nuts {
			how = fmt.Sprintf("with %s for %d of %d observations against %d", flag, s.badK, s.nObserve, r.badK)
			if s.badK == r.badK {
				how = "ranked first"
			}
		}
		note := fmt.Sprintf("%s and %s are fits of one model (%s) to the same data: their difference (%s's %s less %s's, %s ± %s) is the error of an approximation, not a difference between models; "+
			"read %s's %s (%s), and weights between copies of one model mean nothing, so %s is left out of them",
			r.fit.label, s.fit.label, baseModel(s.fit.model), r.fit.label, elpdName, s.fit.label, signedSum(diff), num1(se),
			s.fit.label, elpdName, how, r.fit.label)
		if r.badK > 0 && r.elpd > s.elpd && !r.fit.nuts && !r.fit.kfold && !r.fit.waic { // a PSIS-LOO estimate
			above := "above 0.7"
			if r.noK > 0 {
				above = "above 0.7 or not estimated"
			}
			note += fmt.Sprintf(" (%s's %s is the higher: with k̂ %s for %d of %d observations, its PSIS estimate is the optimistic one)", r.fit.label, elpdName, above, r.badK, r.nObserve)
		}
		notes = append(notes, note)
	}
	return notes
}

// signedSum writes an elpd difference with its sign, as "+55.6" or "-1.7".
func signedSum(v float64) string {
	if v >= 0 && !math.IsNaN(v) {
		return "+" + num1(v)
	}
	return num1(v)
}
