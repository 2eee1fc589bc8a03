package sgvb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/dist"
)

// orderedGauss is a posterior whose unconstrained coordinates u are
// exactly N(m, Σ), Σ with correlations between every pair: a real a (u_0),
// an ordered o[3] (u_1 = o_0, u_2, u_3 the log increments) and a
// positive_ordered v[2] (u_4 = log v_0, u_5 = log(v_1 − v_0)). In the
// Target's coordinates (those u) the log joint is log N(u; m, Σ) less the
// log-Jacobian Σ u_i of the log coordinates, the density of the values:
// the fit adds the Jacobian back, so q's coordinates reach N(m, Σ) only if
// it does so for both parts of each ordered latent.
type orderedGauss struct {
	*mvGauss
	sigma *mat.SymDense
}

// orderedLogCoords are the coordinates of orderedGauss on the log scale.
var orderedLogCoords = []int{2, 3, 4, 5}

func newOrderedGauss() *orderedGauss {
	sd := []float64{1, 0.5, 0.3, 0.4, 0.3, 0.5}
	s := mat.NewSymDense(6, nil)
	for i := range 6 {
		for j := i; j < 6; j++ { // an AR(1) correlation −0.6^|i−j|: positive definite, every pair correlated
			s.SetSym(i, j, math.Pow(-0.6, float64(j-i))*sd[i]*sd[j])
		}
	}
	return &orderedGauss{newMVGauss([]float64{1, -1, -0.5, 0, 0.3, -0.2}, s, false), s}
}

func (t *orderedGauss) LogJoint(x, grad []float64) (float64, error) {
	lp, err := t.mvGauss.LogJoint(x, grad)
	for _, i := range orderedLogCoords {
		lp -= x[i]
		grad[i]--
	}
	return lp, err
}

func (t *orderedGauss) Clone() Target { return &orderedGauss{t.mvGauss.Clone().(*mvGauss), t.sigma} }

func (t *orderedGauss) latents() []Latent {
	return []Latent{{Name: "a", Offset: 0, Size: 1, Support: dist.Real},
		{Name: "o", Offset: 1, Size: 3, Shape: []int{3}, Support: dist.Ordered},
		{Name: "v", Offset: 4, Size: 2, Shape: []int{2}, Support: dist.PositiveOrdered}}
}

// orderedExactTol bounds how far TestFullRankOrdered's q may be from p in
// its coordinates (means and sds in units of p's sds, correlations): the
// target is in the family, where the STL gradient of every draw is zero at
// q = p, so the 20 000 natural-gradient steps of conjugateSettings reach p
// without Monte Carlo noise, to rounding (measured: KL 3·10⁻¹⁶). A
// Jacobian left out for one log coordinate moves the means by a column of
// Σ, 0.1–0.5 sds.
const orderedExactTol = 1e-6

// TestFullRankOrdered fits one joint full-rank factor of a, o and v
// (Settings.FullRankGroups a+o+v: o's x_0 and log increments and v's logs
// among its coordinates) to orderedGauss: its mean is m, its covariance Σ
// (each sd and correlation) within orderedExactTol, the ELBO log Z within
// elboTol. The factors' moments of o and v (jointOrderedMoments, from the
// correlated coordinates) are those of 20 000 draws of q within 5 standard
// errors, and so are a reloaded Result's (Factors then Groups, as a fit
// file gives them, LinkOrdered).
func TestFullRankOrdered(t *testing.T) {
	tg := newOrderedGauss()
	x0 := []float64{0.3, -0.8, -0.2, 0.1, 0.5, -0.4}
	g0 := make([]float64, 6)
	tg.LogJoint(x0, g0)
	fg := fd.Gradient(nil, func(x []float64) float64 { lp, _ := tg.Clone().LogJoint(x, make([]float64, 6)); return lp }, x0, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	for i := range g0 {
		if math.Abs(g0[i]-fg[i]) > 1e-6 {
			t.Fatalf("orderedGauss: ∂/∂x_%d = %g, finite differences %g", i, g0[i], fg[i])
		}
	}
	sigma := tg.sigma
	var ch mat.Cholesky
	ch.Factorize(sigma)
	logZ := 3*math.Log(2*math.Pi) + 0.5*ch.LogDet()

	s := conjugateSettings()
	s.FullRankGroups = [][]string{{"a", "o", "v"}}
	r, err := Fit(context.Background(), tg, tg.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Groups) != 1 || strings.Join(r.Groups[0].Names, "+") != "a+o+v" || len(r.Factors) != 3 {
		t.Fatalf("groups %v, %d factors", r.Groups, len(r.Factors))
	}
	g := r.Groups[0]
	cov := fullRankCov(Factor{Params: g.Params})
	kl := gaussKL(g.Params[0], cov, tg.m, sigma)
	t.Logf("%d iterations (%s), ELBO %.5f ± %.2g (log Z %.5f), KL(q ‖ p) %.2g, k̂ %.2f; mean %.4f", r.Iterations, s.Estimator, r.ELBO, r.ELBOSE, logZ, kl, r.ParetoK, g.Params[0])
	if math.Abs(r.ELBO-logZ) > elboTol {
		t.Errorf("ELBO %.5f against log Z %.5f", r.ELBO, logZ)
	}
	for i := range 6 {
		sd := math.Sqrt(sigma.At(i, i))
		if math.Abs(g.Params[0][i]-tg.m[i]) > orderedExactTol*sd || math.Abs(math.Sqrt(cov.At(i, i))/sd-1) > orderedExactTol {
			t.Errorf("u_%d: mean %.4f sd %.4f, want %.4f %.4f", i, g.Params[0][i], math.Sqrt(cov.At(i, i)), tg.m[i], sd)
		}
		for j := range i {
			rq := cov.At(i, j) / math.Sqrt(cov.At(i, i)*cov.At(j, j))
			rp := sigma.At(i, j) / math.Sqrt(sigma.At(i, i)*sigma.At(j, j))
			if math.Abs(rq-rp) > orderedExactTol {
				t.Errorf("u_%d, u_%d: correlation %.4f, want %.4f", i, j, rq, rp)
			}
		}
	}
	for _, name := range []string{"o", "v"} {
		if f := r.Factor(name); f.Family != FamilyOrdered || len(f.Parts) == 0 || f.Parts[0].Family != FamilyFullRank {
			t.Errorf("%s: family %v, parts %v", name, f.Family, f.Parts)
		}
	}
	checkOrderedMoments(t, r, 9, 10)
}

// An ordered latent alone under Families (FamilyFullRank) is the group of
// its parts, its coordinates' one joint factor, as with FullRankGroups;
// in a banded group it is an error naming the latent.
func TestFullRankOrderedAlone(t *testing.T) {
	tg := newOrderedGauss()
	s := Settings{Seed: 3, MaxIter: 300, Families: map[string]Family{"o": FamilyFullRank, "v": FamilyFullRank}}
	r, err := Fit(context.Background(), tg, tg.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Groups) != 2 || r.Groups[0].Names[0] != "o" || len(r.Groups[0].Params[0]) != 3 || r.Groups[1].Names[0] != "v" || len(r.Groups[1].Params[0]) != 2 {
		t.Errorf("groups %v", r.Groups)
	}
	if len(s.Families) != 2 || len(s.FullRankGroups) != 0 {
		t.Errorf("the caller's settings changed: %v %v", s.Families, s.FullRankGroups)
	}
	if f, err := s.FamilyOf(tg.latents()[1]); f != FamilyFullRank || err != nil {
		t.Errorf("FamilyOf(o) = %v, %v", f, err)
	}
	for _, g := range [][]string{{"o", "a"}, {"a", "o"}} {
		s := Settings{Seed: 3, MaxIter: 10, FullRankGroups: [][]string{g}, Band: 1}
		if _, err := Fit(context.Background(), tg, tg.latents(), s); err == nil || !strings.Contains(err.Error(), "latent o: "+errOrderedJoint) {
			t.Errorf("banded %v: %v", g, err)
		}
	}
}

// TestLowRankOrdered fits orderedGauss with one low-rank group a+o+v of
// rank 6, its size, so that BBᵀ + diag(d²) can be Σ: q reaches p as the
// full-rank factor does (orderedExactTol, the STL gradient being zero at
// q = p here too), and the ordered factors' moments are the draws'
// (lowRankMarginal, the low-rank params carried to the coordinates'
// marginal), fitted and reloaded.
func TestLowRankOrdered(t *testing.T) {
	tg := newOrderedGauss()
	s := conjugateSettings()
	s.FullRankGroups, s.Rank = [][]string{{"a", "o", "v"}}, 6
	r, err := Fit(context.Background(), tg, tg.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Groups) != 1 || r.Groups[0].Rank != 6 || r.Factor("o").Parts[1].Family != FamilyLowRank {
		t.Fatalf("groups %v", r.Groups)
	}
	p := r.Groups[0].Params
	for i := range 6 {
		for j := range i + 1 {
			c := 0.0
			if i == j {
				c = p[1][i] * p[1][i]
			}
			for _, col := range p[2:] {
				c += col[i] * col[j]
			}
			w := tg.sigma.At(i, j)
			si, sj := math.Sqrt(tg.sigma.At(i, i)), math.Sqrt(tg.sigma.At(j, j))
			if math.Abs(c-w) > orderedExactTol*si*sj || i == j && math.Abs(p[0][i]-tg.m[i]) > orderedExactTol*si {
				t.Errorf("u_%d, u_%d: covariance %.6g, want %.6g (mean %.6g, want %.6g)", i, j, c, w, p[0][i], tg.m[i])
			}
		}
	}
	checkOrderedMoments(t, r, 11, 12)
}

// checkOrderedMoments checks the means and sds of r's ordered factors o
// and v against 20000 draws of q (seeded by s1, s2), as fitted and as a
// Result read back from a file: the factors (their joint marginal lost on
// the way) and the groups, linked again (LinkOrdered).
func checkOrderedMoments(t *testing.T, r *Result, s1, s2 uint64) {
	t.Helper()
	back := &Result{Method: r.Method, Dim: r.Dim, Groups: r.Groups}
	for _, f := range r.Factors {
		f.joint = nil
		back.Factors = append(back.Factors, f)
	}
	back.LinkOrdered()
	const S = 20000
	rng := rand.New(rand.NewPCG(s1, s2))
	sum, sum2, z := make([]float64, r.Dim), make([]float64, r.Dim), make([]float64, r.Dim)
	for range S {
		back.Sample(rng, z)
		for i, v := range z {
			sum[i] += v
			sum2[i] += v * v
		}
	}
	for what, res := range map[string]*Result{"fitted": r, "reloaded": back} {
		for _, name := range []string{"o", "v"} {
			f := res.Factor(name)
			mean, sd := f.Mean(), f.SD()
			for k := range f.Size {
				i := f.Offset + k
				m := sum[i] / S
				sdDraws := math.Sqrt(sum2[i]/S - m*m)
				// 5 standard errors, that of an sd taken as sd·√(2/S)
				// doubled for the lognormal increments' tails
				if math.Abs(mean[k]-m) > 5*sdDraws/math.Sqrt(S) || math.Abs(sd[k]-sdDraws) > 5*2*sdDraws*math.Sqrt(2.0/S) {
					t.Errorf("%s %s[%d]: factor's mean %.4f sd %.4f, draws' %.4f %.4f", what, name, k, mean[k], sd[k], m, sdDraws)
				}
			}
		}
	}
}

// TestOrderedGroupZeroAllocs: an SGVB step and an ELBO evaluation of a
// full-rank and a low-rank group holding ordered latents' parts allocate
// nothing.
func TestOrderedGroupZeroAllocs(t *testing.T) {
	for _, rank := range []int{0, 2} {
		tg := newOrderedGauss()
		s := Settings{Seed: 1, Rank: rank, FullRankGroups: [][]string{{"a", "o", "v"}}}.withDefaults()
		e, err := newEngine(tg, tg.latents(), &s)
		if err != nil {
			t.Fatal(err)
		}
		parts := 0
		for _, b := range e.blocks {
			for _, m := range b.mem {
				if m.part != partNone {
					parts++
				}
			}
		}
		if parts != 3 { // o's x_0 and its increments, v's one positive part
			t.Fatalf("rank %d: %d ordered parts in the engine's groups, want 3", rank, parts)
		}
		checkZeroAllocs(t, e, fmt.Sprintf("ordered latents in a group, rank %d", rank))
		e.close()
	}
}
