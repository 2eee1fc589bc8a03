package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// TestFitFullRankAuto: on the pumps model, whose mean-field sds of alpha
// and beta the curvature finds too small, --fullrank auto refits with
// --fullrank alpha+beta and with --fullrank all, keeps alpha+beta's fit by
// its highest ELBO and writes the outputs that --fullrank alpha+beta
// started from a plain fit (--init DIR) writes, not a cold one's; the wine regression,
// whose coefficients' sds are under the hint's threshold but over auto's,
// is refitted with --fullrank beta; on a model of
// independent params it keeps the mean-field fit, whose outputs are a
// plain fit's.
func TestFitFullRankAuto(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	data := writeFile(t, dir, "pumps.csv", pumpsData(rand.New(rand.NewPCG(11, 12)), 0.7, 1))
	pumps := writeFile(t, dir, "pumps.gpp", pumpsModel)
	read := func(dir, name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	auto, group := filepath.Join(dir, "auto"), filepath.Join(dir, "group")
	code, _, stderr := runSafe(t, "fit", pumps, data, "--quiet", "--fullrank", "auto", "--out", auto)
	if want := regexp.MustCompile(`, --fullrank all -[0-9.]+ ± `); code != 0 || !want.MatchString(stderr) {
		t.Errorf("--fullrank all was not tried beside the group: want %q; stderr\n%s", want, stderr)
	}
	if want := ": the fit with --fullrank alpha+beta is kept"; code != 0 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, want a note %q; stderr\n%s", code, want, stderr)
	}
	// the group's promise is the curvature's, a local normal view: the
	// progress line (not under --quiet) says so
	_, out, errs := runSafe(t, "fit", pumps, data, "--fullrank", "auto", "--out", filepath.Join(dir, "loud"))
	if want := "by the curvature at q's mode, a local normal view that sees no skew or heavy tail, it leaves no sd more than"; !strings.Contains(out+errs, want) {
		t.Errorf("want the refit's line to say %q; output\n%s%s", want, out, errs)
	}
	if strings.Contains(stderr, "hint: ") {
		t.Errorf("the kept full-rank fit gets a hint:\n%s", stderr)
	}
	// the refit starts from the mean-field fit (refitSettings), so the
	// command that reproduces it warm-starts from a plain fit's directory:
	// fit.json holds the mean-field q exactly
	mf, cold := filepath.Join(dir, "mf"), filepath.Join(dir, "cold")
	if code, _, stderr := runSafe(t, "fit", pumps, data, "--quiet", "--out", mf); code != 0 {
		t.Fatalf("plain: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "fit", pumps, data, "--quiet", "--fullrank", "alpha+beta", "--init", mf, "--out", group); code != 0 {
		t.Fatalf("--fullrank alpha+beta --init: exit %d\n%s", code, stderr)
	}
	if a, g := read(auto, "summary.csv"), read(group, "summary.csv"); a != g || !strings.Contains(a, "\nalpha,fullrank") {
		t.Errorf("summary.csv of --fullrank auto\n%s\nagainst --fullrank alpha+beta --init MF's\n%s", a, g)
	}
	if code, _, stderr := runSafe(t, "fit", pumps, data, "--quiet", "--fullrank", "alpha+beta", "--out", cold); code != 0 {
		t.Fatalf("--fullrank alpha+beta: exit %d\n%s", code, stderr)
	}
	if a, c := read(auto, "summary.csv"), read(cold, "summary.csv"); a == c {
		t.Errorf("summary.csv of --fullrank auto is that of a cold --fullrank alpha+beta: the refit did not start from the mean-field fit\n%s", a)
	}
	if h := read(auto, "draws.csv"); !strings.Contains(h, "gpp_fullrank = alpha+beta") {
		t.Errorf("draws.csv's header does not record the group:\n%.1500s", h)
	}
	if fitRatios(t, auto) != nil {
		t.Errorf("the kept full-rank fit has mean-field sd ratios in fit.json")
	}

	// the wine regression's coefficients: 1.19× too small by the
	// curvature, under the hint's 1.5, over auto's 1.1
	ex := func(name string) string { return filepath.Join("..", "..", "examples", name) }
	code, _, stderr = runSafe(t, "fit", ex("regression.gpp"), ex("wine_std.csv"), "--quiet", "--fullrank", "auto", "--out", filepath.Join(dir, "reg"))
	if want := regexp.MustCompile(`, --fullrank beta -[0-9.]+ ± `); code != 0 || !want.MatchString(stderr) {
		t.Errorf("regression: exit %d, want a refit with beta's joint factor, %q; stderr\n%s", code, want, stderr)
	}

	indep := writeFile(t, dir, "i.gpp", "param a: real ~ Normal(1, 2)\nparam s: positive ~ Gamma(3, 2)\nparam u: unit ~ Beta(2, 5)\n")
	auto, plain := filepath.Join(dir, "iauto"), filepath.Join(dir, "iplain")
	code, _, stderr = runSafe(t, "fit", indep, "--quiet", "--fullrank", "auto", "--out", auto)
	if want := "×, a), so the mean-field fit is kept"; code != 0 || !strings.Contains(stderr, "no sd of the mean-field q is 1.1× too small") || !strings.Contains(stderr, want) {
		t.Fatalf("independent: exit %d, want a note ending %q; stderr\n%s", code, want, stderr)
	}
	if code, _, stderr := runSafe(t, "fit", indep, "--quiet", "--out", plain); code != 0 {
		t.Fatalf("plain: exit %d\n%s", code, stderr)
	}
	if a, p := read(auto, "summary.csv"), read(plain, "summary.csv"); a != p {
		t.Errorf("independent: summary.csv of --fullrank auto\n%s\nagainst the plain fit's\n%s", a, p)
	}
	if fitRatios(t, auto) == nil {
		t.Errorf("independent: the kept mean-field fit has no sd ratios in fit.json")
	}
}

// TestFullRankAutoFlags: --fullrank auto is refused with what it cannot
// go with (a usage error, exit 2) and by gpp kfold and gpp sbc, whose fits
// take the factors they are given; the REPL's :fit takes it as gpp fit
// does; and a model with a param named auto (gpp fit and :fit)
// gets that param's full-rank factor, as --fullrank all yields to a param
// all.
func TestFullRankAutoFlags(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", "param a: real ~ Normal(0, 1)\n")
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--restarts", "2"}, "not with --restarts"},
		{[]string{"--family", "map"}, "--fullrank auto needs SGVB"},
		{[]string{"--rank", "2"}, "not with --rank or --band"},
		{[]string{"--minibatch", "N=2"}, "not with --minibatch"},
	} {
		args := append([]string{"fit", model, "--fullrank", "auto", "--out", filepath.Join(dir, "o")}, c.flags...)
		if code, _, stderr := runSafe(t, args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q; stderr\n%s", c.flags, code, c.want, stderr)
		}
	}
	for _, cmd := range []string{"kfold", "sbc"} {
		if code, _, stderr := runSafe(t, cmd, model, "--fullrank", "auto", "--out", filepath.Join(dir, cmd)); code != 2 || !strings.Contains(stderr, "--fullrank auto is gpp fit's") {
			t.Errorf("%s --fullrank auto: exit %d, want 2; stderr\n%s", cmd, code, stderr)
		}
	}
	r, _, errb := newTestRepl()
	typeIn(r, "param a: real ~ Normal(0, 1)", "param b: real ~ Normal(0.95 * a, 0.3)", ":fit --fullrank auto")
	if want := ": the fit with --fullrank a+b is kept"; !strings.Contains(errb.String(), want) || r.fit == nil || r.fit.res.Factors[0].Family != sgvb.FamilyFullRank {
		t.Errorf("the REPL's :fit --fullrank auto: want a note %q and the session's fit full-rank; stderr\n%s", want, errb)
	}
	named := writeFile(t, dir, "named.gpp", "param auto: real[2] ~ Normal(0, 1)\nparam b: real ~ Normal(auto[0], 1)\n")
	out := filepath.Join(dir, "named")
	code, _, stderr := runSafe(t, "fit", named, "--quiet", "--fullrank", "auto", "--out", out)
	if code != 0 || strings.Contains(stderr, "--fullrank auto:") {
		t.Fatalf("param auto: exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.csv"))
	if err != nil || !strings.Contains(string(b), "\nauto[0],fullrank") || strings.Contains(string(b), "\nb,fullrank") {
		t.Errorf("param auto: summary.csv\n%s (%v)", b, err)
	}
	r, _, errb = newTestRepl()
	typeIn(r, "param auto: real[2] ~ Normal(0, 1)", "param b: real ~ Normal(auto[0], 1)", ":fit --fullrank auto")
	if r.fit == nil || strings.Contains(errb.String(), "--fullrank auto:") || r.fit.res.Factors[0].Family != sgvb.FamilyFullRank || r.fit.res.Factors[1].Family == sgvb.FamilyFullRank {
		t.Errorf("the REPL's :fit --fullrank auto with a param auto: want auto's factor full-rank, b's not; stderr\n%s", errb)
	}
}

// TestCurvatureHintAutoLost: after --fullrank auto kept the mean-field fit
// over the group's lower ELBO, the curvature hint says so and points to
// gpp sample instead of advising the group again.
func TestCurvatureHintAutoLost(t *testing.T) {
	cc := &curvCheck{
		c:     &sgvb.Curvature{Ratio: []float64{2.5, 1.2}, Partner: []int{1, 0}, Corr: []float64{0.9, 0.9}},
		names: []string{"a", "b"}, lats: []int{0, 1},
		r:        &sgvb.Result{Factors: []sgvb.Factor{{Name: "a", Size: 1}, {Name: "b", Size: 1, Offset: 1}}},
		autoLost: "a+b",
	}
	h := curvatureHint(cc)
	if want := "a's sd is about 2.5× too small: the log density's curvature at q's mode says a moves with b (correlation 0.90), which a mean-field q (one independent factor per element) cannot represent; --fullrank auto refitted with --fullrank a+b, and kept the mean-field fit (its note says why)"; !strings.HasPrefix(h, want) || !strings.Contains(h, "gpp sample (NUTS)") {
		t.Errorf("hint %q, want one starting %q", h, want)
	}
}

// TestFullRankAutoRefitsInterrupted: where no refit of --fullrank auto
// ends (here each is interrupted), the mean-field fit is kept and the
// curvature hint is the usual one naming the group, not one saying that
// the group's ELBO was lower.
func TestFullRankAutoRefitsInterrupted(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", "param a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0.95 * a, 0.3)\n")
	var stderr strings.Builder
	cfg, l, r := fitArgs(t, model, "--fullrank", "auto")
	if !cfg.autoFullRank {
		t.Fatal("--fullrank auto not read")
	}
	s := cfg.settings
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.Progress = func(sgvb.Progress) { cancel() } // the refits' first report stops them
	con := newConsole(&stderr, false, false, false)
	kept, _, cc := autoFullRankFit(ctx, cfg, l, r, s, con)
	if kept != r || cc == nil {
		t.Fatalf("the mean-field fit is not kept, or no curvature check (%v); stderr\n%s", cc, &stderr)
	}
	if !strings.Contains(stderr.String(), "the fit with --fullrank a+b was interrupted") {
		t.Errorf("the refit was not interrupted; stderr\n%s", &stderr)
	}
	if h := curvatureHint(cc); cc.autoLost != "" || !strings.Contains(h, "--fullrank all (2 elements) gives") {
		t.Errorf("autoLost %q, hint %q: want the hint naming the group", cc.autoLost, h)
	}
}

// TestAutoKeptText: --fullrank auto's note when it keeps the mean-field
// fit names the largest ratio among the settled coordinates, not an
// unsettled one's that cc.bad left out (which read "no sd is 1.1× too
// small (the largest ratio 3×, …)"), and counts those left out.
func TestAutoKeptText(t *testing.T) {
	cc := &curvCheck{
		c: &sgvb.Curvature{
			Ratio: []float64{3, 1.04, 1, 1.2},
			Scale: []float64{0.4, 1, 1, 2.5},
		},
		names: []string{"b[0]", "b[1]", "b[2]", "c"},
		lats:  []int{0, 0, 0, 1},
		r: &sgvb.Result{Factors: []sgvb.Factor{
			{Name: "b", Family: sgvb.FamilyNormal, Size: 3},
			{Name: "c", Family: sgvb.FamilyNormal, Size: 1, Offset: 3},
		}},
	}
	if bad := cc.bad(autoCurvRatio); len(bad) != 0 {
		t.Fatalf("bad %v, want none (b[0] and c are unsettled)", bad)
	}
	want := "no sd of the mean-field q is 1.1× too small (the largest ratio 1×, b[1]) apart from 2 elements whose sds are off the curvature at q's mode"
	if got := autoKeptText(cc); !strings.Contains(got, want) {
		t.Errorf("note %q, want it to contain %q", got, want)
	}
	cc.c.Spread = []float64{1, 1, 1, 1} // b[0] and c far from normal, not unsettled: still left out
	if got := autoKeptText(cc); !strings.Contains(got, want) {
		t.Errorf("far from normal: note %q, want it to contain %q", got, want)
	}
	cc.c.Spread = nil
	cc.c.Scale = []float64{0.4, 0.4, 0.4, 0.4}
	if got := autoKeptText(cc); strings.Contains(got, "largest ratio") || !strings.Contains(got, "apart from 2 elements") {
		t.Errorf("every coordinate unsettled: note %q", got)
	}
}

// TestFullRankAutoTriesAllPastGammaCap: a claims triangle whose 45
// missing cells are gamma factors, where no group within curvMaxGamma
// gamma elements repairs the sds the curvature finds too small, is still
// refitted with --fullrank all (65 elements, within sgvb.MaxFullRank), whose
// higher ELBO keeps it (an actuary's trial: the reserve's sd half NUTS's
// under mean-field, NUTS's with --fullrank all); the outputs are those of
// --fullrank all started from a plain fit (--init), and a mean-field
// fit's hint names --fullrank all.
func TestFullRankAutoTriesAllPastGammaCap(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(19, 4))
	var b strings.Builder
	b.WriteString("origin,dev,inc\n")
	for i := range 10 {
		for j := range 10 {
			v := math.Exp(math.Log(1000*math.Pow(1.05, float64(i))) - 0.55*float64(j) + 0.2*rng.NormFloat64())
			if i+j >= 10 {
				fmt.Fprintf(&b, "%d,%d,NA\n", i, j)
				continue
			}
			fmt.Fprintf(&b, "%d,%d,%.3f\n", i, j, v)
		}
	}
	data := writeFile(t, dir, "tri.csv", b.String())
	model := writeFile(t, dir, "tri.gpp", `data origin: int<lower=0, upper=9>[N]
data dev: int<lower=0, upper=9>[N]
data inc: positive[N]
param a: real[10] ~ Normal(7, 3)
param bd: real[9] ~ Normal(0, 3)
param sigma: positive ~ HalfNormal(1)
let b = append_row(0, bd)
inc ~ LogNormal(a[origin] + b[dev], sigma)
output total = sum(inc)
`) // the output keeps inc_missing fitted (45 latents), not summed out
	auto, all := filepath.Join(dir, "auto"), filepath.Join(dir, "all")
	code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--fullrank", "auto", "--out", auto)
	for _, want := range []string{"ELBOs mean-field -", ", --fullrank all -", ": the fit with --fullrank all is kept"} {
		if code != 0 || !strings.Contains(stderr, want) {
			t.Fatalf("exit %d, want %q; stderr\n%s", code, want, stderr)
		}
	}
	// a plain fit's hint names --fullrank all where no group is within the limits
	mf := filepath.Join(dir, "mf")
	code, _, stderr = runSafe(t, "fit", model, data, "--quiet", "--out", mf)
	if want := "is enough by that curvature; --fullrank all (65 elements, its gamma elements log-normal in it) may still fit better"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("mean-field: exit %d, want a hint %q; stderr\n%s", code, want, stderr)
	}
	// the refit started from the mean-field fit (refitSettings)
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--fullrank", "all", "--init", mf, "--out", all); code != 0 {
		t.Fatalf("--fullrank all --init: exit %d\n%s", code, stderr)
	}
	if a, p := readFile(t, filepath.Join(auto, "summary.csv")), readFile(t, filepath.Join(all, "summary.csv")); a != p {
		t.Errorf("summary.csv of --fullrank auto\n%s\nagainst --fullrank all --init MF's\n%s", a, p)
	}
}

// TestTriesAll: --fullrank auto fits --fullrank all, and the hint names
// it, only where it holds some elements, at most sgvb.MaxFullRank, and
// more params than the curvature's group (one predicate for both).
func TestTriesAll(t *testing.T) {
	two := &sgvb.Result{Factors: make([]sgvb.Factor, 2)}
	for _, c := range []struct {
		all   int
		group []string
		want  bool
	}{
		{65, nil, true},                    // no group within the gamma cap
		{65, []string{"a"}, true},          // a group of one param of two
		{65, []string{"a", "b"}, false},    // the group is every param
		{0, nil, false},                    // no param --fullrank all can hold
		{sgvb.MaxFullRank + 1, nil, false}, // too many elements
		{sgvb.MaxFullRank, []string{"a"}, true},
	} {
		cc := &curvCheck{r: two, all: c.all}
		if got := cc.triesAll(c.group); got != c.want {
			t.Errorf("all %d, group %v: triesAll %v, want %v", c.all, c.group, got, c.want)
		}
	}
}

// TestTriesLowRank: --fullrank auto fits --fullrank all --rank
// autoLowRank, and the hint names it, only where no full-rank group is
// within the limits, --fullrank all passes sgvb.MaxFullRank (below, it is
// fitted at full rank), and the low-rank factor holds some elements, at
// most curvMaxGamma of gamma factors, within sgvb.MaxLowRank entries.
func TestTriesLowRank(t *testing.T) {
	big := sgvb.MaxLowRank/autoLowRank + 1
	for _, c := range []struct {
		all, low, gammas int
		group            []string
		want             bool
	}{
		{121, 121, 0, nil, true},                    // the level under 120 effects
		{117, 117, 4, nil, true},                    // crossed effects, a few gamma scales
		{121, 121, 0, []string{"a"}, false},         // a full-rank group repairs the sds
		{sgvb.MaxFullRank, 100, 0, nil, false},      // --fullrank all at full rank instead
		{121, 121, curvMaxGamma + 1, nil, false},    // too many gamma elements
		{121, 121, curvMaxGamma, nil, true},         // at the gamma cap
		{121, 0, 0, nil, false},                     // nothing a low-rank factor holds
		{big, big, 0, nil, false},                   // past MaxLowRank's entries
		{big - 1, big - 1, curvMaxGamma, nil, true}, // within them
	} {
		cc := &curvCheck{all: c.all, lowAll: c.low, lowGamma: c.gammas}
		if got := cc.triesLowRank(c.group); got != c.want {
			t.Errorf("all %d, low-rank %d (%d gamma), group %v: triesLowRank %v, want %v", c.all, c.low, c.gammas, c.group, got, c.want)
		}
	}
}

// ncFunnelModel is a non-centred hierarchy of 20 groups whose scale the
// data (ncFunnelData) put near 0: the log density's −H at q's mode is not
// positive definite (in log sd_g and z, the prior's curvature is small
// beside the data's pull), so the curvature check does not run.
const ncFunnelModel = `data G: int
data g: int<lower=0, upper=G-1>[N]
data y: real[N]
param a0: real ~ Normal(0, 5)
param sd_g: positive ~ HalfNormal(1)
param z: real[G] ~ Normal(0, 1)
let u = sd_g * z
y ~ Normal(a0 + u[g], 1)
`

// ncFunnelData simulates ncFunnelModel's data: 20 groups of 5 rows, the
// group effects of sd sd.
func ncFunnelData(seed uint64, sd float64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.WriteString("g,y\n")
	for j := range 20 {
		u := sd * rng.NormFloat64()
		for range 5 {
			fmt.Fprintf(&b, "%d,%.3f\n", j, 0.3+u+rng.NormFloat64())
		}
	}
	return b.String()
}

// TestFullRankAutoNoCurvature: where the curvature check is partial with
// normal factors (a non-centred funnel's neck sd_g left out: no ground to
// choose by, and the note says so rather than that the check did not
// run, as the mean-field hint uses it), --fullrank auto still fits --fullrank all (an
// MRP trial's crossed effects: +7.9 nats), and keeps the higher ELBO: the
// kept fit's outputs are those of --fullrank all started from a plain
// fit (--init) where all wins, a plain fit's where mean-field does, and the notes say the check did not
// run, why all is fitted (not "as the mean-field hint advises": that
// hint is given only where k̂ raises the alarm) and give both ELBOs; a
// tie keeps all (tiePartial).
func TestFullRankAutoNoCurvature(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	model := writeFile(t, dir, "nc.gpp", ncFunnelModel)
	for _, c := range []struct {
		name string
		seed uint64
		sd   float64
		kept string // the flag whose fit is kept: "all", or "" for mean-field
		says string // the verdict
	}{
		{"wide", 3, 0.5, "all", "standard errors higher"},
		{"narrow", 3, 0.1, "", "standard errors lower"},
		// a tie keeps the joint factor, which holds every mean-field q:
		// a0's sd 0.118 (mean-field 0.098, NUTS 0.125), sd_g's 0.109
		// (0.100, NUTS 0.163)
		{"tie", 1, 0.2, "all", "within 2 standard errors: the estimates cannot tell them apart, and " + tiePartial},
	} {
		data := writeFile(t, dir, c.name+".csv", ncFunnelData(c.seed, c.sd))
		auto, other := filepath.Join(dir, c.name+"auto"), filepath.Join(dir, c.name+"other")
		code, _, stderr := runSafe(t, "fit", model, data, "--set", "G=20", "--fullrank", "auto", "--out", auto) // not --quiet: its info says what it refits
		ends := ": the mean-field fit is kept"
		if c.kept != "" {
			ends = ": the fit with --fullrank all is kept"
		}
		for _, want := range []string{"--fullrank auto: the curvature check was partial: the log density at q's mode bends the wrong way along sd_g (likely a funnel's neck), which it left out, so the others' ratios are only lower bounds", "; refitting with --fullrank all (", " elements) to keep the fit with the higher ELBO\n", "; ELBOs mean-field -", ", --fullrank all -", c.says, ends} {
			if code != 0 || !strings.Contains(stderr, want) {
				t.Fatalf("%s: exit %d, want %q; stderr\n%s", c.name, code, want, stderr)
			}
		}
		args := []string{"fit", model, data, "--set", "G=20", "--quiet", "--out", other}
		if c.kept != "" { // the refit started from the mean-field fit (refitSettings)
			mf := filepath.Join(dir, c.name+"mf")
			if code, _, stderr := runSafe(t, "fit", model, data, "--set", "G=20", "--quiet", "--out", mf); code != 0 {
				t.Fatalf("%s: plain: exit %d\n%s", c.name, code, stderr)
			}
			args = append(args, "--fullrank", c.kept, "--init", mf)
		}
		if code, _, stderr := runSafe(t, args...); code != 0 {
			t.Fatalf("%s: %v: exit %d\n%s", c.name, args, code, stderr)
		}
		if a, p := readFile(t, filepath.Join(auto, "summary.csv")), readFile(t, filepath.Join(other, "summary.csv")); a != p {
			t.Errorf("%s: summary.csv of --fullrank auto\n%s\nagainst %v's\n%s", c.name, a, args, p)
		}
	}
}

// TestMeanFieldHintAutoLost: where --fullrank auto fitted --fullrank all
// without a curvature check and kept the mean-field fit, the mean-field
// hint says so and points to gpp sample instead of advising all again.
func TestMeanFieldHintAutoLost(t *testing.T) {
	m := &compile.Model{Latents: []compile.Latent{{Name: "a", Support: dist.Real, Size: 1}, {Name: "b", Support: dist.Real, Size: 3}}}
	h := meanFieldHint(sgvb.Settings{}, m, 0.9, math.NaN(), "all", "")
	if want := "--fullrank auto refitted with --fullrank all, and kept the mean-field fit (its note says why): gpp sample (NUTS) is the check of these sds"; !strings.Contains(h, want) || strings.Contains(h, "fits them jointly") {
		t.Errorf("hint %q, want one containing %q", h, want)
	}
	if h := meanFieldHint(sgvb.Settings{}, m, 0.5, math.NaN(), "all", ""); h != "" {
		t.Errorf("k̂ 0.5: hint %q, want none", h)
	}
}

// TestMildCurvatureHint: sds below curvRatio but at least mildRatio too
// small by the curvature (a Weibull regression's treatment effect at
// 1.35×) get the shorter hint naming them and --fullrank auto; none
// below mildRatio, nor after --fullrank auto kept the mean-field fit.
func TestMildCurvatureHint(t *testing.T) {
	cc := &curvCheck{
		c:     &sgvb.Curvature{Ratio: []float64{1.37, 1.1, 1.3}, Partner: []int{2, 0, 0}, Corr: []float64{-0.6, 0.1, -0.6}},
		names: []string{"b0", "k", "b1"}, lats: []int{0, 1, 2},
		r: &sgvb.Result{Factors: []sgvb.Factor{{Name: "b0", Size: 1}, {Name: "k", Size: 1, Offset: 1}, {Name: "b1", Size: 1, Offset: 2}}},
	}
	want := "b0's and b1's sds are about 1.4× and 1.3× too small by the log density's curvature at q's mode"
	if h := curvatureHint(cc); !strings.HasPrefix(h, want) || !strings.Contains(h, "--fullrank auto refits") {
		t.Errorf("hint %q, want one starting %q", h, want)
	}
	cc.c.Ratio = []float64{1.2, 1.1, 1.24}
	if h := curvatureHint(cc); h != "" {
		t.Errorf("ratios below %v: hint %q, want none", mildRatio, h)
	}
	cc.c.Ratio, cc.autoLost = []float64{1.37, 1.1, 1.3}, "b0+b1"
	if h := curvatureHint(cc); h != "" {
		t.Errorf("after --fullrank auto kept mean-field: hint %q, want none", h)
	}
}

// TestAutoPrefer: --fullrank auto keeps a converged fit over one that did
// not whatever their ELBOs, calls an ELBO higher only beyond autoELBOZ
// standard errors of the difference, and within them keeps the refit over
// a mean-field fit whose curvature check found sds too small, and
// otherwise the fit kept so far (BDA's bioassay at seed 1 differed by
// 0.008 ± 0.08 before the full-rank steps were fixed, where the higher
// estimate had decided).
func TestAutoPrefer(t *testing.T) {
	fit := func(elbo, se float64, conv bool) *sgvb.Result {
		return &sgvb.Result{ELBO: elbo, ELBOSE: se, Converged: conv}
	}
	bad := func(r *sgvb.Result, n int) *sgvb.Result { r.FinalBad = n; return r }
	const mf, group = "the mean-field fit", "--fullrank a+b"
	for _, c := range []struct {
		name       string
		kept, cand *sgvb.Result
		keptName   string
		tie        string // why a refit ties its way past the mean-field fit ("": the kept fit stays)
		take       bool
		says       string
	}{
		{"cand not converged", fit(-10, 0.02, true), fit(-5, 0.02, false), mf, tieChecked, false, "--fullrank all did not converge and the mean-field fit did"},
		{"kept not converged", fit(-5, 0.02, false), fit(-10, 0.02, true), mf, tieChecked, true, "the mean-field fit did not converge and --fullrank all did"},
		{"higher", fit(-7.3, 0.05, true), fit(-7.0, 0.05, true), group, "", true, "+0.3 ± 0.071 against --fullrank a+b's, 4.2 standard errors higher"},
		{"lower", fit(-7.0, 0.05, true), fit(-7.3, 0.05, true), mf, tieChecked, false, "-0.3 ± 0.071 against the mean-field fit's, 4.2 standard errors lower"},
		{"higher by 2.4 se", fit(-7.1, 0.03, true), fit(-7.0, 0.03, true), group, "", true, "2.4 standard errors higher"},
		{"bioassay seed 1, mean-field", fit(-7.29509, 0.024, true), fit(-7.2871, 0.076, true), mf, tieChecked, true, "within 2 standard errors: the estimates cannot tell them apart, and the curvature check found the mean-field sds too small, so the refit is kept"},
		{"bioassay seed 1, a group", fit(-7.29509, 0.024, true), fit(-7.2871, 0.076, true), group, "", false, "within 2 standard errors, so --fullrank a+b stays"},
		{"lower by 1.4 se, mean-field", fit(-7.0, 0.05, true), fit(-7.1, 0.05, true), mf, tieChecked, true, "within 2"},
		{"lower by 1.3 se, no check (TestFullRankAutoNoCurvature's narrow funnel, cold)", fit(-144.678, 0.027, true), fit(-144.792, 0.085, true), mf, tieUnchecked, true, "within 2 standard errors: the estimates cannot tell them apart, and with no curvature check nothing vouches for the mean-field sds"},
		{"a 4PL assay's all, no check", fit(-1.8804, 0.11, true), fit(-2.8549, 0.71, true), mf, tieUnchecked, true, "-0.975 ± 0.72 against the mean-field fit's, within 2 standard errors"},
		{"lower by 2.4 se, no check", fit(-7.0, 0.03, true), fit(-7.1, 0.03, true), mf, tieUnchecked, false, "2.4 standard errors lower"},
		{"not converged, no check", fit(-7.0, 0.03, true), fit(-6.99, 0.03, false), mf, tieUnchecked, false, "--fullrank all did not converge and the mean-field fit did"},
		{"within 2 se, nothing unverified", fit(-7.0, 0.05, true), fit(-7.1, 0.05, true), mf, "", false, "within 2 standard errors, so the mean-field fit stays"},
		{"higher by 1.4 se, a group", fit(-7.1, 0.05, true), fit(-7.0, 0.05, true), group, "", false, "within 2"},
		{"both not converged, lower", fit(-7.0, 0.01, false), fit(-7.5, 0.01, false), mf, tieChecked, false, "standard errors lower"},
		{"exact, equal", fit(-3, 0, true), fit(-3, 0, true), group, "", false, "within 2"},
		{"exact, higher", fit(-3, 0, true), fit(-2.9, 0, true), group, "", true, "+Inf standard errors higher"},
		// an estimate that overflows (sgvb.Overflows) is no usable q's,
		// converged or not, and its z (∞/∞) is no tie
		{"cand overflows", fit(-7.0, 0.05, true), fit(math.Inf(-1), math.Inf(1), true), mf, tieChecked, false, "--fullrank all's ELBO estimate overflows and the mean-field fit's does not"},
		{"cand's se overflows", fit(-7.0, 0.05, false), fit(-6.9, math.Inf(1), true), mf, tieChecked, false, "--fullrank all's ELBO estimate overflows"},
		{"kept overflows", fit(math.Inf(-1), math.Inf(1), true), fit(-7.0, 0.05, false), group, "", true, "--fullrank a+b's ELBO estimate overflows and --fullrank all's does not"},
		// draws outside the support, left out of an ELBO that then reads
		// higher (a hierarchical GEV's all: +4.03 ± 0.16 with 43 of 1000)
		{"cand off the support", fit(-57.0, 0.1, true), bad(fit(-52.97, 0.12, true), 43), mf, tieChecked, false, "--fullrank all puts 43 of its final ELBO estimate's draws where the log density is not finite"},
		{"kept off the support", bad(fit(-52.97, 0.12, true), 43), fit(-57.0, 0.1, false), group, "", true, "--fullrank a+b puts 43 of its final"},
		{"both off the support: the ELBOs decide", bad(fit(-7.3, 0.05, true), 2), bad(fit(-7.0, 0.05, true), 9), group, "", true, "4.2 standard errors higher"},
	} {
		take, says := autoPrefer(c.kept, c.cand, c.keptName, "--fullrank all", c.tie, false)
		if take != c.take || !strings.Contains(says, c.says) {
			t.Errorf("%s: keeps the candidate %v (want %v), says %q, want it to contain %q", c.name, take, c.take, says, c.says)
		}
	}
}

// bioassayModel is BDA3's bioassay (section 3.7), a course's model: two
// correlated coordinates whose posterior is skewed (beta > 0).
const bioassayModel = `data x: real[N]
data n: int[N]
data y: int[N]
param alpha: real ~ Normal(0, 10)
param beta: real ~ Normal(0, 50)
y ~ BinomialLogit(n, alpha + beta * x)
`

// TestFullRankAutoBioassay: on BDA's bioassay, --fullrank all converges
// at seeds 3 and 7, which ran all 10⁴ steps before natRho capped the
// natural-gradient rate of a factor of two elements, and --fullrank auto
// keeps the full-rank fit at seeds 1 and 4, whose ELBOs the mean-field
// fit's had matched within their errors (beta's sd 3.5 kept against
// NUTS's 5.9), saying what it compared.
func TestFullRankAutoBioassay(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	model := writeFile(t, dir, "bioassay.gpp", bioassayModel)
	data := writeFile(t, dir, "bioassay.csv", "x,n,y\n-0.86,5,0\n-0.30,5,1\n-0.05,5,3\n0.73,5,5\n")
	for _, seed := range []string{"3", "7"} {
		code, stdout, stderr := runSafe(t, "fit", model, data, "--fullrank", "all", "--seed", seed, "--out", filepath.Join(dir, "all"+seed))
		if code != 0 || !regexp.MustCompile(`iterations +[0-9]+ \(converged`).MatchString(stdout) {
			t.Errorf("--fullrank all, seed %s: exit %d, not converged:\n%s\n%s", seed, code, stdout, stderr)
		}
	}
	for _, seed := range []string{"1", "4"} {
		code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--fullrank", "auto", "--seed", seed, "--out", filepath.Join(dir, "auto"+seed))
		for _, want := range []string{"ELBOs mean-field -", "--fullrank alpha+beta's ELBO is +", "standard errors", ": the fit with --fullrank alpha+beta is kept"} {
			if code != 0 || !strings.Contains(stderr, want) {
				t.Errorf("--fullrank auto, seed %s: exit %d, want %q; stderr\n%s", seed, code, want, stderr)
			}
		}
	}
}

// TestFullRankAutoLowRank: where no full-rank group is within the limits
// and --fullrank all would pass sgvb.MaxFullRank (a level a under 120
// effects z, 121 elements, a's mean-field sd about 100× too small), the
// plain fit's hint names --fullrank all --rank autoLowRank and --fullrank
// auto refits with it, keeps it by its higher ELBO, records the rank in
// draws.csv's header and fit.json, and writes the outputs that --fullrank
// all --rank R started from the plain fit (--init DIR) writes.
func TestFullRankAutoLowRank(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	data, model := levelModel(t, dir)
	mf, auto, low := filepath.Join(dir, "mf"), filepath.Join(dir, "auto"), filepath.Join(dir, "low")
	code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--out", mf)
	if want := fmt.Sprintf("is enough by that curvature; --fullrank all --rank %d (a low-rank joint factor over all 121 elements) may still fit better, and --fullrank auto tries it", autoLowRank); code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("mean-field: exit %d, want a hint %q; stderr\n%s", code, want, stderr)
	}
	code, _, stderr = runSafe(t, "fit", model, data, "--quiet", "--fullrank", "auto", "--out", auto)
	for _, want := range []string{"ELBOs mean-field -", ", --fullrank " + lowRankFlag + " -", ": the fit with --fullrank " + lowRankFlag + " is kept"} {
		if code != 0 || !strings.Contains(stderr, want) {
			t.Fatalf("exit %d, want %q; stderr\n%s", code, want, stderr)
		}
	}
	if h := readFile(t, filepath.Join(auto, "draws.csv")); !strings.Contains(h, "gpp_fullrank = all") || !strings.Contains(h, fmt.Sprintf("gpp_rank = %d", autoLowRank)) {
		t.Errorf("draws.csv's header does not record the low-rank factor:\n%.1500s", h)
	}
	if j := readFile(t, filepath.Join(auto, "fit.json")); !regexp.MustCompile(fmt.Sprintf(`"rank": %d\b`, autoLowRank)).MatchString(j) {
		t.Errorf("fit.json does not record rank %d:\n%.2000s", autoLowRank, j)
	}
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--fullrank", "all", "--rank", fmt.Sprint(autoLowRank), "--init", mf, "--out", low); code != 0 {
		t.Fatalf("--fullrank all --rank --init: exit %d\n%s", code, stderr)
	}
	if a, p := readFile(t, filepath.Join(auto, "summary.csv")), readFile(t, filepath.Join(low, "summary.csv")); a != p || !strings.Contains(a, "\na,lowrank") {
		t.Errorf("summary.csv of --fullrank auto\n%.600s\nagainst --fullrank all --rank --init MF's\n%.600s", a, p)
	}
}

// levelModel writes TestFitCurvatureNoGroup's model and data to dir: a
// level a under 120 effects z, each observed with sd 0.005, so that only
// the sum a + z_i is fixed and a's mean-field sd is about 100× too small.
func levelModel(t *testing.T, dir string) (data, model string) {
	const n, s, sa = 120, 0.005, 10.0
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("y\n")
	for range n {
		fmt.Fprintf(&b, "%.6g\n", 1+rng.NormFloat64()+s*rng.NormFloat64())
	}
	data = writeFile(t, dir, "y.csv", b.String())
	model = writeFile(t, dir, "m.gpp", fmt.Sprintf("data y: real[N]\nparam a: real ~ Normal(0, %g)\nparam z: real[N] ~ Normal(0, 1)\ny ~ Normal(a + z, %g)\n", sa, s))
	return data, model
}

// TestWarmFellBelow: a refit from the mean-field fit that ends more than
// warmColdGap nats and autoELBOZ standard errors below it is refitted
// from the default start; within either, it is not.
func TestWarmFellBelow(t *testing.T) {
	mf := &sgvb.Result{ELBO: 4.28, ELBOSE: 0.13}
	for _, c := range []struct {
		elbo, se float64
		want     bool
	}{
		{-4.65, 0.53, true}, // the synthetic control at seed 1
		{3.5, 0.1, false},   // 0.78 nats below: within warmColdGap
		{2.5, 1.2, false},   // 1.78 below, 1.5 standard errors
		{2.5, 0.2, true},
		{6.77, 1.2, false}, // above
	} {
		if got := warmFellBelow(mf, &sgvb.Result{ELBO: c.elbo, ELBOSE: c.se}); got != c.want {
			t.Errorf("refit %v ± %v against %v ± %v: %v, want %v", c.elbo, c.se, mf.ELBO, mf.ELBOSE, got, c.want)
		}
	}
}

// TestFullRankAutoColdRefit: on a synthetic control (30 Dirichlet
// weights; a user trial of 2026-12-01) at seed 1 the refit with
// --fullrank all from the stuck mean-field fit ends 8.9 nats below it;
// auto then refits from the default start, which ends far above both
// (unconverged at 10⁴ steps, so the converged mean-field fit is kept, as
// autoPrefer rules), says so, and advises the longer refit without --init.
func TestFullRankAutoColdRefit(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runSafe(t, "fit", "testdata/fit_synthcontrol.gpp", "testdata/fit_synthcontrol.json", "--fullrank", "auto", "--seed", "1", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{
		" from the mean-field fit, ", " below that fit's, so refitted from the default start: ", "(not converged) (+", ": that refit is the one compared)",
		"(--fullrank all did not converge and the mean-field fit did): the mean-field fit is kept",
		"--fullrank all --iter 30000, with this fit's other flags, refits it from the default start, where it began, with 3× the steps",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
}

// svCentredModel is a centred stochastic-volatility model: h an AR(1)
// chain that the banded-factor hint names (--fullrank h --band 1).
const svCentredModel = `data y: real[T]
param mu: real ~ Normal(0, 10)
param phi: real<lower=-1, upper=1> ~ Uniform(-1, 1)
param sigma: positive ~ HalfNormal(1)
param h: real[T]
h[0] ~ Normal(mu, sigma / sqrt(1 - phi * phi))
h[1:] ~ Normal(mu + phi * (h[:T-1] - mu), sigma)
y ~ Normal(0, exp(h / 2))
`

// TestFullRankAutoBandedChain: on a centred stochastic-volatility model
// (examples/sv.csv, T = 300), where the curvature check does not run and
// --fullrank all is past sgvb.MaxFullRank, --fullrank auto refits with
// the banded factor the chain's hint names (autoWalkCand), keeps it by
// its ELBO, records it in draws.csv's header and fit.json, and writes
// the outputs of `--fullrank h --band 1 --init MF`, with the hint on the
// step sd a banded factor leaves too narrow; before, it kept the
// mean-field fit (phi near 0) untried.
func TestFullRankAutoBandedChain(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	model := writeFile(t, dir, "sv_c.gpp", svCentredModel)
	data := filepath.Join("..", "..", "examples", "sv.csv")
	auto, mf, band := filepath.Join(dir, "auto"), filepath.Join(dir, "mf"), filepath.Join(dir, "band")
	code, _, stderr := runSafe(t, "fit", model, data, "--fullrank", "auto", "--out", auto)
	for _, want := range []string{
		"--fullrank auto: the curvature check did not run (the log density at q's mode bends the wrong way along more than one direction (the worst: ",
		"; refitting with --fullrank h --band 1, which holds the chain the hint below names, to keep the fit with the higher ELBO\n",
		"ELBOs mean-field -", ", --fullrank h --band 1 -", "standard errors higher): the fit with --fullrank h --band 1 is kept",
	} {
		if code != 0 || !strings.Contains(stderr, want) {
			t.Fatalf("exit %d, want %q; stderr\n%s", code, want, stderr)
		}
	}
	if strings.Contains(stderr, "holds the chain (a banded-precision normal)") || !strings.Contains(stderr, "hint: the banded factor holds the chain over h (") {
		t.Errorf("the chain's hint after the banded fit was kept, or no hint on sigma's sd (heldChainHints):\n%s", stderr)
	}
	if d := readFile(t, filepath.Join(auto, "draws.csv")); !strings.Contains(d, "#     gpp_fullrank = h\n") || !strings.Contains(d, "#     gpp_band = 1\n") {
		t.Errorf("draws.csv's header does not name --fullrank h --band 1")
	}
	ff := readJSONObject(t, filepath.Join(auto, "fit.json"))
	if b := ff["settings"].(map[string]any)["band"]; b != 1.0 {
		t.Errorf("fit.json settings.band = %v, want 1", b)
	}
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--out", mf); code != 0 {
		t.Fatalf("plain: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--fullrank", "h", "--band", "1", "--init", mf, "--out", band); code != 0 {
		t.Fatalf("banded: exit %d\n%s", code, stderr)
	}
	if a, b := readFile(t, filepath.Join(auto, "summary.csv")), readFile(t, filepath.Join(band, "summary.csv")); a != b {
		t.Errorf("summary.csv of --fullrank auto\n%s\nagainst --fullrank h --band 1 --init's\n%s", a, b)
	}
}

// TestAutoLowerK: --fullrank auto's tie-break keeps, of refits whose
// ELBOs are within autoKNoise standard errors of the one autoPrefer kept,
// the one of lowest Pareto k̂ (a user trial's renewal model: --fullrank
// all kept by +0.11 ± 0.052 at k̂ 1.29 over --fullrank logR --band 1 at
// 0.408), and leaves every other choice as it was.
func TestAutoLowerK(t *testing.T) {
	fit := func(elbo, se, k float64) *sgvb.Result {
		return &sgvb.Result{ELBO: elbo, ELBOSE: se, ParetoK: k, Converged: true}
	}
	const band, all = "logR --band 1", "all"
	trial := func() []autoCand {
		return []autoCand{{flag: band, r: fit(-358.88, 0.034, 0.408)}, {flag: all, r: fit(-358.77, 0.039, 1.29)}}
	}
	got, why := autoLowerK(trial(), all)
	for _, want := range []string{"kept --fullrank logR --band 1: its ELBO is within noise of --fullrank all's (-0.11 ± 0.052, under 3 standard errors)", "its Pareto k̂ is lower (0.408 against 1.29)"} {
		if got.flag != band || !strings.Contains(why, want) {
			t.Errorf("the trial's refits: kept %q, why %q; want %q and %q", got.flag, why, band, want)
		}
	}
	se := math.Hypot(0.034, 0.039)
	for _, c := range []struct {
		name string
		edit func(cs []autoCand)
		want string
	}{
		{"gap 2.9 SE", func(cs []autoCand) { cs[0].r.ELBO = -358.77 - 2.9*se }, band},
		{"gap 3.1 SE", func(cs []autoCand) { cs[0].r.ELBO = -358.77 - 3.1*se }, all},
		{"above by 2.9 SE", func(cs []autoCand) { cs[0].r.ELBO = -358.77 + 2.9*se }, band},
		{"k̂ lower by less than autoKGap", func(cs []autoCand) { cs[0].r.ParetoK = 1.2 }, all},
		{"k̂ lower by more than autoKGap", func(cs []autoCand) { cs[0].r.ParetoK = 1.15 }, band},
		{"k̂ higher", func(cs []autoCand) { cs[0].r.ParetoK = 1.5 }, all},
		{"no k̂", func(cs []autoCand) { cs[0].r.ParetoK = math.NaN() }, all},
		{"kept has no k̂", func(cs []autoCand) { cs[1].r.ParetoK = math.NaN() }, all},
		{"not converged", func(cs []autoCand) { cs[0].r.Converged = false }, all},
		{"neither converged", func(cs []autoCand) { cs[0].r.Converged, cs[1].r.Converged = false, false }, band},
		{"draws outside the support", func(cs []autoCand) { cs[0].r.FinalBad = 3 }, all},
		{"overflows", func(cs []autoCand) { cs[0].r.ELBOSE = math.Inf(1) }, all},
	} {
		cs := trial()
		c.edit(cs)
		if got, why := autoLowerK(cs, all); got.flag != c.want || (got.flag == all) != (why == "") {
			t.Errorf("%s: kept %q (why %q), want %q", c.name, got.flag, why, c.want)
		}
	}
	// of several within the noise, the lowest k̂; the kept fit itself first
	// in the list changes nothing
	cs := append([]autoCand{trial()[1], {flag: "logR", r: fit(-358.8, 0.05, 0.3)}, trial()[0]}, autoCand{flag: "sigR+logR", r: fit(-362, 0.05, 0.1)})
	if got, _ := autoLowerK(cs, all); got.flag != "logR" {
		t.Errorf("several refits: kept %q, want logR (k̂ 0.3, within the noise; sigR+logR's 0.1 is 3 nats below)", got.flag)
	}
}

// TestAutoTieBreakWording: where autoLowerK overrules the ELBOs' verdict,
// none reads as final (a Kennedy–O'Hagan trial's note said "so --fullrank
// rho+alpha stays; kept --fullrank all"); where it does not, the verdicts
// are autoPrefer's.
func TestAutoTieBreakWording(t *testing.T) {
	fit := func(elbo, se, k float64) *sgvb.Result {
		return &sgvb.Result{ELBO: elbo, ELBOSE: se, ParetoK: k, Converged: true}
	}
	// the trial's koh5u.gpp at seed 1
	mf, group, all := fit(-59.5477, 0.024, 0.7), fit(-59.4101, 0.023, 0.665), fit(-59.3787, 0.041, 0.359)
	run := func(tie string) (string, string) {
		cmps := []autoCmp{{mf, group, "the mean-field fit", "--fullrank rho+alpha", tie}, {group, all, "--fullrank rho+alpha", "--fullrank all", ""}}
		var whys []string
		for _, c := range cmps {
			_, w := autoPrefer(c.kept, c.cand, c.keptName, c.candName, c.tie, false)
			whys = append(whys, w)
		}
		c, whys := autoTieBreak(cmps, whys, []autoCand{{flag: "rho+alpha", r: group}, {flag: "all", r: all}}, "rho+alpha")
		return c.flag, strings.Join(whys, "; ")
	}
	kept, note := run("")
	for _, want := range []string{"standard errors higher; --fullrank all", "within 2 standard errors, so --fullrank rho+alpha would stay by the ELBO; but kept --fullrank all: its ELBO is within noise"} {
		if kept != "all" || !strings.Contains(note, want) || strings.Contains(note, "rho+alpha stays") {
			t.Errorf("kept %q, note %q: want all, %q, and no \"stays\"", kept, note, want)
		}
	}
	// a tie that kept the group over mean-field is overruled too
	mf.ELBO = group.ELBO - 0.01
	if kept, note := run(tieChecked); kept != "all" || !strings.Contains(note, "so the refit would be kept; ") || strings.Contains(note, "refit is kept") {
		t.Errorf("kept %q, note %q: want all, the tie's refit \"would be kept\"", kept, note)
	}
	// no tie-break: the verdicts stand as autoPrefer gave them
	all.ParetoK = 0.6
	if kept, note := run(""); kept != "rho+alpha" || !strings.Contains(note, "so --fullrank rho+alpha stays") || strings.Contains(note, "would") || strings.Contains(note, "but kept") {
		t.Errorf("kept %q, note %q: want rho+alpha, which stays", kept, note)
	}
}

// kohModel and kohField are a materials scientist's Kennedy–O'Hagan
// calibration (a user trial of 2026-12-02): Newton cooling with a GP
// discrepancy, 30 field points (theta 0.3, noise sd 1).
const kohModel = `data x: real[N]
data y: real[N]
param theta: real<lower=0.05, upper=1> ~ Uniform(0.05, 1)
param rho: positive ~ InvGamma(5, 10)
param alpha: positive ~ HalfNormal(5)
param sigma: positive ~ HalfNormal(2)
let eta = 20 + 80 * exp(-theta * x)
let K = add_diag(gp_exp_quad_cov(x, alpha, rho), square(sigma))
y ~ MvNormal(eta, K)
`

const kohField = `x,y
0.25428,94.81684
0.31698,95.08775
0.72552,85.97097
0.96357,80.39175
1.21023,77.65618
1.33828,73.98359
1.36359,75.60219
1.54644,71.88888
2.75833,59.31756
2.94079,55.72980
3.19765,53.15684
3.45977,51.35975
3.80089,49.40205
3.99896,43.68013
4.10526,46.24795
4.45843,41.29368
4.50753,41.82897
4.59434,40.29482
5.98026,33.34505
6.73940,30.09808
7.14624,26.82343
7.69130,23.73206
7.80823,25.08946
8.03435,23.78973
8.26432,24.43772
8.83895,23.62332
9.09769,23.77379
9.31004,22.41278
9.84718,23.60352
9.95061,23.46387
`

// TestFullRankAutoKhatNotGood: where the curvature check finds no sd too
// small but the mean-field fit's Pareto k̂ is not good (autoKOff),
// --fullrank auto fits --fullrank all too, says why, and keeps it by the
// ELBO: the trial's calibration kept mean-field at k̂ 0.79 (seed 1), theta's
// sd 0.0164 against NUTS's 0.0245, where all's ELBO is 0.15 higher (5
// standard errors) and its sd 0.019.
func TestFullRankAutoKhatNotGood(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	model, data := writeFile(t, dir, "koh1.gpp", kohModel), writeFile(t, dir, "field.csv", kohField)
	code, _, stderr := runSafe(t, "fit", model, data, "--seed", "1", "--fullrank", "auto", "--out", filepath.Join(dir, "auto"))
	for _, want := range []string{
		"--fullrank auto: by the log density's curvature no sd of the mean-field q is 1.1× too small (the largest ratio ",
		"but that check is local (the curvature at q's mode sees no skew or heavy tail), and the fit's Pareto k̂, 0.",
		", is not good (good is below 0.5), which says q misses the posterior; refitting with --fullrank all (4 elements) to keep the fit with the higher ELBO\n",
		"standard errors higher): the fit with --fullrank all is kept",
	} {
		if code != 0 || !strings.Contains(stderr, want) {
			t.Fatalf("exit %d, want %q; stderr\n%s", code, want, stderr)
		}
	}
	if d := readFile(t, filepath.Join(dir, "auto", "draws.csv")); !strings.Contains(d, "#     gpp_fullrank = all\n") {
		t.Errorf("draws.csv's header does not name --fullrank all")
	}
}

// TestAutoKOff: --fullrank auto's k̂ rule reads "good" as sgvb.ParetoReading
// does (below 0.5), and a fit without a k̂ as no alarm.
func TestAutoKOff(t *testing.T) {
	for _, k := range []float64{0.3, 0.499, 0.5, 0.59, 0.79, 1.5, math.NaN()} {
		r := &sgvb.Result{ParetoK: k}
		if want := !math.IsNaN(k) && sgvb.ParetoReading(k) != "good"; autoKOff(r) != want {
			t.Errorf("k̂ %v: autoKOff %v, want %v", k, autoKOff(r), want)
		}
	}
}

// TestFullRankAutoNoCheckLowRank: where the curvature check does not run
// (1001 coordinates, past sgvb.MaxLaplace) and --fullrank all would pass
// sgvb.MaxFullRank, --fullrank auto refits with --fullrank all --rank
// autoLowRank and says so (a value-added model of 4249 coordinates had
// been kept mean-field untried); with more than curvMaxGamma elements of
// gamma factors it does not, and its note says why.
func TestFullRankAutoNoCheckLowRank(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(4, 5))
	var b strings.Builder
	b.WriteString("y\n")
	for range 1000 {
		fmt.Fprintf(&b, "%.4f\n", 0.5+1.4*rng.NormFloat64())
	}
	data := writeFile(t, dir, "y.csv", b.String())
	const base = "data y: real[N]\nparam mu: real ~ Normal(0, 5)\nparam z: real[N] ~ Normal(mu, 1)\ny ~ Normal(z, 1)\n"
	for _, c := range []struct {
		name, model string
		want        []string
	}{
		{"low", base, []string{
			"--fullrank auto: the curvature check did not run (the model has 1001 coordinates, more than the check's 1000); refitting with --fullrank " + lowRankFlag + " (a low-rank joint factor over all 1001 elements: a full-rank one holds at most 100) to keep the fit with the higher ELBO\n",
			"ELBOs mean-field -", ", --fullrank " + lowRankFlag + " -",
		}},
		{"gamma", base + "param s: positive[21] ~ Gamma(2, 2)\n", []string{
			"note: --fullrank auto: the curvature check did not run (the model has 1022 coordinates, more than the check's 1000), and --fullrank " + lowRankFlag + " was not tried: it would give 21 elements of gamma factors a joint normal, more than 20 (a joint normal over many loses their gamma factors' fit), so the mean-field fit is kept\n",
		}},
	} {
		model := writeFile(t, dir, c.name+".gpp", c.model)
		code, _, stderr := runSafe(t, "fit", model, data, "--fullrank", "auto", "--out", filepath.Join(dir, c.name))
		for _, want := range c.want {
			if code != 0 || !strings.Contains(stderr, want) {
				t.Fatalf("%s: exit %d, want %q; stderr\n%s", c.name, code, want, stderr)
			}
		}
		if c.name == "gamma" && strings.Contains(stderr, "refitting") {
			t.Errorf("%s: refitted:\n%s", c.name, stderr)
		}
	}
}

// fitArgs fits the model of gpp fit's args (no data) as gpp fit would
// read them.
func fitArgs(t *testing.T, args ...string) (*fitConfig, *pipeline.Loaded, *sgvb.Result) {
	t.Helper()
	var stderr strings.Builder
	cfg, code, ok := parseFitArgs(args, io.Discard, &stderr)
	if !ok {
		t.Fatalf("parse: exit %d\n%s", code, &stderr)
	}
	l, err := pipeline.Load(args[0], nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sgvb.Fit(context.Background(), runTarget(cfg, l.Model), pipeline.Latents(l.Model), cfg.settings)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, l, r
}
