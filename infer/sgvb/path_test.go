package sgvb

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/dist"
)

// TestPathStartFarNormal starts q from the path on a normal posterior
// hundreds of sds from the default start: the chosen start has each mean
// within 0.1 sd of the posterior's and, from the Hessian's diagonal,
// each sd within 2 % of it (a diagonal Σ, where mean-field's optimum is
// exact), for a mean-field factor and a full-rank one; the default start
// stays at 0 with sd 0.1.
func TestPathStartFarNormal(t *testing.T) {
	m := []float64{500, -300}
	sd := []float64{2, 0.5}
	sigma := mat.NewSymDense(2, []float64{sd[0] * sd[0], 0, 0, sd[1] * sd[1]})
	for _, fam := range []Family{FamilyNormal, FamilyFullRank} {
		tg := newMVGauss(m, sigma, false)
		lats := []Latent{{Name: "beta", Size: 2, Shape: []int{2}, Support: dist.Real}}
		for _, path := range []bool{false, true} {
			s := Settings{Seed: 3, InitPath: path, Families: map[string]Family{"beta": fam}}.withDefaults()
			e, err := newEngine(tg, lats, &s)
			if err != nil {
				t.Fatal(err)
			}
			if !path {
				if e.theta[0] != 0 || e.theta[1] != 0 || math.Abs(softplus(e.theta[2])-initSD) > 1e-12 {
					t.Errorf("%v: default start %v, want means 0 and sd %v", fam, e.theta[:4], initSD)
				}
				e.close()
				continue
			}
			ps, err := e.pathStart(context.Background())
			e.close()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v: point %d of %d (converged %v), ELBO %.4g ± %.2g", fam, ps.Iterate, ps.Iterates, ps.Converged, ps.ELBO, ps.SE)
			for i := range m {
				mu, s := e.theta[i], softplus(e.theta[2+i])
				if math.Abs(mu-m[i]) > 0.1*sd[i] || math.Abs(s/sd[i]-1) > 0.02 {
					t.Errorf("%v: element %d starts at mean %.4f, sd %.4f; the posterior's %v, %v", fam, i, mu, s, m[i], sd[i])
				}
			}
			if ps.Iterate == 0 {
				t.Errorf("%v: the default start was chosen", fam)
			}
		}
	}
}

// TestPathStartNotWithInit: a path start and a warm start are two
// starts.
func TestPathStartNotWithInit(t *testing.T) {
	tg := newMVGauss([]float64{1}, mat.NewSymDense(1, []float64{1}), false)
	lats := []Latent{{Name: "beta", Size: 1, Shape: []int{1}, Support: dist.Real}}
	if _, err := Fit(context.Background(), tg, lats, Settings{Seed: 1, InitPath: true, Init: &Result{}}); err == nil {
		t.Error("InitPath with Init: no error")
	}
}

// A path start runs once before the fit: the steps and ELBO evaluations
// after it allocate nothing, as without it.
func TestPathStartThenZeroAllocStep(t *testing.T) {
	for _, fam := range []Family{FamilyNormal, FamilyFullRank} {
		tg := newMVGauss([]float64{50, -30}, mat.NewSymDense(2, []float64{4, 0.3, 0.3, 0.25}), false)
		lats := []Latent{{Name: "beta", Size: 2, Shape: []int{2}, Support: dist.Real}}
		s := Settings{Seed: 3, InitPath: true, Families: map[string]Family{"beta": fam}}.withDefaults()
		e, err := newEngine(tg, lats, &s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.pathStart(context.Background()); err != nil {
			e.close()
			t.Fatal(err)
		}
		checkZeroAllocs(t, e, fam.String())
		e.close()
	}
}

// onlyAt is a target finite only at the first point it is asked for:
// a start that is finite while every point around it fails.
type onlyAt struct {
	*mvGauss
	first []float64
	err   error // returned with the NaN away from first (nil: none)
}

func (o *onlyAt) LogJoint(x, grad []float64) (float64, error) {
	if o.first == nil {
		o.first = append([]float64(nil), x...)
	}
	for i, v := range x {
		if v != o.first[i] {
			return math.NaN(), o.err
		}
	}
	return o.mvGauss.LogJoint(x, grad)
}

func (o *onlyAt) Clone() Target { c := *o; return &c }

// TestPathStartSmoothedFailure: a start where the log density is finite
// while every point around it fails is no error of the smoothing, which
// falls back to none: the path has no step to take, and the fit fails
// later, with the model's error where it gave one (it said "not finite
// in 0 consecutive steps (iteration 1)", then "not finite at some of the
// 8 points around the start the path smooths it over").
func TestPathStartSmoothedFailure(t *testing.T) {
	lats := []Latent{{Name: "beta", Size: 1, Shape: []int{1}, Support: dist.Real}}
	for _, modelErr := range []error{errShape, nil} {
		tg := &onlyAt{mvGauss: newMVGauss([]float64{1}, mat.NewSymDense(1, []float64{1}), false), err: modelErr}
		_, err := Fit(context.Background(), tg, lats, Settings{Seed: 1, InitPath: true})
		if err == nil {
			t.Fatalf("model error %v: no error", modelErr)
		}
		if strings.Contains(err.Error(), "smooths it over") || strings.Contains(err.Error(), " 0 consecutive") {
			t.Errorf("model error %v: %v", modelErr, err)
		}
		if modelErr != nil && !errors.Is(err, modelErr) {
			t.Errorf("the error %q does not wrap the model's %q", err, modelErr)
		}
	}
}

// inBand is a normal posterior whose log density fails (NaN and the
// model's error) outside |x_i| < w: a model whose log's argument goes
// negative away from the start, as a surplus-production model's
// P + rP(1−P) − C/K.
type inBand struct {
	*mvGauss
	w float64
}

func (b *inBand) LogJoint(x, grad []float64) (float64, error) {
	for _, v := range x {
		if math.Abs(v) >= b.w {
			return math.NaN(), errShape
		}
	}
	return b.mvGauss.LogJoint(x, grad)
}

func (b *inBand) Clone() Target { c := *b; return &c }

// TestPathStartShrinksSmoothing: where the smoothing's draws of sd
// PathSmoothSD leave the model's domain around a start inside it, the
// path smooths by a smaller sd (--init path failed with the model's
// domain error), its line search backs off trial points whose smoothing
// draws leave it, and the chosen start is near the posterior's mean.
func TestPathStartShrinksSmoothing(t *testing.T) {
	lats := []Latent{{Name: "beta", Size: 1, Shape: []int{1}, Support: dist.Real}}
	tg := &inBand{mvGauss: newMVGauss([]float64{0.2}, mat.NewSymDense(1, []float64{0.05 * 0.05}), false), w: 1}
	s := Settings{Seed: 1, InitPath: true}.withDefaults()
	e, err := newEngine(tg, lats, &s)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	ps, err := e.pathStart(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("smoothing sd %g, point %d of %d, ELBO %.4g ± %.2g, mean %.4f", ps.SmoothSD, ps.Iterate, ps.Iterates, ps.ELBO, ps.SE, e.theta[0])
	if !(ps.SmoothSD > 0 && ps.SmoothSD < PathSmoothSD) {
		t.Errorf("smoothing sd %g, want one below %v that is finite around the start", ps.SmoothSD, float64(PathSmoothSD))
	}
	if ps.Iterate == 0 || math.Abs(e.theta[0]-0.2) > 0.05 {
		t.Errorf("started from point %d at mean %.4f, want a point of the path within 1 sd of 0.2", ps.Iterate, e.theta[0])
	}
}

// TestPathSmoothing: the smoothing sd is PathSmoothSD's factor 1 where
// that is finite at the start, the first halving that is, or 0 (the log
// density itself) when none of PathSmoothHalvings is.
func TestPathSmoothing(t *testing.T) {
	for _, c := range []struct {
		limit float64 // ok holds for sd ≤ limit
		want  float64
	}{{2, 1}, {1, 1}, {0.3, 0.25}, {math.Ldexp(1, -PathSmoothHalvings), math.Ldexp(1, -PathSmoothHalvings)}, {math.Ldexp(1, -PathSmoothHalvings-1), 0}, {-1, 0}} {
		if got := pathSmoothing(func(sd float64) bool { return sd <= c.limit }); got != c.want {
			t.Errorf("finite up to sd %g: %g, want %g", c.limit, got, c.want)
		}
	}
}

// TestLBFGSBacksOffDomainErrors: MAP's, Laplace's and Pathfinder's
// L-BFGS count a trial point where the log density fails (the model's
// error, as a log of a negative number) as +Inf in −log p, and gonum's
// Bisection line search shrinks the step, as Stan's backtracking does:
// from the start 0 of a normal posterior at 0.2 (sd 0.05) defined only
// for |x| < 0.45 (5 sds out: Pathfinder's normals, as Stan's, are scored
// only where all their draws are finite), the first step (along a
// gradient of 80) lands outside, and each fit still ends at the mode.
func TestLBFGSBacksOffDomainErrors(t *testing.T) {
	lats := []Latent{{Name: "beta", Size: 1, Shape: []int{1}, Support: dist.Real}}
	for _, m := range []Method{MAP, Laplace, Pathfinder} {
		tg := &inBand{mvGauss: newMVGauss([]float64{0.2}, mat.NewSymDense(1, []float64{0.05 * 0.05}), false), w: 0.45}
		r, err := Fit(context.Background(), tg, lats, Settings{Seed: 1, Method: m})
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		mean := r.Mean()[0]
		t.Logf("%v: %d trial points outside, mean %.5f", m, r.BadSteps, mean)
		if r.BadSteps == 0 {
			t.Errorf("%v: no trial point left the domain: the test tests nothing", m)
		}
		if math.Abs(mean-0.2) > 1e-3 {
			t.Errorf("%v: mean %.5f, want the mode 0.2", m, mean)
		}
	}
}
