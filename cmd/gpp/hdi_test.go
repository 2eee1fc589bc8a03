package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
)

// TestHDINames: --hdi P's columns are named as az.summary names them,
// f"hdi_{100 * alpha / 2:g}%" and f"hdi_{100 * (1 - alpha / 2):g}%" with
// alpha = 1 − P (the names below printed by Python 3 from that format).
func TestHDINames(t *testing.T) {
	for _, c := range []struct {
		p      float64
		lo, hi string
	}{
		{0.94, "hdi_3%", "hdi_97%"},
		{0.9, "hdi_5%", "hdi_95%"},
		{0.5, "hdi_25%", "hdi_75%"},
		{0.95, "hdi_2.5%", "hdi_97.5%"},
		{0.89, "hdi_5.5%", "hdi_94.5%"},
		{0.99, "hdi_0.5%", "hdi_99.5%"},
		{0.999999, "hdi_5e-05%", "hdi_99.9999%"},
	} {
		if lo, hi := hdiNames(c.p); lo != c.lo || hi != c.hi {
			t.Errorf("hdiNames(%g) = %s, %s; want %s, %s", c.p, lo, hi, c.lo, c.hi)
		}
	}
}

// TestSummaryHDICSV: gpp summary --hdi 0.9 --out writes hdi_5% and
// hdi_95% after the percentiles, each column's nuts.HDI of the files'
// chains pooled; without --hdi the columns are not there.
func TestSummaryHDICSV(t *testing.T) {
	files := []string{"testdata/summary_stan_1.csv", "testdata/summary_stan_2.csv"}
	dir := t.TempDir()
	with, without := filepath.Join(dir, "hdi.csv"), filepath.Join(dir, "plain.csv")
	for _, run := range []struct {
		out  string
		args []string
	}{{with, []string{"--hdi", "0.9"}}, {without, nil}} {
		args := append(append([]string{"summary"}, files...), append(run.args, "--out", run.out)...)
		if code, _, stderr := runGpp(args...); code != exitOK {
			t.Fatalf("%v: exit %d:\n%s", args, code, stderr)
		}
	}
	if head := readCSV(t, without)[0]; slices.ContainsFunc(head, func(h string) bool { return strings.HasPrefix(h, "hdi_") }) {
		t.Errorf("without --hdi, summary.csv's header %v has HDI columns", head)
	}
	rows := readCSV(t, with)
	head := rows[0]
	q95 := slices.Index(head, "q95")
	if q95 < 0 || len(head) < q95+3 || head[q95+1] != "hdi_5%" || head[q95+2] != "hdi_95%" {
		t.Fatalf("header %v: want hdi_5%%, hdi_95%% after q95", head)
	}
	var fs []*drawsFileData
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := readDrawsFile(path, src)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	sd, err := pooledDraws(fs)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string][]string{}
	for _, r := range rows[1:] {
		byName[r[0]] = r
	}
	checked := 0
	for _, r := range elemRows(sd.ds.vars) {
		lo, hi := nuts.HDI(sd.byChain(sd.ds.cols[r.col]), 0.9)
		got := byName[r.name]
		if got == nil {
			t.Errorf("no row %s in %s", r.name, with)
			continue
		}
		if got[q95+1] != formatNum(lo) || got[q95+2] != formatNum(hi) {
			t.Errorf("%s: HDI [%s, %s], want [%s, %s]", r.name, got[q95+1], got[q95+2], formatNum(lo), formatNum(hi))
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("checked %d rows, want the file's every column", checked)
	}
}

// TestSampleHDIMatchesSummary: gpp sample --hdi 0.94 writes hdi_3% and
// hdi_97% after q95 in summary.csv, and prints the table gpp summary
// --hdi 0.94 of its draws.csv prints, to the printed precision (the HDI's
// ends are draws, written to 6 digits).
func TestSampleHDIMatchesSummary(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s")
	code, sampleOut, stderr := runGpp("sample", poissonModel, poissonData, "--chains", "2", "--warmup", "150", "--draws", "150",
		"--seed", "3", "--quiet", "--hdi", "0.94", "--out", out)
	if code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	head := readCSV(t, filepath.Join(out, summaryFile))[0]
	if q95 := slices.Index(head, "q95"); q95 < 0 || len(head) < q95+3 || head[q95+1] != "hdi_3%" || head[q95+2] != "hdi_97%" {
		t.Fatalf("summary.csv's header %v: want hdi_3%%, hdi_97%% after q95", head)
	}
	code, summaryOut, stderr := runGpp("summary", filepath.Join(out, drawsFile), "--hdi", "0.94")
	if code != exitOK {
		t.Fatalf("summary: exit %d:\n%s", code, stderr)
	}
	want, got := tableRows(sampleOut), tableRows(summaryOut)
	if !slices.Contains(want["name"], "hdi_3%") {
		t.Fatalf("gpp sample --hdi printed no hdi_3%% column:\n%s", sampleOut)
	}
	for _, name := range []string{"name", "lambda", "twice"} {
		if strings.Join(got[name], " ") != strings.Join(want[name], " ") {
			t.Errorf("summary's row %v, gpp sample printed %v", got[name], want[name])
		}
	}
	s := readSummaryCSV(t, filepath.Join(out, summaryFile))["lambda"]
	if !(s["hdi_3%"] < s["q50"] && s["q50"] < s["hdi_97%"]) || math.IsNaN(s["hdi_3%"]) {
		t.Errorf("lambda's HDI [%v, %v] does not hold its median %v", s["hdi_3%"], s["hdi_97%"], s["q50"])
	}
}
