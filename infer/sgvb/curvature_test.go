package sgvb

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/dist"
)

// curvTol bounds the error of the curvature check's ratios on a normal
// posterior, whose Hessian central differences give up to rounding
// (laplaceHessTol's O(ε/h)).
const curvTol = 1e-6

// TestMeanFieldCurvatureNormal: on a normal posterior of precision P the
// check's ratios are √(Σ_ii P_ii) and its correlation Σ's, whatever q's
// mean (the Hessian is constant); a joint factor over both coordinates
// leaves nothing (GroupRatios 1), over one of them the ratio as it was.
func TestMeanFieldCurvatureNormal(t *testing.T) {
	g := &regression2{x: []float64{2, 2.5, 3, 3.5, 4}, y: []float64{1.1, 1.4, 2.2, 2.4, 3.1}, tau: 2}
	lats := []Latent{{Name: "b0", Offset: 0, Size: 1, Support: dist.Real}, {Name: "b1", Offset: 1, Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), g, lats, Settings{Seed: 1, PSISDraws: -1})
	if err != nil {
		t.Fatal(err)
	}
	ud, err := NewUnconstrained(g, lats)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.MeanFieldCurvature(context.Background(), ud)
	if err != nil {
		t.Fatal(err)
	}
	_, S := g.posterior()
	var P mat.SymDense
	var ch mat.Cholesky
	ch.Factorize(S)
	ch.InverseTo(&P)
	rho := S.At(0, 1) / math.Sqrt(S.At(0, 0)*S.At(1, 1))
	for i := range 2 {
		want := math.Sqrt(S.At(i, i) * P.At(i, i))
		if math.Abs(c.Ratio[i]-want) > curvTol*want {
			t.Errorf("ratio %d = %.9g, want %.9g", i, c.Ratio[i], want)
		}
		if c.Partner[i] != 1-i || math.Abs(c.Corr[i]-rho) > curvTol {
			t.Errorf("partner of %d = %d (correlation %.9g), want %d (%.9g)", i, c.Partner[i], c.Corr[i], 1-i, rho)
		}
		// 1/√(1 − ρ²) for two coordinates
		if w := 1 / math.Sqrt(1-rho*rho); math.Abs(c.Ratio[i]-w) > curvTol*w {
			t.Errorf("ratio %d = %.9g, want 1/√(1 − ρ²) = %.9g", i, c.Ratio[i], w)
		}
	}
	if !(c.Ratio[0] > 1.5) {
		t.Fatalf("ratio %.3g: the test wants correlated coordinates", c.Ratio[0])
	}
	// Scale is q's own sd against 1/√P_ii: σ_i √P_ii exactly, and near 1
	// where the fit has settled (mean-field's optimum is σ_i² = 1/P_ii)
	for i, f := range r.Factors {
		want := f.Params[1][0] * math.Sqrt(P.At(i, i))
		if math.Abs(c.Scale[i]-want) > curvTol*want {
			t.Errorf("scale %d = %.9g, want σ√P_ii = %.9g", i, c.Scale[i], want)
		}
		if math.Abs(c.Scale[i]-1) > 0.1 {
			t.Errorf("scale %d = %.4g for a settled fit, want 1 within 0.1", i, c.Scale[i])
		}
	}
	// Spread: the curvature across q's reach is the mode's on a normal
	// posterior, so s̃_i = s_i up to rounding
	for i := range 2 {
		if math.Abs(c.Spread[i]-c.Scale[i]) > curvTol*c.Scale[i] {
			t.Errorf("spread %d = %.9g, want the scale %.9g on a normal posterior", i, c.Spread[i], c.Scale[i])
		}
	}
	for i, v := range c.GroupRatios([]bool{true, true}) {
		if math.Abs(v-1) > curvTol {
			t.Errorf("joint factor: coordinate %d still %.9g too small, want 1", i, v)
		}
	}
	if v := c.GroupRatios([]bool{true, false}); math.Abs(v[0]-c.Ratio[0]) > curvTol*c.Ratio[0] {
		t.Errorf("a factor of one coordinate: %.9g, want its ratio %.9g", v[0], c.Ratio[0])
	}
}

// TestCurvatureNotDefinite: a Hessian that is not negative definite (a
// saddle) gives ErrNotDefinite, not ratios; a MAP fit is refused.
func TestCurvatureNotDefinite(t *testing.T) {
	H := mat.NewSymDense(2, []float64{-1, 2, 2, -1}) // eigenvalues 1, −3
	if _, err := curvatureOf(H); !errors.Is(err, ErrNotDefinite) {
		t.Errorf("saddle: %v, want ErrNotDefinite", err)
	}
	if c, err := curvatureOf(mat.NewSymDense(2, []float64{-2, 0, 0, -3})); err != nil || math.Abs(c.Ratio[0]-1) > curvTol || math.Abs(c.Ratio[1]-1) > curvTol {
		t.Errorf("independent: %v, %v, want ratios 1", c, err)
	}
	g := &regression2{x: []float64{1, 2}, y: []float64{1, 2}, tau: 1}
	lats := []Latent{{Name: "b0", Offset: 0, Size: 1, Support: dist.Real}, {Name: "b1", Offset: 1, Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), g, lats, Settings{Method: MAP, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ud, _ := NewUnconstrained(g, lats)
	if _, err := r.MeanFieldCurvature(context.Background(), ud); err == nil {
		t.Error("MAP: no error")
	}
}

// TestPartialCurvature: a precision Λ with one direction of negative
// curvature (a saddle of coordinates 2 and 3, tied to 1 by 0.3, whose
// part of the eigenvector, under a third of the largest, keeps it in)
// leaves those two out, and gives 0 and 1 the ratios and correlation of
// their block Λ_KK exactly, q's scales σ_i √Λ_ii, and a joint factor
// over them ratio 1; a Λ bent the wrong way along two directions says so
// (WrongWay 2), and one where every coordinate would be left out has no
// partial check.
func TestPartialCurvature(t *testing.T) {
	L := mat.NewSymDense(4, []float64{
		1, 0.8, 0, 0,
		0.8, 1, 0.3, 0,
		0, 0.3, 1, 2,
		0, 0, 2, 1,
	})
	sd := []float64{0.5, 2, 1, 1}
	c := partialCurvature(L, sd, flatDirection(L, sd))
	if c == nil {
		t.Fatal("no partial check")
	}
	if want := []bool{false, false, true, true}; !slices.Equal(c.Left, want) || c.WrongWay != 1 {
		t.Fatalf("left %v (wrong way %d), want %v (1)", c.Left, c.WrongWay, want)
	}
	want := 1 / math.Sqrt(1-0.8*0.8) // the block [[1, 0.8], [0.8, 1]]'s
	for i := range 2 {
		if math.Abs(c.Ratio[i]-want) > curvTol*want || c.Partner[i] != 1-i || math.Abs(c.Corr[i]+0.8) > curvTol {
			t.Errorf("coordinate %d: ratio %.9g, partner %d (%.9g), want %.9g, %d (−0.8)", i, c.Ratio[i], c.Partner[i], c.Corr[i], want, 1-i)
		}
		if math.Abs(c.Scale[i]-sd[i]) > curvTol {
			t.Errorf("scale %d = %.9g, want %v", i, c.Scale[i], sd[i])
		}
	}
	for i := 2; i < 4; i++ {
		if !math.IsNaN(c.Ratio[i]) || !math.IsNaN(c.Scale[i]) || c.Partner[i] != -1 {
			t.Errorf("left-out coordinate %d: ratio %v, scale %v, partner %d; want NaN, NaN, −1", i, c.Ratio[i], c.Scale[i], c.Partner[i])
		}
	}
	if v := c.GroupRatios([]bool{true, true, false, false}); math.Abs(v[0]-1) > curvTol || math.Abs(v[1]-1) > curvTol {
		t.Errorf("joint factor over 0 and 1: %v, want 1", v[:2])
	}
	two := mat.NewSymDense(5, nil) // two saddles and a coordinate of its own
	for _, b := range []int{0, 2} {
		two.SetSym(b, b, 1)
		two.SetSym(b+1, b+1, 1)
		two.SetSym(b, b+1, 2)
	}
	two.SetSym(4, 4, 3)
	sd5 := []float64{1, 1, 1, 1, 1}
	if c := partialCurvature(two, sd5, flatDirection(two, sd5)); c == nil || c.WrongWay != 2 || !slices.Equal(c.Left, []bool{true, true, true, true, false}) {
		t.Errorf("two saddles: %+v, want wrong way 2 and 0–3 left out", c)
	}
	saddle := mat.NewSymDense(2, []float64{1, 2, 2, 1})
	if c := partialCurvature(saddle, sd[:2], flatDirection(saddle, sd[:2])); c != nil {
		t.Errorf("a saddle alone: %+v, want no partial check", c)
	}
	// one wrong-way direction, along coordinate 0, whose rest [1 1; 1 1]
	// is singular: no partial check either
	rest := mat.NewSymDense(3, []float64{-10, 0.1, 0, 0.1, 1, 1, 0, 1, 1})
	if c := partialCurvature(rest, sd5[:3], flatDirection(rest, sd5[:3])); c != nil {
		t.Errorf("a singular rest: %+v, want no partial check", c)
	}
}

// censored1 is the log density of one value x with prior N(2, 3²) whose
// signal fell below a limit: + log Φ(−x/w), a soft wall at 0 of width w.
type censored1 struct{ w float64 }

func (g *censored1) LogJoint(x, grad []float64) (float64, error) {
	z := -x[0] / g.w
	logPhi := math.Log(0.5 * math.Erfc(-z/math.Sqrt2))
	pdf := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
	grad[0] = -(x[0]-2)/9 - pdf/math.Exp(logPhi)/g.w
	return -(x[0]-2)*(x[0]-2)/18 + logPhi, nil
}

func (g *censored1) Clone() Target { c := *g; return &c }

// TestSpreadOneSided: on a one-sided posterior (a value censored below a
// limit) a settled mean-field q's sd is far from the curvature's at its
// mode, which sits where the prior alone bends it (Scale well below 1/2),
// but matches the curvature across its reach (Spread within 2× of 1),
// as it would on a normal posterior; a longer fit does not move it.
func TestSpreadOneSided(t *testing.T) {
	g := &censored1{w: 0.3}
	lats := []Latent{{Name: "x", Offset: 0, Size: 1, Support: dist.Real}}
	ud, err := NewUnconstrained(g, lats)
	if err != nil {
		t.Fatal(err)
	}
	var sds []float64
	for _, tol := range []float64{1e-4, 1e-6} {
		r, err := Fit(context.Background(), g, lats, Settings{Seed: 1, PSISDraws: -1, Tol: tol, MaxIter: 50000})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.MeanFieldCurvature(context.Background(), ud)
		if err != nil {
			t.Fatal(err)
		}
		if !(c.Scale[0] < 0.5) {
			t.Errorf("tol %g: scale %.3g, want below 0.5 (the mode's curvature is the prior's)", tol, c.Scale[0])
		}
		if !(c.Spread[0] > 0.5 && c.Spread[0] < 2) {
			t.Errorf("tol %g: spread %.3g, want within 2× of 1 (q settled)", tol, c.Spread[0])
		}
		_, sd, err := r.coordModes(ud)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("tol %g: scale %.3g, spread %.3g, sd %.3g", tol, c.Scale[0], c.Spread[0], sd[0])
		sds = append(sds, sd[0])
	}
	if math.Abs(sds[1]/sds[0]-1) > 0.1 {
		t.Errorf("sd %.3g at tol 1e-4, %.3g at 1e-6: want the fit settled", sds[0], sds[1])
	}
}

// dirichletReal is the density of a simplex w ~ Dirichlet(alpha) (Target
// coordinates log w) and, after it, a ~ N(0, 1).
type dirichletReal struct{ alpha []float64 }

func (g dirichletReal) LogJoint(x, grad []float64) (float64, error) {
	k := len(g.alpha)
	lp := -x[k] * x[k] / 2
	grad[k] = -x[k]
	for j, a := range g.alpha {
		lp += (a - 1) * x[j]
		grad[j] = a - 1
	}
	return lp, nil
}

func (g dirichletReal) Clone() Target { return g }

// TestMeanFieldCurvatureDirichlet: a simplex's Dirichlet factor is checked
// on its K − 1 stick-breaking coordinates, in which q is mean-field too
// (stick j's share is Beta(α_j, Σ_{i>j} α_i), independent of the others):
// q's mode there is the simplex α/Σα of q's α, each coordinate's sd a
// beta factor's logit's, the coordinates of the latent after it shift by
// one, and on a Dirichlet posterior, whose stick-breaking coordinates are
// independent too, every ratio is 1 and each scale σ_j √Λ_jj with Λ_jj =
// (a + b) z(1 − z), a and b the posterior's Beta parameters and z q's
// share. Until 2026-12-02 a Dirichlet factor made the check an error,
// which the fit did not report.
func TestMeanFieldCurvatureDirichlet(t *testing.T) {
	g := dirichletReal{alpha: []float64{2, 3, 4, 5}}
	k := len(g.alpha)
	lats := []Latent{{Name: "w", Offset: 0, Size: k, Shape: []int{k}, Support: dist.Simplex}, {Name: "a", Offset: k, Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), g, lats, Settings{Seed: 1, PSISDraws: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Factors[0].Family != FamilyDirichlet {
		t.Fatalf("w's factor %v, want dirichlet", r.Factors[0].Family)
	}
	ud, err := NewUnconstrained(g, lats)
	if err != nil {
		t.Fatal(err)
	}
	u, sd, err := r.coordModes(ud)
	if err != nil || len(u) != k {
		t.Fatalf("%d coordinates, %v; want %d", len(u), err, k)
	}
	aq := r.Factors[0].Params[0]
	x := make([]float64, k+1)
	ud.Coords(u, x)
	sum := 0.0
	for _, v := range aq {
		sum += v
	}
	for j, v := range aq {
		if want := math.Log(v / sum); math.Abs(x[j]-want) > curvTol {
			t.Errorf("q's mode: log w[%d] = %.9g, want log(α_%d/Σα) = %.9g", j, x[j], j, want)
		}
	}
	if x[k] != r.Factors[1].Params[0][0] || sd[k-1] != r.Factors[1].Params[1][0] {
		t.Errorf("a at q's mode %.9g ± %.9g, want its factor's %.9g ± %.9g", x[k], sd[k-1], r.Factors[1].Params[0][0], r.Factors[1].Params[1][0])
	}
	c, err := r.MeanFieldCurvature(context.Background(), ud)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ratio) != k || len(c.Scale) != k {
		t.Fatalf("%d ratios, %d scales; want %d", len(c.Ratio), len(c.Scale), k)
	}
	tail, tailQ := 0.0, 0.0
	for j := k - 1; j >= 1; j-- {
		tail += g.alpha[j]
		tailQ += aq[j]
	}
	for j := range k - 1 {
		if math.Abs(c.Ratio[j]-1) > curvTol {
			t.Errorf("stick %d: ratio %.9g, want 1", j, c.Ratio[j])
		}
		a, b, z := g.alpha[j], tail, aq[j]/(aq[j]+tailQ)
		sdq := math.Sqrt(dist.Trigamma(aq[j]) + dist.Trigamma(tailQ))
		if want := sdq * math.Sqrt((a+b)*z*(1-z)); math.Abs(sd[j]-sdq) > curvTol*sdq || math.Abs(c.Scale[j]-want) > curvTol*want {
			t.Errorf("stick %d: sd %.9g, scale %.9g; want %.9g, %.9g", j, sd[j], c.Scale[j], sdq, want)
		}
		if j+1 < k-1 {
			tail -= g.alpha[j+1]
			tailQ -= aq[j+1]
		}
	}
	if math.Abs(c.Ratio[k-1]-1) > curvTol || math.Abs(c.Scale[k-1]-sd[k-1]) > curvTol {
		t.Errorf("a: ratio %.9g, scale %.9g; want 1, its sd %.9g", c.Ratio[k-1], c.Scale[k-1], sd[k-1])
	}
}

// TestMeanFieldCurvatureSimplexMatrix: a matrix of simplex rows (a
// transition matrix) has K − 1 stick-breaking coordinates a row, each row's
// α read at its own offset: q's mode is every row's α/Σα and, on the
// Dirichlet posterior of independent rows, every ratio is 1.
func TestMeanFieldCurvatureSimplexMatrix(t *testing.T) {
	g := dirichletReal{alpha: []float64{2, 3, 4, 5, 1.5, 2.5}}
	lats := []Latent{{Name: "w", Offset: 0, Size: 6, Shape: []int{2, 3}, Support: dist.Simplex}, {Name: "a", Offset: 6, Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), g, lats, Settings{Seed: 1, PSISDraws: -1})
	if err != nil {
		t.Fatal(err)
	}
	ud, err := NewUnconstrained(g, lats)
	if err != nil {
		t.Fatal(err)
	}
	u, _, err := r.coordModes(ud)
	if err != nil || len(u) != 5 {
		t.Fatalf("%d coordinates, %v; want 5", len(u), err)
	}
	x := make([]float64, 7)
	ud.Coords(u, x)
	aq := r.Factors[0].Params[0]
	for row := range 2 {
		a := aq[3*row : 3*row+3]
		for j := range 3 {
			if want := math.Log(a[j] / (a[0] + a[1] + a[2])); math.Abs(x[3*row+j]-want) > curvTol {
				t.Errorf("q's mode: log w[%d, %d] = %.9g, want log(α/Σα) = %.9g", row, j, x[3*row+j], want)
			}
		}
	}
	c, err := r.MeanFieldCurvature(context.Background(), ud)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range c.Ratio {
		if math.Abs(v-1) > curvTol {
			t.Errorf("coordinate %d: ratio %.9g, want 1", i, v)
		}
	}
}
