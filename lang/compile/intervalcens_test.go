package compile

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/data"
)

// intervalHead declares the interval-censored Weibull models' data
// (intervals (L, U]) and shape k and scale s.
const intervalHead = `data N: int
data L: real<lower=0>[N]
data U: positive[N]
param k: positive ~ Gamma(2, 1)
param s: positive ~ Gamma(2, 0.5)
`

// intervalCensored is the interval-censored Weibull loop of language.md
// (Censored data): log(F(U) − F(L)) per row, log F(U) where L is 0.
const intervalCensored = intervalHead + `for i in 0:N {
  if L[i] == 0 {
    target += logcdf(U[i], Weibull(k, s))
  } else {
    target += log_diff_exp(logcdf(U[i], Weibull(k, s)), logcdf(L[i], Weibull(k, s)))
  }
}
`

// intervalInput has n intervals (j, j + 1] for j = i mod 4, a quarter of
// them from 0.
func intervalInput(n int) data.Input {
	l, u := make([]float64, n), make([]float64, n)
	for i := range n {
		l[i] = float64(i % 4)
		u[i] = l[i] + 1
	}
	return data.Input{File: "ic.json", JSON: map[string]*data.Array{
		"N": {Name: "N", Values: []float64{float64(n)}},
		"L": {Name: "L", Shape: []int{n}, Values: l},
		"U": {Name: "U", Shape: []int{n}, Values: u},
	}}
}

// intervalClosed is intervalCensored with each interval's probability in
// closed form, S(L) − S(U) with S(t) = exp(−(t/s)^k), over the rows at once
// (S(0) = 1 written out, as pow's gradient at 0 is infinite for k < 1).
const intervalClosed = intervalHead + `let SL = (L > 0) .* exp(-pow(L / s + (L == 0), k)) + (L == 0)
target += sum(log(SL - exp(-pow(U / s, k))))
`

// TestIntervalCensoredLoop checks the documented idiom: its loop is
// compiled as vectors (the tape does not grow with N), and its log joint is
// that of the intervals' probabilities in closed form.
func TestIntervalCensoredLoop(t *testing.T) {
	small := compileSrc(t, "ic.gpp", intervalCensored, nil, intervalInput(8))
	large := compileSrc(t, "ic.gpp", intervalCensored, nil, intervalInput(400))
	if small.prog.Len() != large.prog.Len() {
		t.Errorf("%d nodes at N = 8, %d at N = 400: the loop was unrolled", small.prog.Len(), large.prog.Len())
	}
	closed := compileSrc(t, "closed.gpp", intervalClosed, nil, intervalInput(400))
	for seed := range uint64(3) {
		x := randomPoint(large, seed)
		got, err1 := large.LogJoint(x, make([]float64, large.Dim))
		want, err2 := closed.LogJoint(x, make([]float64, closed.Dim))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if math.Abs(got-want) > 1e-10*math.Abs(want) {
			t.Errorf("seed %d: log joint %.15g, closed form %.15g", seed, got, want)
		}
	}
}
