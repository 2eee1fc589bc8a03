package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gpplang/gpp/experiments/epm"
	"github.com/gpplang/gpp/internal/shareddata"
)

// TestFootballAUC fits the football example exactly as examples/README.md
// says (gpp fit … --set N=115 --gamma-param softplus, seed 1) and checks the
// link-prediction AUC the README states for it, scored as
// `gpp-experiments football-auc` scores it: against the truth of the held-out
// pairs rebuilt from the shared football network (skipped without it).
func TestFootballAUC(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10 s fit; skipped with -short")
	}
	dir := filepath.Dir(shareddata.Path(t, "networks", "index.csv"))
	ex := "../../examples/"
	out := t.TempDir()
	code, stdout, stderr := runSafe(t, "fit", ex+"epm.gpp", "links="+ex+"football_train.csv",
		"unknown="+ex+"football_heldout.csv", "--set", "N=115", "--gamma-param", "softplus",
		"--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	sc, err := epm.ScoreFootball(out, ex+"football_heldout.csv", dir)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Pairs != 1311 || sc.Links != 118 {
		t.Errorf("%d held-out pairs with %d games; the README says 1311 and 118", sc.Pairs, sc.Links)
	}
	// examples/README.md: "AUC-ROC 0.798" (this split, seed 1).
	if got := fmt.Sprintf("%.3f", sc.AUCROC); got != "0.798" {
		t.Errorf("AUC-ROC %s (%.6f); examples/README.md states 0.798", got, sc.AUCROC)
	}
	t.Logf("AUC-ROC %.6f, AUC-PR %.6f", sc.AUCROC, sc.AUCPR)
}
