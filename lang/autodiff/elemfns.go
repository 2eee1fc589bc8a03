package autodiff

import (
	"math"

	"github.com/gpplang/gpp/dist"
)

// Stan's scalar functions that are one scalar function per element: the
// value f and the derivative d, given the argument x and the value z
// (OpTan through OpTrunc, OpLambertW0, OpLambertWm1, OpLogDiffExp through
// OpLmgamma; dist holds the functions). Each
// derivative is written to keep its digits where the textbook form
// cancels ((1 − x)(1 + x) for 1 − x², hypot for √(1 + x²)).
type unaryFn struct {
	f func(x float64) float64
	d func(x, z float64) float64
}

type binaryFn struct {
	f func(x, y float64) float64
	// d returns ∂z/∂x and ∂z/∂y at (x, y) with z = f(x, y).
	d func(x, y, z float64) (dx, dy float64)
}

const ln2, ln10 = math.Ln2, math.Ln10

var unaryFns = [numOps]unaryFn{
	OpTan:        {math.Tan, func(_, z float64) float64 { return 1 + z*z }},
	OpAsin:       {dist.Asin, func(x, _ float64) float64 { return zeroAtBoundary(x == 1 || x == -1, 1/math.Sqrt((1-x)*(1+x))) }},
	OpAcos:       {dist.Acos, func(x, _ float64) float64 { return zeroAtBoundary(x == 1 || x == -1, -1/math.Sqrt((1-x)*(1+x))) }},
	OpSinh:       {dist.Sinh, func(x, _ float64) float64 { return dist.Cosh(x) }},
	OpCosh:       {dist.Cosh, func(x, _ float64) float64 { return dist.Sinh(x) }},
	OpAsinh:      {math.Asinh, func(x, _ float64) float64 { return 1 / math.Hypot(1, x) }},
	OpAcosh:      {math.Acosh, func(x, _ float64) float64 { return zeroAtBoundary(x == 1, 1/(math.Sqrt(x-1)*math.Sqrt(x+1))) }}, // no overflow of x²
	OpAtanh:      {math.Atanh, func(x, _ float64) float64 { return 1 / ((1 - x) * (1 + x)) }},
	OpErf:        {math.Erf, func(x, _ float64) float64 { return dist.ErfDeriv(x) }},
	OpErfc:       {math.Erfc, func(x, _ float64) float64 { return -dist.ErfDeriv(x) }},
	OpExp2:       {math.Exp2, func(_, z float64) float64 { return z * ln2 }},
	OpLog2:       {dist.Log2, func(x, _ float64) float64 { return 1 / (x * ln2) }},
	OpLog10:      {dist.Log10, func(x, _ float64) float64 { return 1 / (x * ln10) }},
	OpCbrt:       {math.Cbrt, func(x, z float64) float64 { return zeroAtBoundary(x == 0, 1/(3*z*z)) }},
	OpTrigamma:   {dist.Trigamma, func(x, _ float64) float64 { return dist.Tetragamma(x) }},
	OpTgamma:     {math.Gamma, func(x, z float64) float64 { return z * dist.Digamma(x) }},
	OpFloor:      {math.Floor, zeroDeriv},
	OpCeil:       {math.Ceil, zeroDeriv},
	OpRound:      {math.Round, zeroDeriv},
	OpTrunc:      {math.Trunc, zeroDeriv},
	OpLambertW0:  {dist.LambertW0, dist.LambertWGrad},
	OpLambertWm1: {dist.LambertWm1, dist.LambertWGrad},
}

func zeroDeriv(_, _ float64) float64 { return 0 }

// zeroAtBoundary returns 0 where at is true, else d. It is the rule for an
// elementwise op whose value is finite at a boundary point of its argument
// but whose derivative there is infinite (sqrt, cbrt and pow(x, y) with
// 0 ≤ y < 1 at x = 0; asin and acos at ±1; acosh at 1): an argument
// exactly at the point is either computed from data, so its partials to
// the parameters are 0 and an infinite factor would only turn them into
// NaN in the reverse pass (0·∞), or it is a continuous latent at a point
// of probability 0. Either way the op's partial there counts as 0.
func zeroAtBoundary(at bool, d float64) float64 {
	if at {
		return 0
	}
	return d
}

var binaryFns = [numOps]binaryFn{
	OpLogDiffExp: {dist.LogDiffExp, func(x, y, _ float64) (float64, float64) { return dist.LogDiffExpGrad(x, y) }},
	OpHypot: {math.Hypot, func(x, y, z float64) (float64, float64) {
		if z == 0 {
			return 0, 0 // a subgradient at the origin
		}
		return x / z, y / z
	}},
	OpAtan2: {math.Atan2, func(x, y, _ float64) (float64, float64) {
		r := math.Hypot(x, y)
		if r == 0 {
			return 0, 0
		}
		return (y / r) / r, -(x / r) / r
	}},
	OpLmultiply:           {dist.Lmultiply, func(x, y, _ float64) (float64, float64) { return dist.LmultiplyGrad(x, y) }},
	OpLogInvLogitDiff:     {dist.LogInvLogitDiff, func(x, y, _ float64) (float64, float64) { return dist.LogInvLogitDiffGrad(x, y) }},
	OpLogFallingFactorial: {dist.LogFallingFactorial, func(x, n, _ float64) (float64, float64) { return dist.LogFallingFactorialGrad(x, n) }},
	OpGammaP:              {dist.GammaP, func(a, z, _ float64) (float64, float64) { return dist.GammaPGrad(a, z) }},
	OpGammaQ:              {dist.GammaQ, func(a, z, _ float64) (float64, float64) { return dist.GammaQGrad(a, z) }},
	OpLogBesselI:          {dist.LogBesselI, func(v, z, _ float64) (float64, float64) { return dist.LogBesselIGrad(v, z) }},
	OpBesselI:             {dist.BesselI, func(v, z, _ float64) (float64, float64) { return 0, dist.BesselIGrad(v, z) }}, // v an int
	OpBesselJ:             {dist.BesselJ, func(v, x, _ float64) (float64, float64) { return 0, dist.BesselJGrad(v, x) }},
	OpBesselY:             {dist.BesselY, func(v, x, _ float64) (float64, float64) { return 0, dist.BesselYGrad(v, x) }},
	OpBesselK:             {dist.BesselK, func(v, z, _ float64) (float64, float64) { return 0, dist.BesselKGrad(v, z) }},
	OpOwensT:              {dist.OwensT, func(h, a, _ float64) (float64, float64) { return dist.OwensTGrad(h, a) }},
	OpLogRisingFactorial:  {dist.LogRisingFactorial, func(x, n, _ float64) (float64, float64) { return dist.LogRisingFactorialGrad(x, n) }},
	OpRisingFactorial:     {dist.RisingFactorial, func(x, n, _ float64) (float64, float64) { return dist.RisingFactorialGrad(x, n), 0 }}, // n an int
	OpFallingFactorial:    {dist.FallingFactorial, func(x, n, _ float64) (float64, float64) { return dist.FallingFactorialGrad(x, n), 0 }},
	OpFmod:                {dist.Fmod, func(x, y, _ float64) (float64, float64) { return dist.FmodGrad(x, y) }},
	OpLdexp:               {dist.Ldexp, func(x, n, _ float64) (float64, float64) { return dist.LdexpGrad(x, n), 0 }},     // n an int
	OpLmgamma:             {dist.Lmgamma, func(k, x, _ float64) (float64, float64) { return 0, dist.LmgammaGrad(k, x) }}, // k an int
	OpBinaryLogLoss: {dist.BinaryLogLoss, func(y, p, _ float64) (float64, float64) {
		return 0, dist.BinaryLogLossGrad(y, p) // y is an int outcome
	}},
}
