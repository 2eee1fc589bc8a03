package pipeline_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// sirInfected returns the infected share at the times ts (from 0) by RK4
// with a fixed step of h, apart from the solver under test.
func sirInfected(beta, gamma float64, ts []float64, h float64) []float64 {
	s, i, t := 0.99, 0.01, 0.0
	f := func(s, i float64) (float64, float64) { return -beta * s * i, beta*s*i - gamma*i }
	out := make([]float64, len(ts))
	for k, target := range ts {
		for t < target-1e-12 {
			step := math.Min(h, target-t)
			a1, b1 := f(s, i)
			a2, b2 := f(s+step/2*a1, i+step/2*b1)
			a3, b3 := f(s+step/2*a2, i+step/2*b2)
			a4, b4 := f(s+step*a3, i+step*b3)
			s += step / 6 * (a1 + 2*a2 + 2*a3 + a4)
			i += step / 6 * (b1 + 2*b2 + 2*b3 + b4)
			t += step
		}
		out[k] = i
	}
	return out
}

// TestSIRReference fits examples/sir.gpp to examples/sir.csv (20 days of
// counts simulated with beta = 1.1, gamma = 0.4) as examples/README.md
// does, with q full-rank over (beta, gamma), whose posterior is
// correlated, and compares it with adaptive Metropolis on the log
// posterior written out in Go with its own RK4 solve: each mean within 0.2
// posterior sd, each sd within 15 %.
func TestSIRReference(t *testing.T) {
	if testing.Short() {
		t.Skip("fits an ODE model")
	}
	const csvPath = "../../examples/sir.csv"
	raw, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	var ts []float64
	var cases []int
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n")[1:] {
		var d float64
		var c int
		if _, err := fmt.Sscanf(line, "%g,%d", &d, &c); err != nil {
			t.Fatal(err)
		}
		ts, cases = append(ts, d), append(cases, c)
	}
	if len(ts) != 20 {
		t.Fatalf("%d days in %s, want 20", len(ts), csvPath)
	}
	lgam := make([]float64, len(cases))
	for k, c := range cases {
		lgam[k], _ = math.Lgamma(float64(c) + 1)
	}
	// x = (log beta, log gamma): the LogNormal priors' densities in x are
	// Normal, and the Jacobian cancels their 1/value.
	logp := func(x []float64) float64 {
		beta, gamma := math.Exp(x[0]), math.Exp(x[1])
		lp := -0.5*x[0]*x[0] - 0.5*((x[1]+1)/0.5)*((x[1]+1)/0.5)
		for k, v := range sirInfected(beta, gamma, ts, 0.02) {
			rate := 1000 * v
			lp += float64(cases[k])*math.Log(rate) - rate - lgam[k]
		}
		return lp
	}
	f := func(x []float64) []float64 { return []float64{math.Exp(x[0]), math.Exp(x[1])} }
	mean, sd := adaptiveMetropolis(logp, []float64{math.Log(1.1), math.Log(0.4)}, f, 60000, 3)
	names := []string{"beta", "gamma"}
	fr := fitSummary(t, "../../examples/sir.gpp", []string{csvPath}, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{names}})
	compareRef(t, "full-rank", fr, names, mean, sd, 0.2, 0.85, 1.15)
}
