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

// Multinomial(theta) through the compiled model is its log mass written
// out, lgamma(m + 1) − Σ lgamma(y + 1) + Σ y .* log(theta) per row of
// counts of total m, in log joint and gradient: one vector of counts, rows
// of counts under a shared simplex, rows under a simplex each (data); and
// MultinomialLogit(eta) is Multinomial(softmax(eta)).
func TestMultinomialIsWrittenOut(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [3, 0, 5], "Y": [[1, 2, 3], [0, 0, 4]], "P": [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const simplex = "data y: int<lower=0>[3]\ndata Y: int<lower=0>[2, 3]\ndata P: simplex[2, 3]\nparam theta: simplex[3]\n"
	const logit = "data y: int<lower=0>[3]\ndata Y: int<lower=0>[2, 3]\ndata P: simplex[2, 3]\nparam eta: real[3]\n"
	for _, c := range []struct{ name, decls, m, ref string }{
		{"vector", simplex, "y ~ Multinomial(theta)\n",
			"target += lgamma(sum(y) + 1) - sum(lgamma(y + 1)) + sum(y .* log(theta))\n"},
		{"rows, shared theta", simplex, "Y ~ Multinomial(theta)\n",
			"target += sum(lgamma(Y * rep(1, 3) + 1)) - sum(lgamma(Y + 1)) + sum(Y .* (rep(1, 2) * log(theta)'))\n"},
		{"rows, a theta each", simplex, "Y ~ Multinomial(P)\ny ~ Multinomial(theta)\n",
			"target += sum(lgamma(Y * rep(1, 3) + 1)) - sum(lgamma(Y + 1)) + sum(Y .* log(P))\ny ~ Multinomial(theta)\n"},
		{"logit, vector", logit, "y ~ MultinomialLogit(eta)\n", "y ~ Multinomial(softmax(eta))\n"},
		{"logit, rows", logit, "Y ~ MultinomialLogit(eta)\n", "Y ~ Multinomial(softmax(eta))\n"},
	} {
		a := compileSrc(t, "a.gpp", c.decls+c.m, nil, in)
		b := compileSrc(t, "b.gpp", c.decls+c.ref, nil, in)
		wantSameLogJoint(t, "Multinomial: "+c.name, a, b)
	}
}

// Multinomial(theta, n) and MultinomialLogit(eta, n) as likelihoods are
// the families without n, log joint and gradient, n a scalar (every row's
// total) or one per row, a literal, a constant or data.
func TestMultinomialTrialsSameDensity(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [3, 0, 5], "Y": [[1, 2, 3], [0, 0, 4]], "Z": [[1, 2, 1], [0, 3, 1]], "m": [6, 4]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const simplex = "data y: int<lower=0>[3]\ndata Y: int<lower=0>[2, 3]\ndata Z: int<lower=0>[2, 3]\ndata m: int<lower=0>[2]\nconst four = 4\nparam theta: simplex[3]\n"
	const logit = "data y: int<lower=0>[3]\ndata Y: int<lower=0>[2, 3]\ndata Z: int<lower=0>[2, 3]\ndata m: int<lower=0>[2]\nconst four = 4\nparam eta: real[3]\n"
	for _, c := range []struct{ name, decls, with, without string }{
		{"vector, literal", simplex, "y ~ Multinomial(theta, 8)\n", "y ~ Multinomial(theta)\n"},
		{"rows, a total each", simplex, "Y ~ Multinomial(theta, m)\n", "Y ~ Multinomial(theta)\n"},
		{"rows, one total", simplex, "Z ~ Multinomial(theta, four)\n", "Z ~ Multinomial(theta)\n"},
		{"logit, rows", logit, "Y ~ MultinomialLogit(eta, m)\ny ~ MultinomialLogit(eta, sum(y))\n", "Y ~ MultinomialLogit(eta)\ny ~ MultinomialLogit(eta)\n"},
	} {
		a := compileSrc(t, "a.gpp", c.decls+c.with, nil, in)
		b := compileSrc(t, "b.gpp", c.decls+c.without, nil, in)
		wantSameLogJoint(t, "Multinomial with n: "+c.name, a, b)
	}
}

// A number of trials other than a row's total is an error when the model
// compiles: at the row's first cell in its data file, naming the row, the
// total and n, and at the distribution for counts without a file.
func TestMultinomialTrialsMismatch(t *testing.T) {
	tab := csvTable(t, "y.csv", "a,b,c", [][]float64{{1, 2, 3}, {0, 0, 4}, {2, 2, 2}})
	const decls = "data Y: int<lower=0>[N, 3]\nparam theta: simplex[3]\n"
	for _, c := range []struct{ src, want string }{
		{decls + "Y ~ Multinomial(theta, 6)\n", "y.csv:3:1: Y: the counts of row 1 total 4 but n is 6, as Multinomial at m.gpp:3:5 needs"},
		{decls + "Y ~ MultinomialLogit(log(theta), [6, 4, 5])\n", "y.csv:4:1: Y: the counts of row 2 total 6 but n[2] is 5, as MultinomialLogit at m.gpp:3:5 needs"},
		{decls + "Y ~ Multinomial(theta, [6, 4])\n", "m.gpp:3:24: Multinomial argument 2 (n) has 2 elements with these data but the value has 3 rows"},
		{"data Y: int<lower=0>[N, 3]\nparam theta: simplex[3]\nY[0] ~ Multinomial(theta, 5)\n", "y.csv:2:1: Y: the counts total 6 but n is 5, as Multinomial at m.gpp:3:8 needs"},
	} {
		_, err := compileSrcErr(t, "m.gpp", c.src, nil, data.Input{File: "y.csv", Table: tab})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q…", c.src, err, c.want)
		}
	}
	// in-memory counts: no cell, the error is at the distribution
	in := data.Input{JSON: map[string]*data.Array{"y": {Name: "y", Shape: []int{3}, Values: []float64{1, 1, 1}}}}
	_, err := compileSrcErr(t, "m.gpp", "data y: int<lower=0>[3]\nparam theta: simplex[3]\ny ~ Multinomial(theta, 2)\n", nil, in)
	if want := "m.gpp:3:5: Multinomial: the counts total 3 but n is 2"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("in memory: error %v, want %q…", err, want)
	}
}

// Replicates of Multinomial(theta, n) and MultinomialLogit(eta, n): the
// shapes ([k] of a shared theta and a scalar n, else a row per row of
// theta or element of n); every row's counts total its n; the counts'
// means are n·theta and their covariances n·(δ_jk theta_k − theta_j
// theta_k) within a row, to 5 standard errors of 20000 draws; the same
// seed draws the same counts.
func TestMultinomialReplicate(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"m": [3, 0, 25]}`))
	if err != nil {
		t.Fatal(err)
	}
	src := `data m: int<lower=0>[3]
param theta: simplex[3] ~ Dirichlet(rep(1, 3))
param P: simplex[3, 4] ~ Dirichlet(1)
param eta: real[2, 3] ~ Normal(0, 1)
output th = theta
output Pv = P
output sm = exp(eta - rowlogsumexp(eta) * [1, 1, 1]')
output a ~ Multinomial(theta, 12)
output b ~ Multinomial(P, m)
output c ~ MultinomialLogit(eta, 7)
output d ~ Multinomial(theta', m)
`
	m := compileSrc(t, "r.gpp", src, nil, data.Input{File: "d.json", JSON: js})
	idx := map[string]int{}
	for i, o := range m.Outputs {
		idx[o.Name] = i
	}
	for name, want := range map[string]string{"a": "[3]", "b": "[3 4]", "c": "[2 3]", "d": "[3 3]"} {
		if got := fmt.Sprint(m.Outputs[idx[name]].Shape); got != want {
			t.Errorf("%s: shape %s, want %s", name, got, want)
		}
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	z := make([]float64, m.Dim) // the coordinates: of a simplex, the log of its values
	for i := range z {
		z[i] = 0.3*math.Sin(float64(3*i+1)) + 0.1
	}
	for _, l := range m.Latents {
		if l.Support != dist.Simplex {
			continue
		}
		k := l.Shape[len(l.Shape)-1]
		for r := l.Offset; r < l.Offset+l.Size; r += k {
			s := 0.0
			for j := r; j < r+k; j++ {
				z[j] = 1.2 + math.Sin(float64(j)) // in (0.2, 2.2)
				s += z[j]
			}
			for j := r; j < r+k; j++ {
				z[j] = math.Log(z[j] / s)
			}
		}
	}
	_, outs, err := ev.Eval(z)
	if err != nil {
		t.Fatal(err)
	}
	theta, P, sm := append([]float64(nil), outs[idx["th"]]...), append([]float64(nil), outs[idx["Pv"]]...), append([]float64(nil), outs[idx["sm"]]...)
	type rep struct {
		name   string
		k      int
		trials []float64 // per row
		probs  func(r int) []float64
	}
	reps := []rep{
		{"a", 3, []float64{12}, func(int) []float64 { return theta }},
		{"b", 4, []float64{3, 0, 25}, func(r int) []float64 { return P[4*r : 4*r+4] }},
		{"c", 3, []float64{7, 7}, func(r int) []float64 { return sm[3*r : 3*r+3] }},
		{"d", 3, []float64{3, 0, 25}, func(int) []float64 { return theta }},
	}
	draw := func(seed uint64, n int) map[string][][]float64 {
		ev.SetRand(rand.New(rand.NewPCG(seed, 4)))
		got := map[string][][]float64{}
		for range n {
			_, outs, err := ev.Eval(z)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range reps {
				got[r.name] = append(got[r.name], append([]float64(nil), outs[idx[r.name]]...))
			}
		}
		return got
	}
	const draws = 20000
	all := draw(1, draws)
	for _, r := range reps {
		for row, n := range r.trials {
			p := r.probs(row)
			mean := make([]float64, r.k)
			cov, cov2 := make([]float64, r.k*r.k), make([]float64, r.k*r.k)
			for _, d := range all[r.name] {
				counts := d[row*r.k : row*r.k+r.k]
				tot := 0.0
				for j, c := range counts {
					tot += c
					mean[j] += c
					for i := range r.k {
						x := (c - n*p[j]) * (counts[i] - n*p[i])
						cov[j*r.k+i] += x
						cov2[j*r.k+i] += x * x
					}
				}
				if tot != n {
					t.Fatalf("%s row %d: counts %v total %g, want %g", r.name, row, counts, tot, n)
				}
			}
			for j := range r.k {
				se := math.Sqrt(n * p[j] * (1 - p[j]) / draws)
				if got := mean[j] / draws; math.Abs(got-n*p[j]) > 5*se {
					t.Errorf("%s row %d: mean count %d %.4f, want n·theta = %.4f (se %.2g)", r.name, row, j, got, n*p[j], se)
				}
				for i := range r.k {
					want := -n * p[j] * p[i]
					if i == j {
						want += n * p[j]
					}
					got := cov[j*r.k+i] / draws
					if se := math.Sqrt((cov2[j*r.k+i]/draws - got*got) / draws); math.Abs(got-want) > 5*se {
						t.Errorf("%s row %d: covariance [%d, %d] %.4f, want %.4f (se %.2g)", r.name, row, j, i, got, want, se)
					}
				}
			}
		}
	}
	again := draw(1, 50)
	for _, r := range reps {
		for i := range again[r.name] {
			if fmt.Sprint(again[r.name][i]) != fmt.Sprint(all[r.name][i]) {
				t.Fatalf("%s: draw %d with the same seed %v, first %v", r.name, i, again[r.name][i], all[r.name][i])
			}
		}
	}
}
