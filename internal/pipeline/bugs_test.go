package pipeline_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/reftest"
)

// The classic BUGS examples (Volume 1), ported as a statistician would
// from Stan's example-models repository (bugs_examples/vol1): Pumps,
// Seeds, Surgical, Dyes and Stacks with their published data, each fit
// compared with an exact or Metropolis reference computed here from a log
// posterior written out in Go. The priors are weakly informative
// (half-normals on scales) where BUGS has gamma(0.001, 0.001) precisions,
// so the numbers are close to, not equal to, the BUGS manual's.

// halfNormalLog is log HalfNormal(x | s) for x > 0.
func halfNormalLog(x, s float64) float64 {
	return 0.5*math.Log(2/math.Pi) - math.Log(s) - 0.5*(x/s)*(x/s)
}

// normalLog is log Normal(x | m, s).
func normalLog(x, m, s float64) float64 {
	z := (x - m) / s
	return -0.5*math.Log(2*math.Pi) - math.Log(s) - 0.5*z*z
}

// binomialLogitLog is log BinomialLogit(r | n, eta) without log C(n, r).
func binomialLogitLog(r, n int, eta float64) float64 {
	// r log p + (n - r) log(1 - p) with log p = -log1p(exp(-eta))
	lp := -softplus(-eta)
	lq := -softplus(eta)
	return float64(r)*lp + float64(n-r)*lq
}

func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// compareSome is compareRef on the elements idx of names, mean and sd.
func compareSome(t *testing.T, label string, q map[string]refRow, names []string, mean, sd []float64, idx []int, meanTol, sdLo, sdHi float64) {
	t.Helper()
	var n []string
	var m, s []float64
	for _, i := range idx {
		n, m, s = append(n, names[i]), append(m, mean[i]), append(s, sd[i])
	}
	compareRef(t, label, q, n, m, s, meanTol, sdLo, sdHi)
}

// mustJSON marshals v for a test's data file.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Pumps: failures x[i] of pump i in t[i] thousand hours (Gaver and
// O'Muircheartaigh 1987; the BUGS manual's data), rates theta[i] from a
// gamma population whose shape and rate are learnt.
const pumpsModel = `data t: positive[N]
data x: int[N]
param alpha: positive ~ Exponential(1)
param beta: positive ~ Gamma(0.1, 1)
param theta: positive[N] ~ Gamma(alpha, beta)
x ~ Poisson(theta .* t)
`

var (
	pumpsT = []float64{94.3, 15.7, 62.9, 126, 5.24, 31.4, 1.05, 1.05, 2.1, 10.5}
	pumpsX = []int{5, 1, 5, 14, 3, 19, 1, 1, 4, 22}
)

// TestBUGSPumps compares the Pumps fit with its exact posterior: the rates
// given (alpha, beta) are conjugate, theta[i] | alpha, beta, x ~
// Gamma(alpha + x[i], beta + t[i]), so the marginal posterior of (alpha,
// beta) is known in closed form up to a constant and is integrated on a
// 600 × 600 grid over (log alpha, log beta); the rates' means and sds
// follow from the conditional gamma's by the laws of total expectation
// and variance. The rates' means are within 0.1 posterior sd and sds
// within 10 % both mean-field and full-rank; mean-field under-disperses
// the hyperparameters, which move together (posterior correlation about
// 0.75): alpha's sd is 0.64 and beta's 0.6 times the exact, where the
// joint full-rank normal on (log alpha, log beta, log theta) has them
// within 15 % but overstates the sds of the rates of the pumps with one
// failure by 25 % (a lognormal for a gamma of shape 1.7), which the
// mean-field gamma factors match.
func TestBUGSPumps(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model twice")
	}
	n := len(pumpsT)
	logMarg := func(a, b float64) float64 {
		lp := -a + (0.1-1)*math.Log(b) - b // Exponential(1), Gamma(0.1, 1)
		la, _ := math.Lgamma(a)
		for i := range n {
			x := float64(pumpsX[i])
			lx, _ := math.Lgamma(a + x)
			lp += a*math.Log(b) - la + lx - (a+x)*math.Log(b+pumpsT[i])
		}
		return lp
	}
	const g = 600
	const u0, u1, v0, v1 = -5.0, 2.5, -7.0, 3.5
	du, dv := (u1-u0)/g, (v1-v0)/g
	lw := make([]float64, g*g)
	top := math.Inf(-1)
	for i := range g {
		for j := range g {
			u, v := u0+(float64(i)+0.5)*du, v0+(float64(j)+0.5)*dv
			lw[i*g+j] = logMarg(math.Exp(u), math.Exp(v)) + u + v // Jacobian of the logs
			top = math.Max(top, lw[i*g+j])
		}
	}
	m1, m2 := make([]float64, n+2), make([]float64, n+2) // E[.], E[.²]
	var z float64
	for i := range g {
		for j := range g {
			w := math.Exp(lw[i*g+j] - top)
			if w == 0 {
				continue
			}
			a, b := math.Exp(u0+(float64(i)+0.5)*du), math.Exp(v0+(float64(j)+0.5)*dv)
			z += w
			m1[0], m2[0] = m1[0]+w*a, m2[0]+w*a*a
			m1[1], m2[1] = m1[1]+w*b, m2[1]+w*b*b
			for k := range n {
				sh, rt := a+float64(pumpsX[k]), b+pumpsT[k]
				m1[k+2] += w * sh / rt
				m2[k+2] += w * (sh/(rt*rt) + (sh/rt)*(sh/rt))
			}
		}
	}
	names := []string{"alpha", "beta"}
	for k := range n {
		names = append(names, fmt.Sprintf("theta[%d]", k+1))
	}
	mean, sd := make([]float64, n+2), make([]float64, n+2)
	for k := range mean {
		mean[k] = m1[k] / z
		sd[k] = math.Sqrt(m2[k]/z - mean[k]*mean[k])
	}
	dat := mustJSON(t, map[string]any{"t": pumpsT, "x": pumpsX})
	mf := fitSource(t, pumpsModel, "pumps.json", dat, sgvb.Settings{Seed: 1})
	compareRef(t, "mean-field", mf, names[2:], mean[2:], sd[2:], 0.1, 0.9, 1.1)
	compareRef(t, "mean-field", mf, names[:2], mean[:2], sd[:2], 0.4, 0.5, 0.75)
	fr := fitSource(t, pumpsModel, "pumps.json", dat, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"alpha", "beta", "theta"}}})
	compareRef(t, "full-rank", fr, names[:2], mean[:2], sd[:2], 0.1, 0.85, 1.15)
	// A normal on log theta is a lognormal, whose right tail is heavier
	// than the conditional gamma's of shape alpha + x: for the pumps with
	// one failure (shape about 1.7) the sd is 1.25 times the exact.
	compareRef(t, "full-rank", fr, names[2:], mean[2:], sd[2:], 0.1, 0.85, 1.3)
}

// Seeds: examples/seeds.gpp on examples/seeds.csv, the BUGS manual's
// data (Crowder 1978), also written out here for the reference.
var (
	seedsR  = []int{10, 23, 23, 26, 17, 5, 53, 55, 32, 46, 10, 8, 10, 8, 23, 0, 3, 22, 15, 32, 3}
	seedsN  = []int{39, 62, 81, 51, 39, 6, 74, 72, 51, 79, 13, 16, 30, 28, 45, 4, 12, 41, 30, 51, 7}
	seedsX1 = []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	seedsX2 = []float64{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}
)

// TestBUGSSeeds compares the Seeds fit with adaptive Metropolis on (alpha,
// log sigma, z). Mean-field is badly under-dispersed here: every
// plate's linear predictor is alpha0 (plus the design's terms) plus sigma
// z[i], so the intercepts and the 21 effects trade off, and q reports
// the coefficients' sds at 0.35 times the posterior's (alpha0: 0.072 for
// 0.21), their means still within 0.2 sd; sigma's mean is 0.7 sd low
// (0.24 for 0.34) and its sd half the posterior's. The joint normal of
// --fullrank all has the coefficients' means within 0.05 sd and their
// sds 0.89 times the posterior's; sigma's posterior reaches down to 0
// with a long right tail, which a normal on log sigma does not follow:
// its mean is 0.25 sd low, its sd still half the posterior's.
func TestBUGSSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model twice")
	}
	n := len(seedsR)
	logp := func(x []float64) float64 {
		a0, a1, a2, a12, ls := x[0], x[1], x[2], x[3], x[4]
		s := math.Exp(ls)
		lp := normalLog(a0, 0, 10) + normalLog(a1, 0, 10) + normalLog(a2, 0, 10) + normalLog(a12, 0, 10) + halfNormalLog(s, 1) + ls
		for i := range n {
			z := x[5+i]
			lp += -0.5 * z * z
			eta := a0 + a1*seedsX1[i] + a2*seedsX2[i] + a12*seedsX1[i]*seedsX2[i] + s*z
			lp += binomialLogitLog(seedsR[i], seedsN[i], eta)
		}
		return lp
	}
	f := func(x []float64) []float64 { return []float64{x[0], x[1], x[2], x[3], math.Exp(x[4])} }
	x0 := make([]float64, 5+n)
	x0[4] = -1
	mean, sd := adaptiveMetropolis(logp, x0, f, 800000, 1)
	names := []string{"alpha0", "alpha1", "alpha2", "alpha12", "sigma"}
	rows := reftest.ReadCSV(t, "../../examples/seeds.csv")
	if len(rows) != n+1 || fmt.Sprint(rows[0]) != "[r n x1 x2]" {
		t.Fatalf("examples/seeds.csv: %d rows, header %v", len(rows), rows[0])
	}
	for i, row := range rows[1:] {
		if want := fmt.Sprint([]string{fmt.Sprint(seedsR[i]), fmt.Sprint(seedsN[i]), fmt.Sprint(seedsX1[i]), fmt.Sprint(seedsX2[i])}); fmt.Sprint(row) != want {
			t.Fatalf("examples/seeds.csv row %d: %v, want %v", i+2, row, want)
		}
	}
	model, data := "../../examples/seeds.gpp", []string{"../../examples/seeds.csv"}
	mf := fitSummary(t, model, data, sgvb.Settings{Seed: 1})
	compareRef(t, "mean-field", mf, names[:4], mean[:4], sd[:4], 0.3, 0.25, 0.45)
	compareRef(t, "mean-field", mf, names[4:], mean[4:], sd[4:], 1, 0.35, 0.7)
	fr := fitSummary(t, model, data, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"alpha0", "alpha1", "alpha2", "alpha12", "sigma", "z"}}})
	compareRef(t, "full-rank", fr, names[:4], mean[:4], sd[:4], 0.15, 0.8, 1.15)
	compareRef(t, "full-rank", fr, names[4:], mean[4:], sd[4:], 0.4, 0.35, 0.7)
}

// Surgical: deaths r[i] in n[i] operations at hospital i (the BUGS
// manual's data), logit mortality normal across hospitals, non-centred.
const surgicalModel = `data n: int<lower=0>[N]
data r: int<lower=0>[N]
param mu: real ~ Normal(0, 10)
param sigma: positive ~ HalfNormal(1)
param z: real[N] ~ Normal(0, 1)
let b = mu + sigma * z
r ~ BinomialLogit(n, b)
output p = inv_logit(b)
output pop_mean = inv_logit(mu)
`

var (
	surgicalN = []int{47, 148, 119, 810, 211, 196, 148, 215, 207, 97, 256, 360}
	surgicalR = []int{0, 18, 8, 46, 8, 13, 9, 31, 14, 8, 29, 24}
)

// TestBUGSSurgical compares the Surgical fit with its posterior by
// quadrature (adaptive Metropolis on (mu, log sigma, z) gave mu's sd as
// 0.16 in some runs of a million steps and 0.21 in another: the chain
// visits sigma's long tail too rarely): the hospitals' mortalities p[i]
// (outputs of q's draws) and mu and sigma. The mortalities are right either way (means
// within 0.25 sd, sds within 12 % mean-field, 7 % full-rank). Mean-field
// has mu's sd at 0.45 of the posterior's and sigma's mean 0.45 sd low,
// its sd 0.45 of the posterior's; the joint normal of --fullrank all
// (which takes more than the default 10 000 iterations to meet the
// convergence rule, ending where a 40 000 fit converges, at 14 000) has
// mu's sd at 0.85, sigma's mean 0.2 sd low and its sd 0.6: twelve
// hospitals leave sigma's posterior a long right tail.
func TestBUGSSurgical(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model twice")
	}
	n := len(surgicalN)
	// the hospitals' effects integrated out on a grid of z over [-7, 7],
	// then (mu, log sigma) on a 120 × 120 grid: E[p[i]] is the mean over
	// (mu, sigma) of E[p[i] | mu, sigma, r[i]], a ratio of z-integrals
	const nz, ng = 200, 120
	const mu0, mu1, ls0, ls1 = -4.5, -0.5, -7.0, 1.2
	zs, lphi := make([]float64, nz), make([]float64, nz)
	for k := range nz {
		zs[k] = -7 + 14*(float64(k)+0.5)/nz
		lphi[k] = -0.5 * zs[k] * zs[k]
	}
	type cell struct{ lw, mu, s float64 }
	cells := make([]cell, 0, ng*ng)
	cond := make([][2]float64, 0, ng*ng*n) // E[p[i] | .], E[p[i]² | .]
	lt := make([]float64, nz)
	top := math.Inf(-1)
	for a := range ng {
		for b := range ng {
			mu := mu0 + (mu1-mu0)*(float64(a)+0.5)/ng
			ls := ls0 + (ls1-ls0)*(float64(b)+0.5)/ng
			s := math.Exp(ls)
			lw := normalLog(mu, 0, 10) + halfNormalLog(s, 1) + ls
			for i := range n {
				m := math.Inf(-1)
				for k, z := range zs {
					lt[k] = lphi[k] + binomialLogitLog(surgicalR[i], surgicalN[i], mu+s*z)
					m = math.Max(m, lt[k])
				}
				var l0, l1, l2 float64
				for k, z := range zs {
					w := math.Exp(lt[k] - m)
					p := 1 / (1 + math.Exp(-(mu + s*z)))
					l0, l1, l2 = l0+w, l1+w*p, l2+w*p*p
				}
				lw += m + math.Log(l0)
				cond = append(cond, [2]float64{l1 / l0, l2 / l0})
			}
			cells = append(cells, cell{lw, mu, s})
			top = math.Max(top, lw)
		}
	}
	m1, m2 := make([]float64, n+2), make([]float64, n+2)
	var z float64
	for c, e := range cells {
		w := math.Exp(e.lw - top)
		z += w
		m1[0], m2[0] = m1[0]+w*e.mu, m2[0]+w*e.mu*e.mu
		m1[1], m2[1] = m1[1]+w*e.s, m2[1]+w*e.s*e.s
		for i := range n {
			m1[2+i] += w * cond[c*n+i][0]
			m2[2+i] += w * cond[c*n+i][1]
		}
	}
	mean, sd := make([]float64, n+2), make([]float64, n+2)
	for k := range mean {
		mean[k] = m1[k] / z
		sd[k] = math.Sqrt(m2[k]/z - mean[k]*mean[k])
	}
	names := []string{"mu", "sigma"}
	for i := range n {
		names = append(names, fmt.Sprintf("p[%d]", i+1))
	}
	dat := mustJSON(t, map[string]any{"r": surgicalR, "n": surgicalN})
	mf := fitSource(t, surgicalModel, "surgical.json", dat, sgvb.Settings{Seed: 1})
	compareRef(t, "mean-field", mf, names[:1], mean[:1], sd[:1], 0.3, 0.3, 0.6)
	compareRef(t, "mean-field", mf, names[1:2], mean[1:2], sd[1:2], 0.7, 0.3, 0.65)
	compareRef(t, "mean-field", mf, names[2:], mean[2:], sd[2:], 0.3, 0.8, 1.2)
	fr := fitSource(t, surgicalModel, "surgical.json", dat, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"mu", "sigma", "z"}}})
	compareRef(t, "full-rank", fr, names[:1], mean[:1], sd[:1], 0.15, 0.7, 1.1)
	compareRef(t, "full-rank", fr, names[1:2], mean[1:2], sd[1:2], 0.4, 0.4, 0.75)
	compareRef(t, "full-rank", fr, names[2:], mean[2:], sd[2:], 0.15, 0.85, 1.15)
}

// Dyes: yields of dyestuff, five samples from each of six batches (Davies
// 1967; Box and Tiao 1973; the BUGS manual's data), a one-way
// variance-components model, non-centred.
const dyesModel = `data y: real[B, S]
param mu: real ~ Normal(1500, 500)
param sigma_between: positive ~ HalfNormal(100)
param sigma_within: positive ~ HalfNormal(100)
param z: real[B] ~ Normal(0, 1)
y ~ Normal(mu + sigma_between * z, sigma_within)
`

var dyesY = [][]float64{
	{1545, 1440, 1440, 1520, 1580},
	{1540, 1555, 1490, 1560, 1495},
	{1595, 1550, 1605, 1510, 1560},
	{1445, 1440, 1595, 1465, 1545},
	{1595, 1630, 1515, 1635, 1625},
	{1520, 1455, 1450, 1480, 1445},
}

// TestBUGSDyes compares the Dyes fit with adaptive Metropolis on (mu, log
// sigma_between, log sigma_within, z). Six batches leave the between-batch
// sd's posterior skewed with a long right tail (51 ± 24), and mu's, which
// depends on it, heavier-tailed than a normal (1527 ± 25): mean-field has
// sigma_between's mean 0.55 sd low and its sd 0.42 of the posterior's,
// mu's sd 0.38; the joint normal of --fullrank all moves sigma_between's
// mean to 0.27 sd low, its sd to 0.53 and mu's to 0.71. sigma_within is
// right either way (sd 0.85 and 0.89 of the posterior's). Both fits warn
// (k̂ 0.78 and 0.73), and --psis-resample refuses to resample (k̂ 0.82).
func TestBUGSDyes(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model twice")
	}
	logp := func(x []float64) float64 {
		mu, lb, lw := x[0], x[1], x[2]
		sb, sw := math.Exp(lb), math.Exp(lw)
		lp := normalLog(mu, 1500, 500) + halfNormalLog(sb, 100) + halfNormalLog(sw, 100) + lb + lw
		for i, row := range dyesY {
			z := x[3+i]
			lp += -0.5 * z * z
			for _, y := range row {
				lp += normalLog(y, mu+sb*z, sw)
			}
		}
		return lp
	}
	f := func(x []float64) []float64 { return []float64{x[0], math.Exp(x[1]), math.Exp(x[2])} }
	x0 := make([]float64, 3+len(dyesY))
	x0[0], x0[1], x0[2] = 1527, 3.5, 4
	mean, sd := adaptiveMetropolis(logp, x0, f, 1000000, 1)
	names := []string{"mu", "sigma_between", "sigma_within"}
	dat := mustJSON(t, map[string]any{"y": dyesY})
	mf := fitSource(t, dyesModel, "dyes.json", dat, sgvb.Settings{Seed: 1})
	compareSome(t, "mean-field", mf, names, mean, sd, []int{0}, 0.3, 0.25, 0.5)
	compareSome(t, "mean-field", mf, names, mean, sd, []int{1}, 0.8, 0.3, 0.55)
	compareSome(t, "mean-field", mf, names, mean, sd, []int{2}, 0.3, 0.7, 1.1)
	fr := fitSource(t, dyesModel, "dyes.json", dat, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"mu", "sigma_between", "sigma_within", "z"}}})
	compareSome(t, "full-rank", fr, names, mean, sd, []int{0}, 0.15, 0.6, 0.85)
	compareSome(t, "full-rank", fr, names, mean, sd, []int{1}, 0.4, 0.4, 0.7)
	compareSome(t, "full-rank", fr, names, mean, sd, []int{2}, 0.15, 0.8, 1.1)
}

// Stacks: stack loss of a plant oxidising ammonia, on air flow, water
// temperature and acid concentration over 21 days (Brownlee 1965; R's
// stackloss), with double-exponential errors (the BUGS manual's model b),
// on standardised covariates as there, the slopes on the data's scale
// as outputs.
const stacksModel = `data X: real[N, 3]
data y: real[N]
let Xc = X - colsum(X) / N
let s = sqrt(colsum(square(Xc)) / (N - 1))
let Z = Xc / s
param beta0: real ~ Normal(0, 100)
param beta: real[3] ~ Normal(0, 100)
param sigma: positive ~ HalfNormal(10)
y ~ Laplace(beta0 + Z * beta, sigma)
output b = beta / s'
`

var (
	stacksX = [][]float64{{80, 27, 89}, {80, 27, 88}, {75, 25, 90}, {62, 24, 87}, {62, 22, 87}, {62, 23, 87}, {62, 24, 93},
		{62, 24, 93}, {58, 23, 87}, {58, 18, 80}, {58, 18, 89}, {58, 17, 88}, {58, 18, 82}, {58, 19, 93}, {50, 18, 89},
		{50, 18, 86}, {50, 19, 72}, {50, 19, 79}, {50, 20, 80}, {56, 20, 82}, {70, 20, 91}}
	stacksY = []float64{42, 37, 37, 28, 18, 18, 19, 20, 15, 14, 14, 13, 11, 12, 8, 7, 8, 8, 9, 15, 15}
)

// TestBUGSStacks compares the Stacks fit with adaptive Metropolis on
// (beta0, beta, log sigma), the covariates standardised in Go as the
// model does. Air flow and water temperature are correlated (0.78), and
// mean-field has their slopes' sds at 0.55 and 0.58 of the posterior's,
// the others' at 0.81 to 0.85, every mean within 0.12 sd; --fullrank all
// has every sd 0.86 to 0.91 of the posterior's (the Laplace likelihood's
// kinks), the means within 0.1 sd.
func TestBUGSStacks(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model twice")
	}
	n := len(stacksY)
	var m, s [3]float64
	for _, r := range stacksX {
		for j := range 3 {
			m[j] += r[j] / float64(n)
		}
	}
	for _, r := range stacksX {
		for j := range 3 {
			s[j] += (r[j] - m[j]) * (r[j] - m[j]) / float64(n-1)
		}
	}
	for j := range 3 {
		s[j] = math.Sqrt(s[j])
	}
	logp := func(x []float64) float64 {
		ls := x[4]
		sig := math.Exp(ls)
		lp := normalLog(x[0], 0, 100) + halfNormalLog(sig, 10) + ls
		for j := range 3 {
			lp += normalLog(x[1+j], 0, 100)
		}
		for i, r := range stacksX {
			mu := x[0]
			for j := range 3 {
				mu += (r[j] - m[j]) / s[j] * x[1+j]
			}
			lp += -math.Log(2*sig) - math.Abs(stacksY[i]-mu)/sig
		}
		return lp
	}
	f := func(x []float64) []float64 {
		return []float64{x[0], x[1], x[2], x[3], math.Exp(x[4]), x[1] / s[0], x[2] / s[1], x[3] / s[2]}
	}
	x0 := []float64{17, 7, 2, -1, 1}
	mean, sd := adaptiveMetropolis(logp, x0, f, 1000000, 1)
	names := []string{"beta0", "beta[1]", "beta[2]", "beta[3]", "sigma", "b[1]", "b[2]", "b[3]"}
	dat := mustJSON(t, map[string]any{"X": stacksX, "y": stacksY})
	mf := fitSource(t, stacksModel, "stacks.json", dat, sgvb.Settings{Seed: 1})
	compareSome(t, "mean-field", mf, names, mean, sd, []int{1, 2, 5, 6}, 0.15, 0.45, 0.7)
	compareSome(t, "mean-field", mf, names, mean, sd, []int{0, 3, 4, 7}, 0.15, 0.7, 1)
	fr := fitSource(t, stacksModel, "stacks.json", dat, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"beta0", "beta", "sigma"}}})
	compareRef(t, "full-rank", fr, names, mean, sd, 0.15, 0.8, 1.15)
}

// Rats: the weights of 30 rats at 8, 15, 22, 29 and 36 days, a growth
// line per rat whose intercepts and slopes are normal across rats,
// centred as in the BUGS manual and Stan's rats.stan. The data are
// simulated (ratsData) in the manual's design at its posterior means.
// The model is fitted in units of 100 g, its priors (Normal(0, 1000) on
// alpha_c, Normal(0, 100) on beta_c, half-normals of scale 100, 10 and
// 100 on the sds, in grams) scaled with it, so its posterior is the
// grams model's divided by 100: in grams, alpha_c (240) and the rats'
// alpha (up to 270) start 240 prior-free sds from q's initial means of 0,
// and after 100 000 steps mean-field has alpha_c at 131 (full-rank at
// 240 with sigma_alpha 1.3 for 14), the non-centred form "converges" at
// 6400 steps to alpha_c 11 with sigma_alpha 178 (ELBO -672 for the
// optimum's -648), all with k̂ above 1.
const ratsModel = `data x: real[T]
data y: real[N, T]
let w = y / 100
param alpha_c: real ~ Normal(0, 10)
param beta_c: real ~ Normal(0, 1)
param sigma_alpha: positive ~ HalfNormal(1)
param sigma_beta: positive ~ HalfNormal(0.1)
param sigma_y: positive ~ HalfNormal(1)
param alpha: real[N] ~ Normal(alpha_c, sigma_alpha)
param beta: real[N] ~ Normal(beta_c, sigma_beta)
w ~ Normal(alpha + beta * (x - mean(x))', sigma_y)
output alpha0 = alpha_c - beta_c * mean(x)
`

// ratsData simulates the Rats design from one PCG stream: 30 rats, the
// manual's posterior means as the truth (alpha_c 242.5, beta_c 6.19,
// sigma_alpha 14.6, sigma_beta 0.52, sigma_y 6.1).
func ratsData() (x []float64, y [][]float64) {
	rng := rand.New(rand.NewPCG(1978, 30))
	x = []float64{8, 15, 22, 29, 36}
	for range 30 {
		a := 242.5 + 14.6*rng.NormFloat64()
		b := 6.19 + 0.52*rng.NormFloat64()
		row := make([]float64, len(x))
		for t, xt := range x {
			row[t] = math.Round((a+b*(xt-22)+6.1*rng.NormFloat64())*10) / 10
		}
		y = append(y, row)
	}
	return x, y
}

// ratsReference returns the posterior means and sds in grams of Rats'
// alpha_c, beta_c, sigma_alpha, sigma_beta, sigma_y, alpha0, alpha[1] and
// beta[1] by adaptive Metropolis on the hyperparameters, the rats' lines
// integrated out (TestBUGSRats).
func ratsReference(x []float64, y [][]float64) (mean, sd []float64) {
	T := float64(len(x))
	var sxx float64
	for _, xt := range x {
		sxx += (xt - 22) * (xt - 22)
	}
	n := len(y)
	ybar, bhat, rss := make([]float64, n), make([]float64, n), 0.0
	for i, row := range y {
		for t, v := range row {
			ybar[i] += v / T
			bhat[i] += v * (x[t] - 22) / sxx
		}
		for t, v := range row {
			r := v - ybar[i] - bhat[i]*(x[t]-22)
			rss += r * r
		}
	}
	logp := func(p []float64) float64 {
		ac, bc := p[0], p[1]
		sa, sb, sy := math.Exp(p[2]), math.Exp(p[3]), math.Exp(p[4])
		lp := normalLog(ac, 0, 1000) + normalLog(bc, 0, 100) + halfNormalLog(sa, 100) + halfNormalLog(sb, 10) + halfNormalLog(sy, 100) + p[2] + p[3] + p[4]
		lp += -float64(n)*(T-2)*math.Log(sy) - rss/(2*sy*sy)
		for i := range n {
			lp += normalLog(ybar[i], ac, math.Sqrt(sa*sa+sy*sy/T)) + normalLog(bhat[i], bc, math.Sqrt(sb*sb+sy*sy/sxx))
		}
		return lp
	}
	f := func(p []float64) []float64 {
		ac, bc := p[0], p[1]
		sa, sb, sy := math.Exp(p[2]), math.Exp(p[3]), math.Exp(p[4])
		pa := 1/(sa*sa) + T/(sy*sy)
		ma := (ac/(sa*sa) + T*ybar[0]/(sy*sy)) / pa
		pb := 1/(sb*sb) + sxx/(sy*sy)
		mb := (bc/(sb*sb) + sxx*bhat[0]/(sy*sy)) / pb
		return []float64{ac, bc, sa, sb, sy, ac - 22*bc, ma, mb, ma*ma + 1/pa, mb*mb + 1/pb}
	}
	mean, sd = adaptiveMetropolis(logp, []float64{240, 6, 2.5, -0.5, 2}, f, 400000, 1)
	for k := 6; k < 8; k++ { // total variance of rat 1's alpha and beta
		sd[k] = math.Sqrt(mean[k+2] - mean[k]*mean[k])
	}
	return mean[:8], sd[:8]
}

// TestBUGSRats compares the Rats fit with adaptive Metropolis on the five
// hyperparameters, the rats' lines integrated out exactly: with x centred,
// rat i's mean weight and least-squares slope are independent normals,
// ybar ~ N(alpha_c, sigma_alpha² + sigma_y²/T) and bhat ~ N(beta_c,
// sigma_beta² + sigma_y²/Sxx), and its residual sum of squares adds
// sigma_y^-(T-2) exp(-RSS / 2 sigma_y²). Rat 1's alpha and beta follow by
// the laws of total expectation and variance from their conditional
// normals; the reference is computed in grams and divided by 100.
// Mean-field needs 24 600 steps to meet the convergence rule, and then
// has sigma_beta's and sigma_y's means 1.1 and 1 posterior sd high (the
// rats' slopes' factors cannot lend their sds to sigma_beta), the rest
// within 0.3 sd and sds from 0.85 to 1.1 of the posterior's; the joint
// normal of --fullrank all has every mean within 0.15 sd and sd within
// 15 %, except sigma_y's, 0.79 of the posterior's in both fits (a
// residual sd of 90 degrees of freedom, 0.0615 ± 0.0047: q has 0.0037;
// a reference of 2 000 000 steps of another seed agrees).
func TestBUGSRats(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model twice")
	}
	x, y := ratsData()
	mean, sd := ratsReference(x, y)
	for k := range mean { // in units of 100 g
		mean[k], sd[k] = mean[k]/100, sd[k]/100
	}
	names := []string{"alpha_c", "beta_c", "sigma_alpha", "sigma_beta", "sigma_y", "alpha0", "alpha[1]", "beta[1]"}
	dat := mustJSON(t, map[string]any{"x": x, "y": y})
	mf := fitSource(t, ratsModel, "rats.json", dat, sgvb.Settings{Seed: 1, MaxIter: 40000})
	compareSome(t, "mean-field", mf, names, mean, sd, []int{0, 1, 2, 5, 6, 7}, 0.3, 0.8, 1.15)
	compareSome(t, "mean-field", mf, names, mean, sd, []int{3, 4}, 1.5, 0.7, 1.15)
	fr := fitSource(t, ratsModel, "rats.json", dat, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"alpha_c", "beta_c", "sigma_alpha", "sigma_beta", "sigma_y", "alpha", "beta"}}})
	compareSome(t, "full-rank", fr, names, mean, sd, []int{0, 1, 2, 3, 5, 6, 7}, 0.15, 0.85, 1.15)
	compareSome(t, "full-rank", fr, names, mean, sd, []int{4}, 0.15, 0.7, 1.15)
}
