package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// sampleFiles runs gpp sample on the Gamma–Poisson model with args into a
// new directory and returns it.
func sampleFiles(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "s")
	code, _, stderr := runGpp(append([]string{"sample", poissonModel, poissonData, "--quiet", "--out", out}, args...)...)
	if code != exitOK {
		t.Fatalf("gpp sample %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return out
}

// drawsRows returns the data rows of a draws.csv (after its header) split
// into fields, and the header.
func drawsRows(src string) (header []string, rows [][]string) {
	for _, l := range strings.Split(src, "\n") {
		if l == "" || l[0] == '#' {
			continue
		}
		if header == nil {
			header = strings.Split(l, ",")
			continue
		}
		rows = append(rows, strings.Split(l, ","))
	}
	return header, rows
}

// TestSaveWarmup: --save-warmup writes warmup/thin warm-up rows before
// each chain's draws, draw__ from −n to −1, with CmdStan's comments, and
// changes nothing else: the summary, coords.csv and the kept rows are
// those of the run without it, and gpp's readers of draws.csv skip them.
func TestSaveWarmup(t *testing.T) {
	args := []string{"--chains", "2", "--warmup", "40", "--draws", "30", "--thin", "3", "--seed", "5"}
	plain := sampleFiles(t, args...)
	saved := sampleFiles(t, append(args, "--save-warmup")...)
	for _, f := range []string{summaryFile, coordsFile} {
		if readText(t, filepath.Join(plain, f)) != readText(t, filepath.Join(saved, f)) {
			t.Errorf("--save-warmup changed %s", f)
		}
	}
	src := readText(t, filepath.Join(saved, drawsFile))
	for _, c := range []string{"#     save_warmup = 1\n", "#     num_warmup = 40\n", "#     thin = 3\n"} {
		if !strings.Contains(src, c) {
			t.Errorf("draws.csv lacks %q", c)
		}
	}
	header, rows := drawsRows(src)
	const nWarm, nKept = 40 / 3, 30 / 3
	if len(rows) != 2*(nWarm+nKept) {
		t.Fatalf("%d rows, want 2 × (%d + %d)", len(rows), nWarm, nKept)
	}
	var kept [][]string
	for c := range 2 {
		chain := rows[c*(nWarm+nKept) : (c+1)*(nWarm+nKept)]
		for i, r := range chain {
			want := i - nWarm // −nWarm … −1, then 1 … nKept
			if i >= nWarm {
				want++
			}
			if r[0] != strconv.Itoa(c+1) || r[1] != strconv.Itoa(want) {
				t.Fatalf("chain %d row %d: chain__ %s draw__ %s, want %d %d", c+1, i+1, r[0], r[1], c+1, want)
			}
		}
		kept = append(kept, chain[nWarm:]...)
	}
	// The warm-up rows' step sizes are those warm-up tried, not the final one.
	steps := map[string]bool{}
	for _, r := range rows[:nWarm] {
		steps[r[slices.Index(header, "stepsize__")]] = true
	}
	if len(steps) < 2 {
		t.Errorf("the warm-up rows have one step size: %v", steps)
	}
	_, plainRows := drawsRows(readText(t, filepath.Join(plain, drawsFile)))
	if !slices.EqualFunc(kept, plainRows, slices.Equal[[]string]) {
		t.Error("the kept rows differ from the run's without --save-warmup")
	}
	if withoutTimes(strings.Replace(src, "save_warmup = 1", "save_warmup = 0", 1)) == withoutTimes(readText(t, filepath.Join(plain, drawsFile))) {
		t.Error("draws.csv has no warm-up rows")
	}
	// gpp's readers of a sample's draws.csv read the kept rows only.
	lp, _, err := readSampleLP(filepath.Join(saved, drawsFile), 2*nKept)
	if err != nil {
		t.Fatal(err)
	}
	lpCol := slices.Index(header, "lp__")
	for d, r := range kept {
		if v, _ := strconv.ParseFloat(r[lpCol], 64); v != lp[d] {
			t.Fatalf("readSampleLP draw %d: %v, want %v", d+1, lp[d], v)
		}
	}
	l, u := initModelAt(t, poissonModel, poissonData)
	pts, err := logprobCSV("draws.csv", []byte(src), l, u)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2*nKept {
		t.Errorf("gpp logprob --params draws.csv read %d points, want the %d kept draws", len(pts), 2*nKept)
	}
	// gpp summary leaves the warm-up rows out by draw__: 40 / 3 of them a
	// chain, where CmdStan's count, ⌈40 / 3⌉, would drop a kept draw too.
	_, want, _ := runGpp("summary", filepath.Join(plain, drawsFile))
	code, got, stderr := runGpp("summary", filepath.Join(saved, drawsFile))
	if code != exitOK {
		t.Fatalf("gpp summary: exit %d\n%s", code, stderr)
	}
	table := func(s string) string { return s[:strings.Index(s, "\n\n")] }
	if table(got) != table(want) {
		t.Errorf("gpp summary with the warm-up rows saved:\n%s\nwithout them:\n%s", table(got), table(want))
	}
}

// initModelAt loads a model and its data and its unconstrained density.
func initModelAt(t *testing.T, model, dataFile string) (*pipeline.Loaded, *sgvb.Unconstrained) {
	t.Helper()
	l, err := pipeline.Load(model, []string{dataFile}, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
	if err != nil {
		t.Fatal(err)
	}
	return l, u
}

// metricOf reads a metric file as --metric-file does.
func metricOf(t *testing.T, path string, d int, m nuts.Metric) (float64, []float64) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := parseMetricFile(path, src, d, m)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		StepSize float64 `json:"stepsize"`
	}
	if err := json.Unmarshal(src, &f); err != nil {
		t.Fatal(err)
	}
	return f.StepSize, inv
}

// TestMetricRoundTrip: --save-metric writes each chain's adapted step
// size and inverse metric; a run from them (--metric-file, --stepsize)
// with --warmup 0 or --adapt=false samples at that step size and metric,
// as its draws.csv says, deterministically; and the file reads back as
// the chain's metric, bit for bit.
func TestMetricRoundTrip(t *testing.T) {
	reg, regData := "testdata/against_reg.gpp", "testdata/against_reg.csv"
	for _, metric := range []string{"diag", "dense"} {
		dir := t.TempDir()
		run := func(out string, args ...string) string {
			t.Helper()
			out = filepath.Join(dir, out)
			code, _, stderr := runGpp(append([]string{"sample", reg, regData, "--quiet", "--out", out, "--metric", metric, "--chains", "2", "--seed", "9"}, args...)...)
			if code != exitOK {
				t.Fatalf("gpp sample %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
			}
			return out
		}
		first := run("first", "--warmup", "200", "--draws", "20", "--save-metric")
		m := map[string]nuts.Metric{"diag": nuts.DiagE, "dense": nuts.DenseE}[metric]
		files := []string{filepath.Join(first, metricFileName(1)), filepath.Join(first, metricFileName(2))}
		eps1, inv1 := metricOf(t, files[0], 2, m)
		eps2, inv2 := metricOf(t, files[1], 2, m)
		firstDraws := readText(t, filepath.Join(first, drawsFile))
		// The file holds the step size and metric draws.csv's comments give.
		var vals, vals2 []string
		for i, v := range inv1 {
			vals, vals2 = append(vals, formatExact(v)), append(vals2, formatExact(inv2[i]))
		}
		for _, c := range []string{"# chain 1: Step size = " + formatExact(eps1) + "\n", "# " + strings.Join(vals, ", ") + "\n", "# chain 2: Step size = " + formatExact(eps2) + "\n"} {
			if !strings.Contains(firstDraws, c) {
				t.Fatalf("%s: draws.csv lacks %q of the metric file", metric, c)
			}
		}
		step := strconv.FormatFloat(eps1, 'g', -1, 64)
		for _, again := range [][]string{
			{"--warmup", "0", "--draws", "30", "--metric-file", files[0], "--stepsize", step},
			{"--warmup", "25", "--adapt=false", "--save-warmup", "--draws", "30", "--metric-file", files[0], "--stepsize", step},
		} {
			a, b := run("a", again...), run("b", again...)
			src := readText(t, filepath.Join(a, drawsFile))
			if withoutTimes(src) != withoutTimes(readText(t, filepath.Join(b, drawsFile))) {
				t.Errorf("%s %v: two runs differ", metric, again)
			}
			if !strings.Contains(src, "#       engaged = 0\n") {
				t.Errorf("%s %v: draws.csv does not say adapt engaged = 0", metric, again)
			}
			header, rows := drawsRows(src)
			col := slices.Index(header, "stepsize__")
			for _, r := range rows {
				if r[col] != formatNum(eps1) {
					t.Fatalf("%s %v: a row's stepsize__ is %s, want the saved %s", metric, again, r[col], formatNum(eps1))
				}
			}
			if !strings.Contains(src, "# chain 2: Step size = "+step+"\n") || !strings.Contains(src, "# "+strings.Join(vals, ", ")+"\n") {
				t.Errorf("%s %v: the chains did not keep the saved step size and metric", metric, again)
			}
			// The file's metric is used: the unit metric gives other draws.
			if metric == "diag" {
				u := run("u", slices.DeleteFunc(slices.Clone(again), func(s string) bool { return s == files[0] || s == "--metric-file" })...)
				_, unit := drawsRows(readText(t, filepath.Join(u, drawsFile)))
				if slices.EqualFunc(rows, unit, slices.Equal[[]string]) {
					t.Errorf("%v: the draws do not depend on --metric-file", again)
				}
			}
		}
		// A file per chain: chain 2 runs with its own metric, at
		// --stepsize's default.
		per := run("per", "--warmup", "0", "--draws", "10", "--metric-file", files[0]+","+files[1])
		_, chain2, ok := strings.Cut(readText(t, filepath.Join(per, drawsFile)), "# chain 2: Step size = 1\n")
		if !ok {
			t.Errorf("%s: --stepsize's default is not kept with a metric file per chain", metric)
		}
		if !strings.Contains(chain2, "# "+strings.Join(vals2, ", ")+"\n") {
			t.Errorf("%s: chain 2 does not run with the second metric file's metric", metric)
		}
	}
}

// TestChainFiles: a list gives one file per chain (or one for all), and
// FILE.json stands for FILE_1.json … FILE_C.json when they all exist,
// CmdStan's convention for more than one chain.
func TestChainFiles(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "init.json")
	for _, f := range []string{base, filepath.Join(dir, "init_1.json"), filepath.Join(dir, "init_2.json")} {
		if err := os.WriteFile(f, []byte(`{}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		arg    string
		chains int
		want   []string
		err    string
	}{
		{"a.json,b.json", 2, []string{"a.json", "b.json"}, ""},
		{"a.json", 3, []string{"a.json"}, ""},
		{"a.json,b.json", 3, nil, "--init lists 2 files for --chains 3: give one file (for every chain) or 3 (one per chain)"},
		{"a.json,", 2, nil, "an empty file name"},
		{base, 2, []string{filepath.Join(dir, "init_1.json"), filepath.Join(dir, "init_2.json")}, ""},
		{base, 3, []string{base}, ""}, // init_3.json is missing
		{base, 1, []string{base}, ""},
	} {
		got, err := chainFiles("init", c.arg, c.chains)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s, %d chains: error %v, want %q", c.arg, c.chains, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s, %d chains: %v %v, want %v", c.arg, c.chains, got, err, c.want)
		}
	}
}

// TestInitPerChain: --init a.json,b.json starts chain c at file c's
// values (and so does CmdStan's init.json for init_1.json, init_2.json):
// the chains' starts, the draws of --fixed-param, which holds each chain
// at its start, and NUTS's draws at a step size too small to move
// (1e-12 with --warmup 0: a transition's at most 1023 leapfrog steps move
// lambda's log by about 1e-9).
func TestInitPerChain(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for c, v := range []string{"2", "40"} {
		f := filepath.Join(dir, "init_"+strconv.Itoa(c+1)+".json")
		if err := os.WriteFile(f, []byte(`{"lambda": `+v+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	var starts []float64
	for _, arg := range []string{strings.Join(files, ","), filepath.Join(dir, "init.json")} { // the list, and CmdStan's init_C.json
		fixed := sampleFiles(t, "--fixed-param", "--chains", "2", "--draws", "10", "--init", arg)
		still := sampleFiles(t, "--chains", "2", "--warmup", "0", "--draws", "2", "--stepsize", "1e-12", "--init", arg)
		sc := &sampleConfig{init: arg, nuts: nuts.Settings{Chains: 2, Seed: 1}}
		l, u := initModelAt(t, poissonModel, poissonData)
		if err := sc.readStarts(l, setFlags{}, sources{}); err != nil {
			t.Fatal(err)
		}
		for c := range 2 {
			x := make([]float64, u.Dim())
			if err := sc.randomStart(u, c, x); err != nil {
				t.Fatal(err)
			}
			starts = append(starts, x[0])
		}
		for _, r := range readDrawsCSV(t, filepath.Join(fixed, drawsFile)) {
			if c := int(r["chain__"]); r["lambda"] != []float64{2, 40}[c-1] {
				t.Fatalf("--init %s --fixed-param: chain %d draws lambda %v, want its file's %v", arg, c, r["lambda"], []float64{2, 40}[c-1])
			}
		}
		for _, r := range readDrawsCSV(t, filepath.Join(still, drawsFile)) {
			if c, v := int(r["chain__"]), r["lambda"]; math.Abs(v-[]float64{2, 40}[c-1]) > 1e-6*v {
				t.Errorf("--init %s: chain %d's NUTS draw at step size 1e-12 is lambda %v, want its file's %v", arg, c, v, []float64{2, 40}[c-1])
			}
		}
	}
	want := []float64{0.6931471805599453, 3.6888794541139363} // log 2, log 40
	if !slices.Equal(starts[:2], want) || !slices.Equal(starts[2:], want) {
		t.Errorf("chain starts %v, want %v twice", starts, want)
	}
}

// TestInitFormatParam: a param named format can be given in an init file
// (a number or an array there, where a gpp fit.json has a string).
func TestInitFormatParam(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.gpp")
	if err := os.WriteFile(model, []byte("param format: real ~ Normal(0, 1)\nparam v: real[2] ~ Normal(0, 1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.Load(model, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{`{"format": 0.5, "v": [1, 2]}`, `{"v": [1, 2], "format": 0.5}`} {
		path := filepath.Join(dir, "init.json")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		f, v, err := readInit(path, l, setFlags{}, sources{})
		if err != nil || f != nil || v == nil || !v.All() {
			t.Errorf("%s: fit %v, values %v, error %v; want every param's value", src, f, v, err)
		}
	}
	vals, err := data.ReadJSON("x.json", strings.NewReader(`{"format": [1, 2]}`))
	for _, c := range []struct {
		src  string
		vals map[string]*data.Array
		err  error
		fit  bool
	}{
		{`{"format": [1, 2]}`, vals, err, false},
		{`{"format": "gpp-fit/1", "x": 1}`, nil, os.ErrInvalid, true},
		{`{"format": 2,}`, nil, os.ErrInvalid, false},
		{`[1]`, nil, os.ErrInvalid, true},
	} {
		if got := isFitJSON([]byte(c.src), c.vals, c.err); got != c.fit {
			t.Errorf("isFitJSON(%s) = %v, want %v", c.src, got, c.fit)
		}
	}
}
