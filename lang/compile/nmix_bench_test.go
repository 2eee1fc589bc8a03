package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// nmixSrc is Royle's binomial N-mixture with each site's abundance summed
// out over the grid 0..K: a Poisson log mass of the grid against each
// site's rate and four Binomial log masses of the visits' counts against
// the grid, [S, K+1] each, then a log-sum-exp per row.
const nmixSrc = `data y: int[S, J]
data x: real[S]
const K = 100
param c0: real ~ Normal(0, 3)
param c1: real ~ Normal(0, 3)
param d0: real ~ Normal(0, 2)
let Nv = abs(linspaced_int_array(K + 1, 0, K))
let lam = exp(c0 + c1 * x)
let p = inv_logit(d0)
let lpN = logpdf(Nv', Poisson(lam))
let lpy = logpdf(y[:, 0], Binomial(Nv', p)) + logpdf(y[:, 1], Binomial(Nv', p)) + logpdf(y[:, 2], Binomial(Nv', p)) + logpdf(y[:, 3], Binomial(Nv', p))
let lp = lpN + lpy
target += sum(rowlogsumexp(lp))
`

// nmixInput simulates S sites of four visits: N ~ Poisson(exp(1.5 + 0.6 x)),
// y ~ Binomial(N, 0.45).
func nmixInput(tb testing.TB, S int) data.Input {
	rng := rand.New(rand.NewPCG(7, 11))
	var ys, xs []string
	for range S {
		x := rng.NormFloat64()
		n := dist.Poisson{Rate: math.Exp(1.5 + 0.6*x)}.Rand(rng)
		var row []string
		for range 4 {
			row = append(row, fmt.Sprint(dist.Binomial{N: n, P: 0.45}.Rand(rng)))
		}
		ys, xs = append(ys, "["+strings.Join(row, ", ")+"]"), append(xs, fmt.Sprint(x))
	}
	js, err := data.ReadJSON("n.json", strings.NewReader(`{"y": [`+strings.Join(ys, ", ")+`], "x": [`+strings.Join(xs, ", ")+`]}`))
	if err != nil {
		tb.Fatal(err)
	}
	return data.Input{File: "n.json", JSON: js}
}

// BenchmarkNMixture times the log joint and gradient of the N-mixture over
// 100 sites and the grid 0..100; ns per site.
func BenchmarkNMixture(b *testing.B) {
	const S = 100
	m := compileSrc(b, "nmix.gpp", nmixSrc, nil, nmixInput(b, S))
	z := []float64{1.5, 0.6, -0.2}
	grad := make([]float64, m.Dim)
	for b.Loop() {
		if _, err := m.LogJoint(z, grad); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*S), "ns/site")
}
