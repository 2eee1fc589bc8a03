package nuts

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// diagNormal is independent normals with sds sd, mean 0.
type diagNormal struct{ sd []float64 }

func (n diagNormal) LogDensity(x, g []float64) (float64, error) {
	lp := 0.0
	for i, v := range x {
		z := v / n.sd[i]
		lp -= 0.5 * z * z
		g[i] = -z / n.sd[i]
	}
	return lp, nil
}

// mvNormal is a zero-mean normal with precision prec (d×d).
type mvNormal struct {
	prec []float64
	d    int
}

func (n mvNormal) LogDensity(x, g []float64) (float64, error) {
	lp := 0.0
	for i := 0; i < n.d; i++ {
		s := 0.0
		for j := 0; j < n.d; j++ {
			s += n.prec[i*n.d+j] * x[j]
		}
		g[i] = -s
		lp -= 0.5 * x[i] * s
	}
	return lp, nil
}

// funnel is Neal's funnel: y ~ N(0, 3), x_i ~ N(0, exp(y/2)), y = x[0].
type funnel struct{}

func (funnel) LogDensity(x, g []float64) (float64, error) {
	y := x[0]
	lp := -y * y / 18
	g[0] = -y / 9
	e := math.Exp(-y)
	for i := 1; i < len(x); i++ {
		lp += -0.5*x[i]*x[i]*e - 0.5*y
		g[i] = -x[i] * e
		g[0] += 0.5*x[i]*x[i]*e - 0.5
	}
	return lp, nil
}

// flaky is a standard normal that fails beyond |x[0]| > cut, by an error
// (err) or a NaN.
type flaky struct {
	cut float64
	err bool
}

var errFlaky = errors.New("flaky: out of range")

func (f flaky) LogDensity(x, g []float64) (float64, error) {
	lp, _ := diagNormal{sd: []float64{1, 1}}.LogDensity(x, g)
	if math.Abs(x[0]) > f.cut {
		if f.err {
			return 0, errFlaky
		}
		return math.NaN(), nil
	}
	return lp, nil
}

func replicate(d Density, chains int) []Density {
	out := make([]Density, chains)
	for i := range out {
		out[i] = d
	}
	return out
}

// jittered returns chains initial points, uniform in (-r, r)·scale.
func jittered(chains int, scale []float64, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	out := make([][]float64, chains)
	for c := range out {
		out[c] = make([]float64, len(scale))
		for i, s := range scale {
			out[c][i] = (2*rng.Float64() - 1) * s
		}
	}
	return out
}

// coord returns coordinate i of every chain's draws, by chain.
func coord(r *Result, i int, f func(float64) float64) [][]float64 {
	out := make([][]float64, len(r.Chains))
	for c, ch := range r.Chains {
		n := len(ch.Draws) / r.Dim
		out[c] = make([]float64, n)
		for k := 0; k < n; k++ {
			v := ch.Draws[k*r.Dim+i]
			if f != nil {
				v = f(v)
			}
			out[c][k] = v
		}
	}
	return out
}

func mean(x [][]float64) float64 {
	s, n := 0.0, 0
	for _, ch := range x {
		for _, v := range ch {
			s += v
			n++
		}
	}
	return s / float64(n)
}

// checkMoments checks every coordinate's mean (truth 0) and the mean of its
// square (truth sd²) against 4 Monte Carlo standard errors: the MCSE of the
// mean of x/sd and of (x/sd)², each from its own effective sample size.
func checkMoments(t *testing.T, r *Result, sd []float64) {
	t.Helper()
	for i := range sd {
		z := coord(r, i, func(v float64) float64 { return v / sd[i] })
		if m, se := mean(z), MCSEMean(z); math.Abs(m) > 4*se {
			t.Errorf("coordinate %d (sd %g): mean/sd %.4f, more than 4 MCSE (%.4f) from 0", i, sd[i], m, se)
		}
		z2 := coord(r, i, func(v float64) float64 { return (v / sd[i]) * (v / sd[i]) })
		if m, se := mean(z2), MCSEMean(z2); math.Abs(m-1) > 4*se {
			t.Errorf("coordinate %d (sd %g): var/sd² %.4f, more than 4 MCSE (%.4f) from 1", i, sd[i], m, se)
		}
	}
}

// windowShare is the last metric window's length (500 with Warmup 1000)
// over the kept draws (1000).
const windowShare = 0.5

// regularised is Stan's regularisation of a variance v estimated from the
// last window's 500 draws.
func regularised(v float64) float64 { return 500.0/505*v + 1e-3*5/505 }

// chainESS is the split-chain ESS of one chain's draws.
func chainESS(x []float64) float64 { return ess(split([][]float64{x})) }

type stats struct {
	accept, depth float64
	divergent     int
	n             int
}

func summary(r *Result) stats {
	var s stats
	for _, ch := range r.Chains {
		for k := range ch.Accept {
			s.accept += ch.Accept[k]
			s.depth += float64(ch.Depth[k])
			if ch.Divergent[k] {
				s.divergent++
			}
			s.n++
		}
	}
	s.accept /= float64(s.n)
	s.depth /= float64(s.n)
	return s
}

func TestIndependentNormals(t *testing.T) {
	const d = 60
	sd := make([]float64, d)
	for i := range sd {
		sd[i] = math.Pow(10, -2+4*float64(i)/(d-1)) // 0.01 .. 100
	}
	for _, delta := range []float64{0.8, 0.95} {
		s := Settings{Chains: 4, Warmup: 1000, Draws: 1000, Delta: delta, Seed: 11, Workers: 2}
		r, err := Sample(context.Background(), replicate(diagNormal{sd}, 4), jittered(4, sd, 1), s)
		if err != nil {
			t.Fatal(err)
		}
		checkMoments(t, r, sd)
		// The metric is the regularised variance of the last window's 500
		// draws: its relative error has sd √(2/n) for n effective draws of
		// x², taken from the chain's kept draws (1000) scaled to 500.
		worst, worstTol := 0.0, 0.0
		sumRel, sumVar, nRel := 0.0, 0.0, 0.0
		for c, ch := range r.Chains {
			for i, m := range ch.InvMetric {
				z2 := coord(r, i, func(v float64) float64 { return (v / sd[i]) * (v / sd[i]) })[c]
				tol := 4 * math.Sqrt(2/(chainESS(z2)*windowShare))
				rel := m/regularised(sd[i]*sd[i]) - 1
				worst = math.Max(worst, math.Abs(rel))
				worstTol = math.Max(worstTol, tol)
				sumRel += rel
				sumVar += (tol / 4) * (tol / 4)
				nRel++
				if math.Abs(rel) > tol {
					t.Errorf("delta %g chain %d: inverse metric %d is %g, true variance %g (relative error %.3f > %.3f)", delta, c, i, m, sd[i]*sd[i], rel, tol)
				}
			}
		}
		// No bias: the mean relative error over all chains and coordinates
		// within 4 of its standard errors.
		if m, se := sumRel/nRel, math.Sqrt(sumVar)/nRel; math.Abs(m) > 4*se {
			t.Errorf("delta %g: mean relative error of the inverse metric %.4f, more than 4 SE (%.4f) from 0", delta, m, se)
		} else {
			t.Logf("delta %g: mean relative error of the inverse metric %.4f (SE %.4f)", delta, m, se)
		}
		// Stan's adaptation ends at exp(x̄), the average of the log step
		// size iterates, which lands below the step size of mean
		// acceptance delta (acceptance is concave in log ε there): after
		// warm-up accept_stat__ runs above delta, here by 0.075 at 0.8.
		st := summary(r)
		if st.accept < delta-0.01 || st.accept > delta+0.08 || st.accept > 0.99 {
			t.Errorf("delta %g: mean accept_stat__ %.4f", delta, st.accept)
		}
		if st.divergent > 0 {
			t.Errorf("delta %g: %d divergences", delta, st.divergent)
		}
		t.Logf("delta %g: accept %.4f, mean depth %.2f, step sizes %.4g %.4g %.4g %.4g, worst metric error %.3f (largest tolerance %.3f)",
			delta, st.accept, st.depth, r.Chains[0].StepSize, r.Chains[1].StepSize, r.Chains[2].StepSize, r.Chains[3].StepSize, worst, worstTol)
	}
}

// equicorrelated returns the covariance and precision of sds sd with all
// correlations rho.
func equicorrelated(sd []float64, rho float64) (cov, prec []float64) {
	d := len(sd)
	cov = make([]float64, d*d)
	prec = make([]float64, d*d)
	// R⁻¹ = (I − ρ/(1+(d−1)ρ)·11ᵀ)/(1−ρ).
	k := rho / (1 + float64(d-1)*rho)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			r, ri := rho, -k
			if i == j {
				r, ri = 1, 1-k
			}
			cov[i*d+j] = r * sd[i] * sd[j]
			prec[i*d+j] = ri / (1 - rho) / (sd[i] * sd[j])
		}
	}
	return cov, prec
}

func TestCorrelatedDense(t *testing.T) {
	const d = 10
	sd := make([]float64, d)
	for i := range sd {
		sd[i] = float64(i + 1)
	}
	cov, prec := equicorrelated(sd, 0.99)
	dens := replicate(mvNormal{prec, d}, 4)
	inits := jittered(4, sd, 2)
	base := Settings{Chains: 4, Warmup: 1000, Draws: 1000, Seed: 5, Workers: 2}
	dense := base
	dense.Metric = DenseE
	rd, err := Sample(context.Background(), dens, inits, dense)
	if err != nil {
		t.Fatal(err)
	}
	checkMoments(t, rd, sd)
	// As in TestIndependentNormals, with the effective draws of the square
	// of the long axis, Σ x_i/sd_i, which dominates every entry's error.
	worst, worstTol := 0.0, 0.0
	for c, ch := range rd.Chains {
		if len(ch.InvMetric) != d*d {
			t.Fatalf("dense inverse metric has %d entries", len(ch.InvMetric))
		}
		n := len(ch.Accept)
		long := make([]float64, n)
		for k := 0; k < n; k++ {
			u := 0.0
			for i := 0; i < d; i++ {
				u += ch.Draws[k*d+i] / sd[i]
			}
			long[k] = u * u
		}
		tol := 4 * math.Sqrt(2/(chainESS(long)*windowShare))
		worstTol = math.Max(worstTol, tol)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				want := 500.0 / 505 * cov[i*d+j]
				if i == j {
					want = regularised(cov[i*d+j])
				}
				e := math.Abs(ch.InvMetric[i*d+j]-want) / (sd[i] * sd[j])
				worst = math.Max(worst, e)
				if e > tol {
					t.Errorf("chain %d: inverse metric [%d,%d] = %g, covariance %g (error %.3f > %.3f)", c, i, j, ch.InvMetric[i*d+j], cov[i*d+j], e, tol)
				}
			}
		}
	}
	rg, err := Sample(context.Background(), dens, inits, base)
	if err != nil {
		t.Fatal(err)
	}
	checkMoments(t, rg, sd)
	sd1, sg := summary(rd), summary(rg)
	t.Logf("step sizes dense %.3g diag %.3g; ESS of x0 dense %.0f diag %.0f", rd.Chains[0].StepSize, rg.Chains[0].StepSize, ESSBulk(coord(rd, 0, nil)), ESSBulk(coord(rg, 0, nil)))
	t.Logf("dense: depth %.2f accept %.3f; diag: depth %.2f accept %.3f; worst dense metric error %.3f (relative to sd_i sd_j; largest tolerance %.3f)",
		sd1.depth, sd1.accept, sg.depth, sg.accept, worst, worstTol)
	if !(sd1.depth < sg.depth) {
		t.Errorf("mean tree depth with DenseE %.2f is not below DiagE's %.2f", sd1.depth, sg.depth)
	}
	// The diagonal metric leaves a condition number of ~1000: its step size
	// is ~10 times smaller and it U-turns on the short axes, so its ESS per
	// draw is far lower.
	for i := 0; i < d; i++ {
		if ed, eg := ESSBulk(coord(rd, i, nil)), ESSBulk(coord(rg, i, nil)); !(ed > 10*eg) {
			t.Errorf("coordinate %d: ESS %.0f with DenseE, %.0f with DiagE", i, ed, eg)
		}
	}
	if sd1.divergent+sg.divergent > 0 {
		t.Errorf("%d + %d divergences", sd1.divergent, sg.divergent)
	}
}

func TestFunnelDiverges(t *testing.T) {
	const d = 10
	s := Settings{Chains: 2, Warmup: 500, Draws: 1000, Seed: 3}
	r, err := Sample(context.Background(), replicate(funnel{}, 2), jittered(2, make([]float64, d), 0), s)
	if err != nil {
		t.Fatal(err)
	}
	// Divergences happen in the neck: the divergent transitions' y is lower
	// than the other transitions'.
	var ydiv, yok float64
	var ndiv, nok int
	for _, ch := range r.Chains {
		for k, dv := range ch.Divergent {
			y := ch.Draws[k*d]
			if dv {
				ydiv += y
				ndiv++
			} else {
				yok += y
				nok++
			}
		}
	}
	if ndiv == 0 {
		t.Fatal("no divergences on Neal's funnel")
	}
	ydiv /= float64(ndiv)
	yok /= float64(nok)
	t.Logf("%d divergent of %d; mean y divergent %.2f, others %.2f", ndiv, ndiv+nok, ydiv, yok)
	if !(ydiv < yok) {
		t.Errorf("divergent transitions' mean y %.2f not below the others' %.2f", ydiv, yok)
	}
}

// TestFixedStepStandardNormal checks the draws' distribution at fixed step
// sizes and the unit metric, with no adaptation: mean, variance and the
// probabilities of five quantiles within 4 MCSE, and a Kolmogorov–Smirnov
// distance scaled by the effective sample size.
func TestFixedStepStandardNormal(t *testing.T) {
	// minESS is a lower bound on ESS per draw: biased progressive sampling
	// at the top of the tree moves to the far new subtree more often than
	// uniform sampling of the whole trajectory would, which makes the draws
	// antithetic. Measured: 0.22, 0.43, 0.73 of the draws; with uniform
	// sampling 0.13, 0.22, 0.41.
	minESS := map[float64]float64{0.25: 0.17, 0.9: 0.32, 1.7: 0.57}
	for _, eps := range []float64{0.25, 0.9, 1.7} {
		s := Settings{Chains: 4, Warmup: 0, Draws: 20000, StepSize: eps, Metric: UnitE, Seed: 8, Workers: 2}
		r, err := Sample(context.Background(), replicate(diagNormal{[]float64{1}}, 4), [][]float64{{0.5}, {-1}, {2}, {0}}, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range r.Chains {
			if ch.StepSize != eps {
				t.Fatalf("step size %g, want %g", ch.StepSize, eps)
			}
		}
		checkMoments(t, r, []float64{1})
		x := coord(r, 0, nil)
		for _, p := range []float64{0.05, 0.25, 0.5, 0.75, 0.95} {
			q := distuv.UnitNormal.Quantile(p)
			ind := coord(r, 0, func(v float64) float64 {
				if v <= q {
					return 1
				}
				return 0
			})
			if m, se := mean(ind), MCSEMean(ind); math.Abs(m-p) > 4*se {
				t.Errorf("eps %g: P(x ≤ q_%g) = %.4f, more than 4 MCSE (%.4f) from %g", eps, p, m, se, p)
			}
		}
		all := flatten(x)
		sort.Float64s(all)
		ks := 0.0
		for i, v := range all {
			F := distuv.UnitNormal.CDF(v)
			ks = math.Max(ks, math.Max(math.Abs(F-float64(i)/float64(len(all))), math.Abs(F-float64(i+1)/float64(len(all)))))
		}
		ess := ESSBulk(x)
		if ess < minESS[eps]*float64(len(all)) {
			t.Errorf("eps %g: ESS %.0f of %d draws", eps, ess, len(all))
		}
		// 1.95 is the KS critical value at 0.1 %.
		if ks*math.Sqrt(ess) > 1.95 {
			t.Errorf("eps %g: KS distance %.4f with ESS %.0f", eps, ks, ess)
		}
		t.Logf("eps %g: KS %.4f, sqrt(ESS)·KS %.2f, ESS %.0f of %d, accept %.3f", eps, ks, ks*math.Sqrt(ess), ess, len(all), summary(r).accept)
	}
}

func TestLeapfrog(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	sd := []float64{0.5, 1, 2}
	c := newChain(diagNormal{sd}, []float64{0.3, -1, 2}, Settings{MaxDepth: 10, StepSize: 0.1}, rng)
	c.setMetric([]float64{0.25, 1, 4})
	c.sampleP(&c.z)
	q0 := append([]float64(nil), c.z.q...)
	p0 := append([]float64(nil), c.z.p...)
	h0 := c.hamiltonian(&c.z)
	const eps, steps = 0.1, 1000
	worst := 0.0
	for k := 0; k < steps; k++ {
		c.leapfrog(&c.z, eps)
		worst = math.Max(worst, math.Abs(c.hamiltonian(&c.z)-h0))
	}
	// With the metric matched to the covariance every coordinate is a unit
	// harmonic oscillator, whose leapfrog error in H is ≤ (ε²/4)·H/(1 − ε²/4).
	if bound := eps * eps / 4 * h0 / (1 - eps*eps/4); worst > bound {
		t.Errorf("energy error %g over %d steps, bound %g", worst, steps, bound)
	}
	for k := 0; k < steps; k++ {
		c.leapfrog(&c.z, -eps)
	}
	for i := range q0 {
		if math.Abs(c.z.q[i]-q0[i]) > 1e-9 || math.Abs(c.z.p[i]-p0[i]) > 1e-9 {
			t.Errorf("not reversible: coordinate %d: q %g → %g, p %g → %g", i, q0[i], c.z.q[i], p0[i], c.z.p[i])
		}
	}
}

// TestUTurnDepth: on a 1-D standard normal with the unit metric the phase
// flow is a rotation by one radian per unit time. A trajectory spanning
// more than π (half a turn) always has an end whose momentum points back
// across the chord, so the tree stops by depth j with (2^j − 1)ε > π: with
// ε = 0.1, depth 6 (a span of 6.3); depth 5 spans 3.1 < π.
func TestUTurnDepth(t *testing.T) {
	s := Settings{Chains: 2, Draws: 4000, StepSize: 0.1, Metric: UnitE, Seed: 4}
	r, err := Sample(context.Background(), replicate(diagNormal{[]float64{1}}, 2), [][]float64{{0.1}, {1}}, s)
	if err != nil {
		t.Fatal(err)
	}
	hist := make([]int, 11)
	for _, ch := range r.Chains {
		for k, dp := range ch.Depth {
			hist[dp]++
			if dp > 6 {
				t.Fatalf("depth %d > 6", dp)
			}
			// A tree that stops inside its last subtree (an inner
			// U-turn) keeps the depth it had but has run that subtree's
			// 2^depth steps too.
			if ch.Leapfrogs[k] > 1<<(dp+1)-1 {
				t.Fatalf("%d leapfrogs at depth %d", ch.Leapfrogs[k], dp)
			}
		}
	}
	t.Logf("depth histogram %v", hist)
}

// TestNoUTurnJunction: a trajectory of two parts, each moving along +x and
// with both outer ends moving along +x, but whose right part starts with a
// large step back: the whole passes the classic check and only the checks
// across the junction (Stan ≥ 2.26) see the U-turn.
func TestNoUTurnJunction(t *testing.T) {
	v := func(a, b float64) []float64 { return []float64{a, b} }
	// Unit metric, p♯ = p. The left part is two states, the right part
	// three: (−5, 0), (7, 0), (1, 0.3); ρ sums each part's momenta.
	pLeftBeg, pLeftEnd, pRightBeg, pRightEnd := v(1, 0.2), v(1, -0.1), v(-5, 0), v(1, 0.3)
	rhoLeft, rhoRight := v(2, 0.1), v(3, 0.3)
	if !criterionSum(pLeftBeg, pRightEnd, rhoLeft, rhoRight) {
		t.Fatal("the whole trajectory should pass the classic criterion")
	}
	if noUTurn(pLeftBeg, pLeftEnd, pRightBeg, pRightEnd, rhoLeft, rhoRight, pLeftEnd, pRightBeg) {
		t.Error("the U-turn at the junction was missed")
	}
	// Without the step back every check passes.
	pRightBeg = v(1, 0)
	if !noUTurn(pLeftBeg, pLeftEnd, pRightBeg, pRightEnd, rhoLeft, rhoRight, pLeftEnd, pRightBeg) {
		t.Error("a straight trajectory U-turns")
	}
	// And a U-turn of the whole is caught.
	if noUTurn(pLeftBeg, pLeftEnd, pRightBeg, v(-1, 0), rhoLeft, rhoRight, pLeftEnd, pRightBeg) {
		t.Error("an end moving back was missed")
	}
}

func TestMaxDepth(t *testing.T) {
	for _, md := range []int{1, 3, 5} {
		s := Settings{Chains: 1, Draws: 50, StepSize: 0.001, Metric: UnitE, MaxDepth: md, Seed: 4}
		r, err := Sample(context.Background(), replicate(diagNormal{[]float64{1, 1}}, 1), [][]float64{{0.1, 1}}, s)
		if err != nil {
			t.Fatal(err)
		}
		for k, dp := range r.Chains[0].Depth {
			// At this step size nothing U-turns: every tree reaches the
			// maximum, 2^md − 1 leapfrog steps.
			if dp != md || r.Chains[0].Leapfrogs[k] != 1<<md-1 {
				t.Fatalf("MaxDepth %d: depth %d, %d leapfrogs", md, dp, r.Chains[0].Leapfrogs[k])
			}
			// H is conserved to O(ε²): accept_stat__, the mean of
			// min(1, exp(H0 − H)) over the new states, is ~1.
			if a := r.Chains[0].Accept[k]; !(a > 0.9999 && a <= 1) {
				t.Fatalf("MaxDepth %d: accept_stat__ %v at ε = 0.001", md, a)
			}
		}
	}
}

// TestMomentum: p ~ N(0, M) with M the inverse of the dense inverse
// metric, so pᵀM⁻¹p averages d and p's covariance is M.
func TestMomentum(t *testing.T) {
	const d = 3
	minv := []float64{4, 1.8, 0, 1.8, 1, 0.3, 0, 0.3, 2}
	c := newChain(diagNormal{[]float64{1, 1, 1}}, make([]float64, d), Settings{MaxDepth: 1, StepSize: 1, Metric: DenseE}, rand.New(rand.NewPCG(3, 3)))
	if !c.setMetric(minv) {
		t.Fatal("metric rejected")
	}
	const n = 1000000
	cov := make([]float64, d*d)
	for k := 0; k < n; k++ {
		c.sampleP(&c.z)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				cov[i*d+j] += c.z.p[i] * c.z.p[j] / n
			}
		}
	}
	// cov·M⁻¹ = I; entry (i, j) has sd ≈ √(M_ii·M⁻¹_jj/n) ≤ √(6.9·4/n) =
	// 0.0053, so 0.03 is more than 5 of them.
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			s := 0.0
			for k := 0; k < d; k++ {
				s += cov[i*d+k] * minv[k*d+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 0.03 {
				t.Errorf("(cov(p)·M⁻¹)[%d,%d] = %.4f, want %g", i, j, s, want)
			}
		}
	}
	if c.setMetric([]float64{1, 2, 0, 2, 1, 0, 0, 0, 1}) {
		t.Error("an indefinite dense metric was accepted")
	}
}

func zeroTimes(r *Result) {
	for c := range r.Chains {
		r.Chains[c].Warmup, r.Chains[c].Sampling = 0, 0
	}
}

func TestDeterminism(t *testing.T) {
	sd := []float64{1, 2, 3}
	run := func(workers int, seed uint64) *Result {
		s := Settings{Chains: 3, Warmup: 200, Draws: 100, Seed: seed, Workers: workers}
		r, err := Sample(context.Background(), replicate(diagNormal{sd}, 3), jittered(3, sd, 1), s)
		if err != nil {
			t.Fatal(err)
		}
		zeroTimes(r)
		return r
	}
	a, b := run(1, 7), run(3, 7)
	// lp__ is the density at the draw; energy__ adds a kinetic energy ≥ 0.
	g := make([]float64, 3)
	for c, ch := range a.Chains {
		for k, lp := range ch.LogP {
			if v, _ := (diagNormal{sd}).LogDensity(ch.Draws[3*k:3*k+3], g); v != lp {
				t.Fatalf("chain %d draw %d: lp__ %v, density %v", c, k, lp, v)
			}
			if !(ch.Energy[k] >= -lp) {
				t.Fatalf("chain %d draw %d: energy__ %v < −lp__ %v", c, k, ch.Energy[k], -lp)
			}
		}
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("Workers 1 and 3 give different results")
	}
	if reflect.DeepEqual(a.Chains[0].Draws, a.Chains[1].Draws) {
		t.Error("chains 0 and 1 have the same draws")
	}
	if reflect.DeepEqual(a.Chains[0].Draws, run(1, 8).Chains[0].Draws) {
		t.Error("seeds 7 and 8 give the same draws")
	}
}

func TestDensityFailures(t *testing.T) {
	for _, withErr := range []bool{true, false} {
		s := Settings{Chains: 2, Warmup: 200, Draws: 500, Seed: 2}
		r, err := Sample(context.Background(), replicate(flaky{cut: 1.5, err: withErr}, 2), [][]float64{{0, 0}, {1, -1}}, s)
		if err != nil {
			t.Fatal(err)
		}
		st := summary(r)
		if st.divergent == 0 {
			t.Errorf("err %v: no divergences", withErr)
		}
		for c, ch := range r.Chains {
			if withErr && !errors.Is(ch.FirstErr, errFlaky) {
				t.Errorf("chain %d: FirstErr %v", c, ch.FirstErr)
			}
			if !withErr && ch.FirstErr != nil {
				t.Errorf("chain %d: FirstErr %v for a NaN", c, ch.FirstErr)
			}
			for k := range ch.LogP {
				if x := ch.Draws[k*2]; math.Abs(x) > 1.5 {
					t.Fatalf("chain %d kept a rejected point %g", c, x)
				}
			}
		}
		t.Logf("err %v: %d divergent of %d", withErr, st.divergent, st.n)
	}
	// A start where the density fails names the chain.
	_, err := Sample(context.Background(), replicate(flaky{cut: 1.5, err: false}, 3), [][]float64{{0, 0}, {0, 0}, {2, 0}}, Settings{Chains: 3, Draws: 10})
	if err == nil || !strings.Contains(err.Error(), "chain 2") {
		t.Errorf("non-finite start: error %v", err)
	}
	_, err = Sample(context.Background(), replicate(flaky{cut: 1.5, err: true}, 3), [][]float64{{0, 0}, {3, 0}, {0, 0}}, Settings{Chains: 3, Draws: 10})
	if err == nil || !strings.Contains(err.Error(), "chain 1") || !errors.Is(err, errFlaky) {
		t.Errorf("failing start: error %v", err)
	}
	if _, err := Sample(context.Background(), replicate(flaky{}, 1), [][]float64{{0, 0}}, Settings{Chains: 2}); err == nil {
		t.Error("no error for 2 chains with 1 density")
	}
}

func TestCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := Settings{Chains: 4, Warmup: 500, Draws: 500, Seed: 1, Workers: 2,
		Progress: func(chain, iter int, warmup bool) {
			if chain == 1 && iter == 700 {
				cancel()
			}
		}}
	sd := []float64{1, 2}
	r, err := Sample(ctx, replicate(diagNormal{sd}, 4), jittered(4, sd, 3), s)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted {
		t.Fatal("not Interrupted")
	}
	// Chain 1 was sampling (200 kept); the others, by how the two workers
	// were scheduled, in warm-up, not started, or sampling too. The chains
	// that kept 2 or more keep their shortest's count, the others their
	// own (they cut every chain to the shortest, often 0, before).
	n := -1
	for _, ch := range r.Chains {
		if k := len(ch.LogP); k >= 2 && (n < 0 || k < n) {
			n = k
		}
	}
	for c, ch := range r.Chains {
		want := n
		if len(ch.LogP) < 2 {
			want = len(ch.LogP)
		}
		if len(ch.Accept) != want || len(ch.Draws) != want*2 || len(ch.LogP) != want || len(ch.Depth) != want ||
			len(ch.Leapfrogs) != want || len(ch.Divergent) != want || len(ch.Energy) != want {
			t.Errorf("chain %d: %d draws, want %d (the shortest of those that kept 2 or more), or under 2", c, len(ch.LogP), n)
		}
	}
	if len(r.Chains[1].LogP) < 2 || n >= 500 {
		t.Errorf("chain 1 kept %d draws, the shortest %d, after a cancel in its sampling: want 2 to 499", len(r.Chains[1].LogP), n)
	}
	for i := 0; i < 1000 && runtime.NumGoroutine() > before; i++ {
		runtime.Gosched()
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after the run, %d before", g, before)
	}
}

// TestCancelAfterEnd: a ctx cancelled once every chain has run to its end
// leaves the result whole, not Interrupted.
func TestCancelAfterEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := Settings{Chains: 2, Warmup: 50, Draws: 50, Seed: 1, Workers: 1,
		Progress: func(chain, iter int, warmup bool) {
			if chain == 1 && iter == 100 { // the last chain's last iteration
				cancel()
			}
		}}
	sd := []float64{1, 2}
	r, err := Sample(ctx, replicate(diagNormal{sd}, 2), jittered(2, sd, 3), s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Interrupted || len(r.Chains[0].LogP) != 50 || len(r.Chains[1].LogP) != 50 {
		t.Errorf("Interrupted %v, draws %d and %d, want a whole result of 50 a chain", r.Interrupted, len(r.Chains[0].LogP), len(r.Chains[1].LogP))
	}
}

func TestTransitionAllocs(t *testing.T) {
	for _, m := range []Metric{DiagE, DenseE} {
		sd := []float64{1, 2, 3, 4}
		c := newChain(diagNormal{sd}, []float64{0.1, 0.2, 0.3, 0.4}, Settings{MaxDepth: 10, StepSize: 0.5, Metric: m}.withDefaults(), rand.New(rand.NewPCG(1, 2)))
		w := newWindows(1000, 4, m == DenseE)
		da := newDualAveraging(0.8, 0)
		allocs := testing.AllocsPerRun(200, func() {
			c.transition()
			da.learn(c.acceptStat)
			if v := w.learn(c.z.q); v != nil {
				c.setMetric(v)
			}
		})
		if allocs != 0 {
			t.Errorf("%v: %g allocations per transition", m, allocs)
		}
	}
}

func TestWindows(t *testing.T) {
	ends := func(warmup int) []int {
		w := newWindows(warmup, 1, false)
		var out []int
		for it := 0; it < warmup; it++ {
			if w.learn([]float64{float64(it % 7)}) != nil {
				out = append(out, it)
			}
		}
		return out
	}
	// Stan's default schedule: windows of 25, 50, 100, 200 and 500 after a
	// buffer of 75, the last stretched to the terminal buffer of 50.
	if got, want := ends(1000), []int{99, 149, 249, 449, 949}; !reflect.DeepEqual(got, want) {
		t.Errorf("warm-up 1000: windows end at %v, want %v", got, want)
	}
	// Below 150: 15 % / 75 % / 10 %: one window of 75 after 15.
	if got, want := ends(100), []int{89}; !reflect.DeepEqual(got, want) {
		t.Errorf("warm-up 100: windows end at %v, want %v", got, want)
	}
	if got := ends(19); got != nil {
		t.Errorf("warm-up 19: windows %v, want none", got)
	}
	// Regularisation: 10 draws 0..9 have variance 55/6.
	w := newWindows(100, 1, false)
	var got []float64
	for it := 0; it < 90; it++ {
		if v := w.learn([]float64{float64(it % 10)}); v != nil {
			got = v
		}
	}
	// The window is iterations 15..89: 75 draws of it%10.
	var xs []float64
	for it := 15; it < 90; it++ {
		xs = append(xs, float64(it%10))
	}
	_, v := meanVar(xs)
	n := 75.0
	if want := n/(n+5)*v + 1e-3*5/(n+5); math.Abs(got[0]-want) > 1e-12 {
		t.Errorf("regularised variance %v, want %v", got[0], want)
	}
}

func TestDualAveraging(t *testing.T) {
	// On an acceptance that falls with the step size as exp(−ε), the
	// averaged step size settles where exp(−ε) = delta.
	da := newDualAveraging(0.8, math.Log(10))
	eps := 1.0
	for i := 0; i < 20000; i++ {
		eps = da.learn(math.Exp(-eps))
	}
	if want := -math.Log(0.8); math.Abs(da.final()-want) > 0.01*want {
		t.Errorf("final step size %g, want %g", da.final(), want)
	}
}

// TestThinAndProgress: thinning keeps every Thin-th iteration of the same
// chain (the last of each group), and Progress sees every iteration.
func TestThinAndProgress(t *testing.T) {
	sd := []float64{1, 3}
	var mu sync.Mutex
	calls := map[int]int{}
	warm := 0
	s := Settings{Chains: 2, Warmup: 30, Draws: 10, Seed: 9, Workers: 2, Progress: func(chain, iter int, warmup bool) {
		mu.Lock()
		defer mu.Unlock()
		calls[chain]++
		if warmup {
			warm++
			if iter > 30 {
				t.Errorf("warm-up iteration %d", iter)
			}
		}
	}}
	all, err := Sample(context.Background(), replicate(diagNormal{sd}, 2), jittered(2, sd, 4), s)
	if err != nil {
		t.Fatal(err)
	}
	if calls[0] != 40 || calls[1] != 40 || warm != 60 {
		t.Errorf("Progress calls %v, %d in warm-up", calls, warm)
	}
	s.Thin, s.Progress = 3, nil
	thin, err := Sample(context.Background(), replicate(diagNormal{sd}, 2), jittered(2, sd, 4), s)
	if err != nil {
		t.Fatal(err)
	}
	for c := range thin.Chains {
		if len(thin.Chains[c].LogP) != 3 {
			t.Fatalf("chain %d: %d draws with Draws 10, Thin 3", c, len(thin.Chains[c].LogP))
		}
		for k := 0; k < 3; k++ {
			if got, want := thin.Chains[c].LogP[k], all.Chains[c].LogP[3*k+2]; got != want {
				t.Errorf("chain %d thinned draw %d: lp__ %v, unthinned iteration %d's %v", c, k, got, 3*k+2, want)
			}
		}
	}
}

// earlyFail is a standard normal whose LogDensity fails at its calls
// from, up to and including to (counted from 1): rejections in warm-up
// only, wherever the trajectory goes.
type earlyFail struct {
	n, from, to int
}

func (f *earlyFail) LogDensity(x, g []float64) (float64, error) {
	f.n++
	lp, _ := diagNormal{sd: []float64{1, 1}}.LogDensity(x, g)
	if f.n >= f.from && f.n <= f.to {
		return 0, errFlaky
	}
	return lp, nil
}

// TestDensityFailuresByPhase: Chain splits the rejected points into warm-
// up's (WarmErrs of WarmEvals) and the kept iterations' (Errs − WarmErrs,
// the first SampleErr; LastWarmErr the last warm-up iteration with one),
// so that a report can tell far-out start-up points
// from a region the draws miss.
func TestDensityFailuresByPhase(t *testing.T) {
	s := Settings{Chains: 2, Warmup: 200, Draws: 300, Seed: 2}
	dens := []Density{&earlyFail{from: 2, to: 20}, &earlyFail{from: 2, to: 20}}
	r, err := Sample(context.Background(), dens, [][]float64{{0, 0}, {1, -1}}, s)
	if err != nil {
		t.Fatal(err)
	}
	for c, ch := range r.Chains {
		if ch.Errs != 19 || ch.WarmErrs != 19 || ch.SampleErr != nil {
			t.Errorf("warm-up failures, chain %d: Errs %d, WarmErrs %d, SampleErr %v; want 19, 19, nil", c, ch.Errs, ch.WarmErrs, ch.SampleErr)
		}
		// Every iteration evaluates a point, so the 20th call is in
		// iteration 19 at the latest.
		if ch.LastWarmErr < 1 || ch.LastWarmErr > 19 {
			t.Errorf("warm-up failures, chain %d: LastWarmErr %d, want 1 … 19", c, ch.LastWarmErr)
		}
		if !(ch.WarmEvals > 200 && ch.WarmEvals < ch.Evals) {
			t.Errorf("warm-up failures, chain %d: WarmEvals %d of %d", c, ch.WarmEvals, ch.Evals)
		}
	}
	r, err = Sample(context.Background(), replicate(flaky{cut: 1.5, err: true}, 2), [][]float64{{0, 0}, {1, -1}}, s)
	if err != nil {
		t.Fatal(err)
	}
	for c, ch := range r.Chains {
		if ch.LastWarmErr <= InitBuffer(s.Warmup) || ch.LastWarmErr > s.Warmup {
			t.Errorf("failures throughout, chain %d: LastWarmErr %d, want past the initial buffer %d", c, ch.LastWarmErr, InitBuffer(s.Warmup))
		}
		if !errors.Is(ch.SampleErr, errFlaky) || !(ch.WarmErrs < ch.Errs) || !(ch.WarmEvals < ch.Evals) {
			t.Errorf("failures throughout, chain %d: SampleErr %v, WarmErrs %d of Errs %d, WarmEvals %d of %d", c, ch.SampleErr, ch.WarmErrs, ch.Errs, ch.WarmEvals, ch.Evals)
		}
	}
}

// TestTree: Tree sees each NUTS transition's tree depth, before Progress
// sees its iteration: the sampling iterations' are the draws' treedepth__,
// and the draws are the same without it.
func TestTree(t *testing.T) {
	sd := []float64{1, 3}
	var mu sync.Mutex
	depths := map[int][]int{}
	s := Settings{Chains: 2, Warmup: 30, Draws: 20, Seed: 9, Workers: 2,
		Tree: func(chain, depth int) {
			mu.Lock()
			defer mu.Unlock()
			depths[chain] = append(depths[chain], depth)
		},
		Progress: func(chain, iter int, _ bool) {
			mu.Lock()
			defer mu.Unlock()
			if len(depths[chain]) != iter {
				t.Errorf("chain %d: Progress of iteration %d after %d Tree calls", chain, iter, len(depths[chain]))
			}
		}}
	with, err := Sample(context.Background(), replicate(diagNormal{sd}, 2), jittered(2, sd, 4), s)
	if err != nil {
		t.Fatal(err)
	}
	s.Tree, s.Progress = nil, nil
	without, err := Sample(context.Background(), replicate(diagNormal{sd}, 2), jittered(2, sd, 4), s)
	if err != nil {
		t.Fatal(err)
	}
	for c := range with.Chains {
		if got := depths[c][30:]; !slices.Equal(got, with.Chains[c].Depth) {
			t.Errorf("chain %d: Tree's sampling depths %v, treedepth__ %v", c, got, with.Chains[c].Depth)
		}
		if !slices.Equal(with.Chains[c].Draws, without.Chains[c].Draws) {
			t.Errorf("chain %d: the draws differ with Tree", c)
		}
	}
}

// TestFirstMetric: FirstMetric is where the windows first learn a metric
// (the iteration after the first window's end), none for a warm-up of 19.
func TestFirstMetric(t *testing.T) {
	for _, warmup := range []int{19, 20, 37, 100, 149, 150, 151, 1000, 5000} {
		w := newWindows(warmup, 1, false)
		first := 0
		for it := 0; it < warmup; it++ {
			if w.learn([]float64{float64(it % 7)}) != nil {
				first = it + 1
				break
			}
		}
		if got := FirstMetric(warmup); got != first {
			t.Errorf("warm-up %d: FirstMetric %d, the windows learn first after %d", warmup, got, first)
		}
	}
}
