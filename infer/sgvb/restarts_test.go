package sgvb

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// twoModes is log p(x) = log(½ N(x; lo, sd²) + ½ N(x; hi, sd²)), a
// normalised density (log evidence 0) with two modes that a normal q can
// only fit one at a time.
type twoModes struct{ lo, hi, sd float64 }

func (t *twoModes) LogJoint(x, grad []float64) (float64, error) {
	zl, zh := (x[0]-t.lo)/t.sd, (x[0]-t.hi)/t.sd
	a := -0.5*zl*zl - halfLog2Pi - math.Log(t.sd)
	b := -0.5*zh*zh - halfLog2Pi - math.Log(t.sd)
	l := dist.LogAddExp(a, b) - math.Ln2
	wa := math.Exp(a - math.Ln2 - l) // posterior weight of the left mode at x
	grad[0] = -(wa*zl + (1-wa)*zh) / t.sd
	return l, nil
}

func (t *twoModes) Clone() Target { c := *t; return &c }

func TestRestartZeroIsTheSingleFit(t *testing.T) {
	pg, lat := newPoissonGamma(20, 0.1, 1)
	s := Settings{Seed: 7, MaxIter: 300, Tol: -1, PSISDraws: 200}
	one, err := Fit(context.Background(), pg, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	m, err := FitRestarts(context.Background(), pg, lat, s, Restarts{N: 3})
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, one, m.Components[0])
	if m.Seeds[0] != 7 || m.Seeds[1] != RestartSeed(7, 1) || m.Seeds[1] == m.Seeds[2] {
		t.Errorf("seeds %v", m.Seeds)
	}
	if p0, p1 := m.Components[0].Factors[0].Params[0][0], m.Components[1].Factors[0].Params[0][0]; p0 == p1 {
		t.Errorf("restarts 0 and 1 ended at the same shape %v: their seeds do not reach the fit", p0)
	}
}

func TestRestartsDoNotDependOnParallel(t *testing.T) {
	pg, lat := newPoissonGamma(20, 0.1, 1)
	s := Settings{Seed: 3, MaxIter: 200, Tol: -1, PSISDraws: 300}
	a, err := FitRestarts(context.Background(), pg, lat, s, Restarts{N: 4, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitRestarts(context.Background(), pg, lat, s, Restarts{N: 4, Parallel: 3})
	if err != nil {
		t.Fatal(err)
	}
	for r := range a.Components {
		sameResult(t, a.Components[r], b.Components[r])
	}
	if a.ELBO != b.ELBO || a.ELBOSE != b.ELBOSE || math.Float64bits(a.ParetoK) != math.Float64bits(b.ParetoK) {
		t.Errorf("mixture ELBO %v ± %v k̂ %v with one goroutine, %v ± %v k̂ %v with three",
			a.ELBO, a.ELBOSE, a.ParetoK, b.ELBO, b.ELBOSE, b.ParetoK)
	}
}

// With a unimodal conjugate posterior every restart finds it, the mixture
// is the posterior again, and its ELBO is log p(y).
func TestRestartsConjugate(t *testing.T) {
	c := gpCases[0]
	gp := newGammaPoisson(c.y, c.a0, c.b0)
	s := conjugateSettings()
	s.MaxIter = 5000
	m, err := FitRestarts(context.Background(), gp, gp.latents(), s, Restarts{N: 3})
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(m.ELBO - c.logp); d > 4*m.ELBOSE+0.01 {
		t.Errorf("mixture ELBO %.5f ± %.2g, want log p(y) = %.5f", m.ELBO, m.ELBOSE, c.logp)
	}
	if m.ParetoK > 0.5 || m.ParetoReading != "good" {
		t.Errorf("mixture k̂ %v (%s), want good", m.ParetoK, m.ParetoReading)
	}
	mean := m.Mean()
	a, b := gp.posterior()
	if got, want := mean[0], a/b; math.Abs(got-want) > 0.02*want {
		t.Errorf("mixture mean %v, want the posterior mean %v", got, want)
	}
}

// On a two-mode posterior each normal q takes one mode. The mixture's ELBO
// then is −KL between the modes' shares among the restarts and the
// posterior's ½, ½: above every component's ELBO (log ½) by up to log 2.
func TestRestartsTwoModes(t *testing.T) {
	const mode = 5
	tm := &twoModes{lo: -mode, hi: mode, sd: 1}
	lat := []Latent{{Name: "x", Size: 1, Shape: []int{}, Support: dist.Real}}
	s := Settings{Seed: 1, MaxIter: 3000, Tol: -1, PSISDraws: 4000}
	const R = 6
	m, err := FitRestarts(context.Background(), tm, lat, s, Restarts{N: R})
	if err != nil {
		t.Fatal(err)
	}
	left := 0
	for r, c := range m.Components {
		mu := c.Factors[0].Params[0][0]
		if math.Abs(math.Abs(mu)-mode) > 0.2 {
			t.Fatalf("restart %d: mean %v, want one of the modes ±%v", r, mu, mode)
		}
		if math.Abs(c.ELBO-math.Log(0.5)) > 4*c.ELBOSE+0.01 {
			t.Errorf("restart %d: ELBO %v ± %v, want log ½", r, c.ELBO, c.ELBOSE)
		}
		if mu < 0 {
			left++
		}
	}
	if left == 0 || left == R {
		t.Fatalf("all %d restarts found the same mode: the test needs both (pick another seed)", R)
	}
	t.Logf("left %d of %d; mixture ELBO %.4f ± %.3g; components %.4f", left, R, m.ELBO, m.ELBOSE, m.Components[0].ELBO)
	w := float64(left) / R
	want := -(w*math.Log(w/0.5) + (1-w)*math.Log((1-w)/0.5))
	if math.Abs(m.ELBO-want) > 4*m.ELBOSE+0.01 {
		t.Errorf("%d of %d restarts on the left mode: mixture ELBO %.4f ± %.2g, want %.4f", left, R, m.ELBO, m.ELBOSE, want)
	}
	// the mixture's density is the mean of the components' densities
	x := []float64{0.3}
	want = math.Log((math.Exp(m.Components[0].LogQCoords(x)) + math.Exp(m.Components[1].LogQCoords(x)) +
		math.Exp(m.Components[2].LogQCoords(x)) + math.Exp(m.Components[3].LogQCoords(x)) +
		math.Exp(m.Components[4].LogQCoords(x)) + math.Exp(m.Components[5].LogQCoords(x))) / R)
	if got := m.LogQCoords(x); math.Abs(got-want) > 1e-12 {
		t.Errorf("log q(0.3) = %v, want %v", got, want)
	}
}

// The default start of a real latent is 0, well inside the basin of the
// narrow mode at −2 (the basins meet at 0.2): restarts that all start there
// find that mode only; jittered starts (U(−1, 1)) reach the other one too.
func TestRestartsJitter(t *testing.T) {
	tm := &twoModes{lo: -2, hi: 2.4, sd: 0.3}
	lat := []Latent{{Name: "x", Size: 1, Shape: []int{}, Support: dist.Real}}
	s := Settings{Seed: 1, MaxIter: 2000, Tol: -1, PSISDraws: 500}
	const R = 8
	modes := func(j float64) (left int) {
		m, err := FitRestarts(context.Background(), tm, lat, s, Restarts{N: R, Jitter: j})
		if err != nil {
			t.Fatal(err)
		}
		for r, c := range m.Components {
			mu := c.Factors[0].Params[0][0]
			switch {
			case math.Abs(mu-tm.lo) < 0.2:
				left++
			case math.Abs(mu-tm.hi) > 0.2:
				t.Fatalf("jitter %v, restart %d: mean %v, want %v or %v", j, r, mu, tm.lo, tm.hi)
			}
		}
		return left
	}
	if left := modes(-1); left != R {
		t.Errorf("restarts from one start: %d of %d found the mode at %v, want all", left, R, tm.lo)
	}
	if left := modes(0); left == R || left == 0 {
		t.Errorf("jittered restarts: %d of %d found the mode at %v, want some but not all", left, R, tm.lo)
	}
}

// Restart r ≥ 1 is the single fit of its seed from a start jittered by
// Restarts.Jitter (default DefaultJitter); restart 0 and restarts with
// their own Inits are not jittered.
func TestRestartsJitterIsInitJitter(t *testing.T) {
	pg, lat := newPoissonGamma(6, 0.1, 1)
	s := Settings{Seed: 5, MaxIter: 100, Tol: -1, PSISDraws: -1}
	ctx := context.Background()
	fit := func(seed uint64, j float64, init *Result) *Result {
		sr := s
		sr.Seed, sr.InitJitter, sr.Init = seed, j, init
		r, err := Fit(ctx, pg, lat, sr)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct{ jitter, want float64 }{{0, DefaultJitter}, {0.3, 0.3}, {-1, 0}} {
		m, err := FitRestarts(ctx, pg, lat, s, Restarts{N: 2, Jitter: c.jitter})
		if err != nil {
			t.Fatal(err)
		}
		sameResult(t, fit(s.Seed, 0, nil), m.Components[0])
		sameResult(t, fit(RestartSeed(s.Seed, 1), c.want, nil), m.Components[1])
	}
	plain := fit(RestartSeed(s.Seed, 1), 0, nil)
	if jit := fit(RestartSeed(s.Seed, 1), DefaultJitter, nil); jit.Factors[0].Params[1][0] == plain.Factors[0].Params[1][0] {
		t.Error("InitJitter did not reach the fit")
	}
	inits := []*Result{plain, plain}
	m, err := FitRestarts(ctx, pg, lat, s, Restarts{N: 2, Inits: inits})
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, fit(RestartSeed(s.Seed, 1), 0, plain), m.Components[1])
	for _, j := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := FitRestarts(ctx, pg, lat, s, Restarts{N: 2, Jitter: j}); err == nil {
			t.Errorf("Jitter %v: no error", j)
		}
	}
	for _, j := range []float64{-0.5, math.NaN(), math.Inf(1)} {
		sr := s
		sr.InitJitter = j
		if _, err := Fit(ctx, pg, lat, sr); err == nil {
			t.Errorf("InitJitter %v: no error", j)
		}
	}
}

func TestLogQCoordsMatchesSample(t *testing.T) {
	pg, lat := newPoissonGamma(5, 0.1, 1)
	lat = append(lat, Latent{Name: "w", Offset: 5, Size: 3, Shape: []int{3}, Support: dist.Simplex})
	tg := &composite{pg: pg, dc: &dirichletCounts{alpha: []float64{2, 3, 4}, k: 3}}
	r, err := Fit(context.Background(), tg, lat, Settings{Seed: 1, MaxIter: 100, Tol: -1, PSISDraws: -1})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, r.Dim)
	for range 20 {
		lq := r.SampleCoords(rng, x)
		if got := r.LogQCoords(x); got != lq {
			t.Fatalf("LogQCoords %v, SampleCoords returned %v", got, lq)
		}
	}
}

func TestRestartsErrors(t *testing.T) {
	pg, lat := newPoissonGamma(5, 0.1, 1)
	ctx := context.Background()
	if _, err := FitRestarts(ctx, pg, lat, Settings{}, Restarts{N: 0}); err == nil {
		t.Error("N = 0: no error")
	}
	if _, err := FitRestarts(ctx, pg, lat, Settings{Method: MAP}, Restarts{N: 2}); err == nil {
		t.Error("MAP: no error")
	}
	if _, err := FitRestarts(ctx, pg, lat, Settings{}, Restarts{N: 2, Inits: []*Result{nil}}); err == nil {
		t.Error("one init for two restarts: no error")
	}
	// a log joint that is never finite fails every restart; the error
	// names the first
	m, err := FitRestarts(ctx, nanTarget{}, []Latent{{Name: "x", Size: 1, Support: dist.Real}},
		Settings{Seed: 1, MaxIter: 100, MaxBadSteps: 5}, Restarts{N: 2})
	var re *RestartError
	if !errors.As(err, &re) || re.Restart != 0 || re.Seed != RestartSeed(1, 0) || !errors.Is(err, errNaN) {
		t.Fatalf("error %v, want a RestartError of restart 0 wrapping errNaN", err)
	}
	if m == nil || len(m.Components) != 2 {
		t.Fatalf("mixture %v: want the components", m)
	}
}

// nanTarget's log joint is never finite.
type nanTarget struct{}

var errNaN = errors.New("log joint is NaN")

func (nanTarget) LogJoint(x, grad []float64) (float64, error) { return math.NaN(), errNaN }
func (nanTarget) Clone() Target                               { return nanTarget{} }

// fenced is twoModes with its log joint out of its domain (an error)
// above 5: a restart whose q sits there fails, the others do not.
type fenced struct{ twoModes }

var errFence = errors.New("x above 5")

func (t *fenced) LogJoint(x, grad []float64) (float64, error) {
	if x[0] > 5 {
		return math.NaN(), errFence
	}
	return t.twoModes.LogJoint(x, grad)
}

func (t *fenced) Clone() Target { c := *t; return &c }

// TestRestartsOneFails warm-starts restart 1 of three where every draw
// fails: the mixture is of restarts 0 and 2, which are the fits they are
// alone, and the failure is kept and named.
func TestRestartsOneFails(t *testing.T) {
	ctx := context.Background()
	tg := &fenced{twoModes{lo: -1, hi: 1, sd: 0.5}}
	at := func(x float64) *Result { // a q at N(x, about 1)
		lat := []Latent{{Name: "x", Size: 1, Support: dist.Real, Init: []float64{x}}}
		r, err := Fit(ctx, &twoModes{lo: x, hi: x, sd: 1}, lat, Settings{Seed: 9, MaxIter: 1, Tol: -1, PSISDraws: -1})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	lat := []Latent{{Name: "x", Size: 1, Support: dist.Real}}
	s := Settings{Seed: 3, MaxIter: 300, Tol: -1, MaxBadSteps: 5, PSISDraws: 200}
	inits := []*Result{at(-1), at(100), at(1)}
	m, err := FitRestarts(ctx, tg, lat, s, Restarts{N: 3, Inits: inits})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Components) != 2 || m.Restarts[0] != 0 || m.Restarts[1] != 2 || m.Seeds[1] != RestartSeed(3, 2) {
		t.Fatalf("components of restarts %v, seeds %v; want restarts 0 and 2", m.Restarts, m.Seeds)
	}
	if len(m.Failed) != 1 || m.Failed[0].Restart != 1 || !errors.Is(m.Failed[0], errFence) {
		t.Fatalf("failed %v, want restart 1 with errFence", m.Failed)
	}
	if len(m.Warnings) == 0 || !strings.Contains(m.Warnings[0], "restart 1 (seed 3 + 1·2³²): x above 5; the mixture leaves it out (2 of 3 restarts finished)") {
		t.Errorf("warnings %q", m.Warnings)
	}
	if math.IsNaN(m.ELBO) {
		t.Error("no ELBO for the mixture of the two that finished")
	}
	for i, r := range []int{0, 2} {
		sr := s
		sr.Seed, sr.Init = RestartSeed(3, r), inits[r]
		one, err := Fit(ctx, tg, lat, sr)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := m.Components[i].Mean()[0], one.Mean()[0]; got != want {
			t.Errorf("restart %d: mean %v in the mixture, %v alone", r, got, want)
		}
	}
}

func TestRestartsInterrupted(t *testing.T) {
	pg, lat := newPoissonGamma(5, 0.1, 1)
	ctx, cancel := context.WithCancel(context.Background())
	m, err := FitRestarts(ctx, pg, lat, Settings{MaxIter: 1000000, Tol: -1, EvalEvery: 10}, Restarts{N: 2,
		Progress: func(r int, p Progress) {
			if p.Iter >= 50 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Interrupted || !math.IsNaN(m.ELBO) || !math.IsNaN(m.ParetoK) {
		t.Errorf("interrupted %v, ELBO %v, k̂ %v: want interrupted without a final estimate", m.Interrupted, m.ELBO, m.ParetoK)
	}
}

// TestRestartRhat checks R̂ across restarts (gpp fit --restarts's rhat
// column) against Gelman and Rubin's formula on two restarts' draws, and
// NaN where a restart has fewer than two finite draws or the restarts have
// no spread within.
func TestRestartRhat(t *testing.T) {
	// two restarts of 4 draws: means 0.5 and 10.5, variances 1/3 each
	col := []float64{0, 10, 1, 11, 0, 10, 1, 11}
	comp := []int{0, 1, 0, 1, 0, 1, 0, 1}
	W, bn, n := 1.0/3, 50.0, 4.0
	if got, want := RestartRhat(col, comp, 2), math.Sqrt(((n-1)/n*W+bn)/W); math.Abs(got-want) > 1e-12 {
		t.Errorf("R̂ %v, want %v", got, want)
	}
	// the same draws in both: below 1, as Gelman and Rubin's formula gives
	same := []float64{0, 0, 1, 1, 0, 0, 1, 1}
	if got, want := RestartRhat(same, comp, 2), math.Sqrt((n-1)/n); math.Abs(got-want) > 1e-12 {
		t.Errorf("R̂ of identical restarts %v, want %v", got, want)
	}
	// non-finite draws are left out: a restart with one finite draw, or
	// restarts without spread, give NaN
	if got := RestartRhat([]float64{0, 5, 1, math.NaN(), 0, math.Inf(1), 1, math.NaN()}, comp, 2); !math.IsNaN(got) {
		t.Errorf("R̂ with one finite draw in a restart %v, want NaN", got)
	}
	if got := RestartRhat([]float64{2, 5, 2, 5, 2, 5, 2, 5}, comp, 2); !math.IsNaN(got) {
		t.Errorf("R̂ of constant restarts %v, want NaN", got)
	}
	if got := RestartRhat(col[:4], []int{0, 0, 0, 0}, 1); !math.IsNaN(got) {
		t.Errorf("R̂ of one restart %v, want NaN", got)
	}
}

// Restarts of a MAP estimate or of a Laplace approximation are refused
// before any fit: a point, or q at the one mode, cannot be mixed. One
// Laplace fit is allowed.
func TestRestartsRefuseMAPAndLaplace(t *testing.T) {
	pg, lat := newPoissonGamma(20, 0.1, 1)
	ctx := context.Background()
	for _, c := range []struct {
		method Method
		n      int
		want   string
	}{
		{MAP, 2, "points cannot be mixed"},
		{MAP, 1, "points cannot be mixed"},
		{Laplace, 2, "a Laplace approximation is at the one mode"},
	} {
		m, err := FitRestarts(ctx, pg, lat, Settings{Method: c.method, Seed: 1}, Restarts{N: c.n})
		if m != nil || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, N %d: %v, %v; want an error %q", c.method, c.n, m, err, c.want)
		}
	}
	if _, err := FitRestarts(ctx, pg, lat, Settings{Method: Laplace, Seed: 1, PSISDraws: 100}, Restarts{N: 1}); err != nil {
		t.Errorf("Laplace, N 1: %v", err)
	}
}

// TestRestartSeedText: a restart's seed reads as --seed + r·2³², the seed
// the user gave with the restart's number, not as one large number.
func TestRestartSeedText(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		r    int
		want string
	}{
		{7, 0, "7"},
		{RestartSeed(1, 1), 1, "1 + 1·2³²"},
		{RestartSeed(1, 3), 3, "1 + 3·2³²"},
		{RestartSeed(1<<40, 2), 2, "1099511627776 + 2·2³²"},
		{5, 1, "5"}, // no such sum: the number as it is
	} {
		if got := RestartSeedText(c.seed, c.r); got != c.want {
			t.Errorf("RestartSeedText(%d, %d) = %q, want %q", c.seed, c.r, got, c.want)
		}
	}
}
