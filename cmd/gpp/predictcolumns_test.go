package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const predColsDir = "testdata/predcols"

// TestPredictColumnsByName fits testdata/predcols/m.gpp with
// X=train.csv:-y (columns a, b, c) and a NUTS sample of it, and predicts
// from each on new rows whose columns are in the fit's order, in another
// (c, a, b), given whole or as the one positional file, and renamed:
//
//   - fit.json's data_columns and coords.csv's "# columns" record a, b, c;
//   - the reordered file's predictions are the ordered file's, draw for
//     draw (same seed), with a note that the columns were matched by name;
//   - a renamed column is an error at the header naming it, exit 1,
//     unless the columns are selected by name, which bind by position.
func TestPredictColumnsByName(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(predColsDir, "train.csv")
	model := filepath.Join(predColsDir, "m.gpp")
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runSafe(t, "fit", model, "y="+train, "X="+train+":-y", "--quiet", "--output-draws", "50", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	var ff struct {
		DataColumns map[string][]string `json:"data_columns"`
	}
	b, err := os.ReadFile(filepath.Join(fit, fitFileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ff); err != nil {
		t.Fatal(err)
	}
	if got := ff.DataColumns["X"]; !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("fit.json data_columns X = %v, want [a b c]", got)
	}
	sample := filepath.Join(dir, "sample")
	if code, _, stderr := runSafe(t, "sample", model, "y="+train, "X="+train+":-y", "--quiet", "--chains", "1", "--warmup", "100", "--draws", "50", "--out", sample); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(sample, "coords.csv")); err != nil || !strings.Contains(string(b), "# columns X = [\"a\",\"b\",\"c\"]\n") {
		t.Errorf("coords.csv does not record X's columns (%v):\n%.400s", err, b)
	}
	const note = `the columns of ` + "`X`" + ` bound by name in the fit's order (a, b, c), not in the file's (c, a, b)`
	for _, run := range []string{fit, sample} {
		predict := func(name, data string) (rows []string, stderr string) {
			t.Helper()
			out := filepath.Join(dir, filepath.Base(run)+"-"+name)
			code, _, stderr := runSafe(t, "predict", run, model, data, "--quiet", "--out", out)
			if code != 0 {
				t.Fatalf("predict %s %s: exit %d: %s", run, data, code, stderr)
			}
			_, rows = drawLines(t, filepath.Join(out, "draws.csv"))
			return rows, stderr
		}
		want, stderr := predict("ordered", "X="+filepath.Join(predColsDir, "new.csv"))
		if strings.Contains(stderr, "bound by name") {
			t.Errorf("%s: the fit's order gave a note: %s", run, stderr)
		}
		for _, data := range []string{"X=" + filepath.Join(predColsDir, "new_rev.csv"), filepath.Join(predColsDir, "new_rev.csv")} {
			got, stderr := predict("rev", data)
			if !slices.Equal(got, want) {
				t.Errorf("%s: predictions on %s differ from those on new.csv (same rows, columns in another order)", run, data)
			}
			if !strings.Contains(stderr, "new_rev.csv: "+note) {
				t.Errorf("%s %s: stderr lacks the note %q:\n%s", run, data, note, stderr)
			}
		}
		// columns selected by name bind by position
		got, _ := predict("selected", "X="+filepath.Join(predColsDir, "new_renamed.csv")+":a,b,z")
		if !slices.Equal(got, want) {
			t.Errorf("%s: predictions on the columns a,b,z of new_renamed.csv differ from those on new.csv", run)
		}
		code, _, stderr := runSafe(t, "predict", run, model, "X="+filepath.Join(predColsDir, "new_renamed.csv"), "--quiet", "--out", filepath.Join(dir, "renamed"))
		if wantErr := "new_renamed.csv:1:5: `X` was fitted on the columns a, b, c, in that order"; code != 1 || !strings.Contains(stderr, wantErr) || !strings.Contains(stderr, `lack "c" and have "z"`) {
			t.Errorf("%s: renamed column: exit %d, stderr:\n%s\nwant exit 1 and %q", run, code, stderr, wantErr)
		}
	}
}

// TestLogprobColumnsByName: gpp logprob at a fit's draws binds a matrix's
// columns by the fit's names too: the fit's data with X's columns in
// another order give the same log densities, with the note.
func TestLogprobColumnsByName(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(predColsDir, "train.csv")
	model := filepath.Join(predColsDir, "m.gpp")
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runSafe(t, "fit", model, "y="+train, "X="+train+":-y", "--quiet", "--output-draws", "5", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	src, err := os.ReadFile(train)
	if err != nil {
		t.Fatal(err)
	}
	var rev strings.Builder // y,c,a,b
	for _, line := range strings.Split(strings.TrimSuffix(string(src), "\n"), "\n") {
		f := strings.Split(line, ",")
		rev.WriteString(strings.Join([]string{f[0], f[3], f[1], f[2]}, ",") + "\n")
	}
	trainRev := filepath.Join(dir, "train_rev.csv")
	if err := os.WriteFile(trainRev, []byte(rev.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	draws := filepath.Join(fit, "draws.csv")
	code, want, stderr := runSafe(t, "logprob", model, "y="+train, "X="+train+":-y", "--params", draws)
	if code != 0 {
		t.Fatalf("logprob: exit %d: %s", code, stderr)
	}
	code, got, stderr := runSafe(t, "logprob", model, "y="+trainRev, "X="+trainRev+":-y", "--params", draws)
	if code != 0 {
		t.Fatalf("logprob (columns reordered): exit %d: %s", code, stderr)
	}
	if got != want {
		t.Errorf("logprob with X's columns reordered:\n%s\nwant the fit's order's:\n%s", got, want)
	}
	if !strings.Contains(stderr, "bound by name in the fit's order (a, b, c), not in the file's (c, a, b)") {
		t.Errorf("stderr lacks the note:\n%s", stderr)
	}
}

// TestReplPredictColumnsByName: the REPL's :predict binds a matrix's
// columns by the :fit's names too: X's columns in another order give the
// same table as the fit's order, with the note.
func TestReplPredictColumnsByName(t *testing.T) {
	train := filepath.Join(predColsDir, "train.csv")
	script := ":load " + filepath.Join(predColsDir, "m.gpp") + "\n:data y=" + train + " X=" + train + ":-y\n:fit --quiet --seed 3\n" +
		":predict X=" + filepath.Join(predColsDir, "new.csv") + "\n:predict X=" + filepath.Join(predColsDir, "new_rev.csv") + "\n"
	var out strings.Builder
	run([]string{"repl", "--history", "-"}, strings.NewReader(script), &out, &out)
	tables := strings.Split(out.String(), ">>> :predict ")
	if len(tables) != 3 {
		t.Fatalf("want two :predict outputs:\n%s", out.String())
	}
	rows := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "y[") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if a, b := rows(tables[1]), rows(tables[2]); len(a) == 0 || a != b {
		t.Errorf("the fit's column order and another give different predictions:\n%s\n%s", a, b)
	}
	if !strings.Contains(tables[2], "bound by name in the fit's order (a, b, c), not in the file's (c, a, b)") {
		t.Errorf("no note on the reordered columns:\n%s", tables[2])
	}
}
