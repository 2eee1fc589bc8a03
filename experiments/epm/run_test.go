package epm

import (
	"context"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
	"github.com/gpplang/gpp/internal/shareddata"
)

// TestRunQuick runs experiment 1 with the Quick settings (1 split, K = 5,
// 200 iterations) on the real NIPS234 network and checks that the outputs
// exist and parse and that every AUC is a number in [0, 1]. No goal is
// asserted: goals are reported by the full run.
func TestRunQuick(t *testing.T) {
	dir := networksDir(t)
	out := t.TempDir()
	rep, err := Run(context.Background(), Options{Out: out, Quick: true, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rep.N != 234 || rep.Links != 598 || rep.TestPairs != 5452 {
		t.Errorf("network %d nodes, %d links, %d test pairs; want 234, 598, 5452", rep.N, rep.Links, rep.TestPairs)
	}
	recs := reftest.ReadCSV(t, filepath.Join(out, "epm_linkpred.csv"))
	if got := strings.Join(recs[0][:7], ","); got != "split,K,method,auc_roc,auc_pr,seconds,elbo" {
		t.Fatalf("header %q", got)
	}
	if len(recs) != 1+len(AllMethods) {
		t.Fatalf("%d rows, want %d", len(recs)-1, len(AllMethods))
	}
	for _, r := range recs[1:] {
		for _, c := range []int{3, 4} {
			v, err := strconv.ParseFloat(r[c], 64)
			if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
				t.Errorf("%s: %s = %q, want a number in [0, 1] (note %q)", r[2], recs[0][c], r[c], r[10])
			}
		}
	}
	checkOutputs(t, out, []string{"epm_linkpred.png", "epm_linkpred_pr.png"},
		"epm_linkpred.md", "| K | method |", "go version", "gamma-implicit",
		"gamma-mixture, K = 5: its 2 components alone score")
	// The figures can be drawn again from the CSV alone.
	for _, name := range []string{"epm_linkpred.png", "epm_linkpred_pr.png"} {
		if err := os.Remove(filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := PlotLinkPred(out, rep.Network); err != nil {
		t.Fatal(err)
	}
	checkOutputs(t, out, []string{"epm_linkpred.png", "epm_linkpred_pr.png"}, "epm_linkpred.md")
	// The mixture row records its components' own mean AUC-ROC.
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[11], 64)
		if mix := r[2] == string(GammaMixture); mix != (err == nil && v >= 0 && v <= 1) {
			t.Errorf("%s: component_auc_roc = %q", r[2], r[11])
		}
	}
}

// TestRunOptimizersQuick runs experiment 4 with the Quick settings and
// checks that its outputs exist and parse, that every optimizer and grid
// cell ran under both gamma parameterisations and that each fit's final
// ELBO is a finite number.
func TestRunOptimizersQuick(t *testing.T) {
	dir := networksDir(t)
	out := t.TempDir()
	rep, err := RunOptimizers(context.Background(), Options{Out: out, Quick: true, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := len(OptimizerParams) * (len(OptimizerCases()) + 4) // 2 × 2 grid, one seed
	if len(rep.Rows) != want {
		t.Fatalf("%d fits, want %d", len(rep.Rows), want)
	}
	recs := reftest.ReadCSV(t, filepath.Join(out, "epm_optimizers.csv"))
	if len(recs) != want+1 {
		t.Fatalf("epm_optimizers.csv: %d records, want %d", len(recs), want+1)
	}
	perParam := map[string]int{}
	for _, r := range recs[1:] {
		perParam[r[2]]++
		if v, err := strconv.ParseFloat(r[8], 64); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("%s (%s): ELBO %q (note %q)", r[0], r[2], r[8], r[12])
		}
	}
	for _, gp := range OptimizerParams {
		if perParam[gp.String()] != want/len(OptimizerParams) {
			t.Errorf("%d fits under %s, want %d", perParam[gp.String()], gp, want/len(OptimizerParams))
		}
	}
	checkOutputs(t, out, []string{"epm_optimizers.png", "epm_optimizers_softplus.png", "epm_optimizers_grid.png", "epm_optimizers_grid_softplus.png"},
		"epm_optimizers.md", "adadelta-momentum", "go version", "Best cell", "Highest mean ELBO")
}

// checkOutputs checks that every PNG in pngs decodes and that the Markdown
// file md in out contains every string of wants.
func checkOutputs(t *testing.T, out string, pngs []string, md string, wants ...string) {
	t.Helper()
	for _, name := range pngs {
		pf, err := os.Open(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(pf); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		pf.Close()
	}
	text, err := os.ReadFile(filepath.Join(out, md))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wants {
		if !strings.Contains(string(text), w) {
			t.Errorf("%s lacks %q", md, w)
		}
	}
}

// networksDir is the shared networks folder; the test skips without it.
func networksDir(t *testing.T) string {
	return filepath.Dir(shareddata.Path(t, "networks", "nips234_edges.csv"))
}
