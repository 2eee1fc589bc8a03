package pipeline_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// Models of McElreath's Statistical Rethinking (2nd ed.), ported as a PyMC
// or Stan user would write them, each compared with a reference posterior
// from adaptiveMetropolis on its log posterior written out in Go.

// Oceanic tools (Kline; the rethinking package's data, contact 0 = low,
// 1 = high), and m11.11's scientific model of them: the rate of tools
// exp(a) P^b / g of population P, a and b per contact group. a and g enter
// only as exp(a) / g, so the posterior is a curved ridge along them.
const klineCSV = `population,contact,total_tools
1100,0,13
1500,0,22
3600,0,24
4791,1,43
7400,1,33
8000,1,19
9200,1,40
13000,0,28
17500,1,55
275000,0,71
`

const klineSciModel = `data population: positive[N]
data contact: int[N]
data total_tools: int[N]
param a: real[2] ~ Normal(1, 1)
param b: positive[2] ~ Exponential(1)
param g: positive ~ Exponential(1)
total_tools ~ Poisson(exp(a[contact]) .* pow(population, b[contact]) / g)
`

var (
	klinePop     = []float64{1100, 1500, 3600, 4791, 7400, 8000, 9200, 13000, 17500, 275000}
	klineContact = []int{0, 0, 0, 1, 1, 1, 1, 0, 1, 0}
	klineTools   = []float64{13, 22, 24, 43, 33, 19, 40, 28, 55, 71}
)

// TestRethinkingKlineScientific fits m11.11 mean-field and full-rank and
// compares them with the reference (adaptive Metropolis in a, log b,
// log g; a ± 0.68 / 0.85, b 0.26 ± 0.035 / 0.29 ± 0.10, g 1.16 ± 0.77, the
// book's precis within its Monte Carlo error). Full-rank: means within
// 0.2 reference sd (measured 0.13 at most, b[2]), sds within [0.45, 1.15]
// times the reference's: b[2]'s is 0.53 times (a normal on log b[2] misses
// its skewed, poorly identified posterior; the high-contact islands span a
// narrow range of population), a[2]'s 0.78, the others 0.92 to 1.01.
// Mean-field: means within 0.3 sd (measured 0.21, a[1]), and sds between
// 0.05 and 0.3 times the reference's (measured 0.08 to 0.22): a and g
// enter only as exp(a) / g, a ridge a mean-field q cannot follow, so its
// sds are an order of magnitude too small. That is known VI behaviour
// (gpp's k̂ warning and full-rank hint fire); the band documents it.
func TestRethinkingKlineScientific(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model and runs a Metropolis reference")
	}
	logp := func(u []float64) float64 {
		b := [2]float64{math.Exp(u[2]), math.Exp(u[3])}
		g := math.Exp(u[4])
		l := -0.5*((u[0]-1)*(u[0]-1)+(u[1]-1)*(u[1]-1)) - b[0] - b[1] - g + u[2] + u[3] + u[4]
		for i, p := range klinePop {
			c := klineContact[i]
			lam := math.Exp(u[c]) * math.Pow(p, b[c]) / g
			l += klineTools[i]*math.Log(lam) - lam
		}
		return l
	}
	f := func(u []float64) []float64 {
		return []float64{u[0], u[1], math.Exp(u[2]), math.Exp(u[3]), math.Exp(u[4])}
	}
	mean, sd := adaptiveMetropolis(logp, []float64{1, 1, math.Log(0.26), math.Log(0.3), 0}, f, 400000, 1)
	names := []string{"a[1]", "a[2]", "b[1]", "b[2]", "g"}
	mf := fitSource(t, klineSciModel, "kline.csv", []byte(klineCSV), sgvb.Settings{Seed: 1})
	compareRef(t, "mean-field", mf, names, mean, sd, 0.3, 0.05, 0.3)
	fr := fitSource(t, klineSciModel, "kline.csv", []byte(klineCSV), sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"a", "b", "g"}}})
	compareRef(t, "full-rank", fr, names, mean, sd, 0.2, 0.45, 1.15)
}

// UCBAdmit (Berkeley 1973 admissions by department A–F and gender; male
// 1), m11.8: admissions binomial on the logit a[male] + delta[dept].
// Only the sums a + delta are well identified: the posterior is a ridge.
const ucbCSV = `dept,male,admit,applications
0,1,512,825
0,0,89,108
1,1,353,560
1,0,17,25
2,1,120,325
2,0,202,593
3,1,138,417
3,0,131,375
4,1,53,191
4,0,94,393
5,1,22,373
5,0,24,341
`

const ucbModel = `data dept: int[N]
data male: int[N]
data applications: int[N]
data admit: int[N]
param a: real[2] ~ Normal(0, 1.5)
param delta: real[6] ~ Normal(0, 1.5)
admit ~ BinomialLogit(applications, a[male] + delta[dept])
output diff_a = a[1] - a[0]
`

// TestRethinkingUCBAdmit fits m11.8 mean-field and full-rank and compares
// them with the reference (adaptive Metropolis; a −0.44 / −0.54 ± 0.53,
// diff_a = a[male] − a[female] −0.098 ± 0.081, the book's values).
// Full-rank: means within 0.1 reference sd (measured 0.02), sds within
// [0.9, 1.1] times (measured 1.02 to 1.03). Mean-field, which stops at the
// iteration limit (10000) without converging: a's and delta's means within
// 0.3 sd (measured 0.20: the ridge a + delta is found, its position along
// it is not) and sds 0.05 to 0.35 times the reference's (measured 0.08 to
// 0.28: the ridge again); diff_a, which is across the ridge, within 0.1 sd
// (measured 0.05) with its sd within [0.75, 1.1] (measured 0.86).
func TestRethinkingUCBAdmit(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model and runs a Metropolis reference")
	}
	dept := []int{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}
	male := []int{1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}
	admit := []float64{512, 89, 353, 17, 120, 202, 138, 131, 53, 94, 22, 24}
	apps := []float64{825, 108, 560, 25, 325, 593, 417, 375, 191, 393, 373, 341}
	logp := func(u []float64) float64 {
		l := 0.0
		for _, v := range u {
			l -= v * v / (2 * 1.5 * 1.5)
		}
		for i := range dept {
			eta := u[male[i]] + u[2+dept[i]]
			l += admit[i]*eta - apps[i]*(math.Max(eta, 0)+math.Log1p(math.Exp(-math.Abs(eta))))
		}
		return l
	}
	f := func(u []float64) []float64 { return append(append([]float64(nil), u...), u[1]-u[0]) }
	mean, sd := adaptiveMetropolis(logp, []float64{-0.5, -0.5, 1, 1, 0, 0, -0.5, -2}, f, 400000, 1)
	names := []string{"a[1]", "a[2]", "delta[1]", "delta[2]", "delta[3]", "delta[4]", "delta[5]", "delta[6]", "diff_a"}
	mf := fitSource(t, ucbModel, "ucb.csv", []byte(ucbCSV), sgvb.Settings{Seed: 1})
	compareRef(t, "mean-field", mf, names[:8], mean[:8], sd[:8], 0.3, 0.05, 0.35)
	compareRef(t, "mean-field", mf, names[8:], mean[8:], sd[8:], 0.1, 0.75, 1.1)
	fr := fitSource(t, ucbModel, "ucb.csv", []byte(ucbCSV), sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"a", "delta"}}})
	compareRef(t, "full-rank", fr, names, mean, sd, 0.1, 0.9, 1.1)
}

// Reed frog tadpoles, m13.2: survivors of N tadpoles in each of 48 tanks,
// a varying intercept per tank (centred, as the book writes it). The data
// are simulated in the design of the rethinking package's reedfrogs (16
// tanks each of density 10, 25 and 35) with a_bar = 1.4 and sigma = 1.6,
// near the book's posterior means, from a fixed PCG stream.
const reedfrogModel = `data density: int[N]
data surv: int[N]
param a_bar: real ~ Normal(0, 1.5)
param sigma: positive ~ Exponential(1)
param a: real[N] ~ Normal(a_bar, sigma)
surv ~ BinomialLogit(density, a)
`

func reedfrogData() ([]byte, []float64, []float64) {
	rng := rand.New(rand.NewPCG(2026, 13))
	var b bytes.Buffer
	b.WriteString("density,surv\n")
	var n, s []float64
	for _, d := range []int{10, 25, 35} {
		for range 16 {
			p := 1 / (1 + math.Exp(-(1.4 + 1.6*rng.NormFloat64())))
			k := 0
			for range d {
				if rng.Float64() < p {
					k++
				}
			}
			fmt.Fprintf(&b, "%d,%d\n", d, k)
			n = append(n, float64(d))
			s = append(s, float64(k))
		}
	}
	return b.Bytes(), n, s
}

// TestRethinkingReedfrog fits m13.2 mean-field and full-rank and compares
// them with the reference (adaptive Metropolis in a_bar, log sigma, a; a
// million steps). Every mean within 0.15 reference sd (measured 0.06 at
// most, both fits). Mean-field sds: a_bar's and sigma's within [0.6, 1.1]
// times the reference's (measured 0.86 and 0.66: the centred hierarchy
// couples sigma with the a's, which a mean-field q cannot represent), the
// tanks' within [0.8, 1.1] (measured 0.87 to 1.03). Full-rank sds within
// [0.8, 1.1] (measured 0.83 for sigma, 0.94 a_bar, 0.87 to 1.03 the a's).
func TestRethinkingReedfrog(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model and runs a Metropolis reference")
	}
	csv, n, s := reedfrogData()
	// coordinates a_bar, log sigma, a[1..48]
	logp := func(u []float64) float64 {
		sigma := math.Exp(u[1])
		l := -u[0]*u[0]/(2*1.5*1.5) - sigma + u[1]
		for j := range n {
			a := u[2+j]
			z := (a - u[0]) / sigma
			l += -0.5*z*z - u[1]
			l += s[j]*a - n[j]*(math.Max(a, 0)+math.Log1p(math.Exp(-math.Abs(a))))
		}
		return l
	}
	f := func(u []float64) []float64 {
		out := append([]float64(nil), u...)
		out[1] = math.Exp(u[1])
		return out
	}
	x0 := make([]float64, 2+len(n))
	x0[0], x0[1] = 1.4, math.Log(1.6)
	for j := range n {
		x0[2+j] = math.Log((s[j] + 0.5) / (n[j] - s[j] + 0.5))
	}
	mean, sd := adaptiveMetropolis(logp, x0, f, 1000000, 1)
	names := []string{"a_bar", "sigma"}
	for j := range n {
		names = append(names, fmt.Sprintf("a[%d]", j+1))
	}
	mf := fitSource(t, reedfrogModel, "frogs.csv", csv, sgvb.Settings{Seed: 1})
	compareRef(t, "mean-field", mf, names[:2], mean[:2], sd[:2], 0.15, 0.6, 1.1)
	compareRef(t, "mean-field", mf, names[2:], mean[2:], sd[2:], 0.15, 0.8, 1.1)
	fr := fitSource(t, reedfrogModel, "frogs.csv", csv, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"a_bar", "sigma", "a"}}})
	compareRef(t, "full-rank", fr, names, mean, sd, 0.15, 0.8, 1.1)
}

// Chimpanzees, m13.4: pulled_left of 7 actors in 6 blocks under 4
// treatments, logit a[actor] + g[block] + b[treatment], the actors' and
// blocks' intercepts varying (centred, as the book writes it). The data
// are simulated in the design of the rethinking package's chimpanzees (each
// actor 3 trials of each treatment in each block, 504 rows) with effects
// near the book's posterior means (a_bar 0.6, sigma_a 2, sigma_g 0.2; b
// −0.1, 0.4, −0.5, 0.3), from a fixed PCG stream.
const chimpModel = `data actor: int[N]
data block: int[N]
data treatment: int[N]
data pulled_left: int[N]
param b: real[4] ~ Normal(0, 0.5)
param a_bar: real ~ Normal(0, 1.5)
param sigma_a: positive ~ Exponential(1)
param sigma_g: positive ~ Exponential(1)
param a: real[7] ~ Normal(a_bar, sigma_a)
param g: real[6] ~ Normal(0, sigma_g)
pulled_left ~ BernoulliLogit(a[actor] + g[block] + b[treatment])
`

// chimpData returns the CSV and, per (actor, block, treatment) cell of 3
// trials, the cell's indices and its count of pulled_left.
func chimpData() ([]byte, [][3]int, []float64) {
	rng := rand.New(rand.NewPCG(2026, 134))
	bt := []float64{-0.1, 0.4, -0.5, 0.3}
	var a [7]float64
	for i := range a {
		a[i] = 0.6 + 2*rng.NormFloat64()
	}
	var g [6]float64
	for i := range g {
		g[i] = 0.2 * rng.NormFloat64()
	}
	var buf bytes.Buffer
	buf.WriteString("actor,block,treatment,pulled_left\n")
	var cells [][3]int
	var k []float64
	for i := range 7 {
		for j := range 6 {
			for tr := range 4 {
				p := 1 / (1 + math.Exp(-(a[i] + g[j] + bt[tr])))
				n := 0
				for range 3 {
					y := 0
					if rng.Float64() < p {
						y = 1
					}
					n += y
					fmt.Fprintf(&buf, "%d,%d,%d,%d\n", i, j, tr, y)
				}
				cells = append(cells, [3]int{i, j, tr})
				k = append(k, float64(n))
			}
		}
	}
	return buf.Bytes(), cells, k
}

// TestRethinkingChimpanzees fits m13.4 mean-field and full-rank and
// compares them with the reference (adaptive Metropolis in non-centred
// coordinates, a million steps; its sigma_g moves by 0.03 sd and its sd
// by 4 % at 600 000). Full-rank: means within 0.45 reference sd
// (measured 0.37 for sigma_g, 0.50 against 0.41, whose posterior piles up
// near 0 as a normal on log sigma_g cannot; the blocks' g up to 0.21, the
// others 0.05), sds within [0.7, 1.1] times the reference's (measured 0.77
// sigma_g, 0.86 sigma_a, 0.85 to 1.0 the others). Mean-field: means within
// 0.2 sd (measured 0.15 at most), sds within [0.35, 1.0] times (measured
// 0.44 sigma_g, 0.59 to 0.65 the actors' a, which move with b's treatment
// effects along a + b, 0.69 the b, 0.70 to 0.78 the g, 0.76 sigma_a, 0.84
// a_bar): the known under-dispersion of a mean-field q.
func TestRethinkingChimpanzees(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model and runs a Metropolis reference")
	}
	csv, cells, k := chimpData()
	// reference coordinates (non-centred, which a random walk mixes in):
	// b[0..3], a_bar, log sigma_a, log sigma_g, za[0..6], zg[0..5]
	const nb, iab, isa, isg, iza, izg = 4, 4, 5, 6, 7, 14
	logp := func(u []float64) float64 {
		sa, sg := math.Exp(u[isa]), math.Exp(u[isg])
		l := -u[iab]*u[iab]/(2*1.5*1.5) - sa + u[isa] - sg + u[isg]
		for _, v := range u[:nb] {
			l -= v * v / (2 * 0.5 * 0.5)
		}
		for _, v := range u[iza:] {
			l -= v * v / 2
		}
		for c, ijt := range cells {
			eta := u[iab] + sa*u[iza+ijt[0]] + sg*u[izg+ijt[1]] + u[ijt[2]]
			l += k[c]*eta - 3*(math.Max(eta, 0)+math.Log1p(math.Exp(-math.Abs(eta))))
		}
		return l
	}
	f := func(u []float64) []float64 {
		sa, sg := math.Exp(u[isa]), math.Exp(u[isg])
		out := append([]float64(nil), u[:iab+1]...)
		out = append(out, sa, sg)
		for i := range 7 {
			out = append(out, u[iab]+sa*u[iza+i])
		}
		for j := range 6 {
			out = append(out, sg*u[izg+j])
		}
		return out
	}
	x0 := make([]float64, 20)
	x0[iab], x0[isa], x0[isg] = 0.6, math.Log(2), math.Log(0.2)
	mean, sd := adaptiveMetropolis(logp, x0, f, 1000000, 1)
	names := []string{"b[1]", "b[2]", "b[3]", "b[4]", "a_bar", "sigma_a", "sigma_g"}
	for i := range 7 {
		names = append(names, fmt.Sprintf("a[%d]", i+1))
	}
	for j := range 6 {
		names = append(names, fmt.Sprintf("g[%d]", j+1))
	}
	mf := fitSource(t, chimpModel, "chimp.csv", csv, sgvb.Settings{Seed: 1})
	compareRef(t, "mean-field", mf, names, mean, sd, 0.2, 0.35, 1.0)
	fr := fitSource(t, chimpModel, "chimp.csv", csv, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"b", "a_bar", "sigma_a", "sigma_g", "a", "g"}}})
	compareRef(t, "full-rank", fr, names, mean, sd, 0.45, 0.7, 1.1)
}
