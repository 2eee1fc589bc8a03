package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// initModel loads examples/regression.gpp (alpha real, beta real[2],
// sigma positive: coordinates alpha, beta[1], beta[2], log sigma) and
// its unconstrained density.
func initModel(t *testing.T) (*pipeline.Loaded, *sgvb.Unconstrained) {
	t.Helper()
	return initModelAt(t, "../../examples/regression.gpp", "../../examples/wine_std.csv")
}

// readInitJSON writes src to a .json file and reads it as --init does.
func readInitJSON(t *testing.T, l *pipeline.Loaded, src string) *initValues {
	t.Helper()
	path := filepath.Join(t.TempDir(), "inits.json")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, v, err := readInit(path, l, setFlags{}, sources{})
	if err != nil || f != nil || v == nil {
		t.Fatalf("readInit: fit %v, values %v, error %v; want values", f, v, err)
	}
	return v
}

// TestInitValuesStart checks gpp sample's starts: --init FILE.json puts
// every chain at the values given, the params it does not name where
// they start without it, --init-radius 0 at 0, and the default radius
// (or 2 given) at Init's start, today's, bit for bit.
func TestInitValuesStart(t *testing.T) {
	l, u := initModel(t)
	start := func(sc *sampleConfig, c int) []float64 {
		t.Helper()
		sc.nuts = nuts.Settings{Seed: 3}
		dst := make([]float64, u.Dim())
		if err := sc.randomStart(u, c, dst); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	today := make([]float64, u.Dim())
	if err := u.Init(rand.New(rand.NewPCG(3, initStream+1)), today); err != nil {
		t.Fatal(err)
	}
	def := start(&sampleConfig{}, 1)
	two := 2.0
	given2 := start(&sampleConfig{radius: &two}, 1)
	for i := range today {
		if def[i] != today[i] || given2[i] != today[i] {
			t.Fatalf("default start %v, --init-radius 2 %v; want Init's %v", def, given2, today)
		}
	}
	zero := 0.0
	for i, v := range start(&sampleConfig{radius: &zero}, 1) {
		if v != 0 {
			t.Errorf("--init-radius 0: coordinate %d is %v, want 0", i, v)
		}
	}
	all := readInitJSON(t, l, `{"sigma": 0.5, "alpha": 0.3, "beta": [0.1, -0.2]}`)
	want := []float64{0.3, 0.1, -0.2, math.Log(0.5)}
	for c := range 2 {
		got := start(&sampleConfig{values: all}, c)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-15 {
				t.Fatalf("chain %d starts at %v, want %v", c+1, got, want)
			}
		}
	}
	some := readInitJSON(t, l, `{"sigma": 0.5}`)
	got := start(&sampleConfig{values: some}, 1)
	if got[0] != today[0] || got[1] != today[1] || got[2] != today[2] || math.Abs(got[3]-math.Log(0.5)) > 1e-15 {
		t.Errorf("sigma given: start %v, want %v with log 0.5 last", got, today)
	}
	got = start(&sampleConfig{values: some, radius: &zero}, 1)
	if got[0] != 0 || got[1] != 0 || got[2] != 0 || math.Abs(got[3]-math.Log(0.5)) > 1e-15 {
		t.Errorf("sigma given, --init-radius 0: start %v, want 0, 0, 0, log 0.5", got)
	}
}

// TestFitInitValues checks that gpp fit --init FILE.json moves the fit's
// start (the centre of its start q, sgvb.StartPoint) to the values given
// and leaves the others at the default start, until restored.
func TestFitInitValues(t *testing.T) {
	l, _ := initModel(t)
	before := sgvb.StartPoint(pipeline.Latents(l.Model), l.Model.Dim)
	path := filepath.Join(t.TempDir(), "inits.json")
	src := []byte(`{"sigma": 0.5, "beta": [0.1, -0.2]}`)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := readInitFile(path, src, l)
	if err != nil || v == nil {
		t.Fatalf("readInitFile: %v, %v", v, err)
	}
	restore := v.setStart(l.Model)
	got := sgvb.StartPoint(pipeline.Latents(l.Model), l.Model.Dim)
	want := []float64{before[0], 0.1, -0.2, math.Log(0.5)}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("start %v, want %v", got, want)
		}
	}
	restore() // the REPL's model goes back to its own start after the :fit
	if got := sgvb.StartPoint(pipeline.Latents(l.Model), l.Model.Dim); !slices.Equal(got, before) {
		t.Errorf("start %v after restore, want %v", got, before)
	}
	if v, err := readInitFile(filepath.Join("testdata", "against", fitFileName), nil, l); v != nil || err != nil {
		t.Errorf("a fit.json read as values (%v) or an error (%v)", v, err)
	}
}

// TestInitTellsFitFromValues checks that --init reads a gpp fit.json
// under another name as a fit (by its keys), and a file of values as
// values.
func TestInitTellsFitFromValues(t *testing.T) {
	l, err := pipeline.Load("testdata/fit_poisson.gpp", []string{"testdata/fit_counts.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "against", fitFileName))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	other, vals := filepath.Join(dir, "other.json"), filepath.Join(dir, "inits.json")
	if err := os.WriteFile(other, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vals, []byte(`{"lambda": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, v, err := readInit(other, l, setFlags{}, sources{}); f == nil || v != nil || err != nil {
		t.Errorf("a fit.json named other.json: fit %v, values %v, error %v; want a fit", f, v, err)
	} else if want := "q of the fit in " + other; f.what != want {
		t.Errorf("a fit.json named other.json: the start %q, want %q", f.what, want)
	}
	// A file of values with a syntax error is not called a fit file, and a
	// fit file with one (its first key "format") still is.
	for _, c := range []struct{ src, want string }{
		{"{\"lambda\": 2,}", "bad.json:1:14: invalid JSON: "},
		{"{\"format\": \"gpp-fit/1\",}", "bad.json:1:24: malformed fit file: "},
	} {
		bad := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(bad, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := readInit(bad, l, setFlags{}, sources{})
		_, ferr := readInitFile(bad, []byte(c.src), l)
		if err == nil || !strings.HasPrefix(strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)), c.want) {
			t.Errorf("--init %s: %v, want %q", c.src, err, c.want)
		}
		if fit := strings.Contains(c.want, "fit file"); fit != (ferr == nil) {
			t.Errorf("gpp fit --init %s: %v, want %q", c.src, ferr, c.want)
		}
	}
	if f, v, err := readInit(vals, l, setFlags{}, sources{}); f != nil || v == nil || err != nil || !v.All() {
		t.Errorf("a file of every param's value: fit %v, values %v, error %v; want values", f, v, err)
	}
}

// TestInitRadiusNotUsed checks the note that --init-radius is not used
// when every chain starts from a fit or from every param's value, in gpp
// sample and the REPL's :sample alike.
func TestInitRadiusNotUsed(t *testing.T) {
	dir := t.TempDir()
	all := filepath.Join(dir, "all.json")
	if err := os.WriteFile(all, []byte(`{"lambda": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fit := filepath.Join("testdata", "against")
	for _, c := range []struct{ init, note string }{
		{fit, "--init-radius 1: not used, the chains start from q of the fit at " + fit},
		{all, "--init-radius 1: not used, the chains start from the values in " + all},
	} {
		flags := "--quiet --chains 1 --warmup 10 --draws 10 --init-radius 1 --init " + c.init
		var out, errb bytes.Buffer
		code := run(append([]string{"sample", "testdata/fit_poisson.gpp", "testdata/fit_counts.csv", "--out", filepath.Join(dir, "s")}, strings.Fields(flags)...), strings.NewReader(""), &out, &errb)
		if code != exitOK || !strings.Contains(errb.String(), c.note) {
			t.Errorf("gpp sample %s: exit %d, want the note %q in\n%s", flags, code, c.note, errb.String())
		}
		r, _, rerr := newTestRepl()
		typeIn(r, ":load testdata/fit_poisson.gpp", ":data testdata/fit_counts.csv", ":sample "+flags)
		if r.sample == nil || !strings.Contains(rerr.String(), c.note) {
			t.Errorf(":sample %s: want the note %q in\n%s", flags, c.note, rerr.String())
		}
	}
}
