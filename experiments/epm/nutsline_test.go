package epm

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeNUTSCSV writes rows as RunNUTS writes epm_nuts.csv into dir.
func writeNUTSCSV(t *testing.T, dir string, rows []NUTSRow) {
	t.Helper()
	f, w, err := createCSV(filepath.Join(dir, "epm_nuts.csv"), nutsHeader)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		w.Write(r.record())
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLinkPredNUTSLine checks that epm_linkpred.md ends up with the same
// NUTS line whichever command wrote it last: the file Run writes with an
// epm_nuts.csv beside it equals, byte for byte, the file Run wrote
// before NUTS ran with its line then updated by RunNUTS's
// updateLinkPredNUTS; and that the line holds the CSV's numbers (mean ±
// sd of the AUC-ROC, the divergences' range, the settings, the verdict),
// which the line without a CSV lacks.
func TestLinkPredNUTSLine(t *testing.T) {
	dir := t.TempDir()
	o, err := Options{Out: dir, DataDir: dir}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Network: "planted", N: 30, Links: 40, TestPairs: 87, ModelPath: "examples/epm.gpp", Options: o,
		Summary: []Summary{{K: 10, Method: GammaImplicit, N: 2, AUCROC: 0.9, AUCROCSD: 0.01}}}
	before, err := linkPredNUTSLine(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "epm_linkpred.md"), []byte(linkPredMarkdown(rep, before)), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := []NUTSRow{
		{Split: 0, K: 10, Chains: 4, Warmup: 200, Draws: 400, AUCROC: 0.80, AUCPR: 0.4, AvgPrecision: 0.4, Divergent: 6, RhatP: 1.95, RhatLP: 3.1, Seed: 0},
		{Split: 1, K: 10, Chains: 4, Warmup: 200, Draws: 400, AUCROC: 0.76, AUCPR: 0.5, AvgPrecision: 0.5, Divergent: 53, RhatP: 2.23, RhatLP: 1.9, Seed: 1},
	}
	writeNUTSCSV(t, dir, rows)
	if err := updateLinkPredNUTS(dir); err != nil { // RunNUTS's path
		t.Fatal(err)
	}
	byNUTS, err := os.ReadFile(filepath.Join(dir, "epm_linkpred.md"))
	if err != nil {
		t.Fatal(err)
	}
	line, err := linkPredNUTSLine(dir) // Run's path
	if err != nil {
		t.Fatal(err)
	}
	if byRun := linkPredMarkdown(rep, line); string(byNUTS) != byRun {
		t.Errorf("epm_linkpred.md after RunNUTS:\n%s\nas Run writes it:\n%s", byNUTS, byRun)
	}
	for _, want := range []string{"At K = 10, 4 chains × (200 + 100): 0.780 ± 0.028 over 2 splits", "with 6–53 divergent transitions",
		"up to 2.23 (≤ 1.01 in 0 of 2 splits)", "not mixed in any split"} {
		if !strings.Contains(line, want) {
			t.Errorf("NUTS line %q lacks %q", line, want)
		}
	}
	if strings.Contains(before, "At K =") || !strings.HasPrefix(line, strings.TrimSuffix(before, " Not run yet.\n")) {
		t.Errorf("line without epm_nuts.csv %q, with it %q", before, line)
	}
}

// TestNUTSRowsRoundTrip checks that readNUTSRows reads back what
// NUTSRow.record writes (to the CSV's precision), and refuses a file of
// another header.
func TestNUTSRowsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rows := []NUTSRow{{Split: 3, Seed: 3, K: 10, Chains: 4, Warmup: 200, AUCROC: 0.8125, AUCPR: 0.45, AvgPrecision: 0.46, Seconds: 12.5,
		Divergent: 7, MaxDepth: 9, Draws: 400, RhatLatents: 3.5, RhatR: 3, RhatP: 2, RhatLP: 2.5, MinESSP: 5.5, StepSize: 0.0075,
		MeanLeapfrogs: 600.25, Note: "a note, with a comma"},
		{Split: 4, Seed: 4, K: 10, AUCROC: math.NaN(), AUCPR: math.NaN(), AvgPrecision: math.NaN(), Note: "error: x"}}
	writeNUTSCSV(t, dir, rows)
	got, err := readNUTSRows(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !math.IsNaN(got[1].AUCROC) {
		t.Fatalf("read %+v", got)
	}
	got[1].AUCROC, got[1].AUCPR, got[1].AvgPrecision = rows[1].AUCROC, rows[1].AUCPR, rows[1].AvgPrecision
	if got[0] != rows[0] || got[1].Note != rows[1].Note {
		t.Errorf("read %+v, wrote %+v", got, rows)
	}
	if err := os.WriteFile(filepath.Join(dir, "epm_nuts.csv"), []byte("split,K\n0,10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readNUTSRows(dir); err == nil {
		t.Error("a CSV of another header read without an error")
	}
	if err := os.WriteFile(filepath.Join(dir, "epm_nuts.csv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readNUTSRows(dir); err == nil { // it indexed the missing header before
		t.Error("an empty CSV read without an error")
	}
}

// TestCommittedNUTSLine checks that docs/results/epm_linkpred.md holds
// the NUTS line of the docs/results/epm_nuts.csv beside it, as either
// command would write it.
func TestCommittedNUTSLine(t *testing.T) {
	dir := filepath.Join("..", "..", "docs", "results")
	md, err := os.ReadFile(filepath.Join(dir, "epm_linkpred.md"))
	if err != nil {
		t.Skip("no committed epm_linkpred.md")
	}
	line, err := linkPredNUTSLine(dir)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.SplitAfter(string(md), "\n"); !slices.Contains(lines, line) {
		t.Errorf("docs/results/epm_linkpred.md lacks the NUTS line of epm_nuts.csv:\n%s", line)
	}
}
