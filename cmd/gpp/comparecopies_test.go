package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// TestCompareCopies: gpp compare of a fit of q and a NUTS sample of one
// model (the same model_sha256, in fit.json and the sample's draws.csv
// header) and data ranks them but notes that their difference is the
// approximation's error and leaves the fit of q out of the weights (a
// criminologist's trial: stacking gave a flagged fit weight 1 and NUTS of
// its model 0); a fit of another model is weighed against the sample.
func TestCompareCopies(t *testing.T) {
	dir := t.TempDir()
	n := 10
	elpd := func(shift float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = -1 - 0.1*float64(i%3) + shift + 0.05*float64(i%2)*shift
		}
		return v
	}
	p, k := make([]float64, n), make([]float64, n)
	vi := looRows(t, filepath.Join(dir, "vi"), elpd(0.2), p, k)
	writeFile(t, vi, fitFileName, `{"format": "gpp-fit/1", "model": "m.gpp", "model_sha256": "aa", "data": ["y.csv"], "data_sha256": ["hy"], "files": ["fit.json", "loo.csv"]}`)
	nuts := looRows(t, filepath.Join(dir, "nuts"), elpd(0), p, k)
	writeFile(t, nuts, drawsFile, "# gpp_version = 0.1.0-dev\n# model = m2.gpp\n# model_sha256 = aa\n# method = sample (Default)\n# data\n#   file = y.csv\n#   file_sha256 = hy\nlp__,b\n0,1\n")
	other := looRows(t, filepath.Join(dir, "other"), elpd(-0.1), p, k)
	writeFile(t, other, fitFileName, `{"format": "gpp-fit/1", "model": "m.gpp", "model_sha256": "cc", "data": ["y.csv"], "data_sha256": ["hy"], "files": ["fit.json", "loo.csv"]}`)

	code, stdout, stderr := runSafe(t, "compare", vi, nuts, other)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{vi + " and " + nuts + " are fits of one model (m2.gpp) to the same data", "is the error of an approximation, not a difference between models; read " + nuts + "'s elpd_loo (NUTS's)", "so " + vi + " is left out of them"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "weighed once, "+vi+" (a copy of "+nuts+") left out.") {
		t.Errorf("no line naming the copy under the table:\n%s", stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		if len(f) < 7 || !strings.HasPrefix(f[0], dir) {
			continue
		}
		weighed := f[6] != "-"
		if want := f[0] != vi; weighed != want {
			t.Errorf("%s weighed %v, want %v:\n%s", f[0], weighed, want, stdout)
		}
	}
	// --csv's weights: the copy's NaN, the others' summing to 1
	weights := func(fits ...string) map[string]float64 {
		out := filepath.Join(dir, "cmp.csv")
		if code, _, stderr := runSafe(t, append([]string{"compare", "--csv", out}, fits...)...); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		w := map[string]float64{}
		for _, row := range reftest.ReadCSV(t, out)[1:] {
			v, err := strconv.ParseFloat(row[6], 64)
			if err != nil {
				t.Fatalf("weight %q: %v", row[6], err)
			}
			w[row[0]] = v
		}
		return w
	}
	w := weights(vi, nuts, other)
	if !math.IsNaN(w[vi]) || math.Abs(w[nuts]+w[other]-1) > 1e-9 {
		t.Errorf("weights %v, want %s's NaN and the others' summing to 1", w, vi)
	}
	// two copies alone: no weights (a lone weight 1 would read as decisive)
	code, stdout, stderr = runSafe(t, "compare", vi, nuts)
	if code != exitOK || strings.Contains(stdout, "1.000") || strings.Contains(stdout, "0.000") || !strings.Contains(stderr, "left out of them") {
		t.Errorf("two copies: exit %d\n%s%s", code, stdout, stderr)
	}
	if w := weights(vi, nuts); !math.IsNaN(w[vi]) || !math.IsNaN(w[nuts]) {
		t.Errorf("two copies: weights %v, want none", w)
	}
}

// TestCopyNotesWAIC: copies compared by WAIC are told apart by their
// p_waic_i flags, not a k̂, and get no PSIS note (as the note before
// copyNotes left K-fold and WAIC alone).
func TestCopyNotesWAIC(t *testing.T) {
	fit := func(label string, shift float64) *looFit {
		return &looFit{label: label, model: "m.gpp", data: []string{"y.csv"}, waic: true, elpd: []float64{-1 + shift, -2 + shift}}
	}
	a, b := fit("a", 0.5), fit("b", 0)
	ranks := []looRank{{fit: a, elpd: -2, badK: 2, nObserve: 2}, {fit: b, elpd: -3, badK: 1, nObserve: 2}}
	markCopies(ranks)
	notes := copyNotes(ranks)
	if len(notes) != 1 || !strings.Contains(notes[0], "read b's elpd_waic (with p_waic_i above 0.4 for 1 of 2 observations against 2)") ||
		strings.Contains(notes[0], "k̂") || strings.Contains(notes[0], "PSIS") {
		t.Errorf("WAIC copies: notes %q", notes)
	}
}
