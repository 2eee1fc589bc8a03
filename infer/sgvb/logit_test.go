package sgvb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/dist"
)

// kindGauss is a Gaussian N(m, Σ) on the coordinates x of latents a
// (real), b (unit, the model's value −1 + 2σ(x₁)) and c (positive), one
// element each: its log p is the density of the natural values, the
// coordinates' Gaussian less each Jacobian (x₂ for c's log, log σ(x₁)(1 −
// σ(x₁)) for b's logit), so that a joint full-rank factor on x has the
// exact ELBO of the Gaussian (mvGauss.elbo).
type kindGauss struct{ *mvGauss }

func newKindGauss() *kindGauss {
	return &kindGauss{newMVGauss([]float64{1, -0.7, 0.5}, corrSigma(), false)}
}

func (t *kindGauss) LogJoint(x, grad []float64) (float64, error) {
	lp, _ := t.mvGauss.LogJoint(x, grad)
	j, dj := logitJac(x[1])
	lp -= j + x[2]
	grad[1] -= dj
	grad[2]--
	return lp, nil
}

func (t *kindGauss) Clone() Target { return &kindGauss{t.mvGauss.Clone().(*mvGauss)} }

func (t *kindGauss) latents() []Latent {
	return []Latent{
		{Name: "a", Offset: 0, Size: 1, Support: dist.Real},
		{Name: "b", Offset: 1, Size: 1, Support: dist.Unit, Loc: -1, Scale: 2},
		{Name: "c", Offset: 2, Size: 1, Support: dist.Positive},
	}
}

// TestLogitJointGradient checks the mean of the engine's gradient
// estimates for a joint full-rank group and a low-rank one with a unit
// member against the finite-difference gradient of the exact ELBO (the
// coordinates' Gaussian, once the engine has added the logit's
// Jacobian), for both estimators: without the Jacobian the target is not
// that Gaussian and the means disagree (by 0.1 to 1 here).
func TestLogitJointGradient(t *testing.T) {
	tg := newKindGauss()
	th0 := []float64{0.3, -0.2, 1, // means
		-0.2, 0.4, 0.1, // raw diagonal
		0.3, -0.5, 0.2} // L_10, L_20, L_21
	want := fd.Gradient(nil, tg.elbo, th0, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	for _, est := range []Estimator{Entropy, STL} {
		s := Settings{Seed: 5, Estimator: est, FullRankGroups: [][]string{{"a", "b", "c"}}}.withDefaults()
		e, err := newEngine(tg, tg.latents(), &s)
		if err != nil {
			t.Fatal(err)
		}
		if len(e.theta) != len(th0) || len(e.logits) != 1 || e.logits[0] != 1 {
			t.Fatalf("%d parameters, logit coordinates %v", len(e.theta), e.logits)
		}
		copy(e.theta, th0)
		checkMeanGrad(t, e, want, fmt.Sprintf("full rank %v", est))
		e.close()
	}
	// low rank: the exact ELBO of the coordinates' Gaussian (lowRankELBO)
	for _, est := range []Estimator{Entropy, STL} {
		s := Settings{Seed: 6, Estimator: est, FullRankGroups: [][]string{{"a", "b", "c"}}, Rank: 1}.withDefaults()
		e, err := newEngine(tg, tg.latents(), &s)
		if err != nil {
			t.Fatal(err)
		}
		b := e.blocks[0]
		th := append([]float64(nil), e.theta...)
		th[0], th[1], th[2], th[7] = 0.3, -0.2, 1, 0.5
		copy(e.theta, th)
		want := fd.Gradient(nil, func(th []float64) float64 { return lowRankELBO(&b, tg.mvGauss, th) }, th, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		checkMeanGrad(t, e, want, fmt.Sprintf("low rank %v", est))
		e.close()
	}
}

// checkMeanGrad fails the test when the mean of 40 000 of e's gradient
// estimates at its theta is more than 5 standard errors from want.
func checkMeanGrad(t *testing.T, e *engine, want []float64, label string) {
	t.Helper()
	const n = 40000
	mean, m2 := make([]float64, len(want)), make([]float64, len(want))
	for it := range n {
		if ok, err := e.gradient(streamStep, it); !ok {
			t.Fatal("non-finite gradient", err)
		}
		for i, g := range e.grad {
			d := g - mean[i]
			mean[i] += d / float64(it+1)
			m2[i] += d * (g - mean[i])
		}
	}
	for i := range want {
		se := math.Sqrt(m2[i] / (n - 1) / n)
		t.Logf("%s θ[%d]: %.5f ± %.2g, exact %.5f", label, i, mean[i], se, want[i])
		if !(math.Abs(mean[i]-want[i]) <= 5*se+1e-6) {
			t.Errorf("%s: ∂ELBO/∂θ[%d] estimated %.6g ± %.2g, exact %.6g", label, i, mean[i], se, want[i])
		}
	}
}

// TestLogitJointELBO checks the ELBO estimate, log q and the defensive
// mixture of a group with a unit member: the estimate is the exact ELBO
// (within 4 standard errors) away from the posterior; at q = the
// coordinates' Gaussian the estimate is log Z exactly (the control variate is exact
// there only when log q and the entropy agree), log q of a draw is the
// density of the natural values (the coordinates' normal less the
// Jacobians), and the defensive mixture's density is comparable with it.
func TestLogitJointELBO(t *testing.T) {
	tg := newKindGauss()
	s := Settings{Seed: 3, FullRankGroups: [][]string{{"a", "b", "c"}}, PSISDraws: 20000}.withDefaults()
	e, err := newEngine(tg, tg.latents(), &s)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	// away from the posterior: the exact ELBO, E[log p] + H of the
	// coordinates' Gaussian
	th0 := []float64{0.3, -0.2, 1, -0.2, 0.4, 0.1, 0.3, -0.5, 0.2}
	copy(e.theta, th0)
	want := tg.elbo(th0) + 3*halfLog2PiE
	if elbo, se, bad := e.eval(streamEval, 0, 20000); bad != 0 || !(math.Abs(elbo-want) <= 4*se) {
		t.Errorf("ELBO estimate %.5f ± %.2g (%d bad), exact %.5f", elbo, se, bad, want)
	}
	// θ at the Gaussian: its mean and Cholesky factor
	sigma := corrSigma()
	n := 3
	copy(e.theta, tg.m)
	l := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			v := sigma.At(i, j)
			for k := range j {
				v -= l[i*n+k] * l[j*n+k]
			}
			if i == j {
				l[i*n+i] = math.Sqrt(v)
				e.theta[n+i] = softplusInv(l[i*n+i])
			} else {
				l[i*n+j] = v / l[j*n+j]
				e.theta[lowIdx(n, i, j)] = l[i*n+j]
			}
		}
	}
	// log Z of exp(−½ rᵀPr): (n/2) log 2π + ½ log det Σ
	logZ := float64(n) * halfLog2Pi
	for i := range n {
		logZ += math.Log(l[i*n+i])
	}
	elbo, se, bad := e.eval(streamEval, 0, 200)
	if bad != 0 || math.Abs(elbo-logZ) > 1e-9 || se > 1e-9 {
		t.Errorf("ELBO at the posterior %.12g ± %.2g (%d bad), log Z %.12g", elbo, se, bad, logZ)
	}
	r := &Result{Method: SGVB, Factors: e.factors(), Groups: e.groups(), Dim: 3}
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 3)
	g := make([]float64, 3)
	d := r.Defensive()
	for range 20 {
		lq := r.SampleCoords(rng, x)
		lp, _ := tg.LogJoint(x, g)
		// q is the posterior: log p − log q is log Z at every draw
		if math.Abs(lp-lq-logZ) > 1e-9 || math.Abs(r.LogQCoords(x)-lq) > 1e-12 {
			t.Errorf("at %v: log p − log q = %.12g, log Z %.12g", x, lp-lq, logZ)
		}
		// g on the coordinates: t₃ marginals; its density from logq and
		// logJacobian of the block
		want := 0.0
		for i := range n {
			sd := math.Sqrt(sigma.At(i, i)) * DefensiveScale
			u := (x[i] - tg.m[i]) / sd
			want += d.tConst - math.Log(sd) - 2*math.Log1p(u*u/3)
		}
		j, _ := logitJac(x[1])
		want -= j + x[2] // to the natural values
		mix := math.Log(0.5*math.Exp(lq) + 0.5*math.Exp(want))
		if got := d.LogDensity(x); math.Abs(got-mix) > 1e-9 {
			t.Errorf("at %v: defensive log density %.12g, want %.12g", x, got, mix)
		}
	}
	// the unit member's factor: a logit-normal on b, reported on −1 + 2b
	f := r.Factor("b")
	wm, ws := logitNormalMoments(tg.m[1], math.Sqrt(sigma.At(1, 1)))
	if f.Family != FamilyFullRank || f.Support != dist.Unit || math.Abs(f.Mean()[0]-(-1+2*wm)) > 1e-12 || math.Abs(f.SD()[0]-2*ws) > 1e-12 {
		t.Errorf("b's factor %v %v: mean %g sd %g, want %g %g", f.Family, f.Support, f.Mean()[0], f.SD()[0], -1+2*wm, 2*ws)
	}
}

// TestLogitNormalMoments checks the logit-normal mean and sd against
// mpmath's quadrature (30 digits) of E[σ(m + s·u)^k] under u ~ N(0, 1).
func TestLogitNormalMoments(t *testing.T) {
	for _, c := range []struct{ m, s, mean, sd float64 }{
		{0, 1, 0.5, 0.20827634493166276},
		{2, 0.5, 0.87099346362277842, 0.056277506615765017},
		{-1.5, 3, 0.33302661097375886, 0.34299956467040543},
		{0.3, 1e-6, 0.57444251681164079, 2.4445831169069016e-7},
		{5, 2, 0.96775159952143955, 0.077168879679440199},
	} {
		m, s := logitNormalMoments(c.m, c.s)
		if math.Abs(m-c.mean) > 1e-13 || math.Abs(s/c.sd-1) > 1e-10 {
			t.Errorf("N(%g, %g²): mean %.17g sd %.17g, want %.17g %.17g", c.m, c.s, m, s, c.mean, c.sd)
		}
	}
}

// muR is the posterior of the fit tests: a real mu and r ∈ (−1, 1) (a
// unit latent b, r = −1 + 2b) under flat priors, with n1 observations of
// mu + 2r and n2 of mu (unit variance): r is (ȳ₁ − mu)/2 to within
// 1/(2√n1), so mu and r are correlated near −1, and r's marginal sd is
// about 1/(2√n2) where a mean-field q gives it the conditional one.
type muR struct{ y1, n1, y2, n2 float64 }

var testMuR = muR{y1: 1.1, n1: 400, y2: 0.6, n2: 25}

func (t muR) logp(mu, r float64) (lp, dmu, dr float64) {
	e1, e2 := t.y1-mu-2*r, t.y2-mu
	lp = -0.5*t.n1*e1*e1 - 0.5*t.n2*e2*e2
	return lp, t.n1*e1 + t.n2*e2, 2 * t.n1 * e1
}

func (t muR) LogJoint(x, grad []float64) (float64, error) {
	b := sigmoid(x[1])
	lp, dmu, dr := t.logp(x[0], -1+2*b)
	grad[0], grad[1] = dmu, dr*2*b*(1-b)
	return lp, nil
}

func (t muR) Clone() Target { return t }

func (t muR) latents() []Latent {
	return []Latent{{Name: "mu", Size: 1, Support: dist.Real}, {Name: "r", Offset: 1, Size: 1, Support: dist.Unit, Loc: -1, Scale: 2}}
}

// exact returns the posterior means and sds of mu and r on a grid (r's
// flat prior on (−1, 1): midpoints of 4000 cells; mu ±8 of its sds).
func (t muR) exact() (mm, ms, rm, rs float64) {
	const nr, nm = 4000, 1600
	var w0, smu, smu2, sr, sr2 float64
	mc, mw := t.y2, 8/math.Sqrt(t.n2)
	for i := range nr {
		r := -1 + 2*(float64(i)+0.5)/nr
		for j := range nm {
			mu := mc - mw + 2*mw*(float64(j)+0.5)/nm
			lp, _, _ := t.logp(mu, r)
			w := math.Exp(lp)
			w0 += w
			smu, smu2, sr, sr2 = smu+w*mu, smu2+w*mu*mu, sr+w*r, sr2+w*r*r
		}
	}
	mm, rm = smu/w0, sr/w0
	return mm, math.Sqrt(smu2/w0 - mm*mm), rm, math.Sqrt(sr2/w0 - rm*rm)
}

// The best Gaussian on muR's coordinates (mu, logit b), by Nelder–Mead on
// its ELBO under a 40×40 Gauss–Hermite rule (python3, mpmath's nodes):
// the ELBO, mu's mean and sd, r's mean and sd (of −1 + 2σ(x)).
const (
	muROptELBO = -4.167538
	muROptMM   = 0.602287
	muROptMS   = 0.195186
	muROptRM   = 0.248785
	muROptRS   = 0.100512
)

// TestLogitJointFit fits mu and r jointly (full rank and rank 1) and
// mean-field: the joint factors reach the best Gaussian on the
// coordinates (muROpt*: means within 2 % of the sds, sds within 2 %, the
// ELBO within elboTol) and so the grid's exact marginals within relTol
// (the best Gaussian's sd of r is itself 2.5 % below the exact 0.1031:
// the logit stretches r's tails), where mean-field's sd of r is a
// quarter of the exact one.
func TestLogitJointFit(t *testing.T) {
	tg := testMuR
	mm, ms, rm, rs := tg.exact()
	t.Logf("exact: mu %.4f ± %.4f, r %.4f ± %.4f", mm, ms, rm, rs)
	for _, c := range []struct {
		name   string
		groups [][]string
		rank   int
	}{{"full rank", [][]string{{"mu", "r"}}, 0}, {"rank 1", [][]string{{"mu", "r"}}, 1}, {"mean-field", nil, 0}} {
		s := conjugateSettings()
		s.FullRankGroups, s.Rank = c.groups, c.rank
		res, err := Fit(context.Background(), tg, tg.latents(), s)
		if err != nil {
			t.Fatal(err)
		}
		mu, r := res.Factor("mu"), res.Factor("r")
		gm, gs, gr, grs := mu.Mean()[0], mu.SD()[0], r.Mean()[0], r.SD()[0]
		t.Logf("%s: mu %.4f ± %.4f, r %.4f ± %.4f (%v), ELBO %.4f ± %.2g, k̂ %.2f", c.name, gm, gs, gr, grs, r.Family, res.ELBO, res.ELBOSE, res.ParetoK)
		if c.groups == nil {
			if !(grs < 0.5*rs) || r.Family != FamilyBeta {
				t.Errorf("mean-field: r's sd %.4f, exact %.4f", grs, rs)
			}
			continue
		}
		const optTol = 0.02
		if math.Abs(gm-muROptMM) > optTol*muROptMS || math.Abs(gs/muROptMS-1) > optTol || math.Abs(gr-muROptRM) > optTol*muROptRS || math.Abs(grs/muROptRS-1) > optTol || math.Abs(res.ELBO-muROptELBO) > elboTol {
			t.Errorf("%s: mu %.4f ± %.4f, r %.4f ± %.4f, ELBO %.4f; the best Gaussian's mu %.4f ± %.4f, r %.4f ± %.4f, ELBO %.4f", c.name, gm, gs, gr, grs, res.ELBO, muROptMM, muROptMS, muROptRM, muROptRS, muROptELBO)
		}
		if math.Abs(gm-mm) > relTol*ms || math.Abs(gs/ms-1) > relTol || math.Abs(gr-rm) > relTol*rs || math.Abs(grs/rs-1) > relTol {
			t.Errorf("%s: mu %.4f ± %.4f, r %.4f ± %.4f; exact mu %.4f ± %.4f, r %.4f ± %.4f", c.name, gm, gs, gr, grs, mm, ms, rm, rs)
		}
	}
}

// TestLogitJointZeroAllocs: steps and ELBO evaluations of groups with a
// unit member do not allocate.
func TestLogitJointZeroAllocs(t *testing.T) {
	tg := newKindGauss()
	for _, rank := range []int{0, 1} {
		s := conjugateSettings()
		s.FullRankGroups, s.Rank = [][]string{{"a", "b", "c"}}, rank
		ws := s.withDefaults()
		e, err := newEngine(tg, tg.latents(), &ws)
		if err != nil {
			t.Fatal(err)
		}
		checkZeroAllocs(t, e, fmt.Sprintf("group with a unit member, rank %d", rank))
		e.close()
	}
}

// TestLogitJointInit checks the warm start of a group's unit member from
// a beta factor (a mean-field fit's): its logit's mean ψ(α) − ψ(β) and sd
// √(ψ₁(α) + ψ₁(β)), the beta's own moments of logit b, and from the
// group's own result whole, its params as they were.
func TestLogitJointInit(t *testing.T) {
	tg := testMuR
	s := conjugateSettings()
	s.MaxIter = 3000
	mf, err := Fit(context.Background(), tg, tg.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	f := mf.Factor("r")
	a, bb := f.Params[0][0], f.Params[1][0]
	s.FullRankGroups, s.Init = [][]string{{"mu", "r"}}, mf
	ws := s.withDefaults()
	e, err := newEngine(tg, tg.latents(), &ws)
	if err != nil {
		t.Fatal(err)
	}
	wm, wsd := dist.Digamma(a)-dist.Digamma(bb), math.Sqrt(dist.Trigamma(a)+dist.Trigamma(bb))
	if m, sd := e.theta[1], softplus(e.theta[3]); math.Abs(m-wm) > 1e-9 || math.Abs(sd-wsd) > 1e-9 {
		t.Errorf("r's start: logit mean %.6g sd %.6g, want %.6g %.6g (beta %.4g, %.4g)", m, sd, wm, wsd, a, bb)
	}
	e.close()
	s.Init = nil
	g, err := Fit(context.Background(), tg, tg.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	s.Init = g
	ws = s.withDefaults()
	e, err = newEngine(tg, tg.latents(), &ws)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	p := e.groups()[0].Params
	for j := range p {
		for i := range p[j] {
			if math.Abs(p[j][i]-g.Groups[0].Params[j][i]) > 1e-12 {
				t.Errorf("warm start from the group: param %d[%d] %.15g, was %.15g", j, i, p[j][i], g.Groups[0].Params[j][i])
			}
		}
	}
}

// unitGauss is a Gaussian N(m, Σ) on the logits x of a unit latent's
// elements: log p is the density of the values, less the Jacobians.
type unitGauss struct{ *mvGauss }

func (t *unitGauss) LogJoint(x, grad []float64) (float64, error) {
	lp, _ := t.mvGauss.LogJoint(x, grad)
	for i := range x {
		j, dj := logitJac(x[i])
		lp -= j
		grad[i] -= dj
	}
	return lp, nil
}

func (t *unitGauss) Clone() Target { return &unitGauss{t.mvGauss.Clone().(*mvGauss)} }

// TestLogitFullRankLatent fits a unit latent of its own with a full-rank
// factor (Families): q's family holds the posterior, so the fit reaches
// it, the ELBO log Z within elboTol and the logits' means and sds within
// relTol of their sds.
func TestLogitFullRankLatent(t *testing.T) {
	sigma := corrSigma()
	sub := mat.NewSymDense(2, []float64{sigma.At(0, 0), sigma.At(0, 1), sigma.At(0, 1), sigma.At(1, 1)})
	tg := &unitGauss{newMVGauss([]float64{0.5, -1}, sub, false)}
	s := conjugateSettings()
	s.Families = map[string]Family{"u": FamilyFullRank}
	r, err := Fit(context.Background(), tg, []Latent{{Name: "u", Size: 2, Shape: []int{2}, Support: dist.Unit}}, s)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Factor("u")
	var ch mat.Cholesky
	ch.Factorize(sub)
	logZ := 2*halfLog2Pi + 0.5*ch.LogDet()
	sd := coordSDs(f)
	t.Logf("ELBO %.5f ± %.2g (log Z %.5f), logits %.4f ± %.4f, %.4f ± %.4f", r.ELBO, r.ELBOSE, logZ, f.Params[0][0], sd[0], f.Params[0][1], sd[1])
	if f.Family != FamilyFullRank || math.Abs(r.ELBO-logZ) > elboTol {
		t.Errorf("%v factor, ELBO %.5f, log Z %.5f", f.Family, r.ELBO, logZ)
	}
	for i := range 2 {
		ws := math.Sqrt(sub.At(i, i))
		if math.Abs(f.Params[0][i]-tg.m[i]) > relTol*ws || math.Abs(sd[i]/ws-1) > relTol {
			t.Errorf("logit %d: mean %.4f sd %.4f, want %.4f %.4f", i, f.Params[0][i], sd[i], tg.m[i], ws)
		}
	}
}

// muRWide is muR with 300 standard-normal latents z beside it: enough
// coordinates (splitMin) for one draw's work to be split between workers.
type muRWide struct{ muR }

func (t muRWide) LogJoint(x, grad []float64) (float64, error) {
	lp, _ := t.muR.LogJoint(x[:2], grad[:2])
	for i := 2; i < len(x); i++ {
		lp -= 0.5 * x[i] * x[i]
		grad[i] = -x[i]
	}
	return lp, nil
}

func (t muRWide) Clone() Target { return t }

// TestLogitJointSplit: a fit whose single draw a step is split between
// two workers (stepSplit) adds the logit's Jacobian as a fit of one
// worker does: the results are bit for bit the same.
func TestLogitJointSplit(t *testing.T) {
	tg := muRWide{testMuR}
	lats := append(tg.latents(), Latent{Name: "z", Offset: 2, Size: splitMin, Shape: []int{splitMin}, Support: dist.Real})
	var rs [2]*Result
	for w := range 2 {
		s := Settings{Seed: 4, MaxIter: 600, Tol: -1, Workers: w + 1, FullRankGroups: [][]string{{"mu", "r"}}}
		r, err := Fit(context.Background(), tg, lats, s)
		if err != nil {
			t.Fatal(err)
		}
		rs[w] = r
	}
	sameResult(t, rs[0], rs[1])
	if f := rs[1].Factor("r"); f.Family != FamilyFullRank || !(math.Abs(f.Mean()[0]-muROptRM) < 0.5*muROptRS) {
		t.Errorf("r: %v, mean %.4f", f.Family, f.Mean()[0])
	}
}
