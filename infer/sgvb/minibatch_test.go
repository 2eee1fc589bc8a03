package sgvb

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// batchLogistic is logistic's minibatch target: B rows drawn with
// replacement from the seed, their terms scaled by N/B. It counts its
// evaluations.
type batchLogistic struct {
	full  *logistic
	rows  []int
	pcg   *rand.PCG
	rng   *rand.Rand
	calls *int
}

func newBatchLogistic(full *logistic, b int) *batchLogistic {
	pcg := rand.NewPCG(0, 0)
	return &batchLogistic{full: full, rows: make([]int, b), pcg: pcg, rng: rand.New(pcg), calls: new(int)}
}

func (t *batchLogistic) SetBatch(hi, lo uint64) {
	t.pcg.Seed(hi, lo)
	for i := range t.rows {
		t.rows[i] = t.rng.IntN(len(t.full.x))
	}
}

func (t *batchLogistic) LogJoint(x, grad []float64) (float64, error) {
	*t.calls++
	a, b := x[0], x[1]
	scale := float64(len(t.full.x)) / float64(len(t.rows))
	lp := -0.5*(a*a+b*b)/25 - 2*(math.Log(5)+halfLog2Pi)
	ga, gb := -a/25, -b/25
	for _, i := range t.rows {
		xi, yi := t.full.x[i], t.full.y[i]
		eta := a + b*xi
		lp -= scale * math.Log1p(math.Exp(-(2*yi-1)*eta))
		r := scale * (yi - 1/(1+math.Exp(-eta)))
		ga += r
		gb += r * xi
	}
	grad[0], grad[1] = ga, gb
	return lp, nil
}

func (t *batchLogistic) Clone() Target {
	c := newBatchLogistic(t.full, len(t.rows))
	c.calls = t.calls // one count for every clone
	return c
}

// countingLogistic counts the full target's evaluations.
type countingLogistic struct {
	*logistic
	calls *int
}

func (t countingLogistic) LogJoint(x, grad []float64) (float64, error) {
	*t.calls++
	return t.logistic.LogJoint(x, grad)
}

func (t countingLogistic) Clone() Target { return countingLogistic{t.logistic, t.calls} }

// A minibatch fit steps and estimates the ELBO on the minibatch target
// only, and the full target gives exactly the final estimate's PSISDraws
// evaluations; it reaches the full fit's q (means within one posterior
// sd, sds within 30 %, full ELBO within 1 nat) on a logistic regression of
// 4000 rows with batches of 100; a step allocates nothing.
func TestMinibatchFit(t *testing.T) {
	lg := newLogistic(4000)
	fullCalls := 0
	full := countingLogistic{lg, &fullCalls}
	ref, err := Fit(context.Background(), full, lg.latents(), Settings{Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	bt := newBatchLogistic(lg, 100)
	fullCalls = 0
	s := Settings{Seed: 3, Workers: 2, Minibatch: bt}
	r, err := Fit(context.Background(), full, lg.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	if fullCalls != defaultPSISDraws {
		t.Errorf("the full target was evaluated %d times, want the %d final draws only", fullCalls, defaultPSISDraws)
	}
	if *bt.calls < r.Iterations {
		t.Errorf("the minibatch target was evaluated %d times in %d steps", *bt.calls, r.Iterations)
	}
	if !r.Converged {
		t.Errorf("minibatch fit did not converge in %d steps", r.Iterations)
	}
	for i := range 2 {
		m, sd := r.Factors[0].Mean()[i], r.Factors[0].SD()[i]
		rm, rsd := ref.Factors[0].Mean()[i], ref.Factors[0].SD()[i]
		t.Logf("beta[%d]: minibatch %.4f ± %.4f, full %.4f ± %.4f", i, m, sd, rm, rsd)
		if math.Abs(m-rm) > rsd || math.Abs(sd/rsd-1) > 0.3 {
			t.Errorf("beta[%d]: minibatch %.4f ± %.4f, full %.4f ± %.4f", i, m, sd, rm, rsd)
		}
	}
	t.Logf("ELBO %.3f (%d steps), full fit %.3f (%d steps)", r.ELBO, r.Iterations, ref.ELBO, ref.Iterations)
	if math.Abs(r.ELBO-ref.ELBO) > 1 {
		t.Errorf("full-data ELBO of the minibatch fit %.3f, of the full fit %.3f", r.ELBO, ref.ELBO)
	}

	s = s.withDefaults()
	for _, w := range []int{1, 2} {
		s.Workers, s.DrawsPerStep = w, w
		e, err := newEngine(full, lg.latents(), &s)
		if err != nil {
			t.Fatal(err)
		}
		checkZeroAllocs(t, e, "minibatch")
		e.close()
	}
	if _, err := Fit(context.Background(), full, lg.latents(), Settings{Method: MAP, Minibatch: bt}); err == nil {
		t.Error("MAP with a minibatch target: no error")
	}
}
