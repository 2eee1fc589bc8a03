package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readCommentedCSV reads the rows of the CSV at path that are not comment
// lines (draws.csv's and coords.csv's "#" lines).
func readCommentedCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v, %d rows", path, err, len(rows))
	}
	return rows
}

// drawsHeaderRow is the first row of the CSV at path that is not a comment.
func drawsHeaderRow(t *testing.T, path string) []string {
	t.Helper()
	return readCommentedCSV(t, path)[0]
}

// drawsColumn returns column name of the CSV at path, its rows as text.
func drawsColumn(t *testing.T, path, name string) []string {
	t.Helper()
	rows := readCommentedCSV(t, path)
	c := slices.Index(rows[0], name)
	if c < 0 {
		t.Fatalf("%s: no column %s in %v", path, name, rows[0])
	}
	var out []string
	for _, r := range rows[1:] {
		out = append(out, r[c])
	}
	return out
}

// TestFitDrawsParams: --draws-params keeps the named params' and outputs'
// columns of draws.csv, whole and in the model's order, with the same
// values as the fit without it; summary.csv still has every element.
func TestFitDrawsParams(t *testing.T) {
	dir := t.TempDir()
	model, data := filepath.Join("..", "..", "examples", "regression.gpp"), filepath.Join("..", "..", "examples", "wine_std.csv")
	full, kept := filepath.Join(dir, "full"), filepath.Join(dir, "kept")
	for _, c := range [][]string{
		{"fit", model, data, "--seed", "3", "--quiet", "--out", full},
		{"fit", model, data, "--seed", "3", "--quiet", "--out", kept, "--draws-params", "sigma,max_rep", "--draws-params", "beta"},
	} {
		if code, _, stderr := runGpp(c...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c, code, stderr)
		}
	}
	path := filepath.Join(kept, drawsFile)
	want := []string{"lp__", "log_p__", "log_g__", "beta.1", "beta.2", "sigma", "max_rep"}
	if got := drawsHeaderRow(t, path); !slices.Equal(got, want) {
		t.Fatalf("draws.csv header %v, want %v", got, want)
	}
	for _, name := range []string{"log_p__", "beta.2", "sigma", "max_rep"} {
		if got, w := drawsColumn(t, path, name), drawsColumn(t, filepath.Join(full, drawsFile), name); !slices.Equal(got, w) {
			t.Errorf("column %s differs from the fit without --draws-params", name)
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "#   gpp_draws_params = sigma,max_rep,beta\n") {
		t.Errorf("draws.csv has no gpp_draws_params line")
	}
	a, _ := os.ReadFile(filepath.Join(full, summaryFile))
	b, _ := os.ReadFile(filepath.Join(kept, summaryFile))
	if string(a) != string(b) || !strings.Contains(string(b), "\nalpha,") {
		t.Errorf("summary.csv differs from the fit without --draws-params, or has no alpha")
	}
	// gpp logprob of the kept draws says why the others are missing
	code, _, stderr := runGpp("logprob", model, data, "--params", path, "--out", filepath.Join(dir, "lp.csv"))
	if code != 1 || !strings.Contains(stderr, "no column alpha") || !strings.Contains(stderr, "--draws-params sigma,max_rep,beta kept only those") {
		t.Errorf("logprob of kept draws: exit %d, stderr %q", code, stderr)
	}
}

// TestSampleDrawsParams: gpp sample keeps the named columns in draws.csv,
// its warm-up rows too, and every param in coords.csv.
func TestSampleDrawsParams(t *testing.T) {
	dir := t.TempDir()
	model, data := filepath.Join("..", "..", "examples", "regression.gpp"), filepath.Join("..", "..", "examples", "wine_std.csv")
	full, kept := filepath.Join(dir, "full"), filepath.Join(dir, "kept")
	common := []string{"sample", model, data, "--chains", "2", "--warmup", "150", "--draws", "50", "--save-warmup", "--quiet"}
	for _, c := range [][]string{
		append(slices.Clone(common), "--out", full),
		append(slices.Clone(common), "--out", kept, "--draws-params", "alpha"),
	} {
		if code, _, stderr := runGpp(c...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c, code, stderr)
		}
	}
	path := filepath.Join(kept, drawsFile)
	head := drawsHeaderRow(t, path)
	if i := slices.Index(head, "energy__"); i < 0 || !slices.Equal(head[i+1:], []string{"alpha"}) {
		t.Fatalf("draws.csv header %v, want the sampler's columns and alpha", head)
	}
	for _, name := range []string{"draw__", "lp__", "alpha"} {
		got, w := drawsColumn(t, path, name), drawsColumn(t, filepath.Join(full, drawsFile), name)
		if len(got) != 2*(150+50) || !slices.Equal(got, w) {
			t.Errorf("column %s: %d rows, or differs from the sample without --draws-params", name, len(got))
		}
	}
	a, _ := os.ReadFile(filepath.Join(full, coordsFile))
	b, _ := os.ReadFile(filepath.Join(kept, coordsFile))
	if withoutTimes(string(a)) != withoutTimes(string(b)) {
		t.Errorf("coords.csv differs from the sample without --draws-params")
	}
}

// TestDrawsParamsRefused: a name that is no param or output, or an
// element, is an error before the run, with no output written.
func TestDrawsParamsRefused(t *testing.T) {
	model, data := filepath.Join("..", "..", "examples", "regression.gpp"), filepath.Join("..", "..", "examples", "wine_std.csv")
	for _, c := range []struct{ cmd, arg, want string }{
		{"fit", "sigmx", "--draws-params: the model has no param or output sigmx; did you mean sigma? (its params and outputs: alpha, beta, sigma, proline_rep, max_rep, sd_rep)"},
		{"sample", "beta[1]", "--draws-params: beta[1] is an element: draws.csv keeps a param's or output's columns whole, as its readers read them; name beta (gpp summary --params beta[1] picks the element)"},
		{"fit", "beta.2", "name beta (gpp summary --params beta.2 picks the element)"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		code, _, stderr := runGpp(c.cmd, model, data, "--quiet", "--out", out, "--draws-params", c.arg)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s --draws-params %s: exit %d, stderr %q, want %q", c.cmd, c.arg, code, stderr, c.want)
		}
		if _, err := os.Stat(filepath.Join(out, drawsFile)); err == nil {
			t.Errorf("%s --draws-params %s wrote draws.csv", c.cmd, c.arg)
		}
	}
}

// TestAgainstDrawsParams: gpp sample --against a fit whose draws.csv kept
// some params alone (--draws-params) says so, and compares every element
// still; keptDrawsParams reads the line, and none from a full draws.csv.
func TestAgainstDrawsParams(t *testing.T) {
	dir := t.TempDir()
	model, data := filepath.Join("..", "..", "examples", "regression.gpp"), filepath.Join("..", "..", "examples", "wine_std.csv")
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runGpp("fit", model, data, "--quiet", "--out", fit, "--draws-params", "sigma"); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	code, _, stderr := runGpp("sample", model, data, "--quiet", "--chains", "2", "--warmup", "150", "--draws", "100", "--out", filepath.Join(dir, "s"), "--against", fit)
	want := "note: --against: the fit's " + filepath.Join(fit, drawsFile) + " keeps the draws of sigma alone (its --draws-params)"
	if code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %s\nwant %q", code, stderr, want)
	}
	rows := readCommentedCSV(t, filepath.Join(dir, "s", againstFile))
	if len(rows) < 4 {
		t.Errorf("against.csv has %d rows, want every element compared", len(rows))
	}
	if got := keptDrawsParams([]byte("# gpp_version = x\n#   gpp_draws_params = a,b\nlp__,a\n")); got != "a,b" {
		t.Errorf("keptDrawsParams = %q", got)
	}
	if got := keptDrawsParams([]byte("# gpp_version = x\nlp__,a\n#   gpp_draws_params = a\n")); got != "" {
		t.Errorf("keptDrawsParams past the header = %q", got)
	}
}
