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
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

const walkHead = `data T: int
data R: int
data y: real[T]
param s: positive ~ HalfNormal(1)
param rho: real ~ Normal(0, 1)
`

// TestWalkParams: a ~ on a shifted part of a param whose distribution
// reads the same part shifted back is a chain, with its largest lag as
// the band (slices, a matrix's rows, loops, AR coefficients, a centred
// SV's location, a matrix's first axis of known width with the band
// lag × width, a let of differences with the span of the offsets it
// reads); a ~ without the lagged part, one that reads the param
// otherwise (a let too), a chain along a matrix's first axis of unknown
// width, backwards or of a ordered param, which no banded factor takes,
// is not.
func TestWalkParams(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      string // name band walk line:col, "" for none
	}{
		{"slice", "param x: real[T]\nx[0] ~ Normal(0, 1)\nx[1:] ~ Normal(x[:T-1], s)\n", "x 1 true 8:1"},
		{"slice with drift", "param x: real[T]\nx[1:] ~ Normal(x[:T-1] + rho, s)\n", "x 1 false 7:1"},
		{"centred SV", "param mu: real\nparam x: real[T]\nx[1:] ~ Normal(mu + rho * (x[:T-1] - mu), s)\n", "x 1 false 8:1"},
		{"AR(2) slices", "param x: real[T]\nx[2:] ~ Normal(rho * x[1:T-1] + 0.5 * x[:T-2], s)\n", "x 2 false 7:1"},
		{"matrix rows", "param x: real[R, T]\nx[:, 0] ~ Normal(0, s)\nx[:, 1:] ~ Normal(x[:, :T-1], s)\n", "x 1 true 8:1"},
		{"loop", "param x: real[T]\nfor t in 1:T {\n  x[t] ~ Normal(rho * x[t-1], s)\n}\n", "x 1 false 8:3"},
		{"loop forward", "param x: real[T]\nfor t in 0:T-1 {\n  x[t+1] ~ Normal(x[t], s)\n}\n", "x 1 true 8:3"},
		{"loop AR(3)", "param x: real[T]\nfor t in 3:T {\n  x[t] ~ Normal(x[t-1] - 0.2 * x[t-3], s)\n}\n", "x 3 false 8:3"},
		{"loop over a matrix's rows", "param x: real[R, T]\nfor r in 0:R {\n  for t in 1:T {\n    x[r, t] ~ Normal(x[r, t-1], s)\n  }\n}\n", "x 1 true 9:5"},
		{"positive, on the logs", "param x: positive[T]\nx[1:] ~ LogNormal(log(x[:T-1]), s)\n", "x 1 false 7:1"},
		{"no lag", "param x: real[T]\nx[1:] ~ Normal(0, s)\n", ""},
		{"whole param", "param x: real[T]\nx ~ Normal(rho, s)\n", ""},
		{"other use", "param x: real[T]\nx[1:] ~ Normal(x[:T-1] + mean(x), s)\n", ""},
		{"data lag", "param x: real[T]\nx[1:] ~ Normal(y[:T-1], s)\n", ""},
		{"backwards", "param x: real[T]\nx[:T-1] ~ Normal(x[1:], s)\n", ""},
		{"first axis", "param x: real[R, T]\nx[1:, :] ~ Normal(x[:R-1, :], s)\n", ""},
		{"other row", "param x: real[R, T]\nfor r in 1:R {\n  for t in 1:T {\n    x[r, t] ~ Normal(x[r-1, t-1], s)\n  }\n}\n", ""},
		{"loop backwards", "param x: real[T]\nfor t in 1:T {\n  x[T - t] ~ Normal(x[T - t + 1], s)\n}\n", ""},
		{"ordered", "param x: ordered[T]\nx[1:] ~ Normal(x[:T-1], s)\n", ""},
		{"first axis of a known width", "param x: real[T, 2]\nx[1:] ~ Normal(x[:T-1], s)\n", "x 2 true 7:1"},
		{"first axis, whole rows", "param x: real[T, 3]\nx[2:, :] ~ Normal(rho * x[1:T-1, :], s)\n", "x 3 false 7:1"},
		{"let of differences", "param x: real[T, 2]\nlet v = x[1:] - x[:T-1]\nv[1:] ~ Normal(rho * v[:T-2], s)\n", "x 4 false 8:1"},
		{"let on the last axis", "param x: real[T]\nlet v = x[1:] - x[:T-1]\nv[1:] ~ Normal(rho * v[:T-2], s)\n", "x 2 false 8:1"},
		{"let read otherwise", "param x: real[T]\nlet v = x[1:] - mean(x)\nv[1:] ~ Normal(rho * v[:T-2], s)\n", ""},
		{"first axis, a row forward", "param x: real[T, 2]\nx[1:] ~ Normal(x[2:], s)\n", ""},
	} {
		file, info := checkedSrc(t, walkHead+c.src)
		ps := walkParams(file, info, nil)
		got := ""
		if len(ps) > 0 {
			p := ps[0]
			got = fmt.Sprintf("%s %d %v %d:%d", p.lat.Name, p.band, p.walk, p.stmt.Pos().Line, p.stmt.Pos().Col)
		}
		if len(ps) > 1 || got != c.want {
			t.Errorf("%s: %d chains, first %q, want %q", c.name, len(ps), got, c.want)
		}
	}
}

// TestWalkParamsMissing: a ~ that chains data whose missing cells the
// fit makes a latent (an AR(1) series with a gap) is a chain over that
// latent, NAME_missing; not without missing cells, nor for data read
// otherwise than by the chain.
func TestWalkParamsMissing(t *testing.T) {
	const src = walkHead + "data z: real[T]\nz[1:] ~ Normal(rho * z[:T-1], s)\n"
	file, info := checkedSrc(t, src)
	ps := walkParams(file, info, map[string]bool{"z": true})
	if len(ps) != 1 || ps[0].lat.Name != "z_missing" || ps[0].data != "z" || ps[0].band != 1 {
		t.Fatalf("chains %+v, want z_missing of band 1", ps)
	}
	h := walkHints(hintedWalks(sgvb.Settings{}, file, info, map[string]bool{"z": true}, 1.1, math.NaN()))
	wantHints(t, h, []string{"at 7:1 makes z an AR(1) chain, whose missing cells (z_missing) this q cannot tie together where they neighbour one another (a gap) as the posterior does: " +
		"their sds come out too small and other params may move; --fullrank z_missing --band 1 holds them"})
	if got, want := walkFirst(ps, false), "; but the chain over z's missing cells at 7:1 is the larger problem here: fit with --fullrank z_missing --band 1 first (below)"; got != want {
		t.Errorf("walkFirst %q, want %q", got, want)
	}
	if ps := walkParams(file, info, nil); len(ps) != 0 {
		t.Errorf("no missing cells: chains %+v, want none", ps)
	}
	file, info = checkedSrc(t, walkHead+"data z: real[T]\nz[1:] ~ Normal(rho * z[:T-1] + mean(z), s)\n")
	if ps := walkParams(file, info, map[string]bool{"z": true}); len(ps) != 0 {
		t.Errorf("z read otherwise: chains %+v, want none", ps)
	}
}

// TestWalkHints: the hint names the statement, its position and the
// band; it is left out where k̂ does not raise the alarm, for MAP, and
// where q already holds the chain (full rank, a wide enough band), not
// for a low-rank factor or a narrower band.
func TestWalkHints(t *testing.T) {
	file, info := checkedSrc(t, walkHead+"param x: real[T]\nx[0] ~ Normal(0, 1)\nx[1:] ~ Normal(x[:T-1], s)\nparam z: real[T]\nfor t in 2:T {\n  z[t] ~ Normal(rho * z[t-1] + 0.1 * z[t-2], s)\n}\n")
	hints := walkHints(hintedWalks(sgvb.Settings{}, file, info, nil, 1.1, math.NaN()))
	wantHints(t, hints, []string{
		"x[1:] ~ Normal(x[:T - 1], s) at 8:1 makes x a random walk, whose neighbouring elements this q cannot tie together as the posterior does: " +
			"it may overstate the step sd s, understate the sds of x's elements and misplace other params; --fullrank x --band 1 holds the chain (a banded-precision normal): " +
			"keep the fit with the higher ELBO (docs/inference.md, Banded-precision factors)",
		"at 11:3 makes z an AR(2) chain, whose neighbouring elements this q cannot tie together as the posterior does: it may overstate the step sd s, understate the sds of z's elements and misplace other params; --fullrank z --band 2 holds",
	})
	for _, c := range []struct {
		name string
		s    sgvb.Settings
		k    float64
		want int // hints
	}{
		{"k̂ 0.7", sgvb.Settings{}, 0.7, 0},
		{"k̂ NaN", sgvb.Settings{}, math.NaN(), 0},
		{"MAP", sgvb.Settings{Method: sgvb.MAP}, 1.1, 0},
		{"Laplace", sgvb.Settings{Method: sgvb.Laplace}, 1.1, 0},
		{"--fullrank x,z", sgvb.Settings{Families: map[string]sgvb.Family{"x": sgvb.FamilyFullRank, "z": sgvb.FamilyFullRank}}, 1.1, 0},
		{"--fullrank all", sgvb.Settings{Families: map[string]sgvb.Family{"all": sgvb.FamilyFullRank}}, 1.1, 0},
		{"--fullrank x+s", sgvb.Settings{FullRankGroups: [][]string{{"x", "s"}}}, 1.1, 1},
		{"--fullrank x,z --band 2", sgvb.Settings{FullRankGroups: [][]string{{"x"}, {"z"}}, Band: 2}, 1.1, 0},
		{"--fullrank x+s,z --band 1", sgvb.Settings{FullRankGroups: [][]string{{"x", "s"}, {"z"}}, Band: 1}, 1.1, 1},
		{"--fullrank s+x --band 2", sgvb.Settings{FullRankGroups: [][]string{{"s", "x"}, {"z"}}, Band: 2}, 1.1, 1},
		{"--fullrank x,z --rank 5", sgvb.Settings{FullRankGroups: [][]string{{"x"}, {"z"}}, Rank: 5}, 1.1, 2},
		{"--fullrank rho", sgvb.Settings{Families: map[string]sgvb.Family{"rho": sgvb.FamilyFullRank}}, 1.1, 2},
	} {
		if h := walkHints(hintedWalks(c.s, file, info, nil, c.k, math.NaN())); len(h) != c.want {
			t.Errorf("%s: hints %q, want %d", c.name, h, c.want)
		}
	}
}

// TestWalkParameterisationHints: a centred hierarchy's hint on a model
// that also has a random walk q does not hold points to the walk's hint,
// which comes last; without the walk it does not; a banded fit that
// holds the walk gets the held chain's hint in its place.
func TestWalkParameterisationHints(t *testing.T) {
	src := walkHead + "param tau: positive ~ HalfNormal(1)\nparam u: real[R] ~ Normal(0, tau)\nparam x: real[R, T]\nx[:, 1:] ~ Normal(x[:, :T-1], s)\n"
	file, info := checkedSrc(t, src)
	m := &compile.Model{Latents: []compile.Latent{{Name: "u", Support: dist.Real, Size: 20}, {Name: "x", Support: dist.Real, Size: 2000}}}
	l := &pipeline.Loaded{File: file, Info: info, Model: m}
	wantHints(t, parameterisationHints(sgvb.Settings{}, l, "", 1.1, math.NaN(), nil, "", "", false), []string{
		"fit the non-centred form too; the higher ELBO picks the q nearer the posterior in KL(q‖p), not the one whose scales are right (a q that shrinks them can win it), so where the two forms' tau differ by much, trust neither fit's: gpp sample --against checks them (docs/inference.md, Centred hierarchies); but the chain over x at 9:1 is the larger problem here: fit with --fullrank x --band 1 first (below)",
		"x[:, 1:] ~ Normal(x[:, :T - 1], s) at 9:1 makes x a random walk",
	})
	hs := parameterisationHints(sgvb.Settings{FullRankGroups: [][]string{{"x"}}, Band: 1}, l, "", 1.1, math.NaN(), nil, "", "", false)
	if len(hs) != 2 || strings.Contains(hs[0], "--band") || !strings.HasPrefix(hs[1], "the banded factor holds the chain over x (") {
		t.Errorf("banded fit: hints %q, want the centred one and the held chain's (heldChainHints)", hs)
	}
	if hs := parameterisationHints(sgvb.Settings{}, l, "far", 1.1, math.NaN(), nil, "", "", false); hs != nil {
		t.Errorf("far start: hints %q, want none", hs)
	}
}

// TestFitWalkHint: gpp fit and :fit of a local-level model (a centred
// random walk observed with noise 0.8, as TestLocalLevelBanded's series
// 7) end their parameterisation hints with the banded factor's; the fit
// with --fullrank level --band 1 and the non-centred SV example (whose
// k̂ raises the alarm too, with no chain statement) get none.
func TestFitWalkHint(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	data := writeJSON(t, dir, "ll.json", map[string]any{"y": walkSeries(7, 29, 100, 0, 0.3, 0.8)})
	model := writeFile(t, dir, "ll.gpp", "data y: real[T]\nparam sigma_lvl: positive ~ HalfNormal(1)\nparam sigma_obs: positive ~ HalfNormal(1)\n"+
		"param level: real[T]\nlevel[0] ~ Normal(0, 10)\nlevel[1:] ~ Normal(level[:T-1], sigma_lvl)\ny ~ Normal(level, sigma_obs)\n")
	const hint = "hint: level[1:] ~ Normal(level[:T - 1], sigma_lvl) at 6:1 makes level a random walk"
	code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, "mf"))
	warn, at := strings.Index(stderr, "warning: Pareto k̂"), strings.Index(stderr, hint)
	if code != 0 || warn < 0 || at < warn || !strings.Contains(stderr[at:], "--fullrank level --band 1 holds the chain") ||
		strings.Count(stderr[at:], "hint:") != 1+strings.Count(stderr[at:], "hint: with k̂ above 1") {
		t.Errorf("mean-field: exit %d, stderr\n%s", code, stderr)
	}
	r, _, errb := newTestRepl()
	typeIn(r, ":load "+model, ":data "+data, ":fit --quiet --seed 1")
	if r.fit == nil || !strings.Contains(errb.String(), hint) {
		t.Errorf(":fit: errors\n%s", errb)
	}
	code, _, stderr = runSafe(t, "fit", model, data, "--quiet", "--seed", "1", "--fullrank", "level", "--band", "1", "--out", filepath.Join(dir, "band"))
	if code != 0 || strings.Contains(stderr, hint) {
		t.Errorf("banded: exit %d, stderr\n%s", code, stderr)
	}
	code, _, stderr = runSafe(t, "fit", "../../examples/sv.gpp", "../../examples/sv.csv", "--quiet", "--seed", "1", "--out", filepath.Join(dir, "sv"))
	if code != 0 || !strings.Contains(stderr, "warning: Pareto k̂") || strings.Contains(stderr, "--band") {
		t.Errorf("sv.gpp: exit %d, stderr\n%s", code, stderr)
	}
}

// TestFitWalkHintRows: a correlated random walk with a row per time step
// (x: real[N, 2], velocities as a let of differences, a movement
// ecologist's trial) is an AR(2) chain along x's rows, which the hint
// names with the band that holds it in row-major order (2 × 2) and, the
// model being linear-Gaussian, GaussianDLMObs; the banded fit has no
// such hint.
func TestFitWalkHintRows(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 41))
	const n = 120
	yx, yy := make([]float64, n), make([]float64, n)
	var px, py, vx, vy float64
	for i := range n {
		if i > 0 {
			vx, vy = 0.7*vx+0.5*rng.NormFloat64(), 0.7*vy+0.5*rng.NormFloat64()
			px, py = px+vx, py+vy
		}
		yx[i], yy[i] = px+0.3*rng.NormFloat64(), py+0.3*rng.NormFloat64()
	}
	data := writeJSON(t, dir, "crw.json", map[string]any{"yx": yx, "yy": yy})
	model := writeFile(t, dir, "crw.gpp", "data yx: real[N]\ndata yy: real[N]\nparam beta: unit ~ Beta(2, 2)\nparam sigma: positive ~ HalfNormal(1)\n"+
		"param tau: positive ~ HalfNormal(1)\nparam x: real[N, 2]\nlet Y = append_col(yx, yy)\nlet v = x[1:] - x[:N - 1]\n"+
		"v[0] ~ Normal(0, sigma / sqrt(1 - square(beta)))\nv[1:] ~ Normal(beta * v[:N - 2], sigma)\nY ~ Normal(x, tau)\n")
	const hint = "hint: v[1:] ~ Normal(beta * v[:N - 2], sigma) at 10:1 makes x an AR(2) chain along its rows (a band of 2 × 2 in row-major order)"
	code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, "mf"))
	at := strings.Index(stderr, hint)
	if code != 0 || at < 0 || !strings.Contains(stderr[at:], "--fullrank x --band 4 holds the chain") || !strings.Contains(stderr[at:], "GaussianDLMObs integrates the states out") {
		t.Errorf("mean-field: exit %d, stderr\n%s", code, stderr)
	}
	code, _, stderr = runSafe(t, "fit", model, data, "--quiet", "--seed", "1", "--fullrank", "x", "--band", "4", "--out", filepath.Join(dir, "band"))
	if code != 0 || strings.Contains(stderr, "makes x an AR(2) chain") {
		t.Errorf("banded: exit %d, stderr\n%s", code, stderr)
	}
}

// TestWalkHintStep: the hint names the step sd where it is a param, and
// says "the step sd" alone where it is not (a constant, an expression).
func TestWalkHintStep(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"x[1:] ~ Normal(x[:T-1], s)", "it may overstate the step sd s, understate the sds of x's elements"},
		{"x[1:] ~ Normal(x[:T-1], 0.5)", "it may overstate the step sd, understate the sds of x's elements"},
		{"x[1:] ~ Normal(x[:T-1], 2 * s)", "it may overstate the step sd, understate"},
		{"x[1:] ~ Normal(x[:T-1], exp(rho))", "it may overstate the step sd, understate"},
		{"x[1:] ~ LogNormal(log(x[:T-1]), s)", "it may overstate the step sd s, understate"},
	} {
		decl := "param x: real[T]\n"
		if strings.Contains(c.src, "LogNormal") {
			decl = "param x: positive[T]\n"
		}
		file, info := checkedSrc(t, walkHead+decl+c.src+"\n")
		wantHints(t, walkHints(hintedWalks(sgvb.Settings{}, file, info, nil, 1.1, math.NaN())), []string{c.want})
	}
}

// TestWalkHintsCoords: a chain over a param whose factor is over
// coordinates that are not its elements (a sum_to_zero_vector, a
// sum_to_zero_matrix's rows) gets a full-rank factor in its hint, not
// --band (which bands the coordinates), and a banded factor of
// it does not silence the hint; the mean-field hint is told to take the
// param into its group, a centred one to fit with the full-rank factor
// first.
func TestWalkHintsCoords(t *testing.T) {
	for _, c := range []struct{ sup, stmt, step, kind string }{
		{"sum_to_zero_vector", "k[1:] ~ Normal(k[:T-1] + drift, s)", "step sd s", "an AR(1) chain"},
		{"sum_to_zero_matrix", "k[:, 1:] ~ Normal(k[:, :T-1], 2 * s)", "step sd", "a random walk"},
	} {
		sup, dims := c.sup, "[T]"
		if strings.HasSuffix(sup, "matrix") {
			dims = "[R, T]"
		}
		file, info := checkedSrc(t, walkHead+"param drift: real\nparam k: "+sup+dims+"\n"+c.stmt+"\n")
		ps := walkParams(file, info, nil)
		if len(ps) != 1 || !ps[0].coords || ps[0].step != strings.TrimPrefix(c.step, "step sd ") && c.step != "step sd" {
			t.Fatalf("%s: chains %+v, want k over coordinates, %s", sup, ps, c.step)
		}
		h := walkHints(hintedWalks(sgvb.Settings{}, file, info, nil, 1.1, math.NaN()))
		wantHints(t, h, []string{"at 8:1 makes k " + c.kind + ", whose neighbouring elements this q cannot tie together as the posterior does: " +
			"it may overstate the " + c.step + ", understate the sds of k's elements and misplace other params; k's factor is over its free coordinates, not its elements (a " + sup + "), " +
			"where a banded one does not hold the chain: a full-rank one does (it holds any linear map of the coordinates), best with the params k moves with: " +
			"--fullrank auto refits with joint factors (the curvature's group, and all where it is within the limits), each warm-started from the mean-field fit (or --fullrank k --init with this fit's --out directory)"})
		if strings.Contains(h[0], "--band") {
			t.Errorf("%s: hint names --band: %s", sup, h[0])
		}
		for _, c := range []struct {
			name string
			s    sgvb.Settings
			want int
		}{
			{"--fullrank k --band 1", sgvb.Settings{FullRankGroups: [][]string{{"k"}}, Band: 1}, 1},
			{"--fullrank k+drift --band 1", sgvb.Settings{FullRankGroups: [][]string{{"k", "drift"}}, Band: 1}, 1},
			{"--fullrank k", sgvb.Settings{Families: map[string]sgvb.Family{"k": sgvb.FamilyFullRank}}, 0},
			{"--fullrank drift+k", sgvb.Settings{FullRankGroups: [][]string{{"drift", "k"}}}, 0},
		} {
			if h := walkHints(hintedWalks(c.s, file, info, nil, 1.1, math.NaN())); len(h) != c.want {
				t.Errorf("%s, %s: hints %q, want %d", sup, c.name, h, c.want)
			}
		}
		if got, want := walkFirst(ps, true), "; the chain over k at 8:1 (below) needs k in a full-rank factor too: join it to that one (+k)"; got != want {
			t.Errorf("%s: walkFirst(joint) %q, want %q", sup, got, want)
		}
		if got, want := walkFirst(ps, false), "; but the chain over k at 8:1 is the larger problem here: fit with --fullrank k first (below)"; got != want {
			t.Errorf("%s: walkFirst %q, want %q", sup, got, want)
		}
	}
	file, info := checkedSrc(t, walkHead+"param x: real[T]\nx[1:] ~ Normal(x[:T-1], s)\n")
	if ps := walkParams(file, info, nil); len(ps) != 1 || ps[0].coords || walkFirst(ps, true) != "; but the chain over x at 7:1 is the larger problem here: fit with --fullrank x --band 1 first (below)" {
		t.Errorf("real chain: %+v, walkFirst %q", ps, walkFirst(ps, true))
	}
}

// TestHeldChainHints: a fit whose banded factor holds a centred chain
// (alone or as an arrowhead) and whose k̂ raises the alarm gets the hint
// that the chain's step sd is likely too small; none where k̂ is low, the
// chain is not held (mean-field, a narrower band), held by a full-rank
// factor, or its step sd is not a param.
func TestHeldChainHints(t *testing.T) {
	file, info := checkedSrc(t, walkHead+"param x: real[T]\nx[0] ~ Normal(0, 1)\nx[1:] ~ Normal(rho * x[:T-1], s)\nparam z: real[T]\nz[1:] ~ Normal(z[:T-1], 0.5)\n")
	band := sgvb.Settings{FullRankGroups: [][]string{{"x"}, {"z"}}, Band: 1}
	wantHints(t, heldChainHints(band, file, info, nil, 0.75, math.NaN()), []string{
		"the banded factor holds the chain over x (x[1:] ~ Normal(rho * x[:T - 1], s) at 8:1), but no normal q holds the funnel between its step sd s and the spread of x's elements, " +
			"which a centred chain has: s's sd is likely several times too small",
	})
	for _, c := range []struct {
		name string
		s    sgvb.Settings
		k    float64
		want int // hints
	}{
		{"--fullrank x+s --band 1", sgvb.Settings{FullRankGroups: [][]string{{"x", "s", "rho"}}, Band: 1}, 1.1, 1},
		{"k̂ 0.6", band, 0.6, 0},
		{"mean-field", sgvb.Settings{}, 1.1, 0},
		{"--fullrank x", sgvb.Settings{Families: map[string]sgvb.Family{"x": sgvb.FamilyFullRank}}, 1.1, 0},
		{"--fullrank z --band 1", sgvb.Settings{FullRankGroups: [][]string{{"z"}}, Band: 1}, 1.1, 0},
		{"--fullrank s+x --band 1", sgvb.Settings{FullRankGroups: [][]string{{"s", "x"}}, Band: 1}, 1.1, 0},
	} {
		if h := heldChainHints(c.s, file, info, nil, c.k, math.NaN()); len(h) != c.want {
			t.Errorf("%s: hints %q, want %d", c.name, h, c.want)
		}
	}
}
