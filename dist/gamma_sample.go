package dist

import (
	"math"
	"math/rand/v2"
)

// SampleGammaLog returns log x for a draw x ~ Gamma(a, 1). It does not
// allocate and consumes rng only.
//
// For a ≥ 1 it uses Marsaglia and Tsang's (2000) squeeze-and-reject method
// on (1 + c·z)³, z standard normal (acceptance ≥ 0.95). For a < 1 it uses the
// exact shape boost x = G·U^(1/a) with G ~ Gamma(a+1), in log form
// log x = log G + (log U)/a, so that draws far below the smallest float64
// (half of all draws at a = 1e-3 are below 1e-302) keep their value.
//
// a ≤ 0 or NaN gives NaN; a = +Inf gives +Inf. For a below about 1e-306 the
// quotient (log U)/a can overflow to −Inf.
func SampleGammaLog(a float64, rng *rand.Rand) float64 {
	switch {
	case !(a > 0):
		return math.NaN()
	case math.IsInf(a, 1):
		return a
	case a < 1:
		lg, _ := marsagliaTsangLogX(mtConsts(a+1), rng)
		return lg + math.Log(uniformOpen(rng))/a
	}
	logx, _ := marsagliaTsangLogX(mtConsts(a), rng)
	return logx
}

// sampleGammaLogX is SampleGammaLog that also returns x = e^(log x), formed
// without an exp where the sampler has it (a ≥ 1), for a valid finite shape
// with Marsaglia–Tsang constants mt = mtConsts(max(a, a+1)).
func sampleGammaLogX(a float64, mt mtShape, rng *rand.Rand) (logx, x float64) {
	if a < 1 {
		lg, _ := marsagliaTsangLogX(mt, rng)
		logx = lg + math.Log(uniformOpen(rng))/a
		return logx, math.Exp(logx)
	}
	return marsagliaTsangLogX(mt, rng)
}

// mtShape holds Marsaglia and Tsang's constants d = a − 1/3 and
// c = 1/√(9d) for a shape a ≥ 1.
type mtShape struct{ d, c float64 }

func mtConsts(a float64) mtShape {
	d := a - 1.0/3
	return mtShape{d, 1 / math.Sqrt(9*d)}
}

// marsagliaTsangLogX returns log x and x for x ~ Gamma(a, 1), a ≥ 1, given
// mt = mtConsts(a).
func marsagliaTsangLogX(mt mtShape, rng *rand.Rand) (logx, x float64) {
	d, c := mt.d, mt.c
	for {
		z := rng.NormFloat64()
		v := 1 + c*z
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		z2 := z * z
		x = d * v
		if u < 1-0.0331*z2*z2 {
			return math.Log(x), x
		}
		if lv := math.Log(v); math.Log(u) < 0.5*z2+d*(1-v+lv) {
			return math.Log(d) + lv, x
		}
	}
}

// uniformOpen returns a uniform draw on the open interval (0, 1): the
// midpoints of the 2⁵³ equal cells, so its logarithm is always finite.
func uniformOpen(rng *rand.Rand) float64 {
	return (float64(rng.Uint64()>>11) + 0.5) * (1.0 / (1 << 53))
}

// Implicit is the default GammaGradient: an exact draw (SampleGammaLog) and
// the exact implicit reparameterisation gradient (GammaDLogXDA). It is
// unbiased, accurate to about 1e-14 relative, and allocation-free.
type Implicit struct{}

// SampleLog implements GammaGradient.
func (Implicit) SampleLog(a float64, rng *rand.Rand) (logx, dlogxda float64) {
	if !(a > 0) || math.IsInf(a, 1) {
		return SampleGammaLog(a, rng), math.NaN()
	}
	mt := mtConsts(a)
	if a < 1 {
		mt = mtConsts(a + 1)
	}
	logx, x := sampleGammaLogX(a, mt, rng)
	return logx, gammaDLogXDA(a, logx, x, nil)
}

// GammaShape holds the work of a Gamma(a, 1) draw and its shape derivative
// that depends on the shape a alone: Marsaglia and Tsang's constants, the
// digammas ψ(a) and ψ(a+1) that the gradient's two branches subtract from
// log x, and ψ₁(a), which SGVB's entropy gradient and control variate need
// for the same shape. The polygammas come out of one shared shift loop.
// Build it with NewGammaShape once per shape and step, then draw from it
// any number of times: each draw gives bit for bit the result of
// Implicit{}.SampleLog(a, rng) on the same rng.
type GammaShape struct {
	A        float64 // the shape
	Trigamma float64 // ψ₁(A), equal to Trigamma(A)
	mt       mtShape // Marsaglia–Tsang for A (A ≥ 1) or A+1
	// c0, c1: for y = A and y = A+1, ψ(y) if y < polygammaShift, else
	// ψ(y) − log y (see logMinusDigamma).
	c0, c1 float64
	ok     bool // A > 0 and finite
}

// NewGammaShape prepares shape a. Invalid shapes (a ≤ 0, NaN, +Inf) give a
// GammaShape whose draws are SampleGammaLog's (NaN or +Inf) with a NaN
// derivative.
func NewGammaShape(a float64) GammaShape {
	g := NewGammaShapeDraw(a)
	g.Finish()
	return g
}

// NewGammaShapeDraw prepares shape a for draws alone (SampleLogX): the
// sampler's constants without the polygammas, which only the shape
// derivative and Trigamma need. Finish then completes it to NewGammaShape(a)
// bit for bit. SGVB's shared step draws first and computes the polygammas
// and derivatives later, while the log joint runs on another goroutine.
func NewGammaShapeDraw(a float64) GammaShape {
	var g GammaShape
	g.PrepareDraw(a)
	return g
}

// PrepareDraw makes g NewGammaShapeDraw(a) in place. SGVB prepares every
// shape of a step in an array; writing the fields there directly avoids
// copying the returned struct through the stack, which stalled the loop.
func (g *GammaShape) PrepareDraw(a float64) {
	*g = GammaShape{A: a}
	if !(a > 0) || math.IsInf(a, 1) {
		return
	}
	g.ok = true
	if a < 1 {
		g.mt = mtConsts(a + 1)
	} else {
		g.mt = mtConsts(a)
	}
}

// Finish computes the polygammas of a GammaShape made by NewGammaShapeDraw
// (ψ(A), ψ(A+1) for the derivative, and Trigamma).
func (g *GammaShape) Finish() {
	a := g.A
	if !g.ok {
		g.Trigamma = Trigamma(a)
		return
	}
	if a >= polygammaShift {
		g.c0, g.c1 = digammaAsymp(a), digammaAsymp(a+1)
		g.Trigamma = Trigamma(a)
		return
	}
	g.c0, g.c1, g.Trigamma = polygammaTriple(a)
	if a+1 >= polygammaShift {
		g.c1 = digammaAsymp(a + 1)
	}
}

// SampleLog returns log x for a draw x ~ Gamma(A, 1) and d(log x)/dA, as
// Implicit{}.SampleLog(g.A, rng).
func (g *GammaShape) SampleLog(rng *rand.Rand) (logx, dlogxda float64) {
	if !g.ok {
		return SampleGammaLog(g.A, rng), math.NaN()
	}
	logx, x := sampleGammaLogX(g.A, g.mt, rng)
	return logx, gammaDLogXDA(g.A, logx, x, g)
}

// SampleLogX returns SampleLog's log x, bit for bit and from the same draws
// of rng, with what DLogXDA needs to give its derivative later: x itself
// (which the sampler forms without an exp; not meaningful for an invalid
// shape). It needs only NewGammaShapeDraw's constants.
func (g *GammaShape) SampleLogX(rng *rand.Rand) (logx, x float64) {
	if !g.ok {
		return SampleGammaLog(g.A, rng), math.NaN()
	}
	return sampleGammaLogX(g.A, g.mt, rng)
}

// DLogXDA returns SampleLog's d(log x)/dA for the draw that SampleLogX
// returned as (logx, x), bit for bit; g must be finished (NewGammaShape, or
// Finish after NewGammaShapeDraw).
func (g *GammaShape) DLogXDA(logx, x float64) float64 {
	if !g.ok {
		return math.NaN()
	}
	return gammaDLogXDA(g.A, logx, x, g)
}

// FinishDLogXDA is Finish followed by DLogXDA(logx, x) for a GammaShape made
// by NewGammaShapeDraw: the same Trigamma and the same derivative, bit for
// bit. It chooses the derivative's branch first and computes only the
// digamma that branch reads (none where Temme's expansion applies), below
// A = polygammaShift from a shift loop that sums that digamma alone beside
// the trigamma, so g is left without the other and must not be used for
// another derivative. SGVB's shared step needs one derivative per shape.
func (g *GammaShape) FinishDLogXDA(logx, x float64) float64 {
	a := g.A
	if !g.ok {
		g.Finish()
		return g.DLogXDA(logx, x)
	}
	if a < polygammaShift {
		series := useGammaSeries(a, x)
		psi, tri := digammaTrigamma(a, series)
		g.Trigamma = tri
		switch {
		case !series:
			g.c0 = psi
			return cfDLogXDA(a, x, logMinusDigammaC(logx, x, a, psi))
		case a+1 >= polygammaShift:
			psi = digammaAsymp(a + 1) // as Finish
		}
		g.c1 = psi
		return seriesDLogXDA(a, x, logMinusDigammaC(logx, x, a+1, psi))
	}
	// Trigamma(a) from a = polygammaShift on: its shift loop does not run.
	g.Trigamma = trigammaAsymp(a)
	if a >= temmeMinA {
		if eta := temmeEta(a, x); math.Abs(eta) <= temmeMaxEta {
			return temmeDLogXDA(a, eta)
		}
	}
	if useGammaSeries(a, x) {
		g.c1 = digammaAsymp(a + 1)
		return seriesDLogXDA(a, x, logMinusDigammaC(logx, x, a+1, g.c1))
	}
	g.c0 = digammaAsymp(a)
	return cfDLogXDA(a, x, logMinusDigammaC(logx, x, a, g.c0))
}

// SampleLogValue returns SampleLog's log x, bit for bit and from the same
// draws of rng, without the shape derivative, which an estimate of the
// ELBO (no gradient) does not need and which costs about as much as the
// draw.
func (g *GammaShape) SampleLogValue(rng *rand.Rand) float64 {
	if !g.ok {
		return SampleGammaLog(g.A, rng)
	}
	logx, _ := sampleGammaLogX(g.A, g.mt, rng)
	return logx
}

// SampleGamma draws x ~ Gamma(a, b) (shape a, rate b) with g and returns it
// with its reparameterisation partials dx/da = x·d(log x)/da and
// dx/db = −x/b. x underflows to 0 for small a, and so do its partials; use
// g.SampleLog directly where log x is needed.
func SampleGamma(a, b float64, g GammaGradient, rng *rand.Rand) (x, dxda, dxdb float64) {
	logx, dlogxda := g.SampleLog(a, rng)
	x = math.Exp(logx - math.Log(b))
	return x, x * dlogxda, -x / b
}
