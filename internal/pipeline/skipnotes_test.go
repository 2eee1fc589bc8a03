package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSkippedMissingNotes: a NONMEM-style DV, empty on its two dose rows
// (read by no statement that runs, so left out: compile.Model.Skipped)
// and on one observation row (fitted), gets a missing-value note that
// counts only the fitted cell and a note naming the two left out.
func TestSkippedMissingNotes(t *testing.T) {
	dir := t.TempDir()
	model, dat := filepath.Join(dir, "m.gpp"), filepath.Join(dir, "d.csv")
	src := `data EVID: int[N]
data T: real[N]
data DV: real[N]
param k: positive ~ Gamma(2, 2)
param s: positive ~ Gamma(2, 2)
for n in 0:N {
  if EVID[n] == 0 {
    DV[n] ~ Normal(exp(-k * T[n]), s)
  }
}
`
	csv := "EVID,T,DV\n1,0,\n0,1,0.8\n0,2,\n0,3,0.3\n1,0,\n0,1,0.7\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dat, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(model, []string{dat}, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(l.Notes, "\n")
	for _, want := range []string{
		"DV: 1 missing value (" + dat + " line 4) is fitted as the latent DV_missing",
		"DV: 2 missing values (" + dat + " lines 2, 6) are read by no statement that runs",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}
