package sgvb

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/dist"
)

// Tolerances of the Laplace tests: laplaceTol for a mode and a covariance
// where the posterior is normal (the finite differences of a linear
// gradient are exact to rounding), laplaceHessTol for the Hessian of a
// non-quadratic log density against its analytic one (O(h²) with
// h ≈ 6·10⁻⁶, and rounding O(ε/h)).
const (
	laplaceTol     = 1e-6
	laplaceHessTol = 1e-6
)

// regression2 is y_i ~ N(b0 + b1·x_i, 1) with b0, b1 ~ N(0, tau²), b0 and
// b1 two latents: its posterior is normal.
type regression2 struct {
	x, y []float64
	tau  float64
}

func (g *regression2) LogJoint(z, grad []float64) (float64, error) {
	b0, b1 := z[0], z[1]
	lp := -(b0*b0 + b1*b1) / (2 * g.tau * g.tau)
	grad[0], grad[1] = -b0/(g.tau*g.tau), -b1/(g.tau*g.tau)
	for i, x := range g.x {
		r := g.y[i] - b0 - b1*x
		lp -= r * r / 2
		grad[0] += r
		grad[1] += r * x
	}
	return lp, nil
}

func (g *regression2) Clone() Target { c := *g; return &c }

// posterior returns the exact posterior mean and covariance.
func (g *regression2) posterior() ([]float64, *mat.SymDense) {
	P := mat.NewSymDense(2, []float64{1 / (g.tau * g.tau), 0, 0, 1 / (g.tau * g.tau)})
	v := make([]float64, 2)
	for i, x := range g.x {
		P.SetSym(0, 0, P.At(0, 0)+1)
		P.SetSym(0, 1, P.At(0, 1)+x)
		P.SetSym(1, 1, P.At(1, 1)+x*x)
		v[0] += g.y[i]
		v[1] += g.y[i] * x
	}
	var ch mat.Cholesky
	ch.Factorize(P)
	var S mat.SymDense
	ch.InverseTo(&S)
	var m mat.VecDense
	m.MulVec(&S, mat.NewVecDense(2, v))
	return []float64{m.AtVec(0), m.AtVec(1)}, &S
}

// A normal posterior is its own Laplace approximation: the fit's mean,
// sds and correlation are the posterior's.
func TestLaplaceNormalExact(t *testing.T) {
	g := &regression2{x: []float64{-1, 0.5, 1, 2, 3}, y: []float64{-0.8, 1.1, 1.4, 2.9, 3.2}, tau: 2}
	lats := []Latent{{Name: "b0", Offset: 0, Size: 1, Support: dist.Real}, {Name: "b1", Offset: 1, Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), g, lats, Settings{Method: Laplace, Seed: 1, PSISDraws: 500})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != Laplace || !r.Converged || len(r.Groups) != 1 {
		t.Fatalf("method %v, converged %v, %d groups", r.Method, r.Converged, len(r.Groups))
	}
	m, S := g.posterior()
	p := r.Groups[0].Params
	cov := func(i, j int) float64 { // (LLᵀ)_ij
		s := 0.0
		for k := range 2 {
			s += p[1+k][i] * p[1+k][j]
		}
		return s
	}
	for i := range 2 {
		if math.Abs(p[0][i]-m[i]) > laplaceTol {
			t.Errorf("mean[%d] %.9g, want %.9g", i, p[0][i], m[i])
		}
		if sd, want := math.Sqrt(cov(i, i)), math.Sqrt(S.At(i, i)); math.Abs(sd-want) > laplaceTol {
			t.Errorf("sd[%d] %.9g, want %.9g", i, sd, want)
		}
	}
	corr := cov(0, 1) / math.Sqrt(cov(0, 0)*cov(1, 1))
	want := S.At(0, 1) / math.Sqrt(S.At(0, 0)*S.At(1, 1))
	if math.Abs(corr-want) > laplaceTol {
		t.Errorf("correlation %.9g, want %.9g", corr, want)
	}
	// q is p: the importance ratios are constant
	if !(r.ParetoK < 0.5) {
		t.Errorf("k̂ %v, want < 0.5 where q is the posterior", r.ParetoK)
	}
}

// The Laplace approximation of a Gamma–Poisson posterior on u = log λ:
// the density of u, Jacobian included, is (a + Σy)u − (b + n)eᵘ, whose
// mode is log((a + Σy)/(b + n)) and whose Hessian there is −(a + Σy).
func TestLaplaceGammaPoisson(t *testing.T) {
	g := newGammaPoisson([]float64{3, 1, 4, 1, 5, 9}, 2, 0.5)
	r, err := Fit(context.Background(), g, g.latents(), Settings{Method: Laplace, Seed: 3, PSISDraws: 2000})
	if err != nil {
		t.Fatal(err)
	}
	a, b := g.posterior()
	f := r.Factors[0]
	if f.Family != FamilyFullRank {
		t.Fatalf("family %v, want fullrank", f.Family)
	}
	if mode := math.Log(a / b); math.Abs(f.Params[0][0]-mode) > laplaceTol {
		t.Errorf("mode %.9g, want log((a+Σy)/(b+n)) = %.9g", f.Params[0][0], mode)
	}
	if sd := 1 / math.Sqrt(a); math.Abs(f.Params[1][0]-sd) > laplaceTol {
		t.Errorf("sd %.9g, want 1/√(a+Σy) = %.9g", f.Params[1][0], sd)
	}
	// the posterior of log λ is not normal, but near it at a + Σy = 25
	if !(r.ParetoK < 0.5) || math.IsNaN(r.ParetoK) {
		t.Errorf("k̂ %v, want a reading below 0.5", r.ParetoK)
	}
}

// muSigma is y ~ N(mu, s²) with mu ~ N(0, 1) and s ~ Exponential(1), s a
// positive latent: the density of (mu, u = log s), Jacobian included, is
// −mu²/2 − (y − mu)²e^{−2u}/2 − eᵘ.
type muSigma struct{ y float64 }

func (g *muSigma) LogJoint(z, grad []float64) (float64, error) {
	mu, u := z[0], z[1]
	s := math.Exp(u)
	r := g.y - mu
	grad[0] = -mu + r/(s*s)
	grad[1] = r*r/(s*s) - 1 - s // ∂/∂u of log p(s), the density of s: −log s − s
	return -mu*mu/2 - r*r/(2*s*s) - u - s, nil
}

func (g *muSigma) Clone() Target { c := *g; return &c }

// The central differences of the gradient give the analytic Hessian of
// the unconstrained log density at points that are not its mode.
func TestLaplaceHessian(t *testing.T) {
	g := &muSigma{y: 1.7}
	lats := []Latent{{Name: "mu", Offset: 0, Size: 1, Support: dist.Real}, {Name: "s", Offset: 1, Size: 1, Support: dist.Positive}}
	s, err := laplaceSettings(lats, Settings{Method: Laplace})
	if err != nil {
		t.Fatal(err)
	}
	s = s.withDefaults()
	e, err := newEngine(g, lats, &s)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	ud, err := NewUnconstrained(g, lats)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range [][]float64{{0.3, -0.4}, {-1.2, 0.8}, {2, 0.1}} {
		H, err := e.laplaceHessian(context.Background(), ud, u)
		if err != nil {
			t.Fatal(err)
		}
		mu, w := u[0], math.Exp(-2*u[1])
		r := g.y - mu
		want := [2][2]float64{{-1 - w, -2 * r * w}, {-2 * r * w, -2*r*r*w - math.Exp(u[1])}}
		for i := range 2 {
			for j := range 2 {
				if got := H.At(i, j); math.Abs(got-want[i][j]) > laplaceHessTol*(1+math.Abs(want[i][j])) {
					t.Errorf("u %v: H[%d][%d] %.9g, want %.9g", u, i, j, got, want[i][j])
				}
			}
		}
	}
}

// saddle is a ~ N(0, 1) and y = 5 ~ N(b², 1) with b ~ N(0, 10²): from the
// default start b = 0, where the gradient in b is 0, L-BFGS stops at a
// point where the density is convex in b.
type saddle struct{}

func (saddle) LogJoint(z, grad []float64) (float64, error) {
	a, b := z[0], z[1]
	r := 5 - b*b
	grad[0] = -a
	grad[1] = 2*r*b - b/100
	return -a*a/2 - r*r/2 - b*b/200, nil
}

func (saddle) Clone() Target { return saddle{} }

// As MAP, a Laplace fit restarts L-BFGS around a saddle it stopped at and
// centres q at a mode: b² = 5 − 1/200.
func TestLaplaceSaddle(t *testing.T) {
	lats := []Latent{{Name: "a", Offset: 0, Size: 1, Support: dist.Real}, {Name: "b", Offset: 1, Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), saddle{}, lats, Settings{Method: Laplace, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Groups[0].Params
	if b := p[0][1]; !r.Converged || math.Abs(b*b-(5-0.005)) > laplaceTol || math.Abs(p[0][0]) > laplaceTol {
		t.Errorf("converged %v at a = %g, b = %g; want a = 0, b² = 4.995", r.Converged, p[0][0], b)
	}
	if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "saddle") {
		t.Errorf("warnings %q, want the saddle's", r.Warnings)
	}
}

// flat is a ~ N(0, 1) and b with a flat prior that nothing else reads: the
// log density has no curvature in b.
type flat struct{}

func (flat) LogJoint(z, grad []float64) (float64, error) {
	grad[0], grad[1] = -z[0], 0
	return -z[0] * z[0] / 2, nil
}

func (flat) Clone() Target { return flat{} }

// nearlyFlat is a ~ N(0, 1) and b ~ N(0, 10⁹²): −H is positive definite,
// but its condition number, 10¹⁸, leaves no usable inverse.
type nearlyFlat struct{}

func (nearlyFlat) LogJoint(z, grad []float64) (float64, error) {
	grad[0], grad[1] = -z[0], -1e-18*z[1]
	return -z[0]*z[0]/2 - 1e-18*z[1]*z[1]/2, nil
}

func (nearlyFlat) Clone() Target { return nearlyFlat{} }

// Where −H is not positive definite, or too near singular to invert, the
// fit fails with a LaplaceError naming the coordinate of the direction
// along which the density does not curve down.
func TestLaplaceNotDefinite(t *testing.T) {
	lats := []Latent{{Name: "a", Offset: 0, Size: 1, Support: dist.Real}, {Name: "b", Offset: 1, Size: 1, Support: dist.Real}}
	for _, g := range []Target{flat{}, nearlyFlat{}} {
		r, err := Fit(context.Background(), g, lats, Settings{Method: Laplace, Seed: 1})
		var le *LaplaceError
		if !errors.As(err, &le) {
			t.Fatalf("%T: result %v, error %v; want a LaplaceError", g, r, err)
		}
		if le.Latent != "b" || le.Elem != -1 || le.Eigen != 0 {
			t.Errorf("%T: error at %s[%d], eigenvalue %v; want b, 0", g, le.Latent, le.Elem, le.Eigen)
		}
	}
}

// A Laplace fit cancelled during L-BFGS is marked interrupted, and q is
// centred, as an interrupted MAP fit, at the best point reached, not at
// the start.
func TestLaplaceInterrupted(t *testing.T) {
	g := &regression2{x: []float64{-1, 0.5, 1, 2, 3}, y: []float64{9.2, 11.1, 11.4, 12.9, 13.2}, tau: 100}
	lats := []Latent{{Name: "b0", Offset: 0, Size: 1, Support: dist.Real}, {Name: "b1", Offset: 1, Size: 1, Support: dist.Real}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last float64
	calls := 0
	r, err := Fit(ctx, g, lats, Settings{Method: Laplace, Seed: 1, Progress: func(p Progress) {
		last = p.ELBO
		if calls++; calls == 2 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted || r.Converged {
		t.Fatalf("interrupted %v, converged %v", r.Interrupted, r.Converged)
	}
	mean := r.Groups[0].Params[0]
	lp, _ := g.LogJoint(mean, make([]float64, 2))
	start, _ := g.LogJoint([]float64{0, 0}, make([]float64, 2))
	if !(lp >= last) || !(lp > start) {
		t.Errorf("q's centre %v: log density %g, at the start %g, at the last iteration reported %g", mean, lp, start, last)
	}
}

// Laplace takes no more than MaxLaplace coordinates, with an error naming
// why.
func TestLaplaceSettingsErrors(t *testing.T) {
	for _, lats := range [][]Latent{
		{{Name: "big", Offset: 0, Size: MaxLaplace + 1, Shape: []int{MaxLaplace + 1}, Support: dist.Real}},
		{{Name: "c", Offset: 0, Size: MaxLaplace + 1, Shape: []int{MaxLaplace + 1}, Support: dist.Ordered}},
	} {
		if _, err := laplaceSettings(lats, Settings{Method: Laplace}); err == nil {
			t.Errorf("%s: no error", lats[0].Name)
		}
	}
}

// mixedSupports is a ~ N(0, 1), s ~ Gamma(3, 2), w = 1 + 3b with
// b ~ Beta(2, 3), p ~ Dirichlet(2, 3, 4), an ordered o[3] with o_k ~
// N(k − 1, 1), a positive_ordered v[2] with v_k ~ Exponential(1): the log
// density of z in the Target's coordinates (log s, logit b, log p, o_0
// and log increments, log v_0 and log v_1 − v_0), no Jacobian.
type mixedSupports struct{}

func (mixedSupports) LogJoint(x, grad []float64) (float64, error) {
	a, ls, lb := x[0], x[1], x[2]
	b := sigmoid(lb)
	lp := -a*a/2 + 2*ls - 2*math.Exp(ls) + math.Log(b) + 2*math.Log1p(-b)
	grad[0], grad[1], grad[2] = -a, 2-2*math.Exp(ls), (1-b)-2*b
	for k, alpha := range []float64{2, 3, 4} {
		lp += (alpha - 1) * x[3+k]
		grad[3+k] = alpha - 1
	}
	o, v := make([]float64, 3), make([]float64, 2)
	dist.OrderedValues(o, x[6:9])
	dist.PositiveOrderedValues(v, x[9:11])
	back := 0.0 // Σ_{k≥j} ∂ log p/∂o_k, from the last element down
	for k := 2; k >= 0; k-- {
		r := o[k] - float64(k-1)
		lp -= r * r / 2
		back -= r
		grad[6+k] = back
		if k > 0 {
			grad[6+k] *= math.Exp(x[6+k])
		}
	}
	lp -= v[0] + v[1]
	grad[9], grad[10] = -2*math.Exp(x[9]), -math.Exp(x[10])
	return lp, nil
}

func (mixedSupports) Clone() Target { return mixedSupports{} }

// The draws of a Laplace q weigh as Stan's do: log p(z) − log q(z), the
// densities of the values that gpp reports (log_p__ − log_g__), differs
// from the unconstrained density (Jacobian included) less the normal's
// log density of u by one constant for every draw, for real, positive,
// scaled unit, simplex, ordered and positive_ordered latents: the
// full-rank factor's coordinates and Jacobians are NewUnconstrained's. Its
// mean is the mode of that density (Stan's jacobian=true), and the
// factors' moments are those of the draws.
func TestLaplaceWeightsAreStans(t *testing.T) {
	const laplaceGradTol = 1e-6 // central differences of step 1e-6 on a smooth density of O(1)
	lats := []Latent{
		{Name: "a", Offset: 0, Size: 1, Support: dist.Real},
		{Name: "s", Offset: 1, Size: 1, Support: dist.Positive},
		{Name: "w", Offset: 2, Size: 1, Support: dist.Unit, Loc: 1, Scale: 3},
		{Name: "p", Offset: 3, Size: 3, Shape: []int{3}, Support: dist.Simplex},
		{Name: "o", Offset: 6, Size: 3, Shape: []int{3}, Support: dist.Ordered},
		{Name: "v", Offset: 9, Size: 2, Shape: []int{2}, Support: dist.PositiveOrdered},
	}
	x0 := []float64{0.3, -0.2, 0.5, -1, 0.2, 0.1, -0.4, 0.3, -0.6, 0.2, -0.1}
	g0 := make([]float64, 11)
	mixedSupports{}.LogJoint(x0, g0)
	fg := fd.Gradient(nil, func(x []float64) float64 { lp, _ := mixedSupports{}.LogJoint(x, make([]float64, 11)); return lp }, x0, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	for i := range g0 {
		if math.Abs(g0[i]-fg[i]) > laplaceGradTol {
			t.Fatalf("mixedSupports: ∂/∂x_%d = %g, finite differences %g", i, g0[i], fg[i])
		}
	}
	r, err := Fit(context.Background(), mixedSupports{}, lats, Settings{Method: Laplace, Seed: 4, PSISDraws: 200})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Converged || len(r.Groups) != 1 {
		t.Fatalf("converged %v, %d groups", r.Converged, len(r.Groups))
	}
	ud, err := NewUnconstrained(mixedSupports{}, lats)
	if err != nil {
		t.Fatal(err)
	}
	n := ud.Dim()
	p := r.Groups[0].Params
	if len(p) != n+1 {
		t.Fatalf("%d params, want %d", len(p), n+1)
	}
	logN := func(u []float64) float64 { // log N(u; mean, LLᵀ), L lower
		z := make([]float64, n)
		s := 0.0
		for i := range n {
			v := u[i] - p[0][i]
			for j := range i {
				v -= p[1+j][i] * z[j]
			}
			z[i] = v / p[1+i][i]
			s += -z[i]*z[i]/2 - math.Log(p[1+i][i]) - 0.5*math.Log(2*math.Pi)
		}
		return s
	}
	if _, err := ud.LogDensity(p[0], make([]float64, n)); err != nil {
		t.Fatal(err)
	}
	gm := make([]float64, n)
	ud.LogDensity(p[0], gm)
	for i, v := range gm {
		if math.Abs(v) > laplaceGradTol {
			t.Errorf("∂/∂u_%d of the log density with Jacobian at q's mean = %g, not 0: not its mode", i, v)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	x, g, u, gu := make([]float64, 11), make([]float64, 11), make([]float64, n), make([]float64, n)
	c0 := math.NaN()
	for d := range 20 {
		logq := r.SampleCoords(rng, x)
		lp, _ := mixedSupports{}.LogJoint(x, g)
		ud.UCoords(x, u)
		lu, _ := ud.LogDensity(u, gu)
		c := (lp - logq) - (lu - logN(u))
		if d == 0 {
			c0 = c
		}
		if math.Abs(c-c0) > 1e-8 {
			t.Fatalf("draw %d: log p − log q − (log p_u − log N) = %.12g, draw 0 %.12g", d, c, c0)
		}
	}
	// the exact moments of the ordered latents under the joint q (their
	// parts correlated), fitted and read back, against draws
	checkOrderedMoments(t, r, 7, 8)
}

// regressionP is y_i ~ N(x_i·β, 1), β ~ N(0, I), with P coefficients and
// N rows drawn from a fixed seed: a normal posterior of P dimensions.
type regressionP struct {
	x    [][]float64
	y, r []float64
}

func newRegressionP(N, P int) *regressionP {
	rng := rand.New(rand.NewPCG(7, 8))
	g := &regressionP{y: make([]float64, N), r: make([]float64, N)}
	for i := range N {
		row := make([]float64, P)
		for j := range row {
			row[j] = rng.NormFloat64()
			g.y[i] += row[j] * float64(j%3-1)
		}
		g.y[i] += rng.NormFloat64()
		g.x = append(g.x, row)
	}
	return g
}

func (g *regressionP) LogJoint(b, grad []float64) (float64, error) {
	lp := 0.0
	for j, v := range b {
		lp -= v * v / 2
		grad[j] = -v
	}
	for i, row := range g.x {
		r := g.y[i]
		for j, v := range row {
			r -= v * b[j]
		}
		lp -= r * r / 2
		for j, v := range row {
			grad[j] += r * v
		}
	}
	return lp, nil
}

func (g *regressionP) Clone() Target { c := *g; return &c }

// BenchmarkLaplaceRegression50 times a whole Laplace fit of a regression
// with 50 coefficients and 200 rows: the mode, the Hessian (100
// gradients), the Cholesky factors and the final 1000 draws for k̂.
func BenchmarkLaplaceRegression50(b *testing.B) {
	g := newRegressionP(200, 50)
	lats := []Latent{{Name: "beta", Offset: 0, Size: 50, Shape: []int{50}, Support: dist.Real}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fit(context.Background(), g, lats, Settings{Method: Laplace, Seed: 1, Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// A Laplace fit stopped short of the mode (MaxIter 1) is not converged
// and says how far the Newton step would move q's centre.
func TestLaplaceNotConverged(t *testing.T) {
	g := newGammaPoisson([]float64{3, 1, 4, 1, 5, 9}, 2, 0.5)
	r, err := Fit(context.Background(), g, g.latents(), Settings{Method: Laplace, Seed: 3, MaxIter: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Converged || len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "Newton step from there moves lambda") {
		t.Errorf("converged %v, warnings %q", r.Converged, r.Warnings)
	}
}

// loneOrdered is an ordered o[2] with o_0 ~ N(0, 1) and o_1 ~ N(3, 1),
// the model's only latent: the density of z in the Target's coordinates
// (o_0, log(o_1 − o_0)), no Jacobian.
type loneOrdered struct{}

func (loneOrdered) LogJoint(x, grad []float64) (float64, error) {
	d := math.Exp(x[1])
	o0, o1 := x[0], x[0]+d
	grad[0] = -o0 - (o1 - 3)
	grad[1] = -(o1 - 3) * d
	return -o0*o0/2 - (o1-3)*(o1-3)/2, nil
}

func (loneOrdered) Clone() Target { return loneOrdered{} }

// A Laplace fit of a lone ordered latent makes its parts one full-rank
// group, as it does with other latents beside it (it panicked, finding
// no full-rank block). The mode of the unconstrained density (Jacobian
// + log d) has o_0 = −r with 2r² + 3r − 1 = 0, and q's mean of o_0,
// a coordinate of q's normal, is it.
func TestLaplaceLoneOrdered(t *testing.T) {
	lats := []Latent{{Name: "o", Offset: 0, Size: 2, Shape: []int{2}, Support: dist.Ordered}}
	r, err := Fit(context.Background(), loneOrdered{}, lats, Settings{Method: Laplace, Seed: 3, PSISDraws: 1000})
	if err != nil {
		t.Fatal(err)
	}
	want := -(math.Sqrt(17) - 3) / 4
	if got := r.Factor("o").Mean()[0]; math.Abs(got-want) > laplaceTol {
		t.Errorf("q's mean of o_0 %.9g, want the mode's %.9g", got, want)
	}
}
