package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// discLogprobTol bounds the difference of the families' log joint and
// gradient (gpp logprob) from the same model written out with log, log1p
// and log_modified_bessel_first_kind, relative to max(1, |value|): the same
// terms, summed in other orders.
const discLogprobTol = 1e-11

// discFitSDs is how many of the fit's own posterior sds q's mean may lie
// from the simulating parameter: the posterior mean is itself within about
// 2 sds of the truth for most data sets (seeded here, so one fixed draw),
// and SGVB's mean-field q adds a little.
const discFitSDs = 4

// discModel has a Geometric and a Skellam likelihood, their replicates and
// log_lik.
const discModel = `data y: int[N]
data d: int[N]
param p: unit ~ Beta(1, 1)
param m1: positive ~ Gamma(2, 1)
param m2: positive ~ Gamma(2, 1)
y ~ Geometric(p)
d ~ Skellam(m1, m2)
output y_rep ~ Geometric(rep(p, N))
output d_rep ~ Skellam(rep(m1, N), m2)
output log_lik = logpdf(d, Skellam(m1, m2))
`

// discWrittenModel is discModel's log joint written out: p (1 − p)^(y−1)
// and e^−(m1+m2) (m1/m2)^(d/2) I_|d|(2√(m1 m2)).
const discWrittenModel = `data y: int[N]
data d: int[N]
param p: unit ~ Beta(1, 1)
param m1: positive ~ Gamma(2, 1)
param m2: positive ~ Gamma(2, 1)
target += sum(log(p) + (y - 1) * log1p(-p))
target += sum(-(m1 + m2) + d / 2.0 * log(m1 / m2) + log_modified_bessel_first_kind(abs(d), 2 * sqrt(m1 * m2)))
`

// TestGeometricSkellamCLI: on 500 trial counts and 500 goal differences
// simulated (seeded) from Geometric(0.3) and Skellam(1.6, 1.1), the
// families' log joint and gradient (gpp logprob) are the written-out
// model's at points from the middle to the extremes; a fit recovers p, m1
// and m2 within discFitSDs of its own posterior sds, each sd within a
// factor 2 of the Fisher information's (what a fit that ignored the data
// or the likelihood's scale would miss); and y_rep and d_rep have the
// means and spread that each draw's parameters give.
func TestGeometricSkellamCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const n, p, m1, m2 = 500, 0.3, 1.6, 1.1
	rng := rand.New(rand.NewPCG(2026, 1130))
	var b strings.Builder
	b.WriteString("y,d\n")
	for range n {
		fmt.Fprintf(&b, "%g,%g\n", dist.Geometric{P: p}.Rand(rng), dist.Skellam{Mu1: m1, Mu2: m2}.Rand(rng))
	}
	dir := t.TempDir()
	data := writeFile(t, dir, "yd.csv", b.String())
	fam := writeFile(t, dir, "fam.gpp", discModel)
	written := writeFile(t, dir, "written.gpp", discWrittenModel)
	pts := writeFile(t, dir, "pts.csv", "p,m1,m2\n0.3,1.6,1.1\n0.999,0.01,40\n1e-4,300,250\n0.5,1e-3,1e-3\n")
	checkLogprobAgree(t, fam, written, data, pts, 4, discLogprobTol)

	out := filepath.Join(dir, "out")
	if code, _, stderr := runSafe(t, "fit", fam, data, "--seed", "1", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d\n%s", code, stderr)
	}
	rows := summaryRows(t, out)
	// Fisher information per observation: 1/(p²(1 − p)) for p; for the
	// Skellam means, whose difference and sum the data pin down apart,
	// about that of the Poisson counts, 1/m each (a lower bound on the
	// sd, which mean-field q may undershoot by the posterior correlation)
	for _, c := range []struct {
		name   string
		truth  float64
		fisher float64
	}{{"p", p, math.Sqrt(p * p * (1 - p) / n)}, {"m1", m1, math.Sqrt(m1 / n)}, {"m2", m2, math.Sqrt(m2 / n)}} {
		m, s := rows[c.name][0], rows[c.name][1]
		if !(s > c.fisher/2 && s < 2*c.fisher) || math.Abs(m-c.truth) > discFitSDs*s {
			t.Errorf("%s: q mean %.4g sd %.3g (Fisher sd %.3g), simulated from %g", c.name, m, s, c.fisher, c.truth)
		}
	}
	// y_rep, d_rep: per draw, n values from Geometric(p_d) and
	// Skellam(m1_d, m2_d); their sums against the expectations, in
	// standard deviations of the sum over draws.
	draws := readDrawsCSV(t, filepath.Join(out, "draws.csv"))[1:] // q's mean first
	var ys, ey, vy, ds, ed, vd float64
	for _, dr := range draws {
		g := dist.Geometric{P: dr["p"]}
		s := dist.Skellam{Mu1: dr["m1"], Mu2: dr["m2"]}
		ey += n * g.Mean()
		vy += n * g.Variance()
		ed += n * s.Mean()
		vd += n * s.Variance()
		for i := 1; i <= n; i++ {
			y, ok1 := dr[fmt.Sprintf("y_rep.%d", i)]
			d, ok2 := dr[fmt.Sprintf("d_rep.%d", i)]
			if !ok1 || !ok2 || y < 1 || y != math.Trunc(y) || d != math.Trunc(d) {
				t.Fatalf("y_rep.%d = %v, d_rep.%d = %v", i, y, i, d)
			}
			ys += y
			ds += d
		}
	}
	if z := (ys - ey) / math.Sqrt(vy); math.Abs(z) > 5 {
		t.Errorf("y_rep: sum %g, expected %.1f (z = %.1f)", ys, ey, z)
	}
	if z := (ds - ed) / math.Sqrt(vd); math.Abs(z) > 5 {
		t.Errorf("d_rep: sum %g, expected %.1f (z = %.1f)", ds, ed, z)
	}
}
