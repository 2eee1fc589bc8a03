package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/fitfile"
)

// tableRows returns the rows of a printed summary table by name, each
// split into its cells.
func tableRows(out string) map[string][]string {
	rows := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		if l == "" {
			break // the table ends at its blank line
		}
		f := strings.Fields(l)
		rows[f[0]] = f
	}
	return rows
}

// samePoissonRows checks that gpp summary's printed table (summary,
// tableRows) has the header and the rows of poissonModel's lambda and
// twice that gpp sample printed (sample).
func samePoissonRows(t *testing.T, sample, summary map[string][]string) {
	t.Helper()
	for _, name := range []string{"name", "lambda", "twice"} {
		if strings.Join(summary[name], " ") != strings.Join(sample[name], " ") {
			t.Errorf("summary's row %v, gpp sample printed %v", summary[name], sample[name])
		}
	}
}

// TestSummaryMatchesSample: gpp summary of a fresh gpp sample's draws.csv
// prints the table gpp sample printed, to its printed precision (the
// draws are written to 6 digits), and --out writes the numbers of its
// summary.csv, R̂ and the ESS as printed, the rest to draws.csv's
// precision.
func TestSummaryMatchesSample(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s")
	code, sampleOut, stderr := runGpp("sample", poissonModel, poissonData, "--chains", "3", "--warmup", "150", "--draws", "150",
		"--seed", "8", "--quiet", "--out", out)
	if code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	sumCSV := filepath.Join(dir, "summary.csv")
	code, summaryOut, stderr := runGpp("summary", filepath.Join(out, drawsFile), "--out", sumCSV)
	if code != exitOK {
		t.Fatalf("summary: exit %d:\n%s", code, stderr)
	}
	want, got := tableRows(sampleOut), tableRows(summaryOut)
	samePoissonRows(t, want, got)
	for _, name := range []string{"lp__", "accept_stat__", "treedepth__", "energy__"} {
		if got[name] == nil {
			t.Errorf("no row %s in the summary:\n%s", name, summaryOut)
		}
	}
	ws, gs := readSummaryCSV(t, filepath.Join(out, summaryFile)), readSummaryCSV(t, sumCSV)
	for _, name := range []string{"lambda", "twice"} {
		w, g := ws[name], gs[name]
		for _, c := range []string{"mean", "sd", "q5", "q50", "q95", "mcse_mean", "mad"} {
			if math.Abs(g[c]-w[c]) > 1e-5*math.Abs(w[c]) { // draws.csv holds 6 digits
				t.Errorf("%s %s: summary %v, gpp sample %v", name, c, g[c], w[c])
			}
		}
		if rhatText(g["rhat"]) != rhatText(w["rhat"]) || essText(g["ess_bulk"]) != essText(w["ess_bulk"]) || essText(g["ess_tail"]) != essText(w["ess_tail"]) {
			t.Errorf("%s: summary R̂ %v, ESS %v, %v; gpp sample's %v, %v, %v", name, g["rhat"], g["ess_bulk"], g["ess_tail"], w["rhat"], w["ess_bulk"], w["ess_tail"])
		}
	}
}

// writeVariant writes src with edit applied to path.
func writeVariant(t *testing.T, path, src string, edit func(string) string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(edit(src)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSummaryWarmupDropped: a CmdStan CSV with save_warmup = 1 summarises
// as the same file without its warm-up rows, the first ceil(num_warmup /
// thin) (here 200 / 3: 67).
func TestSummaryWarmupDropped(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("testdata/summary_stan_1.csv")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(raw), "#     thin = 1 (Default)", "#     thin = 3", 1)
	plain := writeVariant(t, filepath.Join(dir, "plain.csv"), src, func(s string) string { return s })
	var warm strings.Builder
	for i := range 67 { // far from the draws: kept, they would move every number
		warm.WriteString("-900,0.5,2,1,1,0," + strconv.Itoa(900+i) + ",50,9,9,40,1,0.9,0.9,1\n")
	}
	saved := writeVariant(t, filepath.Join(dir, "saved.csv"), src, func(s string) string {
		s = strings.Replace(s, "#     save_warmup = 0 (Default)", "#     save_warmup = 1", 1)
		return strings.Replace(s, "# Adaptation terminated\n", warm.String()+"# Adaptation terminated\n", 1)
	})
	_, want, _ := runGpp("summary", plain)
	code, got, stderr := runGpp("summary", saved)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(got, "the 67 warm-up rows of each chain left out") {
		t.Errorf("the summary does not say the warm-up rows were left out:\n%s", got)
	}
	table := func(s string) string { return s[:strings.Index(s, "\n\n")] }
	if table(got) != table(want) {
		t.Errorf("with the warm-up rows saved:\n%s\nwithout them:\n%s", table(got), table(want))
	}
	// Beside a file without saved warm-up, each file's count is given.
	code, got, stderr = runGpp("summary", saved, plain)
	if code != exitOK {
		t.Fatalf("two files: exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(got, "the warm-up rows of each chain left out (save_warmup = 1): 67, 0, file by file") {
		t.Errorf("the summary of a file with saved warm-up and one without does not give each file's count:\n%s", got)
	}
}

// TestSummaryFitMeanRowSkipped: a variational CSV's first row is q's
// mean, not a draw: the summary's mean is the other rows'.
func TestSummaryFitMeanRowSkipped(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("testdata/summary_gppfit.csv")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(string(raw), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			rows = append(rows, strings.Split(l, ","))
		}
	}
	if rows[0][3] != "lambda" {
		t.Fatalf("the fixture's fourth column is %s, not lambda", rows[0][3])
	}
	// the mean row made far from the draws, so that counting it shows
	first := strings.Join(rows[1], ",")
	path := writeVariant(t, filepath.Join(dir, "draws.csv"), string(raw), func(s string) string {
		return strings.Replace(s, "\n"+first+"\n", "\n0,0,0,1000,2000\n", 1)
	})
	sum := 0.0
	for _, r := range rows[2:] {
		v, err := strconv.ParseFloat(r[3], 64)
		if err != nil {
			t.Fatal(err)
		}
		sum += v
	}
	want := sum / float64(len(rows)-2)
	out := filepath.Join(dir, "summary.csv")
	code, stdout, stderr := runGpp("summary", path, "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	got := readSummaryCSV(t, out)["lambda"]["mean"]
	if math.Abs(got-want) > 1e-5*want { // summary.csv's 6 digits
		t.Errorf("lambda's mean %v, the draws' %v", got, want)
	}
	if n := len(rows) - 2; !strings.Contains(stdout, strconv.Itoa(n)+" independent draws") {
		t.Errorf("the summary does not count %d draws:\n%s", n, stdout)
	}
}

// TestSummaryDiagnostics: each of Stan's warnings from the files, and
// none for good chains.
func TestSummaryDiagnostics(t *testing.T) {
	_, out, _ := runGpp("summary", "testdata/summary_diag_1.csv", "testdata/summary_diag_2.csv")
	for _, w := range []string{
		"warning: 6 of 120 (5%) transitions after warm-up ended with a divergence",
		"warning: 4 of 120 (3.3%) transitions hit the maximum tree depth 5", // max_depth = 5 read from the comments
		"warning: E-BFMI below 0.3 (chain 2: ",
		"elements with R̂ above 1.01, the chains disagree (the worst: alpha ",
		"elements with a bulk or tail ESS below 100 per chain",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in:\n%s", w, out)
		}
	}
	if strings.Contains(out, "chain 1: ") {
		t.Errorf("chain 1's E-BFMI is fine, but it is warned of:\n%s", out)
	}
	code, out, _ := runGpp("summary", "testdata/summary_stan_1.csv", "testdata/summary_stan_2.csv")
	if code != exitOK || !strings.HasSuffix(out, "\nno problems detected\n") || strings.Contains(out, "warning") {
		t.Errorf("exit %d, good chains:\n%s", code, out)
	}
}

// TestSummaryColumnShape: CmdStan's column names give a variable's shape
// only when they are all its elements in column-major order.
func TestSummaryColumnShape(t *testing.T) {
	vars := columnVariables([]string{"lp__", "a", "b.1", "b.2", "M.1.1", "M.2.1", "M.1.2", "M.2.2", "c.2", "c.1", "d.1"}, "nuts")
	var got []string
	for _, v := range vars {
		got = append(got, v.name+fitfile.ShapeText(v.shape))
	}
	want := "lp__(scalar) a(scalar) b[2] M[2, 2] c.2(scalar) c.1(scalar) d[1]"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("variables %s, want %s", g, want)
	}
}

// FuzzSummary: gpp summary never panics on a file, and every error it
// reports of one is positioned inside it (or names it alone). An input of
// odd length is also summarised with --hdi, --percentiles and --out, which
// must write summary.csv when the summary succeeds. The seeds are the
// summary tests' files (the longer ones cut to their first 40 lines, the
// header and a few draws), a fixed_param sampler's draws, one with
// warm-up rows, and chains frozen at different values.
func FuzzSummary(f *testing.F) {
	for _, name := range []string{"summary_bad_ragged.csv", "summary_bad_cell.csv", "summary_gppsample.csv", "summary_variational.csv",
		"summary_stan_1.csv", "summary_pathfinder.csv", "summary_gppfit.csv", "summary_diag_1.csv", "summary_bad_short.csv", "summary_bad_columns.csv"} {
		src, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		lines := strings.SplitAfter(string(src), "\n")
		f.Add([]byte(strings.Join(lines[:min(len(lines), 40)], "")))
	}
	f.Add([]byte("chain__,draw__,lp__,accept_stat__,a\n1,1,0,1,2\n2,1,0,1,3\n1,2,0,1,4\n"))
	f.Add([]byte("# method = sample (Default)\n#     algorithm = fixed_param\nchain__,draw__,lp__,accept_stat__,mu,y_rep.1,y_rep.2\n" +
		"1,1,0,0,0.5,1.2,-0.3\n1,2,0,0,0.5,0.7,2.1\n2,1,0,0,0.5,-1.1,0.4\n2,2,0,0,0.5,0.2,0.9\n"))
	f.Add([]byte("#     save_warmup = 1\n#     num_warmup = 2\n#     thin = 1\nchain__,draw__,lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,mu,M.1.1,M.2.1,M.1.2,M.2.2\n" +
		"1,-2,-3,0.9,0.5,2,3,0,4,0.1,1,2,3,4\n1,-1,-3,0.9,0.5,2,3,0,4,0.2,1,2,3,4\n1,1,-3,0.9,0.5,2,3,1,4,0.3,1,2,3,5\n1,2,-2,0.8,0.5,2,3,0,4,0.1,2,2,3,4\n1,3,-2,0.8,0.5,2,3,0,4,0.4,1,3,3,4\n"))
	f.Add([]byte("chain__,draw__,lp__,accept_stat__,stepsize__,mu,tau\n1,1,-3,0,0.5,0.25,0.5\n1,2,-3,0,0.5,0.25,0.5\n2,1,-4,0,0.7,-1.5,0.5\n2,2,-4,0,0.7,-1.5,0.5\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "d.csv")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"summary", path, path}
		sumCSV := filepath.Join(dir, "summary.csv")
		if len(src)%2 == 1 {
			args = append(args, "--hdi", "0.9", "--percentiles", "2.5,50,97.5", "--out", sumCSV)
		}
		code, _, stderr := runGpp(args...)
		if code != exitOK && code != exitError {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		if code == exitError && !strings.HasPrefix(stderr, path) {
			t.Fatalf("an error that does not name the file:\n%s", stderr)
		}
		if _, err := os.Stat(sumCSV); code == exitOK && len(src)%2 == 1 && err != nil {
			t.Fatalf("no summary.csv after exit 0: %v", err)
		}
		lines := strings.Count(string(src), "\n") + 1
		if rest, ok := strings.CutPrefix(stderr, path+":"); ok && code == exitError {
			if n, err := strconv.Atoi(rest[:strings.IndexByte(rest+":", ':')]); err == nil && (n < 1 || n > lines) {
				t.Fatalf("an error at line %d of a file of %d lines:\n%s", n, lines, stderr)
			}
		}
	})
}

// TestSummaryFrozenChains: chains frozen at their different starts (every
// transition rejected) have R̂ +Inf for the param they hold, printed inf
// in the table and summary.csv as gpp prints infinities, and the R̂
// warning names it; a param every chain holds at one value has R̂ NaN
// and is not named, nor is the sampler's stepsize__, constant in each
// chain by design (NaN, as stansummary prints it).
func TestSummaryFrozenChains(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("# method = sample (Default)\n#     algorithm = hmc\n")
	b.WriteString("chain__,draw__,lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,mu,sigma,tau\n")
	for c, mu := range []float64{0.25, -1.5} {
		for d := range 200 {
			fmt.Fprintf(&b, "%d,%d,%.6g,0.9,%g,2,3,0,%.6g,%g,%.6g,0.5\n", c+1, d+1, -3+rng.NormFloat64(), 0.5+0.2*float64(c), 4+rng.NormFloat64(), mu, 2+rng.NormFloat64())
		}
	}
	draws := filepath.Join(dir, "draws.csv")
	if err := os.WriteFile(draws, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sumCSV := filepath.Join(dir, "summary.csv")
	code, out, stderr := runGpp("summary", draws, "--out", sumCSV)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	rows := tableRows(out)
	for name, want := range map[string]string{"mu": "inf", "tau": "NaN", "stepsize__": "NaN"} {
		if r := rows[name]; len(r) == 0 || r[len(r)-1] != want {
			t.Errorf("the row of %s %v, want R̂ %s:\n%s", name, r, want, out)
		}
	}
	if r := readSummaryCSV(t, sumCSV)["mu"]["rhat"]; !math.IsInf(r, 1) {
		t.Errorf("summary.csv's R̂ of mu %v, want inf", r)
	}
	if src, err := os.ReadFile(sumCSV); err != nil || !regexp.MustCompile(`\nmu,.*,inf,`).Match(src) {
		t.Errorf("summary.csv's row of mu does not write R̂ as inf (%v):\n%s", err, src)
	}
	const warn = "R̂ above 1.01, the chains disagree (the worst: mu inf"
	if !strings.Contains(out, warn) {
		t.Errorf("no %q in:\n%s", warn, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "R̂ above") && (strings.Contains(l, "tau") || strings.Contains(l, "stepsize__")) {
			t.Errorf("the R̂ warning names a column held by design or constant: %s", l)
		}
	}
}

// TestSummaryFitDrawsParamUnderscores: gpp summary of a fit's draws.csv
// leaves out its columns of densities (lp__, log_p__, log_g__) but keeps
// a param whose name ends in __, which the language allows.
func TestSummaryFitDrawsParamUnderscores(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", "data y: real[N]\nparam mu__: real ~ Normal(0, 5)\ny ~ Normal(mu__, 1)\n")
	data := writeFile(t, dir, "d.csv", "y\n1\n2\n3\n")
	out := filepath.Join(dir, "fit")
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--out", out); code != exitOK {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runSafe(t, "summary", filepath.Join(out, "draws.csv"))
	if code != exitOK {
		t.Fatalf("summary: exit %d: %s", code, stderr)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = true
		}
	}
	if !rows["mu__"] || rows["log_p__"] || rows["log_g__"] || rows["lp__"] {
		t.Errorf("want mu__'s row and no density column's:\n%s", stdout)
	}
}
