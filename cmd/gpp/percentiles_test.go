package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// checkPercentilesCSV checks that the summary.csv at path has the columns
// q2.5, q50 and q97.5 where the default has q5, q50 and q95, and that
// every row's cells are percentilesAt of the draws of that element, in
// at least min rows: to draws.csv's rounding (drawsRounding of the largest
// draw, which a quantile interpolates at most) and the cell's own.
func checkPercentilesCSV(t *testing.T, path string, draws map[string][]float64, min int) {
	t.Helper()
	probs := []float64{0.025, 0.5, 0.975}
	names := []string{"q2.5", "q50", "q97.5"}
	rows := reftest.ReadCSV(t, path)
	head := rows[0]
	if len(head) < 7 || !slices.Equal(head[4:7], names) || slices.Contains(head, "q5") || slices.Contains(head, "q95") {
		t.Fatalf("%s: header %v: want %v after name, family, mean, sd, and no q5 or q95", path, head, names)
	}
	for _, got := range rows[1:] {
		col, ok := draws[got[0]]
		if !ok {
			t.Errorf("%s: row %s is no column of the draws", path, got[0])
			continue
		}
		q := percentilesAt([][]float64{col}, probs).q[0]
		scale := 0.0
		for _, x := range col {
			if !math.IsNaN(x) {
				scale = math.Max(scale, math.Abs(x))
			}
		}
		for i, want := range q {
			v, err := strconv.ParseFloat(got[4+i], 64)
			if err != nil || math.Abs(v-want) > drawsRounding*(scale+math.Abs(want)) {
				t.Errorf("%s: %s: %s %s, want %v (percentilesAt of draws.csv)", path, got[0], names[i], got[4+i], want)
			}
		}
	}
	if len(rows)-1 < min {
		t.Errorf("%s: %d rows, want at least %d", path, len(rows)-1, min)
	}
}

// drawsByName reads the draws.csv at path as gpp summary pools it, each
// element's draws by the summary's name of it; plain (gpp predict's of a
// sample, which gpp summary does not read) by its column's name, the
// comment lines and chain__ and draw__ left out.
func drawsByName(t *testing.T, path string, plain bool) map[string][]float64 {
	t.Helper()
	out := map[string][]float64{}
	if !plain {
		sd := pooledFiles(t, path)
		for _, r := range elemRows(sd.ds.vars) {
			out[r.name] = sd.ds.cols[r.col]
		}
		return out
	}
	_, head, rows := readStanCSV(t, path)
	for _, r := range rows {
		for i, v := range r {
			if head[i] != "chain__" && head[i] != "draw__" {
				out[head[i]] = append(out[head[i]], v)
			}
		}
	}
	return out
}

// TestFitPercentilesCSV: gpp fit --percentiles 2.5,50,97.5 (one q, a
// mixture of restarts, resampled draws, prior draws, predictions from a
// fit and from a sample) writes summary.csv's percentile columns q2.5,
// q50, q97.5 in place of q5, q50, q95, each the quantile of its column in
// the draws.csv written beside it, and prints them as 2.5%, 50%, 97.5%;
// the columns after them (the HDI's, rhat) stay.
func TestFitPercentilesCSV(t *testing.T) {
	dir := t.TempDir()
	sampled := filepath.Join(dir, "sampled")
	if code, _, stderr := runGpp("sample", poissonModel, poissonData, "--chains", "2", "--warmup", "100",
		"--draws", "100", "--seed", "5", "--quiet", "--out", sampled); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	for _, c := range []struct {
		name string
		args []string
		min  int
	}{
		{"fit", []string{"fit", poissonModel, poissonData, "--seed", "2", "--iter", "1000", "--output-draws", "400"}, 2},
		{"restarts", []string{"fit", poissonModel, poissonData, "--restarts", "2", "--iter", "500", "--output-draws", "300", "--hdi", "0.9"}, 2},
		{"resample", []string{"fit", poissonModel, poissonData, "--iter", "500", "--psis-resample", "--output-draws", "300"}, 2},
		{"prior", []string{"fit", "--prior", "testdata/fit_prior.gpp", "--output-draws", "300", "--seed", "4"}, 9},
		{"predict", []string{"predict", "testdata/predict", "testdata/predict_new.gpp", "testdata/predict_new.csv", "--output-draws", "300"}, 16},
		{"predict-sample", []string{"predict", sampled, poissonModel, poissonData}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			with, without := filepath.Join(dir, c.name), filepath.Join(dir, c.name+"-plain")
			var printed string
			for _, run := range []struct {
				out  string
				args []string
			}{{with, []string{"--percentiles", "2.5,50,97.5"}}, {without, nil}} {
				args := append(append(slices.Clone(c.args), run.args...), "--quiet", "--out", run.out)
				code, stdout, stderr := runGpp(args...)
				if code != exitOK {
					t.Fatalf("%v: exit %d:\n%s", args, code, stderr)
				}
				if run.out == with {
					printed = stdout
				}
			}
			plain := reftest.ReadCSV(t, filepath.Join(without, summaryFile))[0]
			got := reftest.ReadCSV(t, filepath.Join(with, summaryFile))[0]
			want := slices.Clone(plain)
			for i, h := range want {
				if r, ok := map[string]string{"q5": "q2.5", "q95": "q97.5"}[h]; ok {
					want[i] = r
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("summary.csv's header %v, want %v (the default's %v with q2.5, q97.5 for q5, q95)", got, want, plain)
			}
			draws := drawsByName(t, filepath.Join(with, drawsFile), c.name == "predict-sample")
			checkPercentilesCSV(t, filepath.Join(with, summaryFile), draws, c.min)
			if head := tableRows(printed)["name"]; !slices.Contains(head, "2.5%") || !slices.Contains(head, "97.5%") || slices.Contains(head, "5%") {
				t.Errorf("the table's header %v: want 2.5%%, 50%%, 97.5%% and no 5%%", head)
			}
		})
	}
}

// TestSamplePercentilesMatchesSummary: gpp sample --percentiles prints
// the table that gpp summary --percentiles of its draws.csv prints (to
// the printed precision) and writes the columns of its --out summary.csv.
func TestSamplePercentilesMatchesSummary(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s")
	code, sampleOut, stderr := runGpp("sample", poissonModel, poissonData, "--chains", "2", "--warmup", "150", "--draws", "150",
		"--seed", "3", "--quiet", "--percentiles", "2.5,50,97.5", "--hdi", "0.94", "--out", out)
	if code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	sumCSV := filepath.Join(dir, "summary.csv")
	code, summaryOut, stderr := runGpp("summary", filepath.Join(out, drawsFile), "--percentiles", "2.5,50,97.5", "--hdi", "0.94", "--out", sumCSV)
	if code != exitOK {
		t.Fatalf("summary: exit %d:\n%s", code, stderr)
	}
	want, got := tableRows(summaryOut), tableRows(sampleOut)
	if !slices.Contains(got["name"], "97.5%") {
		t.Fatalf("gpp sample --percentiles printed no 97.5%% column:\n%s", sampleOut)
	}
	samePoissonRows(t, got, want)
	if a, b := reftest.ReadCSV(t, filepath.Join(out, summaryFile))[0], reftest.ReadCSV(t, sumCSV)[0]; !slices.Equal(a, b) {
		t.Errorf("gpp sample's summary.csv header %v, gpp summary --out's %v", a, b)
	}
	checkPercentilesCSV(t, filepath.Join(out, summaryFile), drawsByName(t, filepath.Join(out, drawsFile), false), 2)
}

// TestPercentilesUsageErrors: gpp fit, sample and predict refuse a bad
// --percentiles with gpp summary's usage error, exit 2, and run nothing:
// a percentile given twice too, whose columns would share a name (q50).
func TestPercentilesUsageErrors(t *testing.T) {
	for _, bad := range []string{"5,x,95", "2.5,101", "-1", "NaN", "5,,95", "50,50", "2.5,50,2.50"} {
		_, _, sumErr := runGpp("summary", "testdata/summary_stan_1.csv", "--percentiles", bad)
		msg := "--percentiles " + bad + ": "
		i := strings.Index(sumErr, msg)
		if i < 0 {
			t.Fatalf("summary --percentiles %s: no usage error:\n%s", bad, sumErr)
		}
		line, _, _ := strings.Cut(sumErr[i:], "\n")
		for _, args := range [][]string{
			{"fit", poissonModel, poissonData},
			{"fit", "--prior", poissonModel, poissonData},
			{"sample", poissonModel, poissonData},
			{"predict", "testdata/predict", "testdata/predict_new.gpp", "testdata/predict_new.csv"},
		} {
			out := filepath.Join(t.TempDir(), "out")
			code, _, stderr := runGpp(append(args, "--percentiles", bad, "--out", out)...)
			if code != exitUsage || !strings.Contains(stderr, line) {
				t.Errorf("%v --percentiles %s: exit %d, want %d with %q:\n%s", args, bad, code, exitUsage, line, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%v --percentiles %s: wrote %s", args, bad, out)
			}
		}
	}
}

// TestPercentilesDefaultUnchanged: --percentiles 5,50,95 given is the
// default, byte for byte (the goldens hold the default's output), and
// another spelling of the same percentiles gives the same columns.
func TestPercentilesDefaultUnchanged(t *testing.T) {
	dir := t.TempDir()
	var outs, csvs []string
	for i, extra := range [][]string{nil, {"--percentiles", "5,50,95"}, {"--percentiles", "5, 50 ,95.0"}} {
		out := filepath.Join(dir, strconv.Itoa(i))
		args := append([]string{"fit", poissonModel, poissonData, "--seed", "2", "--iter", "500", "--output-draws", "300", "--quiet", "--out", out}, extra...)
		code, stdout, stderr := runGpp(args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d:\n%s", args, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, summaryFile))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, strings.ReplaceAll(stdout, out, "OUT"))
		csvs = append(csvs, string(b))
	}
	if head := strings.SplitN(csvs[0], "\n", 2)[0]; head != "name,family,mean,sd,q5,q50,q95" {
		t.Errorf("default summary.csv header %q", head)
	}
	for i := 1; i < len(outs); i++ {
		if outs[i] != outs[0] || csvs[i] != csvs[0] {
			t.Errorf("run %d's table or summary.csv differs from the default's:\n%s\n%s", i, lineDiff(outs[0], outs[i]), lineDiff(csvs[0], csvs[i]))
		}
	}
}

// TestReplFitPercentiles: testdata/repl_percentiles.in, as
// TestReplSession. The REPL's :fit and :sample take --percentiles and
// print those columns; a bad value is gpp fit's usage error.
func TestReplFitPercentiles(t *testing.T) {
	replTranscript(t, "repl_percentiles", exitError)
}
