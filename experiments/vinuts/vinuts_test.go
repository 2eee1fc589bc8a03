package vinuts

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestQuick runs the quick experiment (examples/regression.gpp, whose two
// slopes' predictors are correlated) and checks what it must show: the
// mean-field q is too narrow for the slopes (sd ratio below 0.9, the known
// under-dispersion of a factorised q on a correlated posterior) while the
// full-rank q matches NUTS's sds (within 0.1) and both means agree with
// NUTS's (|z| ≤ 0.2); NUTS itself is healthy there; and the files hold
// what they say.
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gpp and runs NUTS")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build gpp")
	}
	out := t.TempDir()
	const reading = "\n\nThe reading, by hand.\n"
	if err := os.WriteFile(filepath.Join(out, MarkdownFile), []byte("an old table\n"+ReadingMarker+reading), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Out: out, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 {
		t.Fatalf("%d rows, want regression's mean-field and full-rank fits", len(rep.Rows))
	}
	slopes := map[string][]float64{}
	for _, e := range rep.Elems {
		if !e.Param {
			continue
		}
		if math.Abs(e.Z) > 0.2 {
			t.Errorf("%s %s: z = %.3f, want |z| ≤ 0.2", e.Fit, e.Name, e.Z)
		}
		if strings.HasPrefix(e.Name, "beta[") {
			slopes[e.Fit] = append(slopes[e.Fit], e.SDRatio)
		}
	}
	for _, r := range slopes[meanField.Label] {
		if !(r < 0.9) {
			t.Errorf("mean-field slope sd ratio %.3f, want < 0.9 (a factorised q on correlated slopes)", r)
		}
	}
	for _, r := range slopes["--fullrank all"] {
		if !(math.Abs(r-1) < 0.1) {
			t.Errorf("full-rank slope sd ratio %.3f, want within 0.1 of 1", r)
		}
	}
	if len(slopes[meanField.Label]) != 2 || len(slopes["--fullrank all"]) != 2 {
		t.Errorf("slopes compared: %v, want beta[1] and beta[2] in both fits", slopes)
	}
	for _, row := range rep.Rows {
		if row.Err != "" {
			t.Fatalf("%s: %s", row.Fit, row.Err)
		}
		if row.Elements != 4 || row.Divergences != 0 || !(row.MaxRhat < 1.02) || !(row.MinESS > 100) {
			t.Errorf("%s: %d elements, %d divergences, max R̂ %.3f, min ESS %.0f; want alpha, beta[1], beta[2], sigma and a healthy sampler",
				row.Fit, row.Elements, row.Divergences, row.MaxRhat, row.MinESS)
		}
	}

	models := readAll(t, filepath.Join(out, ModelsFile))
	if !slices.Equal(models[0], ModelsHeader) || len(models) != 3 {
		t.Errorf("%s: header %v and %d rows", ModelsFile, models[0], len(models)-1)
	}
	elems := readAll(t, filepath.Join(out, ElementsFile))
	if !slices.Equal(elems[0], ElementsHeader) || len(elems)-1 != len(rep.Elems) {
		t.Errorf("%s: header %v and %d rows, want %d", ElementsFile, elems[0], len(elems)-1, len(rep.Elems))
	}
	for _, f := range []string{PlotFile, MarkdownFile} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, MarkdownFile))
	if !strings.Contains(string(md), "| regression | --fullrank all | 4 |") || !strings.Contains(string(md), "quick smoke run") {
		t.Errorf("%s lacks the full-rank row or the smoke-run mark:\n%s", MarkdownFile, md)
	}
	if !strings.HasSuffix(string(md), ReadingMarker+reading) || strings.Contains(string(md), "an old table") {
		t.Errorf("%s: the run did not replace the table and keep the hand-written reading:\n%s", MarkdownFile, md)
	}
}

func readAll(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %v, %d records", path, err, len(recs))
	}
	return recs
}

// TestSummarise checks the per-model statistics on hand-made elements:
// outputs and non-finite elements are left out, the share, medians and
// extremes are over the rest.
func TestSummarise(t *testing.T) {
	elems := []Elem{
		{Name: "a", Param: true, Z: 0.05, SDRatio: 1.0, Rhat: 1.001, ESSMin: 900},
		{Name: "b", Param: true, Z: -0.3, SDRatio: 0.5, Rhat: 1.02, ESSMin: 300},
		{Name: "c", Param: true, Z: 0.1, SDRatio: 0.8, Rhat: 1.0, ESSMin: 500},
		{Name: "d", Param: true, Z: math.NaN(), SDRatio: math.NaN(), Rhat: 2, ESSMin: 1},
		{Name: "y_rep", Param: false, Z: 5, SDRatio: 0.01, Rhat: 3, ESSMin: 1},
	}
	var row Row
	summarise(&row, elems)
	want := Row{Elements: 3, Within: 2.0 / 3, MedianAbsZ: 0.1, WorstAbsZ: 0.3, WorstName: "b",
		MedianRatio: 0.8, MinRatio: 0.5, MinRatioName: "b", MaxRhat: 1.02, MinESS: 300}
	if row != want {
		t.Errorf("summarise = %+v, want %+v", row, want)
	}
}
