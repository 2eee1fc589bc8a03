package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/internal/benchdata"
)

// Benchmarks of the compiled example models (examples/gpfa.gpp and
// examples/epm.gpp), each beside a hand-written Go value and gradient of
// the SAME full log joint: every prior included, in the coordinates the
// compiled program works in (log z for the positive latents, no Jacobian).
// TestHandWrittenAgree checks that the two agree, so the comparison is
// honest. Run with
//
//	go test -run '^$' -bench 'Compiled' -benchmem ./lang/compile/
//
// and see docs/performance.md for the figures.
//
// The hand-written code is what a careful programmer would write for these
// models: one fused pass over the edges, lgamma/digamma once per distinct
// gamma shape, the Gaussian term through one Cholesky factorisation.

// handTol bounds the relative disagreement of the hand-written gradients
// and the compiled ones.
const handTol = 1e-8

// latentOffset returns the offset of a named latent in the coordinates.
func latentOffset(tb testing.TB, m *Model, name string) int {
	tb.Helper()
	for _, l := range m.Latents {
		if l.Name == name {
			return l.Offset
		}
	}
	tb.Fatalf("no latent %s", name)
	return 0
}

// gammaLog is the log-scale gamma prior on z = e^l with shape a and rate b:
// log p(z), d/dl, d/da, d/db.
func gammaLog(l, a, b float64) (lp, dl, da, db float64) {
	z := math.Exp(l)
	lg, _ := math.Lgamma(a)
	lb := math.Log(b)
	return a*lb - lg + (a-1)*l - b*z, (a - 1) - b*z, lb - dist.Digamma(a) + l, a/b - z
}

// ---------------------------------------------------------------------------
// GPFA

// gpfaCompiled compiles examples/gpfa.gpp with K factors on n×d synthetic
// data, and returns a point in its coordinates.
func gpfaCompiled(tb testing.TB, n, d, k int) (*Model, []float64) {
	tb.Helper()
	y := benchdata.GPFA(n, d, k, uint64(1000*d+k))
	m := compileFile(tb, "../../examples/gpfa.gpp", map[string]string{"K": fmt.Sprint(k)},
		data.Input{File: "synthetic.json", JSON: map[string]*data.Array{"Y": y}})
	r := rand.New(rand.NewPCG(uint64(d), uint64(k)))
	x := make([]float64, m.Dim)
	for _, l := range m.Latents {
		for i := l.Offset; i < l.Offset+l.Size; i++ {
			switch l.Name {
			case "W":
				x[i] = math.Log(0.05 + 0.5*r.Float64())
			case "prec":
				x[i] = math.Log(2)
			default:
				x[i] = -0.5 + r.Float64()
			}
		}
	}
	return m, x
}

// gpfaHand is the hand-written log joint of examples/gpfa.gpp:
//
//	g, g0, c0 ~ Gamma(1, 1), prec ~ Gamma(0.1, 0.1), r ~ Gamma(g0/K, c0),
//	W ~ Gamma(g r', g), Y ~ MvNormalRows(0, W W' + I/prec)
//
// with Y'Y computed once, the Gaussian term through a Cholesky factor
// (LAPACK dpotrf/dpotri) and the gamma prior on W with lgamma and digamma
// once per column.
type gpfaHand struct {
	d, k                         int
	n                            float64
	og, og0, oc0, oprec, or, ow  int
	s, c, ci, t, q, w, dw, shape []float64
}

func newGPFAHand(tb testing.TB, m *Model, y *data.Array) *gpfaHand {
	n, d := y.Shape[0], y.Shape[1]
	k := 0
	for _, l := range m.Latents {
		if l.Name == "W" {
			k = l.Shape[1]
		}
	}
	h := &gpfaHand{d: d, k: k, n: float64(n),
		og: latentOffset(tb, m, "g"), og0: latentOffset(tb, m, "g0"), oc0: latentOffset(tb, m, "c0"),
		oprec: latentOffset(tb, m, "prec"), or: latentOffset(tb, m, "r"), ow: latentOffset(tb, m, "W")}
	h.s = make([]float64, d*d)
	blas64.Implementation().Dgemm(blas.Trans, blas.NoTrans, d, d, n, 1, y.Values, d, y.Values, d, 0, h.s, d)
	for _, p := range []*[]float64{&h.c, &h.ci, &h.t, &h.q} {
		*p = make([]float64, d*d)
	}
	h.w, h.dw, h.shape = make([]float64, d*k), make([]float64, d*k), make([]float64, k)
	return h
}

func (h *gpfaHand) logJoint(x, grad []float64) float64 {
	d, k := h.d, h.k
	impl := blas64.Implementation()
	clear(grad)
	lp := 0.0
	// Scalar priors.
	g, g0, c0, prec := math.Exp(x[h.og]), math.Exp(x[h.og0]), math.Exp(x[h.oc0]), math.Exp(x[h.oprec])
	for _, o := range []int{h.og, h.og0, h.oc0} {
		v, dl, _, _ := gammaLog(x[o], 1, 1)
		lp += v
		grad[o] += dl
	}
	v, dl, _, _ := gammaLog(x[h.oprec], 0.1, 0.1)
	lp += v
	grad[h.oprec] += dl
	// r ~ Gamma(g0/K, c0).
	ra := g0 / float64(k)
	lgra, _ := math.Lgamma(ra)
	lc0, psira := math.Log(c0), dist.Digamma(ra)
	lr, gr := x[h.or:h.or+k], grad[h.or:h.or+k]
	dg0, dc0 := 0.0, 0.0
	for l, v := range lr {
		z := math.Exp(v)
		lp += ra*lc0 - lgra + (ra-1)*v - c0*z
		gr[l] += (ra - 1) - c0*z
		dg0 += (lc0 - psira + v) / float64(k)
		dc0 += ra/c0 - z
	}
	// W ~ Gamma(g r_l, g): lgamma and digamma once per column.
	lg := math.Log(g)
	dg := 0.0
	rv := h.shape
	for l, v := range lr {
		rv[l] = math.Exp(v)
	}
	lw, gw := x[h.ow:h.ow+d*k], grad[h.ow:h.ow+d*k]
	for l := 0; l < k; l++ {
		a := g * rv[l]
		lga, _ := math.Lgamma(a)
		psi := dist.Digamma(a)
		da, db := 0.0, 0.0
		for i := 0; i < d; i++ {
			v := lw[i*k+l]
			z := math.Exp(v)
			h.w[i*k+l] = z
			lp += a*lg - lga + (a-1)*v - g*z
			gw[i*k+l] += (a - 1) - g*z
			da += lg - psi + v
			db += a/g - z
		}
		dg += da*rv[l] + db
		gr[l] += da * g * rv[l] // d/d log r_l = r_l g da
	}
	grad[h.og] += dg * g
	grad[h.og0] += dg0 * g0
	grad[h.oc0] += dc0 * c0
	// Y ~ MvNormalRows(0, C), C = W W' + I/prec, through S = Y'Y.
	c := h.c
	impl.Dsyrk(blas.Lower, blas.NoTrans, d, k, 1, h.w, k, 0, c, d)
	for i := 0; i < d; i++ {
		c[i*d+i] += 1 / prec
	}
	chol := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: d, Stride: d, Data: c}
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: d, Stride: d, Data: c}); !ok {
		return math.NaN()
	}
	logdet := 0.0
	for i := 0; i < d; i++ {
		logdet += 2 * math.Log(c[i*d+i])
	}
	if _, ok := lapack64.Potri(chol); !ok { // lower triangle of C⁻¹
		return math.NaN()
	}
	ci := h.ci
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			ci[i*d+j], ci[j*d+i] = c[i*d+j], c[i*d+j]
		}
	}
	tr := 0.0
	for i, v := range ci {
		tr += v * h.s[i]
	}
	lp += -0.5*h.n*(float64(d)*log2Pi+logdet) - 0.5*tr
	// dC = -n/2 C⁻¹ + 1/2 C⁻¹ S C⁻¹; dW = 2 dC W; d prec = -tr(dC)/prec².
	impl.Dgemm(blas.NoTrans, blas.NoTrans, d, d, d, 1, ci, d, h.s, d, 0, h.t, d)
	impl.Dgemm(blas.NoTrans, blas.NoTrans, d, d, d, 0.5, h.t, d, ci, d, 0, h.q, d)
	trd := 0.0
	for i, v := range ci {
		h.q[i] -= 0.5 * h.n * v
	}
	for i := 0; i < d; i++ {
		trd += h.q[i*d+i]
	}
	impl.Dgemm(blas.NoTrans, blas.NoTrans, d, k, d, 2, h.q, d, h.w, k, 0, h.dw, k)
	for i, v := range h.dw {
		gw[i] += v * h.w[i] // d/d log W = W dW
	}
	grad[h.oprec] += -trd / prec // d/d log prec = prec · (-tr(dC)/prec²)
	return lp
}

const log2Pi = 1.8378770664093454835606594728112352797227949472755668

var gpfaSizes = []struct{ d, k int }{{50, 10}, {42, 40}}

// BenchmarkCompiledGPFA is one LogJoint (value and gradient) of the
// compiled GPFA model on 500 synthetic rows, beside the value alone
// (LogJointValue) and the hand-written one.
func BenchmarkCompiledGPFA(b *testing.B) {
	for _, sz := range gpfaSizes {
		m, x := gpfaCompiled(b, 500, sz.d, sz.k)
		grad := make([]float64, m.Dim)
		b.Run(fmt.Sprintf("D%dK%d/tape", sz.d, sz.k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.LogJoint(x, grad); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("D%dK%d/value", sz.d, sz.k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.LogJointValue(x); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("D%dK%d/profile", sz.d, sz.k), func(b *testing.B) {
			// LogJoint's work with the clock of --profile (Model.Profile),
			// per evaluation
			const evals = 100
			for b.Loop() {
				if _, err := m.Profile(x, evals); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*evals), "ns/eval")
		})
		b.Run(fmt.Sprintf("D%dK%d/hand", sz.d, sz.k), func(b *testing.B) {
			h := newGPFAHand(b, m, m.data["Y"])
			b.ReportAllocs()
			for b.Loop() {
				h.logJoint(x, grad)
			}
		})
	}
}

// BenchmarkCompiledGPFARows is the compiled GPFA gradient (D=50, K=10) at
// 1e3 and 1e5 rows: with Y'Y hoisted out of the per-call work the two
// should take the same time.
func BenchmarkCompiledGPFARows(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("N%d", n), func(b *testing.B) {
			m, x := gpfaCompiled(b, n, 50, 10)
			grad := make([]float64, m.Dim)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := m.LogJoint(x, grad); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// ---------------------------------------------------------------------------
// EPM

// epmCompiled compiles examples/epm.gpp on NIPS234 with K communities and
// returns a point in its coordinates.
func epmCompiled(tb testing.TB, k int) (*Model, []float64, *epmHand) {
	tb.Helper()
	n, links, unknown := benchdata.NIPS234(tb)
	m := compileFile(tb, "../../examples/epm.gpp", map[string]string{"K": fmt.Sprint(k), "N": fmt.Sprint(n)},
		data.Input{File: "nips234.json", JSON: map[string]*data.Array{
			"links": benchdata.Pairs("links", links), "unknown": benchdata.Pairs("unknown", unknown)}})
	r := rand.New(rand.NewPCG(234, uint64(k)))
	x := make([]float64, m.Dim)
	for _, l := range m.Latents {
		for i := l.Offset; i < l.Offset+l.Size; i++ {
			switch l.Name {
			case "W":
				x[i] = math.Log(0.02 + 0.3*r.Float64())
			default:
				x[i] = -1 + r.Float64()
			}
		}
	}
	h := &epmHand{n: n, k: k, links: links, unknown: unknown,
		oa: latentOffset(tb, m, "a"), oc: latentOffset(tb, m, "c"), og0: latentOffset(tb, m, "g0"),
		oc0: latentOffset(tb, m, "c0"), or: latentOffset(tb, m, "r"), ow: latentOffset(tb, m, "W"),
		w: make([]float64, n*k), dw: make([]float64, n*k), r: make([]float64, k), dr: make([]float64, k),
		s: make([]float64, k), ss: make([]float64, k)}
	return m, x, h
}

// epmHand is the hand-written log joint of examples/epm.gpp:
//
//	a ~ Gamma(0.01, 0.01), c ~ Gamma(1, 1), g0, c0 ~ Gamma(1, 1),
//	r ~ Gamma(g0/K, c0), W ~ Gamma(a, c) (per row),
//	links: Σ log1mexp(rate) + rate, rate = rowsum(W[i] .* W[j] .* r'),
//	unknown: + Σ rate, all pairs: - 0.5 Σ_l r_l (s_l² - Σ_i W_il²)
//
// with one fused pass over the links, one over the unknown pairs, and
// lgamma/digamma of a_i once per row.
type epmHand struct {
	n, k                     int
	links, unknown           [][2]int
	oa, oc, og0, oc0, or, ow int
	w, dw, r, dr, s, ss      []float64
}

func (h *epmHand) logJoint(x, grad []float64) float64 {
	n, k := h.n, h.k
	clear(grad)
	clear(h.dw)
	clear(h.dr)
	w, dw, r, dr := h.w, h.dw, h.r, h.dr
	lw := x[h.ow : h.ow+n*k]
	for i, v := range lw {
		w[i] = math.Exp(v)
	}
	for l, v := range x[h.or : h.or+k] {
		r[l] = math.Exp(v)
	}
	lp := 0.0
	// Likelihood, in the natural scale: dw and dr are d/dW and d/dr.
	for _, e := range h.links {
		wi, wj := w[e[0]*k:e[0]*k+k], w[e[1]*k:e[1]*k+k]
		rate := 0.0
		for l := range wi {
			rate += wi[l] * wj[l] * r[l]
		}
		lp += dist.Log1mexp(rate) + rate
		d := 1/math.Expm1(rate) + 1
		gi, gj := dw[e[0]*k:e[0]*k+k], dw[e[1]*k:e[1]*k+k]
		for l := range wi {
			gi[l] += d * wj[l] * r[l]
			gj[l] += d * wi[l] * r[l]
			dr[l] += d * wi[l] * wj[l]
		}
	}
	for _, e := range h.unknown {
		wi, wj := w[e[0]*k:e[0]*k+k], w[e[1]*k:e[1]*k+k]
		gi, gj := dw[e[0]*k:e[0]*k+k], dw[e[1]*k:e[1]*k+k]
		for l := range wi {
			p := wi[l] * wj[l]
			lp += p * r[l]
			gi[l] += wj[l] * r[l]
			gj[l] += wi[l] * r[l]
			dr[l] += p
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
		dr[l] -= 0.5 * q
	}
	for i := 0; i < n; i++ {
		for l, v := range w[i*k : i*k+k] {
			dw[i*k+l] -= r[l] * (h.s[l] - v)
		}
	}
	// Priors, in the log scale; the chain rule d/d log z = z d/dz.
	la, lc := x[h.oa:h.oa+n], x[h.oc:h.oc+n]
	ga, gc := grad[h.oa:h.oa+n], grad[h.oc:h.oc+n]
	lg001, _ := math.Lgamma(0.01)
	la001 := math.Log(0.01)
	for i := 0; i < n; i++ {
		za := math.Exp(la[i])
		lp += 0.01*la001 - lg001 + (0.01-1)*la[i] - 0.01*za
		ga[i] += (0.01 - 1) - 0.01*za
		v, dl, _, _ := gammaLog(lc[i], 1, 1)
		lp += v
		gc[i] += dl
	}
	for _, o := range []int{h.og0, h.oc0} {
		v, dl, _, _ := gammaLog(x[o], 1, 1)
		lp += v
		grad[o] += dl
	}
	g0, c0 := math.Exp(x[h.og0]), math.Exp(x[h.oc0])
	ra := g0 / float64(k)
	lgra, _ := math.Lgamma(ra)
	lc0, psira := math.Log(c0), dist.Digamma(ra)
	lr, gr := x[h.or:h.or+k], grad[h.or:h.or+k]
	dg0, dc0 := 0.0, 0.0
	for l, v := range lr {
		lp += ra*lc0 - lgra + (ra-1)*v - c0*r[l]
		gr[l] += (ra - 1) - c0*r[l] + r[l]*dr[l]
		dg0 += (lc0 - psira + v) / float64(k)
		dc0 += ra/c0 - r[l]
	}
	grad[h.og0] += dg0 * g0
	grad[h.oc0] += dc0 * c0
	gw := grad[h.ow : h.ow+n*k]
	for i := 0; i < n; i++ {
		a, c := math.Exp(la[i]), math.Exp(lc[i])
		lga, _ := math.Lgamma(a)
		logc, psi := math.Log(c), dist.Digamma(a)
		da, dc := 0.0, 0.0
		for l, v := range lw[i*k : i*k+k] {
			z := w[i*k+l]
			lp += a*logc - lga + (a-1)*v - c*z
			gw[i*k+l] += (a - 1) - c*z + z*dw[i*k+l]
			da += logc - psi + v
			dc += a/c - z
		}
		ga[i] += a * da
		gc[i] += c * dc
	}
	return lp
}

// BenchmarkCompiledEPM is one LogJoint (value and gradient) of the compiled
// EPM model on NIPS234 (K=10, 20 % of the pairs held out), beside the value
// alone (LogJointValue) and the hand-written one.
func BenchmarkCompiledEPM(b *testing.B) {
	m, x, h := epmCompiled(b, 10)
	grad := make([]float64, m.Dim)
	b.Run("K10/tape", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.LogJoint(x, grad); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("K10/value", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.LogJointValue(x); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("K10/profile", func(b *testing.B) {
		// LogJoint's work with the clock of --profile (Model.Profile),
		// per evaluation
		const evals = 100
		for b.Loop() {
			if _, err := m.Profile(x, evals); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*evals), "ns/eval")
	})
	b.Run("K10/hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h.logJoint(x, grad)
		}
	})
}

// The hand-written log joints and gradients agree with the compiled ones,
// and the compiled ones allocate nothing per call.
func TestHandWrittenAgree(t *testing.T) {
	check := func(name string, m *Model, x []float64, hand func(x, g []float64) float64) {
		t.Helper()
		g1, g2 := make([]float64, len(x)), make([]float64, len(x))
		v1, err := m.LogJoint(x, g1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v2 := hand(x, g2)
		if math.Abs(v1-v2) > handTol*math.Abs(v2) {
			t.Errorf("%s: compiled %.15g, hand %.15g", name, v1, v2)
		}
		bad := 0
		for i := range g1 {
			if math.Abs(g1[i]-g2[i]) > handTol*max(1, math.Abs(g2[i])) {
				if bad++; bad <= 5 {
					t.Errorf("%s: d/dx[%d] (%s) compiled %.15g, hand %.15g", name, i, m.LatentOf(i), g1[i], g2[i])
				}
			}
		}
		if a := testing.AllocsPerRun(5, func() { m.LogJoint(x, g1) }); a != 0 {
			t.Errorf("%s: %v allocations per LogJoint", name, a)
		}
	}
	for _, sz := range gpfaSizes {
		m, x := gpfaCompiled(t, 200, sz.d, sz.k)
		check(fmt.Sprintf("gpfa D%dK%d", sz.d, sz.k), m, x, newGPFAHand(t, m, m.data["Y"]).logJoint)
	}
	m, x, h := epmCompiled(t, 10)
	check("epm nips234 K10", m, x, h.logJoint)
}
