package dist

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// poissonBinomialRefTol bounds PoissonBinomial's log mass, log CDF and log
// survival function against mpmath, relative to max(1, |value|); its
// partials relative to max(1, |partial|).
const (
	poissonBinomialRefTol  = 1e-13
	poissonBinomialGradTol = 1e-12
)

// pbRow is a row of testdata/poissonbinomial.json (poissonbinomial.py): a
// value "-inf" or a partial null where the probability is 0.
type pbRow struct {
	Theta                []float64
	Y                    int
	Lpmf, Lcdf, Lccdf    any
	Dlpmf, Dlcdf, Dlccdf []*float64
}

func pbNumber(v any) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	return math.Inf(-1)
}

// TestPoissonBinomialReference checks the log mass, log CDF, log survival
// function and their partials in each theta against 60-digit mpmath
// (exact products, no logs): small and large N, probabilities of 1e-20
// (masses near 1e-240, which a product in doubles would lose), within
// 1e-15 of 1, exact 0 and 1, and both ends of the support.
func TestPoissonBinomialReference(t *testing.T) {
	b, err := os.ReadFile("testdata/poissonbinomial.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []pbRow
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	worst, worstGrad := 0.0, 0.0
	for _, r := range rows {
		d := PoissonBinomial{Theta: r.Theta}
		y := float64(r.Y)
		for tail, c := range []struct {
			got  float64
			want any
			grad []*float64
		}{{d.LogProb(y), r.Lpmf, r.Dlpmf}, {d.LogCDF(y), r.Lcdf, r.Dlcdf}, {d.LogCCDF(y), r.Lccdf, r.Dlccdf}} {
			name := []string{"log p", "log cdf", "log ccdf"}[tail]
			want := pbNumber(c.want)
			if math.IsInf(want, -1) {
				if !math.IsInf(c.got, -1) {
					t.Errorf("N=%d y=%d: %s = %g, want -Inf", len(r.Theta), r.Y, name, c.got)
				}
				continue
			}
			e := math.Abs(c.got-want) / max(1, math.Abs(want))
			worst = max(worst, e)
			if e > poissonBinomialRefTol {
				t.Errorf("N=%d y=%d: %s = %.17g, mpmath %.17g", len(r.Theta), r.Y, name, c.got, want)
			}
			g := d.Score(nil, r.Y, []int{0, -1, 1}[tail])
			for j, w := range c.grad {
				if w == nil {
					continue
				}
				e := math.Abs(g[j]-*w) / max(1, math.Abs(*w))
				worstGrad = max(worstGrad, e)
				if e > poissonBinomialGradTol {
					t.Errorf("N=%d y=%d: ∂%s/∂theta[%d] = %.17g, mpmath %.17g", len(r.Theta), r.Y, name, j, g[j], *w)
				}
			}
		}
	}
	t.Logf("worst relative error: values %.2g, partials %.2g", worst, worstGrad)
}

// TestPoissonBinomialPartialsFD checks the partials against central
// differences at random probabilities away from 0 and 1.
func TestPoissonBinomialPartialsFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 4, 13} {
		theta := make([]float64, n)
		for j := range theta {
			theta[j] = 0.05 + 0.9*rng.Float64()
		}
		for y := 0; y <= n; y += max(1, n/4) {
			for _, tail := range []int{0, -1, 1} {
				if tail == 1 && y == n {
					continue
				}
				got := PoissonBinomial{theta}.Score(nil, y, tail)
				want := fd.Gradient(nil, func(q []float64) float64 {
					return PoissonBinomial{q}.eval(float64(y), tail)
				}, theta, &fd.Settings{Formula: fd.Central, Step: 1e-6})
				for j := range got {
					if math.Abs(got[j]-want[j]) > partialTol*max(1, math.Abs(want[j])) {
						t.Errorf("N=%d y=%d tail %d: partial %d = %.10g, finite difference %.10g", n, y, tail, j, got[j], want[j])
					}
				}
			}
		}
	}
}

// TestPoissonBinomialRand checks draws' frequencies against the masses by
// chi-square (20 000 draws of N = 6; the 99.9 % point of chi-square with
// 6 degrees of freedom is 22.46).
func TestPoissonBinomialRand(t *testing.T) {
	d := PoissonBinomial{Theta: []float64{0.1, 0.8, 0.5, 0.3, 0.95, 0.02}}
	rng := rand.New(rand.NewPCG(1, 2))
	const draws = 20000
	count := make([]float64, 7)
	for range draws {
		count[int(d.Rand(rng))]++
	}
	chi := 0.0
	for k, c := range count {
		e := draws * math.Exp(d.LogProb(float64(k)))
		chi += (c - e) * (c - e) / e
	}
	if chi > 22.46 {
		t.Errorf("chi-square %.2f over 7 cells, counts %v", chi, count)
	}
}

// TestPoissonBinomialOutside checks the values off the support and for a
// bad theta.
func TestPoissonBinomialOutside(t *testing.T) {
	d := PoissonBinomial{Theta: []float64{0.2, 0.4}}
	for _, c := range []struct{ got, want float64 }{
		{d.LogProb(3), math.Inf(-1)}, {d.LogProb(-1), math.Inf(-1)}, {d.LogProb(0.5), math.Inf(-1)},
		{d.LogCDF(2), 0}, {d.LogCCDF(2), math.Inf(-1)}, {d.LogCDF(5), 0}, {d.LogCCDF(-1), 0},
	} {
		if c.got != c.want && math.Abs(c.got-c.want) > 1e-15 {
			t.Errorf("got %g, want %g", c.got, c.want)
		}
	}
	if v := (PoissonBinomial{Theta: []float64{0.2, 1.5}}).LogProb(1); !math.IsNaN(v) {
		t.Errorf("theta 1.5: got %g, want NaN", v)
	}
}
