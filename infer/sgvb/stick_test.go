package sgvb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
	"gonum.org/v1/gonum/diff/fd"
)

// stickELBO returns the exact ELBO of a full-rank factor with raw
// parameters th (the engine's layout) over the 2 stick-breaking
// coordinates y of a simplex[3] whose log p is Σ (a_k − 1) log x_k
// (unnormalised): E[log p(x(y)) + log |dx/dy|] by the trapezoid rule on a
// grid of the standard normal ε (geometric convergence, as
// logitNormalMoments'), plus the normal's entropy.
func stickELBO(th, a []float64) float64 {
	const n, u, pts = 2, 9.0, 301
	l00, l11, l10 := softplus(th[n]), softplus(th[n+1]), th[lowIdx(n, 1, 0)]
	h := 2 * u / (pts - 1)
	lx := make([]float64, 3)
	var w0, s float64
	for i := range pts {
		e0 := -u + float64(i)*h
		for j := range pts {
			e1 := -u + float64(j)*h
			w := math.Exp(-0.5 * (e0*e0 + e1*e1))
			y := []float64{th[0] + l00*e0, th[1] + l10*e0 + l11*e1}
			dist.StickBreakLog(lx, y)
			f := dist.StickBreakLogJac(lx)
			for k, v := range lx {
				f += (a[k] - 1) * v
			}
			w0 += w
			s += w * f
		}
	}
	return s/w0 + 2*halfLog2PiE + math.Log(l00) + math.Log(l11)
}

// The mean of the engine's gradient estimates of a full-rank factor of a
// simplex[3] (normal on its stick-breaking coordinates) is the finite
// difference gradient of the exact ELBO, for both estimators: the chain
// rule through the transform (dist.StickBreakGrad) and its log Jacobian
// in log p and log q are right.
func TestFullRankSimplexGradient(t *testing.T) {
	dc := &dirichletCounts{alpha: []float64{3, 7, 2}, k: 3}
	th0 := []float64{0.4, -0.3, // means
		-0.5, 0.2, // raw diagonal
		0.35} // L_10
	want := fd.Gradient(nil, func(th []float64) float64 { return stickELBO(th, dc.alpha) }, th0, &fd.Settings{Formula: fd.Central, Step: 1e-5})
	lat := []Latent{{Name: "p", Size: 3, Shape: []int{3}, Support: dist.Simplex}}
	for _, est := range []Estimator{Entropy, STL} {
		s := Settings{Seed: 9, Estimator: est, Families: map[string]Family{"p": FamilyFullRank}}.withDefaults()
		e, err := newEngine(dc, lat, &s)
		if err != nil {
			t.Fatal(err)
		}
		if len(e.theta) != len(th0) {
			t.Fatalf("%d parameters, want %d (a full-rank factor of 2 coordinates)", len(e.theta), len(th0))
		}
		copy(e.theta, th0)
		checkMeanGrad(t, e, want, fmt.Sprint(est))
		e.close()
	}
}

// dirichletMoments returns the exact means and sds of Dirichlet(a).
func dirichletMoments(a []float64) (mean, sd []float64) {
	a0 := 0.0
	for _, v := range a {
		a0 += v
	}
	for _, v := range a {
		mean = append(mean, v/a0)
		sd = append(sd, math.Sqrt(v*(a0-v)/(a0*a0*(a0+1))))
	}
	return mean, sd
}

// simplexPlusNormal is a Dirichlet(alpha) simplex at x[0 : k] (log
// coordinates) and an independent Normal(m, s) real at x[k].
type simplexPlusNormal struct {
	dc   dirichletCounts
	m, s float64
}

func (t *simplexPlusNormal) LogJoint(x, grad []float64) (float64, error) {
	k := t.dc.k
	lp, _ := t.dc.LogJoint(x[:k], grad[:k])
	z := (x[k] - t.m) / t.s
	grad[k] = -z / t.s
	return lp - 0.5*z*z - math.Log(t.s) - halfLog2Pi, nil
}

func (t *simplexPlusNormal) Clone() Target { c := *t; return &c }

// Stick-breaking tolerances of TestFullRankSimplexFit: q is a normal on
// the logits of the sticks, not the Dirichlet, so it matches the exact
// means and sds only as closely as the logistic normal fits a Dirichlet of
// these concentrations (measured: means within 0.6 %, sds within 1.5 %).
const (
	stickMeanTol = 0.02 // relative, of the means
	stickSDTol   = 0.05 // relative, of the sds
)

// A seeded full-rank fit of a simplex[4] whose posterior is Dirichlet(1 +
// counts), alone and in a group with an independent normal: the means and
// sds of q's values (Factor.Mean, SD) are the exact ones; its draws and
// log q agree (SampleCoords, LogQCoords); its draws sum to 1; a step makes
// no allocation.
func TestFullRankSimplexFit(t *testing.T) {
	counts := []float64{12, 30, 5, 20}
	alpha := make([]float64, 4)
	for i, c := range counts {
		alpha[i] = 1 + c
	}
	wantM, wantS := dirichletMoments(alpha)
	lat := Latent{Name: "p", Size: 4, Shape: []int{4}, Support: dist.Simplex}
	for _, c := range []struct {
		name string
		tg   Target
		lats []Latent
		s    Settings
	}{
		{"p", &dirichletCounts{alpha: alpha, k: 4}, []Latent{lat},
			Settings{Seed: 3, Families: map[string]Family{"p": FamilyFullRank}}},
		{"p+mu", &simplexPlusNormal{dirichletCounts{alpha: alpha, k: 4}, 2, 0.5},
			[]Latent{lat, {Name: "mu", Offset: 4, Size: 1, Support: dist.Real}},
			Settings{Seed: 3, FullRankGroups: [][]string{{"p", "mu"}}}},
	} {
		r, err := Fit(context.Background(), c.tg, c.lats, c.s)
		if err != nil {
			t.Fatal(err)
		}
		f := r.Factor("p")
		if f.Family != FamilyFullRank || f.Size != 4 || len(f.Params[0]) != 3 {
			t.Fatalf("%s: factor %v of size %d with %d means, want fullrank of size 4 over 3 coordinates", c.name, f.Family, f.Size, len(f.Params[0]))
		}
		m, sd := f.Mean(), f.SD()
		t.Logf("%s: means %.4f (exact %.4f), sds %.4f (exact %.4f); %d iterations", c.name, m, wantM, sd, wantS, r.Iterations)
		for i := range m {
			if math.Abs(m[i]/wantM[i]-1) > stickMeanTol || math.Abs(sd[i]/wantS[i]-1) > stickSDTol {
				t.Errorf("%s: p[%d] mean %.4f sd %.4f, exact %.4f %.4f", c.name, i, m[i], sd[i], wantM[i], wantS[i])
			}
		}
		if len(c.lats) == 2 {
			mu := r.Factor("mu")
			mm, ms := mu.Mean()[0], mu.SD()[0]
			t.Logf("mu: %.4f ± %.4f (exact 2 ± 0.5)", mm, ms)
			if math.Abs(mm-2) > 0.05 || math.Abs(ms/0.5-1) > 0.1 {
				t.Errorf("mu: %.4f ± %.4f, exact 2 ± 0.5", mm, ms)
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		x := make([]float64, 5)
		for range 20 {
			lq := r.SampleCoords(rng, x)
			sum := 0.0
			for _, v := range x[:4] {
				sum += math.Exp(v)
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("%s: a draw of p sums to 1%+g", c.name, sum-1)
			}
			if got := r.LogQCoords(x); math.Abs(got-lq) > 1e-9*(1+math.Abs(lq)) {
				t.Errorf("%s: log q %.15g at the draw, %.15g sampled", c.name, got, lq)
			}
		}
		ws := c.s.withDefaults()
		e, err := newEngine(c.tg, c.lats, &ws)
		if err != nil {
			t.Fatal(err)
		}
		checkZeroAllocs(t, e, c.name)
		e.close()
	}
}
