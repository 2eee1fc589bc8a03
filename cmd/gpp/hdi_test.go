package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/internal/reftest"
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
	if head := reftest.ReadCSV(t, without)[0]; slices.ContainsFunc(head, func(h string) bool { return strings.HasPrefix(h, "hdi_") }) {
		t.Errorf("without --hdi, summary.csv's header %v has HDI columns", head)
	}
	checkHDICSV(t, with, pooledFiles(t, files...), 0.9, 10)
}

// pooledFiles reads the draws files paths, pooled as gpp summary pools
// them.
func pooledFiles(t *testing.T, paths ...string) *sampleDraws {
	t.Helper()
	var fs []*drawsFileData
	for _, path := range paths {
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
	return sd
}

// checkHDICSV checks that the summary.csv at path has the HDI columns of
// probability prob right after q95, every row's cells nuts.HDI of sd's
// column of that element, and at least min rows.
func checkHDICSV(t *testing.T, path string, sd *sampleDraws, prob float64, min int) {
	t.Helper()
	rows := reftest.ReadCSV(t, path)
	head := rows[0]
	lo, hi := hdiNames(prob)
	q95 := slices.Index(head, "q95")
	if q95 < 0 || len(head) < q95+3 || head[q95+1] != lo || head[q95+2] != hi {
		t.Fatalf("%s: header %v: want %s, %s after q95", path, head, lo, hi)
	}
	cols := map[string]int{}
	for _, r := range elemRows(sd.ds.vars) {
		cols[r.name] = r.col
	}
	for _, got := range rows[1:] {
		c, ok := cols[got[0]]
		if !ok {
			t.Errorf("%s: row %s is no column of the draws", path, got[0])
			continue
		}
		lo, hi := nuts.HDI(sd.byChain(sd.ds.cols[c]), prob)
		if got[q95+1] != formatNum(lo) || got[q95+2] != formatNum(hi) {
			t.Errorf("%s: %s: HDI [%s, %s], want [%s, %s]", path, got[0], got[q95+1], got[q95+2], formatNum(lo), formatNum(hi))
		}
	}
	if len(rows)-1 < min {
		t.Errorf("%s: %d rows, want at least %d", path, len(rows)-1, min)
	}
}

// TestFitHDICSV: gpp fit --hdi P (one q, a mixture of restarts, prior
// draws, predictions from a fit) writes the HDI's columns after q95 in
// summary.csv, before rhat, each element's cells nuts.HDI of its column
// in the draws.csv written beside it (q's output draws, the mean row left
// out); without --hdi, summary.csv has no such columns.
func TestFitHDICSV(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		prob float64
		min  int
	}{
		{"fit", []string{"fit", poissonModel, poissonData, "--seed", "2", "--iter", "1000", "--output-draws", "400"}, 0.9, 2},
		{"restarts", []string{"fit", poissonModel, poissonData, "--restarts", "2", "--iter", "500", "--output-draws", "300"}, 0.5, 2},
		{"resample", []string{"fit", poissonModel, poissonData, "--iter", "500", "--psis-resample", "--output-draws", "300"}, 0.8, 2},
		{"prior", []string{"fit", "--prior", "testdata/fit_prior.gpp", "--output-draws", "300", "--seed", "4"}, 0.94, 9},
		{"predict", []string{"predict", "testdata/predict", "testdata/predict_new.gpp", "testdata/predict_new.csv", "--output-draws", "300"}, 0.95, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			with, without := filepath.Join(dir, c.name), filepath.Join(dir, c.name+"-plain")
			for _, run := range []struct {
				out  string
				args []string
			}{{with, []string{"--hdi", strconv.FormatFloat(c.prob, 'g', -1, 64)}}, {without, nil}} {
				args := append(append(slices.Clone(c.args), run.args...), "--quiet", "--out", run.out)
				if code, _, stderr := runGpp(args...); code != exitOK {
					t.Fatalf("%v: exit %d:\n%s", args, code, stderr)
				}
			}
			plain, hdi := reftest.ReadCSV(t, filepath.Join(without, summaryFile))[0], reftest.ReadCSV(t, filepath.Join(with, summaryFile))[0]
			if slices.ContainsFunc(plain, func(h string) bool { return strings.HasPrefix(h, "hdi_") }) {
				t.Errorf("without --hdi, summary.csv's header %v has HDI columns", plain)
			}
			if q95 := slices.Index(plain, "q95"); q95 < 0 || !slices.Equal(slices.Delete(slices.Clone(hdi), q95+1, q95+3), plain) {
				t.Errorf("with --hdi, summary.csv's header %v is not %v with two columns after q95", hdi, plain)
			}
			checkHDICSV(t, filepath.Join(with, summaryFile), pooledFiles(t, filepath.Join(with, drawsFile)), c.prob, c.min)
		})
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
	head := reftest.ReadCSV(t, filepath.Join(out, summaryFile))[0]
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
	samePoissonRows(t, want, got)
	s := readSummaryCSV(t, filepath.Join(out, summaryFile))["lambda"]
	if !(s["hdi_3%"] < s["q50"] && s["q50"] < s["hdi_97%"]) || math.IsNaN(s["hdi_3%"]) {
		t.Errorf("lambda's HDI [%v, %v] does not hold its median %v", s["hdi_3%"], s["hdi_97%"], s["q50"])
	}
}

// TestReplFitHDI: testdata/repl_hdi.in, as TestReplSession. The REPL's
// :fit takes gpp fit's --hdi P, printing the HDI's columns after 95%, and
// refuses a P outside (0, 1) as gpp fit does.
func TestReplFitHDI(t *testing.T) {
	replTranscript(t, "repl_hdi", exitError)
}
