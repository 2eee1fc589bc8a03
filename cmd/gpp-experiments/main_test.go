package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/shareddata"
)

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage: gpp-experiments"},
		{[]string{"nonsense"}, 2, `unknown experiment "nonsense"`},
		{[]string{"--frobnicate", "epm"}, 2, "flag provided but not defined"},
		{[]string{"epm", "gpfa-cytof"}, 2, "usage: gpp-experiments"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), c.args, &stderr); code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
}

// Every experiment named in the usage has a runner, in the order "all" runs.
func TestRunners(t *testing.T) {
	if len(order) != len(experiments) {
		t.Fatalf("%d experiments, %d in the run order", len(experiments), len(order))
	}
	for _, name := range order {
		if experiments[name].run == nil {
			t.Errorf("no runner for %q", name)
		}
	}
}

// The subset flags: refused by an experiment that does not take them and
// with all, parsed as lists, and a partial or --quick run writes outside
// docs/results by default (a reviewer's --quick run in a clone
// overwrote the committed results).
func TestSubsetFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--K", "10", "vi-nuts"}, "--K does not apply to vi-nuts (it takes none of them)"},
		{[]string{"--seeds", "2", "epm"}, "--seeds does not apply to epm (it takes --K, --splits, --methods, --iter)"},
		{[]string{"--K", "10", "all"}, "--K picks part of one experiment, not of all"},
		{[]string{"--K", "10,x", "epm"}, `invalid value "10,x" for flag -K: "x" is not a positive integer`},
		{[]string{"--K", "0", "epm"}, `"0" is not a positive integer`},
		{[]string{"--splits", "0", "epm"}, "--splits 0: give a positive number"},
		{[]string{"--iter", "-5", "pmf"}, "--iter -5: give a positive number"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), c.args, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
	var ks []int
	if err := (intList{&ks}).Set("10, 20,50"); err != nil || !slices.Equal(ks, []int{10, 20, 50}) {
		t.Errorf("--K 10, 20,50: %v, %v", ks, err)
	}
	var ms []string
	if err := (stringList{&ms}).Set("gamma-implicit,lognormal"); err != nil || !slices.Equal(ms, []string{"gamma-implicit", "lognormal"}) {
		t.Errorf("--methods: %v, %v", ms, err)
	}
	if _, err := epmMethods([]string{"gamma-implicit", "nonsense"}); err == nil {
		t.Error("--methods nonsense for epm: no error")
	}
	// an unknown EPM method fails before any data is read, in the
	// temporary folder, not docs/results
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"--methods", "nonsense", "epm"}, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "writing into "+quickOut()) || strings.Contains(stderr.String(), "docs/results") {
		t.Errorf("partial run: exit %d, stderr %q; want exit 1 writing into %s", code, stderr.String(), quickOut())
	}
}

// A partial EPM run reproduces split 0's K = 10 rows of the committed
// docs/results/epm_linkpred.csv (docs/results.md's example command).
func TestPartialEPMRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a 7 s fit; skipped with -short")
	}
	shareddata.Path(t, "networks", "index.csv") // skips without ../shared
	out := t.TempDir()
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"--quiet", "--K", "10", "--splits", "1", "--methods", "katz,gamma-implicit", "--out", out, "epm"}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	csv := filepath.Join(out, "epm_linkpred.csv")
	if b, err := os.ReadFile(csv); err != nil || strings.Count(string(b), "\n") != 3 {
		t.Fatalf("%s: want a header and 2 rows (K = 10, split 0, two methods):\n%s%v", csv, b, err)
	}
	got := readRows(t, csv)
	want := readRows(t, filepath.Join("..", "..", "docs", "results", "epm_linkpred.csv"))
	if len(got) != 2 {
		t.Fatalf("%d rows, want katz and gamma-implicit at K = 10: %v", len(got), got)
	}
	for key, auc := range got {
		if want[key] != auc {
			t.Errorf("%s: AUC-ROC %s, the committed results %s", key, auc, want[key])
		}
	}
}

// readRows maps "split/method" of an epm_linkpred.csv to its auc_roc,
// split 0's rows at K = 10 and Katz's (K 0) only.
func readRows(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(line, ",")
		if f[0] == "0" && (f[1] == "10" || f[2] == "katz") {
			rows[f[0]+"/"+f[2]] = f[3]
		}
	}
	return rows
}
