package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/experiments/epm"
	"github.com/gpplang/gpp/internal/shareddata"
)

// writeSummary writes DIR/summary.csv with p_unknown[m] = mean(m) for the
// 1311 held-out pairs, after an unrelated row, and returns DIR.
func writeSummary(t *testing.T, header string, mean func(m int) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "\nr[0],gamma,0.5,0.1\n")
	for m := range 1311 {
		fmt.Fprintf(&b, "p_unknown[%d],output,%s,0.1\n", m, mean(m))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "summary.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func footballAUCRun(dir string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := footballAUC([]string{dir}, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestFootballAUCTruth: scores that are the truth of the example's split
// (1 for the 118 held-out games, 0 otherwise) rank perfectly, AUC 1; their
// reverse scores 0. This fails if the truth were rebuilt from another split
// or paired with p_unknown in another order.
func TestFootballAUCTruth(t *testing.T) {
	nets := filepath.Dir(shareddata.Path(t, "networks", "index.csv"))
	s, err := epm.FootballSplit(nets, "../../examples/football_heldout.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		on, off, want string
	}{{"1", "0", "AUC-ROC         1.000"}, {"0", "1", "AUC-ROC         0.000"}} {
		dir := writeSummary(t, "name,family,mean,sd", func(m int) string {
			if s.TestLink[m] {
				return c.on
			}
			return c.off
		})
		code, stdout, stderr := footballAUCRun(dir)
		if code != 0 || !strings.Contains(stdout, c.want) || !strings.Contains(stdout, "held-out pairs  1311 (118 games)") {
			t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, c.want)
		}
	}
}

// TestFootballAUCErrors: bad input gets a positioned error and exit 1.
func TestFootballAUCErrors(t *testing.T) {
	shareddata.Path(t, "networks", "index.csv")
	const hdr = "name,family,mean,sd"
	half := func(m int) string { return "0.5" }
	short := writeSummary(t, hdr, half)
	b, _ := os.ReadFile(filepath.Join(short, "summary.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if err := os.WriteFile(filepath.Join(short, "summary.csv"), []byte(strings.Join(lines[:len(lines)-1], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, dir, want string
	}{
		{"no mean", writeSummary(t, "name,family,average,sd", half), `summary.csv:1:1: no column "mean"`},
		{"bad mean", writeSummary(t, hdr, func(m int) string {
			if m == 7 {
				return "x"
			}
			return "0.5"
		}), `summary.csv:10:21: mean "x" is not a number`},
		{"short", short, "summary.csv: 1310 p_unknown rows, want one for each of the 1311 held-out pairs"},
		{"missing", t.TempDir(), "summary.csv: no such file"},
	} {
		code, _, stderr := footballAUCRun(c.dir)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", c.name, code, stderr, c.want)
		}
	}
	var stderr bytes.Buffer
	if code := run(nil, []string{"football-auc"}, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage: gpp-experiments football-auc DIR") {
		t.Errorf("no DIR: exit %d, stderr %q", code, stderr.String())
	}
}

// TestFootballSplitMismatch: a held-out file that is not the split's, pair
// for pair, is refused with the position of the first difference.
func TestFootballSplitMismatch(t *testing.T) {
	nets := filepath.Dir(shareddata.Path(t, "networks", "index.csv"))
	b, err := os.ReadFile("../../examples/football_heldout.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	swapped := append([]string(nil), lines...)
	swapped[3], swapped[4] = swapped[4], swapped[3]
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"swapped", swapped, "heldout.csv:4:1: held-out pair 2 is "},
		{"short", lines[:len(lines)-1], "heldout.csv: 1310 held-out pairs, the split has 1311"},
		{"header", append([]string{"a,b"}, lines[1:]...), "heldout.csv:1:1: expected the header i,j"},
	} {
		p := filepath.Join(t.TempDir(), "heldout.csv")
		if err := os.WriteFile(p, []byte(strings.Join(c.lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := epm.FootballSplit(nets, p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want %q", c.name, err, c.want)
		}
	}
}
