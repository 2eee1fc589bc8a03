package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Multinomial draws: every draw's counts sum to N; the counts' means are
// N·p_k and their covariances N·(δ_jk p_k − p_j p_k), to 5 standard errors
// of 40000 draws, for small and large N (inversion and BTRS binomials),
// an unnormalised P and a zero probability (always a count of 0, its
// covariances exactly 0); and
// invalid arguments give NaN counts.
func TestMultinomialRand(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, c := range []struct {
		n float64
		p []float64
	}{
		{7, []float64{0.2, 0.5, 0.3}},
		{1000, []float64{0.05, 0.15, 0.3, 0.5}},
		{40, []float64{2, 0, 1, 1}}, // sums to 4: p = (0.5, 0, 0.25, 0.25)
		{1, []float64{0.1, 0.9}},
	} {
		k := len(c.p)
		sum := 0.0
		for _, v := range c.p {
			sum += v
		}
		p := make([]float64, k)
		for j, v := range c.p {
			p[j] = v / sum
		}
		const draws = 40000
		mean, cov, cov2 := make([]float64, k), make([]float64, k*k), make([]float64, k*k)
		dst := make([]float64, k)
		d := Multinomial{N: c.n, P: c.p}
		for range draws {
			d.Rand(dst, rng)
			tot := 0.0
			for j, v := range dst {
				if v != math.Trunc(v) || v < 0 {
					t.Fatalf("N %g p %v: count %g", c.n, c.p, v)
				}
				tot += v
				mean[j] += v
				for i := range k {
					x := (v - c.n*p[j]) * (dst[i] - c.n*p[i])
					cov[j*k+i] += x
					cov2[j*k+i] += x * x
				}
			}
			if tot != c.n {
				t.Fatalf("N %g p %v: counts %v sum to %g", c.n, c.p, dst, tot)
			}
		}
		for j := range k {
			want := c.n * p[j]
			if se := math.Sqrt(c.n * p[j] * (1 - p[j]) / draws); math.Abs(mean[j]/draws-want) > 5*se || p[j] == 0 && mean[j] != 0 {
				t.Errorf("N %g p %v: mean count %d %.4f, want %.4f (se %.2g)", c.n, c.p, j, mean[j]/draws, want, se)
			}
			for i := range k {
				want := -c.n * p[j] * p[i]
				if i == j {
					want += c.n * p[j]
				}
				got := cov[j*k+i] / draws
				se := math.Sqrt((cov2[j*k+i]/draws - got*got) / draws) // of the products' own spread
				if math.Abs(got-want) > 5*se {
					t.Errorf("N %g p %v: covariance [%d, %d] %.4f, want %.4f (se %.2g)", c.n, c.p, j, i, got, want, se)
				}
			}
		}
	}
	for _, d := range []Multinomial{{N: 2.5, P: []float64{0.5, 0.5}}, {N: -1, P: []float64{0.5, 0.5}}, {N: 3, P: []float64{-0.1, 1.1}},
		{N: 3, P: []float64{0, 0}}, {N: 3, P: []float64{math.NaN(), 1}}, {N: 3, P: []float64{math.Inf(1), 1}}} {
		if v := d.Rand(make([]float64, 2), rng); !math.IsNaN(v[0]) || !math.IsNaN(v[1]) {
			t.Errorf("%+v: draw %v, want NaN", d, v)
		}
	}
}
