package compile

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
)

// Benchmarks of the gradient of a crossed GLMM written as a loop and as
// vector operations: the two compile to the same log joint, and the loop,
// lowered as vectors (vecFor), costs what the vector form does; "unrolled"
// is the loop lowered as before, a few scalar nodes per iteration. Run with
//
//	go test -run '^$' -bench 'LoopForm' -benchmem ./lang/compile/
//
// and see docs/performance.md for the figures.

const glmmHead = `
data N: int
data G: int
data H: int
data x: real[N]
data g: int<lower=0, upper=G-1>[N]
data h: int<lower=0, upper=H-1>[N]
data y: real[N]
param a: real ~ Normal(0, 5)
param b: real ~ Normal(0, 5)
param s: positive ~ Exponential(1)
param su: positive ~ Exponential(1)
param sv: positive ~ Exponential(1)
param u: real[G] ~ Normal(0, su)
param v: real[H] ~ Normal(0, sv)
`

// glmmLoop and glmmVec are the two forms of the crossed GLMM.
const (
	glmmLoop = glmmHead + `for i in 0:N {
    y[i] ~ Normal(a + b * x[i] + u[g[i]] + v[h[i]], s)
}
`
	glmmVec = glmmHead + `y ~ Normal(a + b * x + u[g] + v[h], s)
`
)

// glmmInput returns synthetic crossed-GLMM data of n rows.
func glmmInput(n int) data.Input {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	const G, H = 20, 15
	x, g, h, y := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = r.NormFloat64()
		g[i] = float64(r.IntN(G))
		h[i] = float64(r.IntN(H))
		y[i] = 1 + 0.5*x[i] + 0.3*r.NormFloat64()
	}
	arr := func(name string, v []float64) *data.Array {
		return &data.Array{Name: name, Shape: []int{n}, Values: v}
	}
	return data.Input{File: "glmm.json", JSON: map[string]*data.Array{
		"N": {Name: "N", Values: []float64{float64(n)}},
		"G": {Name: "G", Values: []float64{G}},
		"H": {Name: "H", Values: []float64{H}},
		"x": arr("x", x), "g": arr("g", g), "h": arr("h", h), "y": arr("y", y),
	}}
}

// randomPoint returns a seeded point in m's coordinates.
func randomPoint(m *Model, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 3))
	x := make([]float64, m.Dim)
	for i := range x {
		x[i] = 0.5 * r.NormFloat64()
	}
	return x
}

func BenchmarkLoopForm(b *testing.B) {
	for _, n := range []int{400, 4000} {
		for _, form := range []struct {
			name, src string
			unroll    bool
		}{{"unrolled", glmmLoop, true}, {"loop", glmmLoop, false}, {"vec", glmmVec, false}} {
			b.Run(fmt.Sprintf("N%d/%s", n, form.name), func(b *testing.B) {
				unrollLoops = form.unroll
				m := compileSrc(b, "glmm.gpp", form.src, nil, glmmInput(n))
				unrollLoops = false
				x := randomPoint(m, 1)
				grad := make([]float64, m.Dim)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := m.LogJoint(x, grad); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkLoopRowForms is BenchmarkLoopForm for the per-row forms that
// looprows.go lowers as the rows' matrix (an element of a row, a row's
// max, its running sums, a row under MvNormal), at N = 2000 rows of
// fuzzLoopHead's model, unrolled (as before) and lowered as vectors:
//
//	go test -run '^$' -bench 'LoopRowForms' -benchmem ./lang/compile/
func BenchmarkLoopRowForms(b *testing.B) {
	for _, form := range []struct{ name, body string }{
		{"element", "for i in 0:N {\n    let v = B' * X[i]\n    y[i] ~ Normal(v[0] + v[2], s)\n}"},
		{"max", "for i in 0:N {\n    y[i] ~ Normal(max(X[i]' * B), s)\n}"},
		{"cumsum", "for i in 0:N {\n    y[i] ~ Normal(sum(cumsum(X[i] .* beta)), s)\n}"},
		{"mvnormal", "for i in 0:N {\n    X[i] ~ MvNormal(beta * x[i], I(3) * s)\n}"},
		{"multinomial", "for i in 0:N {\n    Y[i] ~ Multinomial(softmax(B' * X[i]))\n}"},
		{"multinomial-logit", "for i in 0:N {\n    Y[i] ~ MultinomialLogit(B' * X[i])\n}"},
		{"dirichlet", "for i in 0:N {\n    Q[i] ~ Dirichlet(exp(beta))\n}"},
	} {
		for _, unroll := range []bool{true, false} {
			name := form.name + "/loop"
			if unroll {
				name = form.name + "/unrolled"
			}
			b.Run(name, func(b *testing.B) {
				unrollLoops = unroll
				m := compileSrc(b, "loop.gpp", fuzzLoopHead+form.body+"\n", nil, fuzzLoopData(2000))
				unrollLoops = false
				x := randomPoint(m, 1)
				grad := make([]float64, m.Dim)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := m.LogJoint(x, grad); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
