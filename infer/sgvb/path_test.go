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

// TestPathStartSmoothedFailure: a path start whose smoothing draws all
// fail names the model's error, and without one says the points are not
// finite (it said "not finite in 0 consecutive steps (iteration 1)").
func TestPathStartSmoothedFailure(t *testing.T) {
	lats := []Latent{{Name: "beta", Size: 1, Shape: []int{1}, Support: dist.Real}}
	for _, modelErr := range []error{errShape, nil} {
		tg := &onlyAt{mvGauss: newMVGauss([]float64{1}, mat.NewSymDense(1, []float64{1}), false), err: modelErr}
		_, err := Fit(context.Background(), tg, lats, Settings{Seed: 1, InitPath: true})
		if err == nil {
			t.Fatalf("model error %v: no error", modelErr)
		}
		if !strings.Contains(err.Error(), "points around the start the path smooths it over") || strings.Contains(err.Error(), "consecutive") {
			t.Errorf("model error %v: %v", modelErr, err)
		}
		if modelErr != nil && !errors.Is(err, modelErr) {
			t.Errorf("the error %q does not wrap the model's %q", err, modelErr)
		}
		if modelErr == nil && !errors.Is(err, errNotFiniteHere) {
			t.Errorf("the error %q is not errNotFiniteHere", err)
		}
	}
}
