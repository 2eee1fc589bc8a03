package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/compile"
)

// TestMeanFieldHint: a mean-field fit with k̂ above 0.7 and from two to
// sgvb.MaxFullRank coordinates a joint factor can take is pointed at
// --fullrank all (a simplex counted at its K − 1 stick-breaking
// coordinates a row, which the joint factor takes as normal ones: a
// simplex with gamma factors alone, as a synthetic control's weights and
// sigma, gets the hint); a
// k̂ of 0.7 or less or NaN, MAP, a fit that already has a joint or
// full-rank factor, and a model with one such coordinate or more than
// sgvb.MaxFullRank get none.
func TestMeanFieldHint(t *testing.T) {
	m := &compile.Model{Latents: []compile.Latent{
		{Name: "a", Support: dist.Real, Size: 2},
		{Name: "s", Support: dist.Positive, Size: 2},
		{Name: "w", Support: dist.Simplex, Size: 3, Shape: []int{3}},
	}}
	h := meanFieldHint(sgvb.Settings{}, m, 0.9, math.NaN(), "", "")
	if !strings.Contains(h, "q is mean-field") || !strings.Contains(h, "--fullrank all (6 elements) fits them jointly") {
		t.Errorf("hint %q", h)
	}
	big := &compile.Model{Latents: []compile.Latent{
		{Name: "a", Support: dist.Real, Size: 1},
		{Name: "z", Support: dist.Real, Size: 100},
	}}
	if h := meanFieldHint(sgvb.Settings{}, big, 1.5, math.NaN(), "", ""); h != "" {
		t.Errorf("101 elements: hint %q, want none", h)
	}
	big.Latents[1].Size = 99
	if h := meanFieldHint(sgvb.Settings{}, big, 1.5, math.NaN(), "", ""); !strings.Contains(h, "--fullrank all (100 elements)") {
		t.Errorf("100 elements: hint %q", h)
	}
	one := &compile.Model{Latents: []compile.Latent{
		{Name: "a", Support: dist.Real, Size: 1},
		{Name: "s", Support: dist.Positive, Size: 3},
	}}
	sc := &compile.Model{Latents: []compile.Latent{
		{Name: "w", Support: dist.Simplex, Size: 30, Shape: []int{30}},
		{Name: "sigma", Support: dist.Positive, Size: 1},
	}}
	if h := meanFieldHint(sgvb.Settings{}, sc, 0.96, 0.05, "", ""); !strings.Contains(h, "--fullrank all (30 elements) fits them jointly") {
		t.Errorf("a simplex and a gamma factor: hint %q", h)
	}
	// gamma factors only, as examples/gpfa.gpp: a joint normal would make
	// them log-normal; with --family lognormal they are normal already
	gammas := &compile.Model{Latents: []compile.Latent{
		{Name: "b", Support: dist.Real, Size: 1},
		{Name: "W", Support: dist.Positive, Size: 20},
	}}
	if h := meanFieldHint(sgvb.Settings{Family: sgvb.FamilyLognormal}, gammas, 0.9, 0.9, "", ""); !strings.Contains(h, "--fullrank all (21 elements)") {
		t.Errorf("lognormal family: hint %q", h)
	}
	none := []struct {
		what string
		s    sgvb.Settings
		m    *compile.Model
		k    float64
		ess  float64
	}{
		{"k̂ 0.7", sgvb.Settings{}, m, 0.7, math.NaN()},
		{"k̂ NaN", sgvb.Settings{}, m, math.NaN(), math.NaN()},
		{"k̂ 3.7 of near-uniform weights", sgvb.Settings{}, m, 3.7, 0.998},
		{"MAP", sgvb.Settings{Method: sgvb.MAP}, m, 0.9, math.NaN()},
		{"a joint group", sgvb.Settings{FullRankGroups: [][]string{{"a", "s"}}}, m, 0.9, math.NaN()},
		{"a full-rank factor", sgvb.Settings{Families: map[string]sgvb.Family{"s": sgvb.FamilyFullRank}}, m, 0.9, math.NaN()},
		{"one coordinate", sgvb.Settings{}, one, 0.9, math.NaN()},
		{"gamma factors", sgvb.Settings{}, gammas, 0.9, math.NaN()},
	}
	for _, c := range none {
		if h := meanFieldHint(c.s, c.m, c.k, c.ess, "", ""); h != "" {
			t.Errorf("%s: %q, want none", c.what, h)
		}
	}
}

// TestFitMeanFieldHint: on a heteroscedastic regression whose weight of
// data sits at one end of x, the slope and intercept are strongly
// correlated; the default fit reports their sds over twice too small,
// which the curvature check says, and hints their joint factor
// (--fullrank a+b); that fit has a higher ELBO, sds over twice as wide,
// and no hint.
func TestFitMeanFieldHint(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	model, data := heteroscedastic(t, dir)
	mf, fr := filepath.Join(dir, "mf"), filepath.Join(dir, "fr")
	code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--out", mf)
	if code != 0 || !strings.Contains(stderr, "hint: b's and a's sds are about") ||
		!strings.Contains(stderr, "--fullrank a+b (2 elements)") {
		t.Fatalf("mean-field: exit %d, stderr\n%s", code, stderr)
	}
	code, _, stderr = runSafe(t, "fit", model, data, "--quiet", "--fullrank", "a+b", "--out", fr)
	if code != 0 || strings.Contains(stderr, "mean-field") {
		t.Fatalf("--fullrank a+b: exit %d, stderr\n%s", code, stderr)
	}
	elbo := func(dir string) float64 {
		v, ok := readJSONObject(t, filepath.Join(dir, "fit.json"))["elbo"].(float64)
		if !ok {
			t.Fatalf("%s/fit.json has no number elbo", dir)
		}
		return v
	}
	if e1, e2 := elbo(mf), elbo(fr); !(e2 > e1) {
		t.Errorf("ELBO mean-field %v, --fullrank a+b %v: want the full-rank one higher", e1, e2)
	}
	sdMF, sdFR := summarySDs(t, mf)["b"], summarySDs(t, fr)["b"]
	if !(sdFR > 2*sdMF) {
		t.Errorf("sd of b: mean-field %v, --fullrank a+b %v: want the full-rank one over twice as wide", sdMF, sdFR)
	}
}

// meanFieldHintAt returns where stderr's mean-field hint begins, the
// curvature check's (curvatureHint) or Pareto k̂'s (meanFieldHint); −1
// without one.
func meanFieldHintAt(stderr string) int {
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if strings.HasPrefix(line, "gpp: hint: ") && (strings.Contains(line, "which a mean-field q") || strings.HasPrefix(line, "gpp: hint: q is mean-field")) {
			return strings.Index(stderr, line)
		}
	}
	return -1
}

// TestLabelSwitchHint: restarts whose vector param is restart 0's in
// another order (a swap of two, a cycle of three) are named, with the
// params; a param whose restarts agree, one that moved without being a
// permutation, an output, and one fit get no hint.
func TestLabelSwitchHint(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const S = 400
	// means per restart of four vector params: mu swaps in restart 1, nu
	// cycles in restart 2, s agrees, moved is elsewhere in restart 1.
	means := map[string][3][]float64{
		"mu":    {{-2, 2}, {2, -2}, {-2, 2}},
		"nu":    {{0, 3, 6}, {0, 3, 6}, {3, 6, 0}},
		"s":     {{1, 1}, {1, 1}, {1, 1}},
		"moved": {{-2, 2}, {-2, 5}, {-2, 2}},
		"out":   {{-2, 2}, {2, -2}, {-2, 2}},
	}
	ds := &drawSet{R: 3}
	for d := range 3 * S {
		ds.comp = append(ds.comp, d%3)
	}
	for _, name := range []string{"mu", "nu", "s", "moved", "out"} {
		m := means[name]
		K := len(m[0])
		ds.vars = append(ds.vars, variable{name: name, shape: []int{K}, first: len(ds.cols), output: name == "out"})
		for k := range K {
			col := make([]float64, 3*S)
			for d := range col {
				col[d] = m[ds.comp[d]][k] + 0.3*rng.NormFloat64()
			}
			ds.cols = append(ds.cols, col)
		}
	}
	ds.ncol = len(ds.cols)
	h := labelSwitchHint(ds)
	if len(h) != 1 || !strings.HasPrefix(h[0], "restarts 1, 2 found mu, nu of restart 0 with the elements in another order (label switching") {
		t.Errorf("hints %q", h)
	}
	ds.vars = ds.vars[2:] // s, moved, out
	if h := labelSwitchHint(ds); h != nil {
		t.Errorf("without mu and nu: %q, want none", h)
	}
	ds.comp, ds.R = nil, 1
	if h := labelSwitchHint(ds); h != nil {
		t.Errorf("one fit: %q, want none", h)
	}
}

// TestLabelSwitchHintMatrix: a factor model's loadings W [P, K], whose
// restart 1 has the K columns in another order (a cycle of three; a
// permutation of eight, past switchMaxLen, matched closest pairs first),
// are named with the matrix wording; columns that moved without being a
// permutation, and restarts that agree, get no hint.
func TestLabelSwitchHintMatrix(t *testing.T) {
	for _, tc := range []struct {
		name string
		K    int
		perm []int // restart 1's column k is restart 0's perm[k]
		move bool  // restart 1's column 0 is elsewhere instead
		want bool
	}{
		{"cycle of 3", 3, []int{1, 2, 0}, false, true},
		{"8 reversed", 8, []int{7, 6, 5, 4, 3, 2, 1, 0}, false, true},
		{"same order", 3, []int{0, 1, 2}, false, false},
		{"moved", 3, []int{1, 2, 0}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			const S, P = 300, 12
			// restart 0's loadings: column k sparse, large on rows k, k+3, k+6 (mod P)
			load := func(p, k int) float64 {
				if (p-k)%3 == 0 && p >= k {
					return 2 + float64(k)
				}
				return 0.01
			}
			ds := &drawSet{R: 2}
			for d := range 2 * S {
				ds.comp = append(ds.comp, d%2)
			}
			v := variable{name: "W", shape: []int{P, tc.K}}
			for k := range tc.K { // column-major columns
				for p := range P {
					v.elems = append(v.elems, p*tc.K+k)
					col := make([]float64, 2*S)
					for d := range col {
						m := load(p, k)
						if ds.comp[d] == 1 {
							m = load(p, tc.perm[k])
							if tc.move && k == 0 {
								m = load((p+1)%P, tc.perm[k]) + 1
							}
						}
						col[d] = m + 0.05*m*rng.NormFloat64()
					}
					ds.cols = append(ds.cols, col)
				}
			}
			ds.vars = []variable{v}
			ds.ncol = len(ds.cols)
			h := labelSwitchHint(ds)
			got := len(h) == 1 && strings.HasPrefix(h[0], "restart 1 found W of restart 0 with the elements, or the rows or columns of a matrix, in another order")
			if got != tc.want || (!tc.want && h != nil) {
				t.Errorf("hints %q, want one: %v", h, tc.want)
			}
		})
	}
}

// TestFitLabelSwitchHint: four restarts of a two-component mixture of
// regressions whose components' intercepts are not ordered land in both
// orders of the labels and get the hint; with the intercepts ordered
// (ordered[2]) they agree and get none.
func TestFitLabelSwitchHint(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("x,y\n")
	for range 200 {
		x := 2*rng.Float64() - 1
		y := -1 - x + 0.3*rng.NormFloat64()
		if rng.Float64() < 0.6 {
			y = 1 + 2*x + 0.3*rng.NormFloat64()
		}
		fmt.Fprintf(&b, "%.6g,%.6g\n", x, y)
	}
	data := writeFile(t, dir, "m.csv", b.String())
	const body = `param b: real[2] ~ Normal(0, 3)
param sigma: positive[2] ~ HalfNormal(1)
target += sum(log_mix(w, logpdf(y, Normal(a[0] + b[0] * x, sigma[0])), logpdf(y, Normal(a[1] + b[1] * x, sigma[1]))))
`
	const head = "data x: real[N]\ndata y: real[N]\nparam w: unit ~ Beta(2, 2)\n"
	free := writeFile(t, dir, "free.gpp", head+"param a: real[2] ~ Normal(0, 3)\n"+body)
	ordered := writeFile(t, dir, "ordered.gpp", head+"param a: ordered[2] ~ Normal(0, 3)\n"+body)
	code, _, stderr := runSafe(t, "fit", free, data, "--quiet", "--restarts", "4", "--out", filepath.Join(dir, "f"))
	if code != 0 || !strings.Contains(stderr, "found a, b of restart 0 with the elements in another order (label switching") ||
		!strings.Contains(stderr, "so does its summary of everything else indexed by the component or state") {
		t.Errorf("free: exit %d, stderr\n%s", code, stderr)
	}
	code, _, stderr = runSafe(t, "fit", ordered, data, "--quiet", "--restarts", "4", "--out", filepath.Join(dir, "o"))
	if code != 0 || strings.Contains(stderr, "label switching") {
		t.Errorf("ordered: exit %d, stderr\n%s", code, stderr)
	}
}

// TestAgainstHint: a fit whose k̂ is above 1 with weights that are not
// near-uniform is pointed at gpp sample --against with its own model, data,
// --set values (sorted) and output directory, quoted as a shell reads them;
// k̂ at most 1 or NaN, a negligible tail and MAP get none.
func TestAgainstHint(t *testing.T) {
	cfg := &fitConfig{model: "my model.gpp", data: []string{"y.csv", "x=x.csv:a"}, sets: setFlags{"K": "3", "J": "2"}, out: "gpp-out"}
	sgvbFit := sgvb.Settings{Method: sgvb.SGVB}
	want := `gpp sample my\ model.gpp y.csv x=x.csv:a --set J=2 --set K=3 --against gpp-out (docs/inference.md`
	if h := againstHint(cfg, sgvbFit, 1.4, 0.01, 100, 0.001); !strings.Contains(h, want) || !strings.HasPrefix(h, "with k̂ above 1, q may be far from the posterior") {
		t.Errorf("k̂ 1.4: hint %q, want one with %q", h, want)
	}
	// weights close over the draws (cv 0.25, as cap.gpp's seed 4: k̂ 1.78,
	// relESS 0.943): the bound cv·sd, a far tail, not q's means; cv 0.5
	// still, cv 0.6 the strong reading
	for _, c := range []struct {
		ess  float64
		want string
	}{
		{1 / (1 + 0.25*0.25), "they are close (cv 0.25): reweighting moves none of q's means by more than 0.25 of its sd (Cauchy–Schwarz), so what k̂ reads is far in the tails"},
		{1 / (1 + 0.5*0.5), "(cv 0.5): reweighting moves none of q's means by more than 0.5 of its sd"},
		{1 / (1 + 0.6*0.6), "with k̂ above 1, q may be far from the posterior in its means as well as its sds"},
	} {
		h := againstHint(cfg, sgvbFit, 1.78, c.ess, 100, 0.001)
		if !strings.Contains(h, c.want) || !strings.Contains(h, want) {
			t.Errorf("relESS %.3g: hint %q, want %q", c.ess, h, c.want)
		}
	}
	for _, c := range []struct {
		name   string
		s      sgvb.Settings
		k, ess float64
	}{
		{"k̂ 1", sgvbFit, 1, 0.01},
		{"k̂ 0.9", sgvbFit, 0.9, 0.01},
		{"k̂ NaN", sgvbFit, math.NaN(), 0.01},
		{"negligible tail", sgvbFit, 1.3, 0.997},
		{"MAP", sgvb.Settings{Method: sgvb.MAP}, 1.4, 0.01},
	} {
		if h := againstHint(cfg, c.s, c.k, c.ess, 100, 0.001); h != "" {
			t.Errorf("%s: hint %q, want none", c.name, h)
		}
	}
	// past nutsLargeDim coordinates: NUTS's cost and --restarts, no command
	for _, dim := range []int{nutsLargeDim + 1, 56000} {
		h := againstHint(cfg, sgvbFit, 1.4, 0.01, dim, 0.0127)
		if strings.Contains(h, want) || !strings.Contains(h, fmt.Sprintf("on %d coordinates it is slow: 4 chains × 2000 iterations of", dim)) ||
			!strings.Contains(h, "--restarts 4") || !strings.Contains(h, "at this fit's 12.7 ms per step") {
			t.Errorf("%d coordinates: hint %q", dim, h)
		}
	}
	if h := againstHint(cfg, sgvbFit, 1.4, 0.01, nutsLargeDim, 0.0127); !strings.Contains(h, want) {
		t.Errorf("%d coordinates: hint %q, want the command", nutsLargeDim, h)
	}
	// the span docs/inference.md quotes: 2000 × 12.7 ms × (24 000^¼ to 1023)
	if c := nutsCost(24000, 0.0127); !strings.Contains(c, "of 12 to 1023 gradients each take 5.27 min to 7.22 h on 4 cores") {
		t.Errorf("24 000 coordinates at 12.7 ms: %q", c)
	}
}

// TestStepSeconds: the NUTS cost's time per step is the steps' (to the
// last trace point), not the fit's whole time, which holds the final
// estimate's draws; without a trace, the whole time per iteration.
func TestStepSeconds(t *testing.T) {
	r := &sgvb.Result{Iterations: 300, Seconds: 9, Trace: []sgvb.TracePoint{{Iter: 100, Seconds: 1}, {Iter: 300, Seconds: 3}}}
	if got := stepSeconds(r); got != 0.01 {
		t.Errorf("with a trace: %g s per step, want 0.01", got)
	}
	r.Trace = nil
	if got := stepSeconds(r); got != 0.03 {
		t.Errorf("without a trace: %g s per step, want 0.03", got)
	}
	if got := stepSeconds(&sgvb.Result{}); got != 0 {
		t.Errorf("no iterations: %g", got)
	}
}

// TestLabelSwitchHintOrdered: an ordered or positive_ordered param is not
// tried for label switching whatever its family column says (a
// positive_ordered's one gamma factor reads "gamma", not "ordered"), and
// reportVariables marks it so from the factor's support.
func TestLabelSwitchHintOrdered(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const S = 400
	means := [3][]float64{{1, 4}, {4, 1}, {1, 4}} // restart 1 swapped
	ds := &drawSet{R: 3}
	for d := range 3 * S {
		ds.comp = append(ds.comp, d%3)
	}
	ds.vars = []variable{{name: "c", family: "gamma", shape: []int{2}, elems: []int{0, 1}, ordered: true}}
	for k := range 2 {
		col := make([]float64, 3*S)
		for d := range col {
			col[d] = means[ds.comp[d]][k] + 0.3*rng.NormFloat64()
		}
		ds.cols = append(ds.cols, col)
	}
	ds.ncol = 2
	if h := labelSwitchHint(ds); h != nil {
		t.Errorf("ordered c: hints %q, want none", h)
	}
	ds.vars[0].ordered = false
	if h := labelSwitchHint(ds); len(h) != 1 {
		t.Errorf("unordered c: hints %q, want one (the data switch)", h)
	}
	r := &sgvb.Result{Factors: []sgvb.Factor{{Name: "c", Family: sgvb.FamilyGamma, Support: dist.PositiveOrdered, Shape: []int{2}, Size: 2}}}
	if vars, _ := reportVariables(r, &compile.Model{}); len(vars) != 1 || !vars[0].ordered || vars[0].family != "gamma" {
		t.Errorf("reportVariables of a positive_ordered gamma factor: %+v, want ordered, family gamma", vars)
	}
}

// heteroscedastic writes the model and the seeded data (150 rows) of a
// regression whose noise sd grows with x, where a mean-field q's sds of
// the slope and intercept are about twice too small (TestFitMeanFieldHint).
func heteroscedastic(t *testing.T, dir string) (model, data string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(42, 8))
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := range 150 {
		x := -2 + 4*float64(i)/149
		fmt.Fprintf(&b, "%.6g,%.6g\n", x, 1+0.5*x+math.Exp(-1+0.8*x)*rng.NormFloat64())
	}
	data = writeFile(t, dir, "h.csv", b.String())
	model = writeFile(t, dir, "h.gpp", `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 5)
param b: real ~ Normal(0, 5)
param c: real ~ Normal(0, 2)
param d: real ~ Normal(0, 2)
y ~ Normal(a + b * x, exp(c + d * x))
`)
	return model, data
}
