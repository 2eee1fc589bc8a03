package pipeline_test

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestRegressionExample fits examples/regression.gpp (docs/tutorial.md)
// with the default settings, as the tutorial does, and compares q with
// least squares, which
// the weak priors leave nearly unchanged: the coefficients within 2 sds of
// q of the least-squares estimates, sigma within 2 sds of the residual sd
// and with about its posterior sd; and the replicates' sd (an output) near
// the data's.
func TestRegressionExample(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const csv = "../../examples/wine_std.csv"
	got := fitSummary(t, "../../examples/regression.gpp", []string{csv},
		sgvb.Settings{Seed: 1})
	x1, x2, y := readColumn(t, csv, "alcohol"), readColumn(t, csv, "color_intensity"), readColumn(t, csv, "proline")
	b, s := leastSquares3(x1, x2, y)
	for _, c := range []struct {
		name string
		want float64
	}{{"alpha", b[0]}, {"beta[1]", b[1]}, {"beta[2]", b[2]}, {"sigma", s}} {
		g := got[c.name]
		t.Logf("%s: q mean %.4f sd %.4f, least squares %.4f", c.name, g.mean, g.sd, c.want)
		if math.Abs(g.mean-c.want) > 2*g.sd {
			t.Errorf("%s: q mean %.4f is more than 2 sd (%.4f) from least squares %.4f", c.name, g.mean, g.sd, c.want)
		}
	}
	// σ's posterior sd, about s/√(2(n − 3)) with these weak priors: a q too
	// wide (the softplus factor's after 10⁴ steps: 0.153) fails here
	if want, g := s/math.Sqrt(2*float64(len(y)-3)), got["sigma"]; !(g.sd/want > 0.8 && g.sd/want < 1.25) {
		t.Errorf("sigma: q sd %.4f, want about %.4f", g.sd, want)
	}
	mean, ss := 0.0, 0.0
	for _, v := range y {
		mean += v / float64(len(y))
	}
	for _, v := range y {
		ss += (v - mean) * (v - mean)
	}
	if sd, rep := math.Sqrt(ss/float64(len(y))), got["sd_rep"]; math.Abs(rep.mean-sd) > 2*rep.sd {
		t.Errorf("sd_rep: %.4f ± %.4f, the data's sd %.4f", rep.mean, rep.sd, sd)
	}
}

// leastSquares3 returns the least-squares intercept and slopes of y on x1
// and x2, and the residual sd sqrt(RSS/(n − 3)), from the normal equations
// (Cramer's rule on 3 × 3).
func leastSquares3(x1, x2, y []float64) ([3]float64, float64) {
	var a [3][3]float64
	var c [3]float64
	for i := range y {
		row := [3]float64{1, x1[i], x2[i]}
		for p := range 3 {
			c[p] += row[p] * y[i]
			for q := range 3 {
				a[p][q] += row[p] * row[q]
			}
		}
	}
	det := func(m [3][3]float64) float64 {
		return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	}
	d := det(a)
	var b [3]float64
	for k := range 3 {
		m := a
		for p := range 3 {
			m[p][k] = c[p]
		}
		b[k] = det(m) / d
	}
	rss := 0.0
	for i := range y {
		r := y[i] - b[0] - b[1]*x1[i] - b[2]*x2[i]
		rss += r * r
	}
	return b, math.Sqrt(rss / float64(len(y)-3))
}
