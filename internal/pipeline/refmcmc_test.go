package pipeline_test

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// The reference posteriors of the simulated models (hmm_test.go,
// bradleyterry_test.go, ...) are computed in the tests by adaptiveMetropolis,
// from log posteriors written out in Go apart from the model's gpp source.

// adaptiveMetropolis samples the density exp(logp) on R^d from x0 and
// returns the mean and sd over its kept draws of each element of f(x): a
// first quarter of Metropolis-within-Gibbs sweeps, each coordinate's
// normal step tuned to an acceptance of 0.44, then a joint normal random
// walk whose covariance is 2.38²/d times that of the draws so far
// (Haario et al. 2001), re-estimated once halfway through its burn-in;
// the last half of the joint moves is kept. Seeded, so deterministic.
func adaptiveMetropolis(logp func(x []float64) float64, x0 []float64, f func(x []float64) []float64, iters int, seed uint64) (mean, sd []float64) {
	d := len(x0)
	rng := rand.New(rand.NewPCG(seed, 0x3e7a))
	x := append([]float64(nil), x0...)
	lp := logp(x)
	if math.IsInf(lp, -1) || math.IsNaN(lp) {
		panic("adaptiveMetropolis: logp is not finite at x0")
	}
	// phase 1: coordinate moves, collecting draws for the covariance
	step := make([]float64, d)
	acc := make([]int, d)
	for j := range step {
		step[j] = 0.1
	}
	sweeps := iters / 4 / d
	var hist [][]float64
	for s := range sweeps {
		for j := range x {
			old := x[j]
			x[j] += step[j] * rng.NormFloat64()
			if l := logp(x); math.Log(rng.Float64()) < l-lp {
				lp = l
				acc[j]++
			} else {
				x[j] = old
			}
		}
		if s%50 == 49 {
			for j := range step {
				step[j] *= math.Exp(float64(acc[j])/50 - 0.44)
				acc[j] = 0
			}
		}
		if s >= sweeps/2 {
			hist = append(hist, append([]float64(nil), x...))
		}
	}
	// phase 2: joint moves
	chol := covChol(hist, 2.38*2.38/float64(d))
	rest := iters - sweeps*d
	y := make([]float64, d)
	z := make([]float64, d)
	var sum, sum2 []float64
	kept := 0
	hist = hist[:0]
	for s := range rest {
		if s == rest/4 {
			chol = covChol(hist, 2.38*2.38/float64(d))
		}
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		for i := range y {
			v := x[i]
			for j := 0; j <= i; j++ {
				v += chol[i*d+j] * z[j]
			}
			y[i] = v
		}
		if l := logp(y); math.Log(rng.Float64()) < l-lp {
			lp = l
			copy(x, y)
		}
		if s < rest/2 {
			if s%4 == 0 {
				hist = append(hist, append([]float64(nil), x...))
			}
			continue
		}
		v := f(x)
		if sum == nil {
			sum, sum2 = make([]float64, len(v)), make([]float64, len(v))
		}
		for i, w := range v {
			sum[i] += w
			sum2[i] += w * w
		}
		kept++
	}
	mean, sd = make([]float64, len(sum)), make([]float64, len(sum))
	for i := range sum {
		mean[i] = sum[i] / float64(kept)
		sd[i] = math.Sqrt(math.Max(0, sum2[i]/float64(kept)-mean[i]*mean[i]))
	}
	return mean, sd
}

// covChol is the lower Cholesky factor of scale times the covariance of
// the rows of h, with a small ridge.
func covChol(h [][]float64, scale float64) []float64 {
	d := len(h[0])
	m := make([]float64, d)
	for _, r := range h {
		for i, v := range r {
			m[i] += v / float64(len(h))
		}
	}
	c := make([]float64, d*d)
	for _, r := range h {
		for i := range d {
			for j := 0; j <= i; j++ {
				c[i*d+j] += (r[i] - m[i]) * (r[j] - m[j]) / float64(len(h)-1)
			}
		}
	}
	for i := range d {
		for j := 0; j <= i; j++ {
			c[i*d+j] *= scale
		}
		c[i*d+i] += 1e-10 + 1e-6*c[i*d+i]
	}
	for j := range d {
		s := c[j*d+j]
		for k := range j {
			s -= c[j*d+k] * c[j*d+k]
		}
		c[j*d+j] = math.Sqrt(s)
		for i := j + 1; i < d; i++ {
			s := c[i*d+j]
			for k := range j {
				s -= c[i*d+k] * c[j*d+k]
			}
			c[i*d+j] = s / c[j*d+j]
		}
	}
	for i := range d { // the upper triangle is not read; clear it anyway
		for j := i + 1; j < d; j++ {
			c[i*d+j] = 0
		}
	}
	return c
}

// fitSource writes a model's source and its data (a CSV or JSON) into a
// temporary directory and fits it with s (fitSummary's table).
func fitSource(t *testing.T, src, dataName string, dat []byte, s sgvb.Settings) map[string]refRow {
	t.Helper()
	dir := t.TempDir()
	mpath, dpath := dir+"/model.gpp", dir+"/"+dataName
	if err := os.WriteFile(mpath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dpath, dat, 0o644); err != nil {
		t.Fatal(err)
	}
	return fitSummary(t, mpath, []string{dpath}, s)
}

// compareRef logs q's and the reference's mean and sd of each name and
// reports an error where q's mean is more than meanTol reference sds from
// the reference's, or q's sd outside [sdLo, sdHi] times the reference's.
func compareRef(t *testing.T, label string, q map[string]refRow, names []string, mean, sd []float64, meanTol, sdLo, sdHi float64) {
	t.Helper()
	for i, name := range names {
		r, ok := q[name]
		if !ok {
			t.Fatalf("%s: no %s in the fit", label, name)
		}
		t.Logf("%s %-8s q %8.4f ± %.4f   reference %8.4f ± %.4f", label, name, r.mean, r.sd, mean[i], sd[i])
		if !(math.Abs(r.mean-mean[i]) <= meanTol*sd[i]) {
			t.Errorf("%s %s: q mean %.4f is more than %.2f reference sds (%.4f) from the reference's %.4f", label, name, r.mean, meanTol, sd[i], mean[i])
		}
		if !(r.sd >= sdLo*sd[i] && r.sd <= sdHi*sd[i]) {
			t.Errorf("%s %s: q sd %.4f is not within [%.2f, %.2f] of the reference's %.4f", label, name, r.sd, sdLo, sdHi, sd[i])
		}
	}
}
