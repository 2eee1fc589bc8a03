package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// checkedSrc parses and checks a model's source, failing t on an error.
func checkedSrc(t *testing.T, src string) (*ast.File, *check.Info) {
	t.Helper()
	file, err := parser.ParseFile("h.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info, err := check.Check(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	return file, info
}

// wantHints checks that got holds one hint for each of want, in order,
// each containing its want.
func wantHints(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d hints, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("hint %d:\n%s\nwant it to contain\n%s", i, got[i], w)
		}
	}
}

// TestCentredHints: a Normal prior whose scale depends on params, on an
// unbounded real param, gets the non-centred form when k̂ is above 0.7 (a
// vector scale with .*, a location of 0 left out, a compound scale in
// parentheses), and so does a LogNormal one on a positive param (positive
// or real<lower=0>), its non-centred form the exp of the Normal's; a
// scale of data or constants, a bounded or positive param under a Normal,
// another family and a k̂ of 0.7 or less or NaN (MAP) get none.
func TestCentredHints(t *testing.T) {
	const src = `data J: int
data y: real[J]
data s0: positive
param mu: real ~ Normal(0, 5)
param tau: positive ~ HalfNormal(5)
param sig: positive[J] ~ HalfNormal(1)
param theta: real[J] ~ Normal(mu, tau)
param a: real[J] ~ Normal(0, sig)
param b: real[J] ~ Normal(mu, tau + s0)
param c: real[J] ~ Normal(mu, s0)
param d: real<lower=-5, upper=5>[J] ~ Normal(0, 1)
param e: real[J] ~ VonMises(mu, tau)
param f: positive[J] ~ Normal(0, tau)
param g: positive[J] ~ LogNormal(mu, tau)
param h: real<lower=0>[J] ~ LogNormal(0, tau)
param l: positive[J] ~ LogNormal(0, s0)
y ~ Normal(theta + a + b + c + d + e + f + g + h + l, 1)
`
	file, info := checkedSrc(t, src)
	got := centredHints(file, info, 0.9, math.NaN())
	wantHints(t, got, []string{"theta, a, b, g and h have priors whose scales depend on params (centred hierarchies): where the data say little about each element of one, its posterior is a funnel in its scale that a normal q cannot follow, and q's scales and those params may be far off; " +
		"the non-centred forms (theta: param theta_z: real[J] ~ Normal(0, 1) with let theta = mu + tau * theta_z; a: param a_z: real[J] ~ Normal(0, 1) with let a = sig .* a_z; " +
		"b: param b_z: real[J] ~ Normal(0, 1) with let b = mu + (tau + s0) * b_z; g: param g_z: real[J] ~ Normal(0, 1) with let g = exp(mu + tau * g_z); h: param h_z: real[J] ~ Normal(0, 1) with let h = exp(tau * h_z)) have no funnel but a curved ridge where the data pin each element down, and which fits better (with few groups either can) this fit cannot tell: " +
		"fit them too; the higher ELBO picks the q nearer the posterior in KL(q‖p), not the one whose scales are right (a q that shrinks them can win it), so where the two forms' scales differ by much, trust neither fit's: gpp sample --against checks them (docs/inference.md, Centred hierarchies)"})
	// each param's own hint, as a model of that one alone gets it
	var one []string
	for _, p := range centredParams(file, info) {
		one = append(one, centredHint(p))
	}
	want := []string{
		"theta's prior Normal(mu, tau) has a scale that depends on params (a centred hierarchy): where the data say little about each element of theta, the posterior is a funnel in tau that a normal q cannot follow, and q's tau and theta may be far off; the non-centred form, param theta_z: real[J] ~ Normal(0, 1) with let theta = mu + tau * theta_z, has no funnel but a curved ridge where the data pin each element down, and which of the two fits better (with few groups either can) this fit cannot tell: fit the non-centred form too; the higher ELBO picks the q nearer the posterior in KL(q‖p), not the one whose scales are right (a q that shrinks them can win it), so where the two forms' tau differ by much, trust neither fit's: gpp sample --against checks them (docs/inference.md, Centred hierarchies)",
		"param a_z: real[J] ~ Normal(0, 1) with let a = sig .* a_z,",
		"param b_z: real[J] ~ Normal(0, 1) with let b = mu + (tau + s0) * b_z,",
		"g's prior LogNormal(mu, tau) has a scale that depends on params (a centred hierarchy): where the data say little about each element of g, the posterior is a funnel in tau that a normal q cannot follow, and q's tau and g may be far off; the non-centred form, param g_z: real[J] ~ Normal(0, 1) with let g = exp(mu + tau * g_z),",
		"param h_z: real[J] ~ Normal(0, 1) with let h = exp(tau * h_z),",
	}
	wantHints(t, one, want)
	for _, k := range []float64{0.7, 0.3, math.NaN()} {
		if h := centredHints(file, info, k, math.NaN()); h != nil {
			t.Errorf("k̂ %v: %v, want none", k, h)
		}
	}
	// a heavy tail of near-uniform weights (relative ESS 0.97: cv 0.18)
	// raises no alarm; at relative ESS 0.95 (cv 0.23) it does
	if h := centredHints(file, info, 2.5, 0.97); h != nil {
		t.Errorf("k̂ 2.5, relative ESS 0.97: %v, want none", h)
	}
	if h := centredHints(file, info, 2.5, 0.95); len(h) != 1 {
		t.Errorf("k̂ 2.5, relative ESS 0.95: %d hints, want 1", len(h))
	}
	// one such param: its own hint
	file, info = checkedSrc(t, "data J: int\ndata y: real[J]\nparam mu: real ~ Normal(0, 5)\nparam tau: positive ~ HalfNormal(5)\nparam theta: real[J] ~ Normal(mu, tau)\ny ~ Normal(theta, 1)\n")
	wantHints(t, centredHints(file, info, 0.9, math.NaN()), want[:1])
}

// centredStmtSrc gives its params' priors as ~ statements, Stan's
// model-block style: on the whole param (theta), in a loop over its
// elements with a scalar scale (a), with location and scale gathered by
// int data (b), with a scale of params and data (c) and over a range
// of constant length (v), all centred; and, none of them, a ~ on a
// slice (d), a loop over another range (e, e2, v2),
// a ~ of an expression of the param, whole (f) or in a loop (h), a
// bounded or positive param (k, k2), a scale of constants (n), two ~ on
// one param (o), the loop variable used but as an index (q), a ~ in a
// nested loop (r) and another family (u).
const centredStmtSrc = `data J: int
data K: int
data y: real[J]
data w: positive[J]
data g: int[J]
param mu: real ~ Normal(0, 5)
param tau: positive ~ HalfNormal(5)
param m: real[2] ~ Normal(0, 5)
param s: positive[2] ~ HalfNormal(5)
param theta: real[J]
theta ~ Normal(mu, tau)
param a: real[J]
for j in 0:J {
  a[j] ~ Normal(0, tau)
}
param b: real[J]
param c: real[J]
for j in 0:J {
  b[j] ~ Normal(m[g[j]], s[g[j]])
  c[j] ~ Normal(mu, tau * s[g[j]] * w[j])
}
param v: real[3]
param v2: real[3]
for j in 0:3 {
  v[j] ~ Normal(mu, tau)
}
for j in 0:2 {
  v2[j] ~ Normal(mu, tau)
}
param e2: real[J]
for j in 1:J {
  e2[j] ~ Normal(mu, tau)
}
param d: real[J]
d[0:J] ~ Normal(mu, tau)
param e: real[J]
for j in 0:K {
  e[j] ~ Normal(mu, tau)
}
param f: real[J]
f * 2 ~ Normal(mu, tau)
param h: real[J]
for j in 0:J {
  h[j] * 2 ~ Normal(mu, tau)
}
param k: real<lower=0>[J]
k ~ Normal(0, tau)
param k2: positive[J]
k2 ~ Normal(0, tau)
param n: real[J]
n ~ Normal(mu, 2)
param o: real[J]
o ~ Normal(mu, tau)
o ~ Normal(0, 10)
param q: real[J]
for j in 0:J {
  q[j] ~ Normal(mu + j, tau)
}
param r: real[J]
for i in 0:2 {
  for j in 0:J {
    r[j] ~ Normal(mu, tau)
  }
}
param u: real[J]
for j in 0:J {
  u[j] ~ VonMises(mu, tau)
}
y ~ Normal(theta + a + b + c + d + e + e2 + f + h + k + k2 + n + o + q + r + u + sum(v) + sum(v2), 1)
`

// TestCentredStmtHints: a centred hierarchy whose prior is a ~ statement
// (centredStmtSrc), on the whole param or in a loop over its elements,
// gets the hint naming the statement, with the non-centred form in its
// place: the loop's indices dropped (m[g], s[g]), .* for a scale that
// varies with the loop variable and for a * of two such vectors, and the
// loop left empty named. The
// divergence hint gives evidence for a scale that is a param (tau) and
// none for one indexed by the loop (s[g[j]]).
func TestCentredStmtHints(t *testing.T) {
	file, info := checkedSrc(t, centredStmtSrc)
	got := centredHints(file, info, 0.9, math.NaN())
	wantHints(t, got, []string{"theta, a, b, c and v have priors whose scales depend on params (centred hierarchies): " +
		"where the data say little about each element of one, its posterior is a funnel in its scale that a normal q cannot follow, and q's scales and those params may be far off; " +
		"the non-centred forms (theta: param theta_z: real[J] ~ Normal(0, 1) with let theta = mu + tau * theta_z in place of the statement at 11:1; " +
		"a: param a_z: real[J] ~ Normal(0, 1) with let a = tau * a_z in place of the statement at 14:3 (and of the for loop at 13:1, left empty); " +
		"b: param b_z: real[J] ~ Normal(0, 1) with let b = m[g] + s[g] .* b_z in place of the statement at 19:3; c: param c_z: real[J] ~ Normal(0, 1) with let c = mu + (tau * s[g] .* w) .* c_z in place of the statement at 20:3; " +
		"v: param v_z: real[3] ~ Normal(0, 1) with let v = mu + tau * v_z in place of the statement at 25:3 (and of the for loop at 24:1, left empty)) have no funnel"})
	var one []string
	for _, p := range centredParams(file, info) {
		one = append(one, centredHint(p))
	}
	want := []string{
		"theta's prior, the statement theta ~ Normal(mu, tau) at 11:1, has a scale that depends on params (a centred hierarchy): where the data say little about each element of theta, the posterior is a funnel in tau that a normal q cannot follow, and q's tau and theta may be far off; the non-centred form, param theta_z: real[J] ~ Normal(0, 1) with let theta = mu + tau * theta_z in place of the statement at 11:1, has no funnel but a curved ridge where the data pin each element down, and which of the two fits better (with few groups either can) this fit cannot tell: fit the non-centred form too; the higher ELBO picks the q nearer the posterior in KL(q‖p), not the one whose scales are right (a q that shrinks them can win it), so where the two forms' tau differ by much, trust neither fit's: gpp sample --against checks them (docs/inference.md, Centred hierarchies)",
		"a's prior, the statement a[j] ~ Normal(0, tau) at 14:3 in a for loop over its elements, has a scale that depends on params (a centred hierarchy): where the data say little about each element of a, the posterior is a funnel in tau that a normal q cannot follow, and q's tau and a may be far off; the non-centred form, param a_z: real[J] ~ Normal(0, 1) with let a = tau * a_z in place of the statement at 14:3 (and of the for loop at 13:1, left empty), has no funnel",
		"b's prior, the statement b[j] ~ Normal(m[g[j]], s[g[j]]) at 19:3 in a for loop over its elements, has a scale that depends on params (a centred hierarchy): where the data say little about each element of b, the posterior is a funnel in s[g[j]] that a normal q cannot follow, and q's s[g[j]] and b may be far off; the non-centred form, param b_z: real[J] ~ Normal(0, 1) with let b = m[g] + s[g] .* b_z in place of the statement at 19:3, has no funnel",
		"the non-centred form, param c_z: real[J] ~ Normal(0, 1) with let c = mu + (tau * s[g] .* w) .* c_z in place of the statement at 20:3, has",
		"v's prior, the statement v[j] ~ Normal(mu, tau) at 25:3 in a for loop over its elements, has a scale that depends on params (a centred hierarchy): where the data say little about each element of v, the posterior is a funnel in tau that a normal q cannot follow, and q's tau and v may be far off; the non-centred form, param v_z: real[3] ~ Normal(0, 1) with let v = mu + tau * v_z in place of the statement at 25:3 (and of the for loop at 24:1, left empty), has",
	}
	wantHints(t, one, want)

	// 20 draws, the first 6 divergent at the smallest tau
	const n = 20
	tau, s0, s1 := make([]float64, n), make([]float64, n), make([]float64, n)
	div := make([]bool, n)
	for i := range n {
		tau[i], s0[i], s1[i] = float64(i+1)/10, 1, 1
		div[i] = i < 6
	}
	ds := &drawSet{vars: []variable{
		{name: "tau", elems: []int{0}, first: 0},
		{name: "s", shape: []int{2}, elems: []int{0, 1}, first: 1},
	}, cols: [][]float64{tau, s0, s1}}
	got = divergenceHints(file, info, &sampleDraws{ds: ds, divergent: div, n: n, chains: 1})
	if len(got) != len(want) {
		t.Fatalf("divergences: %d hints, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	const evidence = "The 6 divergent iterations have tau's median 0.35 against 1.05 in all draws (its 15th percentile): the divergences are in the funnel's neck. The non-centred form, param a_z: real[J] ~ Normal(0, 1) with let a = tau * a_z in place of the statement at 14:3 (and of the for loop at 13:1, left empty), removes the funnel"
	if !strings.Contains(got[1], evidence) {
		t.Errorf("a's divergence hint:\n%s\nwant it to contain\n%s", got[1], evidence)
	}
	if !strings.Contains(got[2], "the sampler's step size cannot enter without diverging. The non-centred form, param b_z: real[J] ~ Normal(0, 1) with let b = m[g] + s[g] .* b_z in place of the statement at 19:3, removes") {
		t.Errorf("b's divergence hint, want no evidence for s[g[j]]:\n%s", got[2])
	}
}

// TestCentredLocScaleHints: a prior of another location-scale family whose
// scale depends on params is a centred hierarchy as a Normal one is, its
// non-centred z taking the family's standard form: StudentT(nu, 0, 1) with
// nu a constant (a user trial's BayesA, beta ~ StudentT(4, 0, s)) or a
// param, Cauchy, Laplace, Logistic and Gumbel at (0, 1), and in a loop
// with nu indexed by the loop variable, nu gathered; a scale of data gets
// none.
func TestCentredLocScaleHints(t *testing.T) {
	const src = `data J: int
data y: real[J]
data nu: positive[J]
data s0: positive
param s: positive ~ HalfNormal(1)
param df: positive ~ Gamma(2, 0.1)
param mu: real ~ Normal(0, 5)
param beta: real[J] ~ StudentT(4, 0, s)
param b2: real[J] ~ StudentT(df, mu, s)
param c: real[J] ~ Cauchy(mu, s)
param l: real[J] ~ Laplace(0, s)
param lg: real[J] ~ Logistic(0, s)
param gu: real[J] ~ Gumbel(mu, s)
param t0: real[J] ~ StudentT(df, mu, s0)
param u: real[J]
for j in 0:J {
  u[j] ~ StudentT(nu[j], mu, s)
}
y ~ Normal(beta + b2 + c + l + lg + gu + t0 + u, 1)
`
	file, info := checkedSrc(t, src)
	var one []string
	for _, p := range centredParams(file, info) {
		one = append(one, centredHint(p))
	}
	wantHints(t, one, []string{
		"beta's prior StudentT(4, 0, s) has a scale that depends on params (a centred hierarchy): where the data say little about each element of beta, the posterior is a funnel in s that a normal q cannot follow, and q's s and beta may be far off; the non-centred form, param beta_z: real[J] ~ StudentT(4, 0, 1) with let beta = s * beta_z, has no funnel",
		"the non-centred form, param b2_z: real[J] ~ StudentT(df, 0, 1) with let b2 = mu + s * b2_z, has",
		"the non-centred form, param c_z: real[J] ~ Cauchy(0, 1) with let c = mu + s * c_z, has",
		"the non-centred form, param l_z: real[J] ~ Laplace(0, 1) with let l = s * l_z, has",
		"the non-centred form, param lg_z: real[J] ~ Logistic(0, 1) with let lg = s * lg_z, has",
		"the non-centred form, param gu_z: real[J] ~ Gumbel(0, 1) with let gu = mu + s * gu_z, has",
		"u's prior, the statement u[j] ~ StudentT(nu[j], mu, s) at 17:3 in a for loop over its elements, has a scale that depends on params (a centred hierarchy): where the data say little about each element of u, the posterior is a funnel in s that a normal q cannot follow, and q's s and u may be far off; the non-centred form, param u_z: real[J] ~ StudentT(nu, 0, 1) with let u = mu + s * u_z in place of the statement at 17:3 (and of the for loop at 16:1, left empty), has",
	})
	// Normal's uses of the prior (marginal, known-covariance and
	// sensitivity hints, the non-centred mirror) still see Normal only
	for _, lat := range info.Latents {
		if _, _, _, _, _, ok := normalPrior(file, info, lat); ok && lat.Name != "mu" {
			t.Errorf("normalPrior finds a Normal prior of %s", lat.Name)
		}
	}
}

// bayesA writes a small BayesA data set to dir: N records of M markers
// coded -1, 0, 1, with Student-t(4) effects of scale 0.1 and noise sd 0.77
// (a user trial's model at a size that fits in a moment).
func bayesA(t *testing.T, dir string, n, m int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	beta := make([]float64, m)
	for j := range beta {
		chi := 0.0 // chi-square with 4 degrees of freedom
		for range 4 {
			x := r.NormFloat64()
			chi += x * x
		}
		beta[j] = 0.1 * r.NormFloat64() / math.Sqrt(chi/4)
	}
	var ys, rows []string
	for range n {
		row, y := make([]string, m), 10+0.77*r.NormFloat64()
		for j := range row {
			g := r.IntN(3) - 1
			row[j], y = strconv.Itoa(g), y+float64(g)*beta[j]
		}
		rows = append(rows, "["+strings.Join(row, ", ")+"]")
		ys = append(ys, strconv.FormatFloat(y, 'g', 6, 64))
	}
	return writeFile(t, dir, "bayesa.json", fmt.Sprintf(`{"N": %d, "M": %d, "y": [%s], "Z": [%s]}`, n, m, strings.Join(ys, ", "), strings.Join(rows, ", ")))
}

// TestFitStudentTCentredHint: gpp fit on a small BayesA, marker effects
// beta ~ StudentT(4, 0, s) with s a param, gives the centred hint with
// beta_z ~ StudentT(4, 0, 1) (a user trial's fit of it had not converged
// after 10000 iterations, k̂ 5.26, with no hint); the non-centred model
// gets none.
func TestFitStudentTCentredHint(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	data := bayesA(t, dir, 80, 50)
	head := "data y: real[N]\ndata Z: real[N, M]\nparam mu: real ~ Normal(10, 10)\nparam s: positive ~ HalfNormal(0.1)\nparam sigma_e: positive ~ HalfNormal(1)\n"
	centred := writeFile(t, dir, "c.gpp", head+"param beta: real[M] ~ StudentT(4, 0, s)\ny ~ Normal(mu + Z * beta, sigma_e)\n")
	code, _, stderr := runSafe(t, "fit", centred, data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, "c"))
	if code != 0 || !strings.Contains(stderr, "Pareto k̂") ||
		!strings.Contains(stderr, "hint: beta's prior StudentT(4, 0, s) has a scale that depends on params (a centred hierarchy)") ||
		!strings.Contains(stderr, "the non-centred form, param beta_z: real[M] ~ StudentT(4, 0, 1) with let beta = s * beta_z, has no funnel") {
		t.Errorf("centred: exit %d, stderr\n%s", code, stderr)
	}
	nc := writeFile(t, dir, "nc.gpp", head+"param t: real[M] ~ StudentT(4, 0, 1)\nlet beta = s * t\ny ~ Normal(mu + Z * beta, sigma_e)\n")
	code, _, stderr = runSafe(t, "fit", nc, data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, "n"))
	if code != 0 || strings.Contains(stderr, "centred hierarch") {
		t.Errorf("non-centred: exit %d, stderr\n%s", code, stderr)
	}
}

// TestFitCentredHint: gpp fit of eight schools, centred (posteriordb's
// data, inline) with a Student-t(30) likelihood, prints the hint after
// its k̂ warning, and the mean-field hint after it, also with theta's
// prior a ~ statement (named, at 7:1), and the non-centred form of the
// same model gets none. With the normal likelihood theta integrates out,
// and the marginal hint takes the centred hint's place.
func TestFitCentredHint(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	data := writeFile(t, dir, "schools.json", `{"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12], "sigma": [15, 10, 16, 11, 9, 11, 10, 18]}`)
	head := "data J: int\ndata y: real[J]\ndata sigma: positive[J]\nparam mu: real ~ Normal(0, 5)\nparam tau: positive ~ Cauchy(0, 5)\n"
	centred := writeFile(t, dir, "centred.gpp", head+"param theta: real[J] ~ Normal(mu, tau)\ny ~ StudentT(30, theta, sigma)\n")
	noncentred := writeFile(t, dir, "noncentred.gpp", head+"param theta_z: real[J] ~ Normal(0, 1)\nlet theta = mu + tau * theta_z\ny ~ Normal(theta, sigma)\n")
	code, _, stderr := runSafe(t, "fit", centred, data, "--quiet", "--seed", "2", "--out", filepath.Join(dir, "c"))
	if code != 0 || !strings.Contains(stderr, "Pareto k̂") || !strings.Contains(stderr, "hint: theta's prior Normal(mu, tau) has a scale that depends on params") {
		t.Errorf("centred: exit %d, stderr\n%s", code, stderr)
	}
	// the mean-field hint follows: non-centring does not cure the other
	// params' correlations
	if c, m := strings.Index(stderr, "hint: theta's prior"), meanFieldHintAt(stderr); m < c {
		t.Errorf("centred: the mean-field hint at %d, want it after the centred one at %d:\n%s", m, c, stderr)
	}
	stmt := writeFile(t, dir, "stmt.gpp", head+"param theta: real[J]\ntheta ~ Normal(mu, tau)\ny ~ StudentT(30, theta, sigma)\n")
	code, _, stderr = runSafe(t, "fit", stmt, data, "--quiet", "--seed", "2", "--out", filepath.Join(dir, "s"))
	if code != 0 || !strings.Contains(stderr, "Pareto k̂") ||
		!strings.Contains(stderr, "hint: theta's prior, the statement theta ~ Normal(mu, tau) at 7:1, has a scale that depends on params") ||
		!strings.Contains(stderr, "let theta = mu + tau * theta_z in place of the statement at 7:1, has no funnel") {
		t.Errorf("statement: exit %d, stderr\n%s", code, stderr)
	}
	code, _, stderr = runSafe(t, "fit", noncentred, data, "--quiet", "--seed", "2", "--out", filepath.Join(dir, "n"))
	if code != 0 || strings.Contains(stderr, "centred hierarchy") {
		t.Errorf("non-centred: exit %d, stderr\n%s", code, stderr)
	}
	normal := writeFile(t, dir, "normal.gpp", head+"param theta: real[J] ~ Normal(mu, tau)\ny ~ Normal(theta, sigma)\n")
	code, _, stderr = runSafe(t, "fit", normal, data, "--quiet", "--seed", "2", "--out", filepath.Join(dir, "m"))
	if code != 0 || !strings.Contains(stderr, "Pareto k̂") || strings.Contains(stderr, "centred hierarchy") ||
		!strings.Contains(stderr, "hint: theta's prior Normal(mu, tau) and y ~ Normal(theta, sigma) at 7:1, theta's only use in the log density, make a normal–normal hierarchy") ||
		!strings.Contains(stderr, "the marginal (above) is the larger cure here") {
		t.Errorf("normal likelihood: exit %d, stderr\n%s", code, stderr)
	}
}

// TestDivergenceEvidence: the median of a scale at the divergent draws,
// the median of all its draws and the first's rank among the second, over
// the finite draws (ties counting half), said to be in the funnel's neck
// at or below the 25th percentile; nothing from fewer than 5 finite
// divergent draws.
func TestDivergenceEvidence(t *testing.T) {
	const n = 100
	x := make([]float64, n)
	low, high := make([]bool, n), make([]bool, n)
	for d := range x {
		x[d] = float64((37*d)%n + 1) // 1 to 100, shuffled
		low[d], high[d] = x[d] <= 10, x[d] > 90
	}
	// a NaN at a divergent draw and an Inf at another are left out
	x = append(x, math.NaN(), math.Inf(1))
	low, high = append(low, true, false), append(high, true, false)
	e, ok := divergenceEvidence(x, low)
	if !ok || e != (divEvidence{n: 10, divMed: 5.5, allMed: 50.5, rank: 0.05}) {
		t.Errorf("divergent at 1 to 10: %+v, %v; want 10 draws, medians 5.5 and 50.5, rank 0.05", e, ok)
	}
	want := "The 10 divergent iterations have tau's median 5.5 against 50.5 in all draws (its 5th percentile): the divergences are in the funnel's neck."
	if got := e.describe("tau"); got != want {
		t.Errorf("described\n%s\nwant\n%s", got, want)
	}
	e, ok = divergenceEvidence(x, high)
	if !ok || e.divMed != 95.5 || e.rank != 0.95 {
		t.Errorf("divergent at 91 to 100: %+v, %v; want median 95.5, rank 0.95", e, ok)
	}
	if got := e.describe("s[1]"); !strings.Contains(got, "(its 95th percentile): the divergences are not at small s[1]") {
		t.Errorf("divergent at the top: %s", got)
	}
	flat := []float64{2, 2, 2, 2, 2, 2, 2, 2}
	if e, ok := divergenceEvidence(flat, []bool{true, true, true, true, true, false, false, false}); !ok || e.rank != 0.5 {
		t.Errorf("all tied: %+v, %v; want rank 0.5", e, ok)
	}
	// 4 finite divergent draws: too few to compare
	four := make([]bool, len(x))
	copy(four, low)
	for d := range four {
		if x[d] > 4 {
			four[d] = false
		}
	}
	four[n] = true // the NaN
	if e, ok := divergenceEvidence(x, four); ok {
		t.Errorf("4 finite divergent draws: %+v, want none", e)
	}
	for _, c := range []struct {
		n    int
		want string
	}{{1, "1st"}, {2, "2nd"}, {3, "3rd"}, {4, "4th"}, {11, "11th"}, {12, "12th"}, {13, "13th"}, {21, "21st"}, {42, "42nd"}, {99, "99th"}} {
		if got := ordinal(c.n); got != c.want {
			t.Errorf("ordinal(%d) = %s, want %s", c.n, got, c.want)
		}
	}
}

// TestDivergenceHints: with divergent draws, each param of a centred
// hierarchy gets the hint with the non-centred form; where the scale is a
// param (tau) or an element of one (s[1], 0-based: the second), the
// evidence of its draws at the divergent ones; a compound scale (tau + 1)
// none; no divergences, no hints.
func TestDivergenceHints(t *testing.T) {
	const src = `data J: int
data y: real[J]
param mu: real ~ Normal(0, 5)
param s: positive[2] ~ HalfNormal(5)
param tau: positive ~ HalfNormal(5)
param theta: real[J] ~ Normal(mu, s[1])
param b: real[J] ~ Normal(0, tau + 1)
param c: real[J] ~ Normal(0, tau)
param d: real[J] ~ Normal(0, 2)
y ~ Normal(theta + b + c + d, 1)
`
	file, info := checkedSrc(t, src)
	// 20 draws: the first 6 divergent, at the smallest tau and s[0] and the
	// largest s[1]
	const n = 20
	mu, s0, s1, tau := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	div := make([]bool, n)
	for i := range n {
		mu[i], s0[i], s1[i], tau[i] = 1, float64(i+1), float64(n-i), float64(i+1)/10
		div[i] = i < 6
	}
	ds := &drawSet{vars: []variable{
		{name: "mu", elems: []int{0}, first: 0},
		{name: "s", shape: []int{2}, elems: []int{0, 1}, first: 1},
		{name: "tau", elems: []int{0}, first: 3},
	}, cols: [][]float64{mu, s0, s1, tau}}
	sd := &sampleDraws{ds: ds, divergent: div, n: n, chains: 1}
	got := divergenceHints(file, info, sd)
	want := []string{
		"theta's prior Normal(mu, s[1]) has a scale that depends on params (a centred hierarchy): where the data say little about each element of theta, the posterior is a funnel in s[1], whose narrow neck at small s[1] the sampler's step size cannot enter without diverging. The 6 divergent iterations have s[1]'s median 17.5 against 10.5 in all draws (its 85th percentile): the divergences are not at small s[1], and the funnel may not be what makes them. The non-centred form, param theta_z: real[J] ~ Normal(0, 1) with let theta = mu + s[1] * theta_z, removes the funnel (Stan User's Guide, Reparameterization); where the data pin each element down, the centred form samples better (docs/inference.md, Centred hierarchies)",
		"funnel in tau + 1, whose narrow neck at small tau + 1 the sampler's step size cannot enter without diverging. The non-centred form, param b_z: real[J] ~ Normal(0, 1) with let b = (tau + 1) * b_z,",
		"The 6 divergent iterations have tau's median 0.35 against 1.05 in all draws (its 15th percentile): the divergences are in the funnel's neck. The non-centred form, param c_z: real[J] ~ Normal(0, 1) with let c = tau * c_z,",
	}
	wantHints(t, got, want)
	sd.divergent = make([]bool, n)
	if h := divergenceHints(file, info, sd); h != nil {
		t.Errorf("no divergences: %v, want none", h)
	}
}

// TestSampleCentredHint: gpp sample of eight schools, centred
// (posteriordb's data), follows its divergence warning with the hint,
// whose evidence puts tau's median at the divergent iterations below its
// median in all draws; the non-centred form, made to diverge by a step
// size too large for it, gets no hint; the REPL's :sample says what gpp
// sample says; and with theta's prior a ~ statement, Stan's style, the
// hint names the statement and puts the non-centred form in its place.
func TestSampleCentredHint(t *testing.T) {
	dir := t.TempDir()
	const data = "testdata/laplace_eight_schools.json"
	head := "data J: int\ndata y: real[J]\ndata sigma: positive[J]\nparam mu: real ~ Normal(0, 5)\nparam tau: positive ~ Cauchy(0, 5)\n"
	centred := writeFile(t, dir, "centred.gpp", head+"param theta: real[J] ~ Normal(mu, tau)\ny ~ StudentT(30, theta, sigma)\n")
	noncentred := writeFile(t, dir, "noncentred.gpp", head+"param theta_z: real[J] ~ Normal(0, 1)\nlet theta = mu + tau * theta_z\ny ~ Normal(theta, sigma)\n")
	evidence := regexp.MustCompile(`The (\d+) divergent iterations have tau's median (\S+) against (\S+) in all draws \(`)
	prior, place := "theta's prior Normal(mu, tau)", ""
	check := func(what, stderr string) {
		t.Helper()
		lines := strings.Split(stderr, "\n")
		i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "ended with a divergence") })
		if i < 0 || i+1 == len(lines) {
			t.Fatalf("%s: no divergence warning (the test needs one):\n%s", what, stderr)
		}
		hint := lines[i+1]
		if !strings.Contains(hint, "hint: "+prior+" has a scale that depends on params") ||
			!strings.Contains(hint, "The non-centred form, param theta_z: real[J] ~ Normal(0, 1) with let theta = mu + tau * theta_z"+place+", removes the funnel") {
			t.Fatalf("%s: the line after the divergence warning is\n%s", what, hint)
		}
		m := evidence.FindStringSubmatch(hint)
		if m == nil {
			t.Fatalf("%s: no evidence in\n%s", what, hint)
		}
		div, err1 := strconv.ParseFloat(m[2], 64)
		all, err2 := strconv.ParseFloat(m[3], 64)
		if err1 != nil || err2 != nil || !(div < all) || !strings.Contains(hint, "the divergences are in the funnel's neck") {
			t.Errorf("%s: tau's median at the divergent iterations %s, in all draws %s: want it below\n%s", what, m[2], m[3], hint)
		}
	}
	code, _, stderr := runGpp("sample", centred, data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, "c"))
	if code != exitOK {
		t.Fatalf("centred: exit %d:\n%s", code, stderr)
	}
	check("gpp sample", stderr)

	code, _, stderr = runGpp("sample", noncentred, data, "--quiet", "--seed", "1", "--adapt=false", "--stepsize", "2", "--warmup", "0", "--draws", "200", "--out", filepath.Join(dir, "n"))
	if code != exitOK || !strings.Contains(stderr, "ended with a divergence") || strings.Contains(stderr, "hint:") {
		t.Errorf("non-centred: exit %d, want a divergence warning and no hint:\n%s", code, stderr)
	}

	r, _, errb := newTestRepl()
	typeIn(r, ":load "+centred, ":data "+data, ":sample --quiet --seed 1")
	check(":sample", errb.String())

	stmt := writeFile(t, dir, "stmt.gpp", head+"param theta: real[J]\ntheta ~ Normal(mu, tau)\ny ~ StudentT(30, theta, sigma)\n")
	code, _, stderr = runGpp("sample", stmt, data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, "s"))
	if code != exitOK {
		t.Fatalf("statement: exit %d:\n%s", code, stderr)
	}
	prior, place = "theta's prior, the statement theta ~ Normal(mu, tau) at 7:1,", " in place of the statement at 7:1"
	check("gpp sample, statement", stderr)
}
