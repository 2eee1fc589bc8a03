package pipeline_test

import (
	"math"
	"os"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// fitForms writes the simulated data csv to a file and fits each model
// (name → source) to it with the defaults and seed 1, returning their
// summaries by name.
func fitForms(t *testing.T, csv string, models map[string]string) map[string]map[string]refRow {
	t.Helper()
	dir := t.TempDir()
	dpath := dir + "/data.csv"
	if err := os.WriteFile(dpath, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	fits := map[string]map[string]refRow{}
	for name, src := range models {
		mpath := dir + "/" + name + ".gpp"
		if err := os.WriteFile(mpath, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		fits[name] = fitSummary(t, mpath, []string{dpath}, sgvb.Settings{Seed: 1})
	}
	return fits
}

// checkRecovered checks that the posterior mean of each param of fit lies
// within sdFromTruth posterior sds of its truth and, when other is not
// nil (the same model written another way), within sdFromOther sds of
// other's mean.
func checkRecovered(t *testing.T, label string, fit, other map[string]refRow, truth map[string]float64, sdFromTruth, sdFromOther float64) {
	t.Helper()
	for name, want := range truth {
		r := fit[name]
		t.Logf("%s %s: mean %.3f sd %.3f (truth %g)", label, name, r.mean, r.sd, want)
		if !(math.Abs(r.mean-want) < sdFromTruth*r.sd) {
			t.Errorf("%s %s: posterior mean %.3f is more than %v sds (%.3f) from the truth %g", label, name, r.mean, sdFromTruth, r.sd, want)
		}
		if other == nil {
			continue
		}
		o := other[name]
		t.Logf("%s %s: the other form's mean %.3f sd %.3f", label, name, o.mean, o.sd)
		if !(math.Abs(r.mean-o.mean) < sdFromOther*r.sd) {
			t.Errorf("%s %s: posterior mean %.3f is more than %v sd (%.3f) from the other form's %.3f", label, name, r.mean, sdFromOther, r.sd, o.mean)
		}
	}
}
