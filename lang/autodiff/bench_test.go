package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// Benchmarks of the two hot paths of the example models, each beside a
// hand-written gradient of the same function. Run with
//
//	go test -run '^$' -bench . -benchtime 2s ./lang/autodiff/
//
// and see BENCHMARKS.md for the figures.

// ---------------------------------------------------------------------------
// GPFA: C = W W' + I/prec, Σ_i log N(y_i | 0, C) through GaussRowsSS.

type gaussBench struct {
	d, k, n int
	y       []float64 // n×d data
	x       []float64 // W (d×k, row-major) then prec
}

func newGaussBench(d, k int) *gaussBench {
	r := rand.New(rand.NewPCG(uint64(d), uint64(k)))
	g := &gaussBench{d: d, k: k, n: 500}
	g.y = make([]float64, g.n*d)
	for i := range g.y {
		g.y[i] = r.NormFloat64()
	}
	g.x = make([]float64, d*k+1)
	for i := range g.x {
		g.x[i] = 0.3 * r.Float64()
	}
	g.x[d*k] = 2 // prec
	return g
}

// program builds the tape; S = Y'Y is built in the tape and hoisted.
func (g *gaussBench) program() (*Program, error) {
	b := NewBuilder()
	w := b.Input("W", Matrix(g.d, g.k), testPos)
	prec := b.Input("prec", Scalar(), testPos)
	y := b.Const(g.y, Matrix(g.n, g.d), testPos)
	s := b.MatMul(b.Transpose(y, testPos), y, testPos)
	c := b.Add(b.MatMul(w, b.Transpose(w, testPos), testPos), b.Div(b.Identity(g.d, testPos), prec, testPos), testPos)
	return b.Finish(b.GaussRowsSS(c, s, float64(g.n), testPos))
}

// gaussHand is the hand-written value and gradient, with the same BLAS
// calls and factorisation helpers the tape uses.
type gaussHand struct {
	d, k              int
	n                 float64
	s, c, l, ci, t, q []float64
}

func (g *gaussBench) hand() *gaussHand {
	d := g.d
	h := &gaussHand{d: d, k: g.k, n: float64(g.n)}
	h.s = make([]float64, d*d)
	gemm(true, false, d, d, g.n, 1, g.y, d, g.y, d, 0, h.s, d)
	for _, p := range []*[]float64{&h.c, &h.l, &h.ci, &h.t, &h.q} {
		*p = make([]float64, d*d)
	}
	return h
}

func (h *gaussHand) logJoint(x, grad []float64) float64 {
	d, k := h.d, h.k
	w, prec := x[:d*k], x[d*k]
	syrk(false, d, k, w, k, h.c)
	for i := 0; i < d; i++ {
		h.c[i*d+i] += 1 / prec
	}
	symLower(h.l, h.c, d)
	if cholesky(h.l, d) != 0 {
		return math.NaN()
	}
	cholInverse(h.ci, h.l, d)
	tr := 0.0
	for i, v := range h.ci {
		tr += v * h.s[i]
	}
	lp := -0.5*h.n*(float64(d)*log2Pi+logDetChol(h.l, d)) - 0.5*tr
	// dC = -n/2 C⁻¹ + 1/2 C⁻¹ S C⁻¹ (in h.q); dW = 2 dC W; dprec = -tr(dC)/prec².
	gemm(false, false, d, d, d, 1, h.ci, d, h.s, d, 0, h.t, d)
	gemm(false, false, d, d, d, 0.5, h.t, d, h.ci, d, 0, h.q, d)
	trd := 0.0
	for i, v := range h.ci {
		h.q[i] -= 0.5 * h.n * v
	}
	for i := 0; i < d; i++ {
		trd += h.q[i*d+i]
	}
	gemm(false, false, d, k, d, 2, h.q, d, w, k, 0, grad[:d*k], k)
	grad[d*k] = -trd / (prec * prec)
	return lp
}

var gaussSizes = []struct{ d, k int }{{50, 10}, {42, 40}}

func BenchmarkGaussRowsSS(b *testing.B) {
	for _, sz := range gaussSizes {
		g := newGaussBench(sz.d, sz.k)
		grad := make([]float64, len(g.x))
		b.Run(fmt.Sprintf("D%dK%d/tape", sz.d, sz.k), func(b *testing.B) {
			p, err := g.program()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.LogJoint(g.x, grad); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("D%dK%d/hand", sz.d, sz.k), func(b *testing.B) {
			h := g.hand()
			b.ReportAllocs()
			for b.Loop() {
				h.logJoint(g.x, grad)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// EPM: the edge-partition likelihood over gathered rows, with gamma priors.

type epmBench struct {
	n, k   int
	ei, ej []int
	x      []float64 // W (n×k), r (k), a (n), c (n)
}

func newEPMBench() *epmBench {
	const n, k, edges = 234, 10, 480
	r := rand.New(rand.NewPCG(234, 480))
	e := &epmBench{n: n, k: k}
	for len(e.ei) < edges {
		i, j := r.IntN(n), r.IntN(n)
		if i != j {
			e.ei, e.ej = append(e.ei, i), append(e.ej, j)
		}
	}
	e.x = make([]float64, n*k+k+2*n)
	for i := range e.x {
		e.x[i] = 0.2 + r.Float64()
	}
	return e
}

// program builds the EPM tape; fused uses the fused ops the compiler emits
// for this model (RowSumProd for the rate, prepared gamma densities)
// instead of the elementwise chain and the per-element kernel.
func (e *epmBench) program(priors, fused bool) (*Program, error) {
	b := NewBuilder()
	w := b.Input("W", Matrix(e.n, e.k), testPos)
	r := b.Input("r", Vector(e.k), testPos)
	a := b.Input("a", Vector(e.n), testPos)
	c := b.Input("c", Vector(e.n), testPos)
	rt := b.Transpose(r, testPos)
	var rate ID
	if fused {
		rate = b.RowSumProd(b.Gather(w, e.ei, testPos), b.Gather(w, e.ej, testPos), rt, testPos)
	} else {
		rate = b.RowSum(b.Mul(b.Mul(b.Gather(w, e.ei, testPos), b.Gather(w, e.ej, testPos), testPos), rt, testPos), testPos)
	}
	links := b.Sum(b.Add(b.Log1mexp(rate, testPos), rate, testPos), testPos)
	s := b.ColSum(w, testPos)
	pairs := b.Sum(b.Mul(rt, b.Sub(b.Square(s, testPos), b.ColSum(b.Square(w, testPos), testPos), testPos), testPos), testPos)
	lp := b.Sub(links, b.Mul(b.Scalar(0.5, testPos), pairs, testPos), testPos)
	if priors {
		density := b.Density
		if fused {
			density = func(d dist.Univariate, v ID, args []ID, pos ast.Pos) ID {
				return b.DensityPrepared(d, gammaPrepared{}, v, args, pos)
			}
		}
		pw := density(testGamma, w, []ID{a, c}, testPos)
		pr := density(testGamma, r, []ID{b.Scalar(0.1, testPos), b.Scalar(1, testPos)}, testPos)
		lp = b.Add(lp, b.Add(pw, pr, testPos), testPos)
	} else {
		// keep a and c in the latent vector with a zero gradient
		lp = b.Add(lp, b.Mul(b.Scalar(0, testPos), b.Add(b.Sum(a, testPos), b.Sum(c, testPos), testPos), testPos), testPos)
	}
	return b.Finish(lp)
}

// epmHand is the hand-written value and gradient: one fused pass over the
// edges and one over the nodes. rowHoist computes the per-row gamma
// constants (lgamma, digamma of a_i) once per row instead of calling the
// kernel per element.
type epmHand struct {
	*epmBench
	priors, rowHoist bool
	s, ss            []float64
}

func (e *epmBench) hand(priors, rowHoist bool) *epmHand {
	return &epmHand{epmBench: e, priors: priors, rowHoist: rowHoist, s: make([]float64, e.k), ss: make([]float64, e.k)}
}

func (h *epmHand) logJoint(x, grad []float64) float64 {
	n, k := h.n, h.k
	w, r, a, c := x[:n*k], x[n*k:n*k+k], x[n*k+k:n*k+k+n], x[n*k+k+n:]
	clear(grad)
	gw, gr, ga, gc := grad[:n*k], grad[n*k:n*k+k], grad[n*k+k:n*k+k+n], grad[n*k+k+n:]
	lp := 0.0
	for e, i := range h.ei {
		j := h.ej[e]
		wi, wj := w[i*k:i*k+k], w[j*k:j*k+k]
		rate := 0.0
		for l := range wi {
			rate += wi[l] * wj[l] * r[l]
		}
		lp += log1mexp(rate) + rate
		d := 1/math.Expm1(rate) + 1
		gi, gj := gw[i*k:i*k+k], gw[j*k:j*k+k]
		for l := range wi {
			gi[l] += d * wj[l] * r[l]
			gj[l] += d * wi[l] * r[l]
			gr[l] += d * wi[l] * wj[l]
		}
	}
	clear(h.s)
	clear(h.ss)
	for i := 0; i < n; i++ {
		for l, v := range w[i*k : i*k+k] {
			h.s[l] += v
			h.ss[l] += v * v
		}
	}
	for l := range h.s {
		q := h.s[l]*h.s[l] - h.ss[l]
		lp -= 0.5 * r[l] * q
		gr[l] -= 0.5 * q
	}
	for i := 0; i < n; i++ {
		for l, v := range w[i*k : i*k+k] {
			gw[i*k+l] -= r[l] * (h.s[l] - v)
		}
	}
	if !h.priors {
		return lp
	}
	var p, dp [2]float64
	for i := 0; i < n; i++ {
		ai, ci := a[i], c[i]
		if h.rowHoist {
			lga, _ := math.Lgamma(ai)
			lc, psi := math.Log(ci), digamma(ai)
			for l, v := range w[i*k : i*k+k] {
				lv := math.Log(v)
				lp += ai*lc - lga + (ai-1)*lv - ci*v
				gw[i*k+l] += (ai-1)/v - ci
				ga[i] += lc - psi + lv
				gc[i] += ai/ci - v
			}
			continue
		}
		p[0], p[1] = ai, ci
		for l, v := range w[i*k : i*k+k] {
			q, dx := gammaKernel(v, p[:], dp[:])
			lp += q
			gw[i*k+l] += dx
			ga[i] += dp[0]
			gc[i] += dp[1]
		}
	}
	p[0], p[1] = 0.1, 1
	for l, v := range r {
		q, dx := gammaKernel(v, p[:], dp[:])
		lp += q
		gr[l] += dx
	}
	return lp
}

func BenchmarkEPM(b *testing.B) {
	e := newEPMBench()
	grad := make([]float64, len(e.x))
	for _, priors := range []bool{false, true} {
		name := "lik"
		if priors {
			name = "lik+priors"
		}
		for _, fused := range []bool{false, true} {
			tape := "/tape"
			if fused {
				tape = "/tape-fused"
			}
			b.Run(name+tape, func(b *testing.B) {
				p, err := e.program(priors, fused)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.LogJoint(e.x, grad); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(name+"/hand", func(b *testing.B) {
			h := e.hand(priors, false)
			b.ReportAllocs()
			for b.Loop() {
				h.logJoint(e.x, grad)
			}
		})
		if priors {
			b.Run(name+"/hand-rowhoist", func(b *testing.B) {
				h := e.hand(priors, true)
				b.ReportAllocs()
				for b.Loop() {
					h.logJoint(e.x, grad)
				}
			})
		}
	}
}

// The benchmarked tapes and hand-written gradients compute the same thing.
func TestBenchmarksAgree(t *testing.T) {
	check := func(name string, p *Program, x []float64, hand func(x, g []float64) float64) {
		t.Helper()
		g1, g2 := make([]float64, len(x)), make([]float64, len(x))
		v1, err := p.LogJoint(x, g1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v2 := hand(x, g2)
		if math.Abs(v1-v2) > 1e-10*math.Abs(v2) {
			t.Errorf("%s: tape %v, hand %v", name, v1, v2)
		}
		for i := range g1 {
			if math.Abs(g1[i]-g2[i]) > 1e-8*max(1, math.Abs(g2[i])) {
				t.Errorf("%s: grad[%d] tape %v, hand %v", name, i, g1[i], g2[i])
				return
			}
		}
	}
	for _, sz := range gaussSizes {
		g := newGaussBench(sz.d, sz.k)
		p, err := g.program()
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("gauss D%dK%d", sz.d, sz.k), p, g.x, g.hand().logJoint)
	}
	e := newEPMBench()
	for _, priors := range []bool{false, true} {
		for _, fused := range []bool{false, true} {
			p, err := e.program(priors, fused)
			if err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("epm priors=%v fused=%v", priors, fused), p, e.x, e.hand(priors, false).logJoint)
			if priors {
				check(fmt.Sprintf("epm rowhoist fused=%v", fused), p, e.x, e.hand(priors, true).logJoint)
			}
		}
	}
}

// BenchmarkRowSumProd times the value and gradient of sum(rowsum(W[i] .*
// W[j] .* r)) at the EPM's NIPS234 size (234 rows, K = 10, 5906 random
// pairs: training links and held-out pairs): alone, and with a team of two
// whose parts run one after the other on the caller (fakeTeam), which
// measures the CPU work of the shared path that a fit with two workers
// takes. "summed" is the node Finish fuses with its Sum (the EPM's missing
// pairs); "unfused" keeps the rowsum, as when something else reads it (the
// EPM's observed links), and adds its elements in a Sum.
func BenchmarkRowSumProd(b *testing.B) {
	const n, k, pairs = 234, 10, 5906
	r := rand.New(rand.NewPCG(1, 2))
	ix, iy := make([]int, pairs), make([]int, pairs)
	for e := range ix {
		ix[e], iy[e] = r.IntN(n), r.IntN(n)
	}
	x := make([]float64, n*k+k)
	for i := range x {
		x[i] = 0.2 + r.Float64()
	}
	for _, summed := range []bool{false, true} {
		for _, size := range []int{1, 2} {
			bd := NewBuilder()
			w := bd.Input("W", Matrix(n, k), testPos)
			rr := bd.Input("r", Matrix(1, k), testPos)
			rs := bd.RowSumProd(bd.Gather(w, ix, testPos), bd.Gather(w, iy, testPos), rr, testPos)
			var keep []ID
			name := "summed"
			if !summed {
				keep, name = []ID{rs}, "unfused" // kept: the Sum is not fused into it
			}
			p, err := bd.Finish(bd.Sum(rs, testPos), keep...)
			if err != nil {
				b.Fatal(err)
			}
			if size > 1 {
				p.SetTeam(&fakeTeam{size: size})
			}
			g := make([]float64, len(x))
			benchLogJoint(b, fmt.Sprintf("%s/team%d", name, size), p, x, g)
		}
	}
}

func benchLogJoint(b *testing.B, name string, p *Program, x, g []float64) {
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.LogJoint(x, g); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLinearPredictor times the value and gradient of the h5
// model's predictor mu + tau * z[g] (25 000 rows in 5000 groups):
// "predictor" alone under a sum, "model" in y ~ Normal(eta, sigma);
// "unfused" with the predictor as its gather, product and sum nodes,
// "fused" as the one node Finish makes of them (fuseLinear), which gives
// the same numbers.
func BenchmarkLinearPredictor(b *testing.B) {
	const n, j = 25000, 5000
	r := rand.New(rand.NewPCG(3, 4))
	g, y := make([]int, n), make([]float64, n)
	for i := range g {
		g[i], y[i] = r.IntN(j), r.NormFloat64()
	}
	normal, _ := dist.LookupUnivariate("Normal")
	for _, model := range []bool{false, true} {
		for _, fused := range []bool{false, true} {
			bd := NewBuilder()
			mu := bd.Input("mu", Scalar(), testPos)
			tau := bd.Input("tau", Scalar(), testPos)
			z := bd.Input("z", Vector(j), testPos)
			ls := bd.Input("ls", Scalar(), testPos)
			eta := bd.Add(mu, bd.Mul(tau, bd.Gather(z, g, testPos), testPos), testPos)
			root := bd.Add(bd.Sum(eta, testPos), ls, testPos)
			name := "predictor/"
			if model {
				root = bd.Density(*normal, bd.Const(y, Vector(n), testPos), []ID{eta, bd.Exp(ls, testPos)}, testPos)
				name = "model/"
			}
			noLinFuse = !fused
			p, err := bd.Finish(root)
			noLinFuse = false
			if err != nil {
				b.Fatal(err)
			}
			x := make([]float64, p.Dim())
			for i := range x {
				x[i] = 0.5 * r.NormFloat64()
			}
			if fused {
				name += "fused"
			} else {
				name += "unfused"
			}
			benchLogJoint(b, name, p, x, make([]float64, len(x)))
		}
	}
}
