package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplSensitivity checks :sensitivity on the gamma–Poisson model:
// before any result it is an error and the session goes on; after a
// :sample --out, and after a :fit --out, its --csv is byte for byte gpp
// sensitivity's of the files written, and its draws line names the result
// used; a change of the values set since, --seed over a sample, a bad
// flag and an argument are errors; :help sensitivity documents it.
func TestReplSensitivity(t *testing.T) {
	dir := t.TempDir()
	r, out, errb := newTestRepl()
	typeIn(r, ":load testdata/repl_model.gpp", ":data testdata/repl_counts.csv")
	out.Reset()
	typeIn(r, ":sensitivity")
	if !strings.Contains(errb.String(), "no fit or sample yet") || out.Len() != 0 {
		t.Errorf("before a result: stdout %q, stderr %q", out, errb)
	}
	for _, c := range []struct{ cmd, used string }{
		{":sample --quiet --chains 2 --warmup 300 --draws 500 --seed 3 --out " + filepath.Join(dir, "sample"), "NUTS draws of sample 1 (2 chains × 500)"},
		{":fit --quiet --seed 2 --out " + filepath.Join(dir, "fit"), "4000 draws of the q of fit 1 (seed 2), weighted by p/q"},
	} {
		kind := strings.TrimPrefix(strings.Fields(c.cmd)[0], ":")
		typeIn(r, c.cmd)
		out.Reset()
		errb.Reset()
		csvRepl := filepath.Join(dir, kind+"-repl.csv")
		typeIn(r, ":sensitivity --csv "+csvRepl)
		if !strings.Contains(out.String(), "\ndraws        "+c.used+"\n") || !strings.HasPrefix(out.String(), "variable  prior  likelihood  diagnosis\nlambda ") {
			t.Errorf("after :%s:\n%s%s", kind, out, errb)
		}
		csvCmd := filepath.Join(dir, kind+"-cmd.csv")
		if code, _, stderr := runGpp("sensitivity", filepath.Join(dir, kind), "testdata/repl_model.gpp", "testdata/repl_counts.csv", "--csv", csvCmd); code != 0 {
			t.Fatalf("gpp sensitivity: %s", stderr)
		}
		a, errA := os.ReadFile(csvRepl)
		b, errB := os.ReadFile(csvCmd)
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf(":%s: :sensitivity's CSV\n%s\ngpp sensitivity's\n%s (%v, %v)", kind, a, b, errA, errB)
		}
	}
	for _, c := range []struct{ in, want string }{
		{":sensitivity --threshold 0", "--threshold must be a positive number"},
		{":sensitivity --draws 9", "--draws must be at least 10"},
		{":sensitivity --bogus", ":sensitivity --help lists the flags"},
		{":sensitivity mu", ":sensitivity takes flags only, not mu"},
		{":sensitivity --set a=3", "set them with :set"},
		{":sensitivity --prior lambda,", "comma-separated names"},
	} {
		out.Reset()
		errb.Reset()
		typeIn(r, c.in)
		if !strings.Contains(errb.String(), c.want) || out.Len() != 0 {
			t.Errorf("%s: stdout %q, stderr %q; want %q", c.in, out, errb, c.want)
		}
	}
	typeIn(r, ":sample --quiet --chains 1 --warmup 100 --draws 100 --seed 3")
	for _, c := range []struct{ in, want string }{
		{":sensitivity --seed 4", "--seed and --draws are a fit's"},
		{":set a=3", ""},
		{":sensitivity", "changed since the last :sample"},
	} {
		out.Reset()
		errb.Reset()
		typeIn(r, c.in)
		if c.want != "" && (!strings.Contains(errb.String(), c.want) || out.Len() != 0) {
			t.Errorf("%s: stdout %q, stderr %q; want %q", c.in, out, errb, c.want)
		}
	}
	if !r.failed {
		t.Error("the errors did not mark the session failed")
	}
	out.Reset()
	typeIn(r, ":help sensitivity")
	if !strings.Contains(out.String(), ":sensitivity [flags]") || !strings.Contains(out.String(), "--prior NAMES") {
		t.Errorf(":help sensitivity:\n%s", out)
	}
}

// TestReplSensitivityDefault: :sensitivity selects the prior as gpp
// sensitivity does: on the pumps model it leaves out theta's population
// prior and says so; --prior all power-scales every prior.
func TestReplSensitivityDefault(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "pumps.gpp", pumpsModel)
	data := writeFile(t, dir, "pumps.csv", "t,x\n94.3,5\n15.7,1\n62.9,5\n126,14\n5.24,3\n31.4,19\n1.05,1\n1.05,1\n2.1,4\n10.5,22\n")
	r, out, errb := newTestRepl()
	typeIn(r, ":load "+model, ":data "+data, ":sample --quiet --chains 2 --warmup 300 --draws 300 --seed 3")
	out.Reset()
	typeIn(r, ":sensitivity")
	if !strings.Contains(out.String(), "power-scaled the prior of alpha, beta and the likelihood") || !strings.Contains(out.String(), "left out     the prior of theta (Gamma(alpha, beta) reads params") {
		t.Errorf(":sensitivity does not leave out theta's prior:\n%s%s", out, errb)
	}
	out.Reset()
	typeIn(r, ":sensitivity --prior all")
	if !strings.Contains(out.String(), "power-scaled the prior and the likelihood") || strings.Contains(out.String(), "left out") {
		t.Errorf(":sensitivity --prior all:\n%s%s", out, errb)
	}
}
