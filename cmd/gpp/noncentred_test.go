package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// ncHead declares what the models of TestNonCentredParams share.
const ncHead = `data J: int
data y: real[J]
data s0: positive
param mu: real ~ Normal(0, 5)
param tau: positive ~ HalfNormal(5)
param s: positive[J] ~ HalfNormal(1)
param L: real[J, J] ~ Normal(0, 1)
`

// TestNonCentredParams: a standard normal param scaled by a scale of
// params is found, with the centred form where it can be written (a let
// loc + scale * z either way round, .* by a vector, a ~ statement prior,
// the cumsum random walk) or in words (a use outside a let); a prior of
// another scale, a scale of data only, a bounded or positive z, a
// matrix product, a use in an output and a scale computed from z itself
// are not.
func TestNonCentredParams(t *testing.T) {
	walk := `data T: int
data y: real[T]
param mu: real ~ Normal(0, 1)
param sigma: positive ~ HalfNormal(1)
param x0: real ~ Normal(0, 10)
param z: real[T-1] ~ Normal(0, 1)
let x = x0 + append_row(0, cumsum(mu + sigma * z))
y ~ Normal(x, 0.2)
`
	for _, c := range []struct {
		name, src          string
		scale, centred, at string // want; scale "" for no param found
	}{
		{"let loc + scale * z", "param z: real[J] ~ Normal(0, 1)\nlet a = mu + tau * z\ny ~ Normal(a, 1)\n",
			"tau", "param a: real[J] ~ Normal(mu, tau) in place of param z and of the let at 9:1 (a's uses unchanged)", "tau * z"},
		{"let scale * z + loc", "param z: real[J] ~ Normal(0, 1)\nlet a = (z * tau) + mu\ny ~ Normal(a, 1)\n",
			"tau", "param a: real[J] ~ Normal(mu, tau) in place", "z * tau"},
		{"vector scale", "param z: real[J] ~ Normal(0, 1)\nlet a = z .* (s + s0)\ny ~ Normal(a, 1)\n",
			"s + s0", "param a: real[J] ~ Normal(0, s + s0) in place", "z .* (s + s0)"},
		{"statement prior", "param z: real[J]\nz ~ Normal(0, 1)\nlet a = mu + tau * z\ny ~ Normal(a, 1)\n",
			"tau", "param a: real[J] ~ Normal(mu, tau) in place of param z (and the statement at 9:1) and of the let at 10:1", "tau * z"},
		{"use in a ~", "param z: real[J] ~ Normal(0, 1)\ny ~ Normal(mu + tau * z, 1)\n",
			"tau", "a param of z's shape with the prior Normal(0, tau) in place of tau * z", "tau * z"},
		{"random walk", walk,
			"sigma", "param x: real[T] with x[0] ~ Normal(0, 10) and x[1:] ~ Normal(x[:T-1] + mu, sigma) in place of param z, param x0 and the let at 7:1", "sigma * z"},
		{"random walk in words", strings.Replace(walk, "x0 + append_row", "append_row", 1),
			"sigma", "the walk itself as a param, whose first element has a prior of its own and each later one the prior Normal(the one before plus the step's mean, sigma), in place of param z and the cumsum", "sigma * z"},
		{"prior of scale 2", "param z: real[J] ~ Normal(0, 2)\nlet a = mu + tau * z\ny ~ Normal(a, 1)\n", "", "", ""},
		{"scaled by data", "param z: real[J] ~ Normal(0, 1)\nlet a = mu + s0 * z\ny ~ Normal(a, 1)\n", "", "", ""},
		{"bounded", "param z: real<lower=-5>[J] ~ Normal(0, 1)\nlet a = mu + tau * z\ny ~ Normal(a, 1)\n", "", "", ""},
		{"positive", "param z: positive[J] ~ Normal(0, 1)\nlet a = mu + tau * z\ny ~ Normal(a, 1)\n", "", "", ""},
		{"matrix product", "param z: real[J] ~ Normal(0, 1)\nlet a = L * z\ny ~ Normal(a, 1)\n", "", "", ""},
		{"centred", "param a: real[J] ~ Normal(mu, tau)\ny ~ Normal(a, 1)\n", "", "", ""},
		// a sign-identified output (an ideal-point model's), no part of the density
		{"output", "param z: real[J] ~ Normal(0, 1)\ny ~ Normal(mu + z, 1)\noutput w = tau * z\n", "", "", ""},
		// gauge R&R's s_op * zb[op]: an element of z by a scalar scale
		{"element of z", "data g: int[J]\nparam z: real[J] ~ Normal(0, 1)\ny ~ Normal(mu + tau * z[g], 1)\n",
			"tau", "param z_c: real[J] ~ Normal(0, tau) in place of param z, and z_c[g] in place of tau * z[g]", "tau * z[g]"},
		// a real scalar with the prior Normal(0, 1) that scales z is z's
		// scale, not a second innovation scaled by z[g] (a trial's hint
		// listed sd_u among them)
		{"standard-normal scale", "data g: int[J]\nparam sd: real ~ Normal(0, 1)\nparam z: real[J] ~ Normal(0, 1)\ny ~ Normal(mu + sd * z[g], 1)\n",
			"sd", "param z_c: real[J] ~ Normal(0, sd) in place of param z, and z_c[g] in place of sd * z[g]", "sd * z[g]"},
		{"element of z by a vector", "data g: int[J]\nparam z: real[J] ~ Normal(0, 1)\ny ~ Normal(mu + s .* z[g], 1)\n", "", "", ""},
		// a chain of scalings is one: its scale all factors but z
		{"chain", "param z: real[J] ~ Normal(0, 1)\nlet a = mu * z * tau\ny ~ Normal(a, 1)\n",
			"mu * tau", "param a: real[J] ~ Normal(0, mu * tau) in place", "mu * z * tau"},
		// R2-D2's z .* sigma .* sqrt(phi * tau2): phi a local scale per element
		{"R2-D2", "param phi: simplex[J] ~ Dirichlet(0.5)\nparam z: real[J] ~ Normal(0, 1)\nlet a = z .* tau .* sqrt(phi * 2)\ny ~ Normal(a, 1)\n",
			"tau .* sqrt(phi * 2)", "param a: real[J] ~ Normal(0, tau .* sqrt(phi * 2)) in place", "z .* tau .* sqrt(phi * 2)"},
		// a horseshoe's tau * lambda .* z, through a let
		{"horseshoe", "param z: real[J] ~ Normal(0, 1)\nlet lt = sqrt(s)\nlet a = tau * lt .* z\ny ~ Normal(a, 1)\n",
			"tau * lt", "param a: real[J] ~ Normal(0, tau * lt) in place", "tau * lt .* z"},
		{"scale of z itself", "param z: real[J] ~ Normal(0, 1)\nlet nz = sqrt(mean(z .* z))\ny ~ Normal(mu + nz * z, 1)\n", "", "", ""},
	} {
		src := ncHead + c.src
		if strings.HasPrefix(c.src, "data T") {
			src = c.src
		}
		file, info := checkedSrc(t, src)
		ps := nonCentredParams(file, info)
		if c.scale == "" {
			if len(ps) != 0 {
				t.Errorf("%s: found %s scaled in %v, want none", c.name, ps[0].lat.Name, ps[0].centred)
			}
			continue
		}
		if len(ps) != 1 {
			t.Errorf("%s: %d params found, want 1", c.name, len(ps))
			continue
		}
		p := ps[0]
		if p.lat.Name != "z" || ast.FormatExpr(p.scale) != c.scale || ast.FormatExpr(p.use) != c.at || !strings.Contains(p.centred, c.centred) {
			t.Errorf("%s: %s scaled by %s in %s, centred form\n%s\nwant z by %s in %s, containing\n%s", c.name, p.lat.Name, ast.FormatExpr(p.scale), ast.FormatExpr(p.use), p.centred, c.scale, c.at, c.centred)
		}
		local := ""
		if p.local != nil {
			local = p.local.Name
		}
		if want := map[string]string{"vector scale": "s", "R2-D2": "phi", "horseshoe": "s"}[c.name]; local != want {
			t.Errorf("%s: local scale %q, want %q", c.name, local, want)
		}
	}
}

// TestNonCentredHints: the hint for a mean-field SGVB fit whose k̂ raises
// the alarm names z, its scale and the centred form and advises
// fitting both forms; none for a k̂ of 0.7 or less, a full-rank or banded
// q, MAP, a model without such a param or one whose scale is local to
// each element.
func TestNonCentredHints(t *testing.T) {
	file, info := checkedSrc(t, ncHead+"param z: real[J] ~ Normal(0, 1)\nlet a = mu + tau * z\ny ~ Normal(a, 1)\n")
	wantHints(t, nonCentredHints(sgvb.Settings{}, file, info, 1.1, math.NaN()), []string{
		"z's prior Normal(0, 1) and tau * z in the let a at 9:1, which scales z by tau, a scale that depends on params, make a non-centred hierarchy: " +
			"where the data pin each element of a down, the posterior of z and tau is a narrow curved ridge that a mean-field q cannot follow, and q's tau and z may be far off; " +
			"the centred form, param a: real[J] ~ Normal(mu, tau) in place of param z and of the let at 9:1 (a's uses unchanged), has no such ridge but a funnel where the data say little about each element, " +
			"and which of the two fits better (with few groups either can) this fit cannot tell: fit the centred form too; the higher ELBO picks the q nearer the posterior in KL(q‖p), not the one whose scales are right (a q that shrinks them can win it), so where the two forms' tau differ by much, trust neither fit's: gpp sample --against checks them (docs/inference.md, Centred hierarchies)",
	})
	for _, c := range []struct {
		name string
		s    sgvb.Settings
		k    float64
	}{
		{"k̂ 0.7", sgvb.Settings{}, 0.7},
		{"k̂ NaN", sgvb.Settings{}, math.NaN()},
		{"--fullrank", sgvb.Settings{FullRankGroups: [][]string{{"z", "tau"}}}, 1.1},
		{"--family banded", sgvb.Settings{Families: map[string]sgvb.Family{"z": sgvb.FamilyBanded}}, 1.1},
		{"MAP", sgvb.Settings{Method: sgvb.MAP}, 1.1},
	} {
		if h := nonCentredHints(c.s, file, info, c.k, math.NaN()); h != nil {
			t.Errorf("%s: hints %q, want none", c.name, h)
		}
	}
	file, info = checkedSrc(t, ncHead+"param a: real[J] ~ Normal(mu, tau)\ny ~ Normal(a, 1)\n")
	if h := nonCentredHints(sgvb.Settings{}, file, info, 1.1, math.NaN()); h != nil {
		t.Errorf("centred: hints %q, want none", h)
	}
	// a horseshoe's local scale per element (s): no hierarchy to centre
	file, info = checkedSrc(t, ncHead+"param z: real[J] ~ Normal(0, 1)\nlet a = tau * s .* z\ny ~ Normal(a, 1)\n")
	if h := nonCentredHints(sgvb.Settings{}, file, info, 1.1, math.NaN()); h != nil {
		t.Errorf("local scale: hints %q, want none", h)
	}
}

// TestNonCentredHintsMerged: two non-centred hierarchies give one hint
// that names both, with the let, its position and the centred form of
// each and the explanation once (an MRP model's four crossed effects
// printed four near-identical hints); a second non-centred random walk
// beside them gets a hint of its own kind, and the same param once in
// the list; a lone param's hint is nonCentredHint's.
func TestNonCentredHintsMerged(t *testing.T) {
	file, info := checkedSrc(t, ncHead+`param sd_b: positive ~ HalfNormal(1)
param z_a: real[J] ~ Normal(0, 1)
param z_b: real[J] ~ Normal(0, 1)
let u_a = tau * z_a
let u_b = mu + sd_b * z_b
y ~ Normal(u_a + u_b, 1)
`)
	got := nonCentredHints(sgvb.Settings{}, file, info, 1.1, math.NaN())
	wantHints(t, got, []string{
		"z_a and z_b, each with the prior Normal(0, 1) and scaled by a scale that depends on params, make non-centred hierarchies: " +
			"where the data pin each element of u_a or u_b down, the posterior of its param and scale is a narrow curved ridge that a mean-field q cannot follow, and q's scales and params may be far off; " +
			"the centred forms (u_a: param u_a: real[J] ~ Normal(0, tau) in place of param z_a and of the let at 11:1; " +
			"u_b: param u_b: real[J] ~ Normal(mu, sd_b) in place of param z_b and of the let at 12:1; each let's uses unchanged) have no such ridge but a funnel where the data say little about each element, " +
			"and which fits better (with few groups either can) this fit cannot tell: fit them too; the higher ELBO picks the q nearer the posterior in KL(q‖p), not the one whose scales are right (a q that shrinks them can win it), so where the two forms' scales differ by much, trust neither fit's: gpp sample --against checks them (docs/inference.md, Centred hierarchies)",
	})
	if n := strings.Count(got[0], "narrow curved ridge"); n != 1 {
		t.Errorf("the explanation %d times, want once", n)
	}

	// a hierarchy and two walks: one hint of each kind
	file, info = checkedSrc(t, ncHead+`param sigma: positive ~ HalfNormal(1)
param x0: real ~ Normal(0, 10)
param z: real[J] ~ Normal(0, 1)
param w: real[J] ~ Normal(0, 1)
param v: real[J] ~ Normal(0, 1)
let a = mu + tau * z
let x = x0 + append_row(0, cumsum(sigma * w))
let x2 = x0 + append_row(0, cumsum(tau * v))
y ~ Normal(a + x[:J] + x2[:J], 1)
`)
	got = nonCentredHints(sgvb.Settings{}, file, info, 1.1, math.NaN())
	wantHints(t, got, []string{
		"z's prior Normal(0, 1) and tau * z in the let a at 13:1, which scales z by tau, a scale that depends on params, make a non-centred hierarchy: ",
		"w and v, each with the prior Normal(0, 1) and scaled by a scale that depends on params, make non-centred random walks: where the data pin each element of x or x2 down,",
	})
}

// TestParameterisationHints: gpp fit's and :fit's hints on a model with
// both a centred and a non-centred param come in that order, then the
// mean-field hint (saying that --fullrank auto's all lost, where it did);
// after a far start there are none.
func TestParameterisationHints(t *testing.T) {
	file, info := checkedSrc(t, ncHead+"param theta: real[J] ~ Normal(mu, tau)\nparam z: real[J] ~ Normal(0, 1)\nlet a = mu + tau * z\ny ~ Normal(theta + a, 1)\n")
	m := &compile.Model{Latents: []compile.Latent{
		{Name: "mu", Support: dist.Real, Size: 1},
		{Name: "theta", Support: dist.Real, Size: 8},
		{Name: "z", Support: dist.Real, Size: 8},
	}}
	l := &pipeline.Loaded{File: file, Info: info, Model: m}
	wantHints(t, parameterisationHints(sgvb.Settings{}, l, "", 1.1, math.NaN(), nil, "", "", false), []string{
		"theta's prior Normal(mu, tau) has a scale that depends on params",
		"z's prior Normal(0, 1) and tau * z in the let a",
		"--fullrank all (17 elements)",
	})
	// after --fullrank auto fitted all without a curvature check and lost
	wantHints(t, parameterisationHints(sgvb.Settings{}, l, "", 1.1, math.NaN(), nil, "all", "", false), []string{
		"theta's prior Normal(mu, tau) has a scale that depends on params",
		"z's prior Normal(0, 1) and tau * z in the let a",
		"--fullrank auto refitted with --fullrank all, and kept the mean-field fit (its note says why)",
	})
	if h := parameterisationHints(sgvb.Settings{}, l, "a far start", 1.1, math.NaN(), nil, "", "", false); h != nil {
		t.Errorf("after a far start: hints %q, want none", h)
	}
}

// TestFitNonCentredHint: gpp fit of the non-centred random walk on 100
// rows simulated with little noise (seeded) gives the hint with the
// centred walk after its k̂ warning, and no mean-field hint (103
// elements), as does the REPL's :fit; the centred walk and the
// non-centred eight schools, whose k̂ is fine, get none: the schools' one
// hint is the mild curvature hint on tau (its sd 1.34× too small).
func TestFitNonCentredHint(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	const n = 100
	data := writeJSON(t, dir, "walk.json", map[string]any{"T": n, "y": walkSeries(1, 2, n, 0.3, 0.5, 0.2)})
	head := "data T: int\ndata y: real[T]\nparam mu: real ~ Normal(0, 1)\nparam sigma: positive ~ HalfNormal(1)\n"
	nc := writeFile(t, dir, "nc.gpp", head+"param x0: real ~ Normal(0, 10)\nparam z: real[T-1] ~ Normal(0, 1)\nlet x = x0 + append_row(0, cumsum(mu + sigma * z))\ny ~ Normal(x, 0.2)\n")
	code, _, stderr := runSafe(t, "fit", nc, data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, "nc"))
	warn := strings.Index(stderr, "warning: Pareto k̂")
	hint := strings.Index(stderr, "hint: z's prior Normal(0, 1) and sigma * z in the let x at 7:1, which scales z by sigma")
	if code != 0 || warn < 0 || hint < warn ||
		!strings.Contains(stderr, "the centred form, param x: real[T] with x[0] ~ Normal(0, 10) and x[1:] ~ Normal(x[:T-1] + mu, sigma) in place of param z, param x0 and the let at 7:1") ||
		strings.Contains(stderr, "q is mean-field") {
		t.Errorf("non-centred walk: exit %d, stderr\n%s", code, stderr)
	}
	r, _, errb := newTestRepl()
	typeIn(r, ":load "+nc, ":data "+data, ":fit --quiet --seed 1")
	if r.fit == nil || !strings.Contains(errb.String(), "hint: z's prior Normal(0, 1) and sigma * z in the let x at 7:1") {
		t.Errorf(":fit of the non-centred walk: errors\n%s", errb)
	}
	c := writeFile(t, dir, "c.gpp", head+"param x: real[T]\nx[0] ~ Normal(0, 10)\nx[1:] ~ Normal(x[:T-1] + mu, sigma)\ny ~ Normal(x, 0.2)\n")
	code, _, stderr = runSafe(t, "fit", c, data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, "c"))
	if code != 0 || strings.Contains(stderr, "non-centred") {
		t.Errorf("centred walk: exit %d, stderr\n%s", code, stderr)
	}
	schools := writeFile(t, dir, "schools.json", `{"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12], "sigma": [15, 10, 16, 11, 9, 11, 10, 18]}`)
	code, stdout, stderr := runSafe(t, "fit", "../../examples/posteriordb/eight_schools_noncentered.gpp", schools, "--quiet", "--seed", "1", "--out", filepath.Join(dir, "s"))
	if code != 0 || strings.Contains(stderr, "centred") || strings.Contains(stdout, "unreliable") ||
		strings.Count(stderr, "hint: ") != 1 || !strings.Contains(stderr, "hint: tau's sd is about ") {
		t.Errorf("eight schools: exit %d, stdout\n%s\nstderr\n%s", code, stdout, stderr)
	}
}

// ncMatrixHead is varying effects of 3 coefficients over R groups, up to
// their non-centred rows.
const ncMatrixHead = `data R: int
data y: real[R, 3]
data D: real[3, 3]
param mu: real[3] ~ Normal(0, 2)
param tau: positive[3] ~ HalfNormal(1)
param v: real[3] ~ Normal(0, 1)
param L: cholesky_factor_corr[3] ~ LKJCorrCholesky(2)
param W: real[3, 3] ~ Normal(0, 1)
param z: real[R, 3] ~ Normal(0, 1)
`

// TestNonCentredMatrix: varying slopes' non-centred rows, z * M with M a
// square matrix of params (a trial's hierarchical logit, z * (diag(tau) *
// L)'), are a non-centred hierarchy: the centred form MvNormalCholesky(mu,
// diag_pre_multiply(tau, L)) where M is such a factor's transpose, which
// the centred hint then finds (round trip), else the rows' prior in words;
// a data matrix, or a sd not known positive, gives no hint or only words.
func TestNonCentredMatrix(t *testing.T) {
	for _, c := range []struct{ let, scale, centred string }{
		{"mu' + z * (diag(tau) * L)'", "(diag(tau) * L)'",
			"param theta: real[R, 3] ~ MvNormalCholesky(mu, diag_pre_multiply(tau, L)) in place of param z and of the let at 10:1 (theta's uses unchanged)"},
		{"z * diag_pre_multiply(tau, L)'", "diag_pre_multiply(tau, L)'",
			"param theta: real[R, 3] ~ MvNormalCholesky(0, diag_pre_multiply(tau, L)) in place of param z and of the let at 10:1 (theta's uses unchanged)"},
		{"z * W", "W", "a param of z's shape whose rows have the prior MvNormal(0, W' * W) in place of z * W"},
		{"z * (diag(v) * L)'", "(diag(v) * L)'", "a param of z's shape whose rows have the prior MvNormal(0, (diag(v) * L) * (diag(v) * L)') in place of z * (diag(v) * L)'"},
		{"z * D", "", ""},
		// z * diag(v) written as a call is the same hierarchy
		{"z * diag(tau)", "diag(tau)", "a param of z's shape whose rows have the prior MvNormal(0, diag(tau)' * diag(tau)) in place of z * diag(tau)"},
		{"diag_post_multiply(z, tau)", "diag(tau)", "a param of z's shape whose rows have the prior MvNormal(0, diag(tau)' * diag(tau)) in place of diag_post_multiply(z, tau)"},
		{"diag_post_multiply(z, D[0])", "", ""},
		{"z * (diag(tau) * D)'", "(diag(tau) * D)'", "a param of z's shape whose rows have the prior MvNormal(0, (diag(tau) * D) * (diag(tau) * D)') in place of z * (diag(tau) * D)'"},
	} {
		file, info := checkedSrc(t, ncMatrixHead+"let theta = "+c.let+"\ny ~ Normal(theta, 1)\n")
		ps := nonCentredParams(file, info)
		if c.scale == "" {
			if len(ps) != 0 {
				t.Errorf("%s: non-centred %v, want none", c.let, ps)
			}
			continue
		}
		if len(ps) != 1 || ps[0].lat.Name != "z" || !ps[0].matrix || ast.FormatExpr(ps[0].scale) != c.scale || ps[0].centred != c.centred {
			t.Errorf("%s: %+v\nwant z scaled by %s, centred %q", c.let, ps, c.scale, c.centred)
			continue
		}
		if strings.HasPrefix(c.centred, "param theta") { // the centred form is a model with the centred hint
			form, _, _ := strings.Cut(c.centred, " in place")
			src := strings.Replace(ncMatrixHead, "param z: real[R, 3] ~ Normal(0, 1)\n", form+"\n", 1) + "y ~ Normal(theta, 1)\n"
			if f, i := checkedSrc(t, src); len(centredParams(f, i)) != 1 || len(nonCentredParams(f, i)) != 0 {
				t.Errorf("the centred form of %s is not found centred:\n%s", c.let, src)
			}
		}
	}
	file, info := checkedSrc(t, ncMatrixHead+"let theta = mu' + z * (diag(tau) * L)'\ny ~ Normal(theta, 1)\n")
	hints := nonCentredHints(sgvb.Settings{}, file, info, 2.46, math.NaN())
	want := "z's prior Normal(0, 1) and z * (diag(tau) * L)' in the let theta at 10:1, which multiplies z's rows by (diag(tau) * L)', a matrix that depends on params, make a non-centred hierarchy: "
	want += "where the data pin each element of theta down, the posterior of z and tau is a narrow curved ridge that a mean-field q cannot follow, and q's tau and z may be far off; " +
		"the centred form, param theta: real[R, 3] ~ MvNormalCholesky(mu, diag_pre_multiply(tau, L)) in place of param z and of the let at 10:1 (theta's uses unchanged), has no such ridge"
	if len(hints) != 1 || !strings.HasPrefix(hints[0], want) || !strings.Contains(hints[0], "where the two forms' tau differ by much") {
		t.Errorf("hints %q, want one starting %q", hints, want)
	}
}
