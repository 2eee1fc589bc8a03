package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/dottest"
)

// TestGraphErrorsAsCheck: a model or data error is gpp check's, message
// and exit code, with nothing on stdout and no --out file made.
func TestGraphErrorsAsCheck(t *testing.T) {
	for _, args := range [][]string{
		{"testdata/bad.gpp"},
		{"testdata/check_binomial_cell.gpp", "testdata/check_binomial_cell.csv"},
		{"testdata/check_data_bounds.gpp", "testdata/check_data_bounds.csv", "--set", "U=3"},
		{"../../examples/gpfa.gpp", "testdata/no_such_file.csv"},
	} {
		t.Run(args[0], func(t *testing.T) {
			var cout, cerr, gout, gerr bytes.Buffer
			ccode := run(append([]string{"check"}, args...), strings.NewReader(""), &cout, &cerr)
			out := filepath.Join(t.TempDir(), "m.dot")
			gcode := run(append([]string{"graph", "--out", out}, args...), strings.NewReader(""), &gout, &gerr)
			if ccode != exitError || gcode != ccode {
				t.Errorf("exit %d, gpp check's %d (want %d)", gcode, ccode, exitError)
			}
			if gerr.String() != cerr.String() || gerr.Len() == 0 {
				t.Errorf("stderr:\n%s\nwant gpp check's:\n%s", gerr.String(), cerr.String())
			}
			if gout.Len() != 0 {
				t.Errorf("stdout not empty:\n%s", gout.String())
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out file made after an error (stat: %v)", err)
			}
		})
	}
}

// TestGraphOut: --out writes what stdout would get, and nothing else; a
// picture's extension is a usage error that makes no file.
func TestGraphOut(t *testing.T) {
	var want, stderr bytes.Buffer
	if code := run([]string{"graph", "../../examples/sv.gpp"}, strings.NewReader(""), &want, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	dir := t.TempDir()
	for _, name := range []string{"m.dot", "m.gv", "m.DOT"} {
		var stdout bytes.Buffer
		out := filepath.Join(dir, name)
		if code := run([]string{"graph", "--out", out, "../../examples/sv.gpp"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("--out %s: exit %d: %s", name, code, stderr.String())
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) || stdout.Len() != 0 {
			t.Errorf("--out %s wrote:\n%s\nstdout %q; want the DOT of stdout:\n%s", name, got, stdout.String(), want.String())
		}
	}
	for _, name := range []string{"m.png", "m.svg", "m"} {
		out := filepath.Join(dir, name)
		var stdout, stderr bytes.Buffer
		code := run([]string{"graph", "--out", out, "../../examples/sv.gpp"}, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), "| dot -Tpng") {
			t.Errorf("--out %s: exit %d, stderr %q; want %d and the hint to pipe into dot", name, code, stderr.String(), exitUsage)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--out %s: file made (stat: %v)", name, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("files left in the --out directory: %v, want the three graphs only", entries)
	}
}

// TestGraphGoldensWellFormed runs the DOT checker on the stdout of every
// graph golden that succeeds, and checks that each bundled example has one.
func TestGraphGoldensWellFormed(t *testing.T) {
	files, err := filepath.Glob("testdata/graph_*.golden")
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]bool{}
	for _, path := range files {
		g := parseGolden(t, path)
		if g.exit != exitOK || !strings.HasPrefix(g.stdout, "digraph ") {
			continue
		}
		if err := dottest.Check(g.stdout); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		checked[g.args[1]] = true
	}
	examples, _ := filepath.Glob("../../examples/*.gpp")
	for _, ex := range examples {
		if !checked[ex] {
			t.Errorf("no graph golden for %s", ex)
		}
	}
}

// TestReplGraph: :graph prints gpp graph's DOT of the session's model, its
// plates sized once the data are loaded.
func TestReplGraph(t *testing.T) {
	lines := []string{"data y: int<lower=0>[N]", "param mu: real ~ Normal(0, 1)", "y ~ Poisson(exp(mu))"}
	path := filepath.Join(t.TempDir(), "model.gpp")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, withData := range []bool{false, true} {
		args := []string{"graph", path}
		if withData {
			args = append(args, "testdata/repl_counts.csv")
		}
		var want, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &want, &stderr); code != exitOK {
			t.Fatalf("gpp graph: exit %d: %s", code, stderr.String())
		}
		r, out, errb := newTestRepl()
		typeIn(r, lines...)
		if withData {
			typeIn(r, ":data testdata/repl_counts.csv")
		}
		out.Reset()
		typeIn(r, ":graph")
		if out.String() != want.String() || r.failed {
			t.Errorf("data %v: :graph printed:\n%s\nwant gpp graph's:\n%s\nerrors: %s", withData, out.String(), want.String(), errb.String())
		}
		if label := `label = "N (10)"`; strings.Contains(out.String(), label) != withData {
			t.Errorf("data %v: plate label %s shown: %v", withData, label, !withData)
		}
	}
}

// TestGraphLevels: gpp graph takes --levels, which the data's warning of
// a column of Likert labels coded in byte order names (it was an unknown
// flag), and with it the warning is not given.
func TestGraphLevels(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", "data y: int<lower=0, upper=2>[N]\nparam c: ordered[2] ~ Normal(0, 3)\ny ~ OrderedLogistic(0, c)\n")
	csv := writeFile(t, dir, "d.csv", "y\nAgree\nDisagree\nNeutral\nAgree\n")
	code, _, stderr := runSafe(t, "graph", model, csv)
	if code != 0 || !strings.Contains(stderr, "give the order with --levels y=") {
		t.Fatalf("without --levels: exit %d, want the byte-order warning naming --levels; stderr\n%s", code, stderr)
	}
	code, stdout, stderr := runSafe(t, "graph", model, csv, "--levels", "y=Disagree,Neutral,Agree")
	if code != 0 || strings.Contains(stderr, "warning") || !strings.Contains(stdout, "digraph") {
		t.Errorf("with --levels: exit %d, stdout\n%s\nstderr\n%s", code, stdout, stderr)
	}
}
