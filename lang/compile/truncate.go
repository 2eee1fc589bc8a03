package compile

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// truncate adds the normalising constant of a prior truncated to the
// latent's values (its bounds, or its declared support): −size·log P, P the
// prior's mass there. Only constant prior arguments are supported;
// otherwise the normaliser would depend on the latent's own
// hyperparameters and is reported as unsupported.
func (l *lowerer) truncate(call *ast.CallExpr, d *stdlib.Dist, lat *check.Latent, pos ast.Pos) {
	args := make([]float64, len(call.Args))
	for i, a := range call.Args {
		t := l.info.Types[a]
		if t.Const == nil {
			half := "" // Normal(0, s) and Cauchy(0, s) on the positive half have their own names
			if z := l.info.Types[call.Args[0]].Const; z != nil && *z == 0 && lat.Support == dist.Positive && !lat.Bounded() && (d.Name == "Normal" || d.Name == "Cauchy") {
				half = fmt.Sprintf(" (here Half%s(%s), the same prior)", d.Name, ast.FormatExpr(call.Args[1]))
			}
			if lat.Bounded() {
				l.errorf(a.Pos(), "%s truncated to the bounds %s of %s needs constant arguments (the normalising constant would depend on %s); use constant arguments, or a prior whose support is %s",
					d.Name, lat.Range(), lat.Name, l.describe(a), lat.Range())
				return
			}
			l.errorf(a.Pos(), "%s truncated to the %s support of %s needs constant arguments (the normalising constant would depend on %s); declare %s with a support inside %s's, or use a prior on the %s support%s",
				d.Name, lat.Support, lat.Name, l.describe(a), lat.Name, d.Name, lat.Support, half)
			return
		}
		args[i] = *t.Const
	}
	where := fmt.Sprintf("the %s support", lat.Support)
	if lat.Bounded() {
		where = "the bounds " + lat.Range().String()
	}
	r := lat.Range()
	logP, ok := logIntervalMass(d.Name, args, r.Lo, r.Hi)
	switch {
	case !ok:
		l.errorf(pos, "truncating %s to %s of %s is not supported", d.Name, where, lat.Name)
		return
	case math.IsInf(logP, -1):
		l.errorf(pos, "%s puts too little mass on %s of %s to normalise it (less than a float64 holds)", d.Name, where, lat.Name)
		return
	case !(logP <= 0):
		l.errorf(pos, "compile: the mass of %s on %s of %s is %g", d.Name, where, lat.Name, math.Exp(logP))
		return
	}
	size := 1
	for _, x := range l.lats[l.latentIndex(lat)].Shape {
		size *= x
	}
	l.add(l.b.Scalar(-float64(size)*logP, pos), pos)
}

// logIntervalMass returns log P(a < X < b) for the prior X ~ name(args),
// or ok false for a distribution it does not know. The mass is taken from
// the upper tail when a is past the median and from the lower tail
// otherwise, each in log space, so bounds far out in a tail keep the
// normaliser's digits (P(X > 0.8) for X ~ Normal(0, 0.1) is 6e-16, which
// 1 − CDF rounds to a number 10 % off, and P(X > 4) for it is 1e-350).
func logIntervalMass(name string, args []float64, a, b float64) (logP float64, ok bool) {
	var d logTails
	switch name {
	case "Normal":
		d = normalTails{args[0], args[1]}
	case "LogNormal":
		d = logNormalTails{args[0], args[1]}
	case "HalfNormal":
		d = halfNormalTails{args[0]}
	case "StudentT":
		d = studentTails{args[0], args[1], args[2]}
	case "Cauchy":
		d = studentTails{1, args[0], args[1]}
	case "HalfCauchy":
		d = halfCauchyTails{args[0]}
	case "Laplace":
		return logLaplaceMass(a, b, args[0], args[1]), true
	case "Gamma":
		d = gammaTails{args[0], args[1]}
	case "Exponential":
		d = weibullTails{1, 1 / args[0]}
	case "Weibull":
		d = weibullTails{args[0], args[1]}
	case "InvGamma":
		d = invGammaTails{args[0], args[1]}
	case "Beta":
		d = betaTails{args[0], args[1]}
	case "Uniform":
		lo, hi := max(a, args[0]), min(b, args[1])
		return math.Log(max(hi-lo, 0) / (args[1] - args[0])), true
	default:
		return 0, false
	}
	if ls := d.logSurvival(a); ls < -math.Ln2 {
		if math.IsInf(ls, -1) {
			return ls, true // the upper tail underflowed (a Beta's, whose log the incomplete beta function cannot give)
		}
		return ls + log1mExp(d.logSurvival(b)-ls), true
	}
	lf := d.logCDF(b)
	if math.IsInf(lf, -1) {
		return lf, true
	}
	return lf + log1mExp(d.logCDF(a)-lf), true
}

// log1mExp returns log(1 − eˣ) for x ≤ 0 (Mächler's two branches), −Inf at
// x = 0 and 0 at x = −Inf.
func log1mExp(x float64) float64 {
	if x > -math.Ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// logTails gives a distribution's log CDF and log survival function, each
// keeping its relative accuracy where it is small: far in the tail it
// measures.
type logTails interface {
	logCDF(x float64) float64
	logSurvival(x float64) float64
}

type normalTails struct{ mu, sigma float64 }

func (n normalTails) logCDF(x float64) float64      { return logNormalSurvival((n.mu - x) / n.sigma) }
func (n normalTails) logSurvival(x float64) float64 { return logNormalSurvival((x - n.mu) / n.sigma) }

type logNormalTails struct{ mu, sigma float64 }

func (n logNormalTails) logCDF(x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	return logNormalSurvival((n.mu - math.Log(x)) / n.sigma)
}

func (n logNormalTails) logSurvival(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return logNormalSurvival((math.Log(x) - n.mu) / n.sigma)
}

type halfNormalTails struct{ sigma float64 }

func (h halfNormalTails) logCDF(x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	z := x / h.sigma
	if z > 1 {
		return math.Log1p(-2 * math.Exp(logNormalSurvival(z)))
	}
	return math.Log(math.Erf(z / math.Sqrt2))
}

func (h halfNormalTails) logSurvival(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Ln2 + logNormalSurvival(x/h.sigma)
}

// logNormalSurvival returns log P(Z > z) for a standard normal Z: from
// erfc up to z = 35, past which erfc nears underflow, and from Laplace's
// continued fraction P(Z > z) = φ(z)/(z + 1/(z + 2/(z + 3/(z + …)))) there.
func logNormalSurvival(z float64) float64 {
	switch {
	case math.IsNaN(z):
		return z
	case z < 0:
		return math.Log1p(-0.5 * math.Erfc(-z/math.Sqrt2))
	case z < 35:
		return math.Log(0.5 * math.Erfc(z/math.Sqrt2))
	case math.IsInf(z, 1):
		return math.Inf(-1)
	}
	cf := z // the fraction from its 40th level up; at z ≥ 35 ten would do
	for k := 40; k >= 1; k-- {
		cf = z + float64(k)/cf
	}
	return -0.5*z*z - 0.5*math.Log(2*math.Pi) - math.Log(cf)
}

// studentTails is Student's t with nu degrees of freedom (nu = 1: Cauchy),
// location mu and scale sigma, from the regularised incomplete beta
// function: P(T > t) = ½·I(ν/(ν + t²); ν/2, ½) for t > 0.
type studentTails struct{ nu, mu, sigma float64 }

func (s studentTails) logCDF(x float64) float64 { return s.logUpper((s.mu - x) / s.sigma) }

func (s studentTails) logSurvival(x float64) float64 { return s.logUpper((x - s.mu) / s.sigma) }

func (s studentTails) logUpper(t float64) float64 {
	if s.nu == 1 { // Cauchy: P(T > t) = atan(1/t)/π for t > 0
		if t > 0 {
			return math.Log(math.Atan(1/t) / math.Pi)
		}
		return math.Log(0.5 - math.Atan(t)/math.Pi)
	}
	if t == 0 {
		return -math.Ln2
	}
	var logTail float64 // log P(T > |t|)
	switch at := math.Abs(t); {
	case at > 1e100:
		// w = ν/(ν + t²) may underflow; I(w; a, ½) = w^a/(a·B(a, ½))·(1 + O(w)).
		a := s.nu / 2
		lbeta, _ := math.Lgamma(a)
		lhalf, _ := math.Lgamma(a + 0.5)
		lbeta += 0.5*math.Log(math.Pi) - lhalf
		logTail = -math.Ln2 + a*(math.Log(s.nu)-2*math.Log(at)) - math.Log(a) - lbeta
	case at > 1:
		logTail = math.Log(0.5 * mathext.RegIncBeta(s.nu/2, 0.5, s.nu/at/(s.nu/at+at)))
	default:
		logTail = math.Log(0.5 * mathext.RegIncBeta(s.nu/2, 0.5, s.nu/(s.nu+t*t)))
	}
	if t > 0 {
		return logTail
	}
	return math.Log1p(-math.Exp(logTail))
}

type halfCauchyTails struct{ sigma float64 }

func (h halfCauchyTails) logCDF(x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	return math.Log(2 / math.Pi * math.Atan(x/h.sigma))
}

func (h halfCauchyTails) logSurvival(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Log(2 / math.Pi * math.Atan(h.sigma/x))
}

// gammaTails is Gamma(shape a, rate beta), through dist.GammaLogCDF.
type gammaTails struct{ a, beta float64 }

func (g gammaTails) logCDF(x float64) float64 {
	return dist.GammaLogCDF(g.a, max(x, 0)*g.beta, false)
}

func (g gammaTails) logSurvival(x float64) float64 {
	return dist.GammaLogCDF(g.a, max(x, 0)*g.beta, true)
}

// invGammaTails is InvGamma(shape a, scale b): 1/X ~ Gamma(a, rate b), so
// P(X ≤ x) = Q(a, b/x).
type invGammaTails struct{ a, b float64 }

func (g invGammaTails) logCDF(x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	return dist.GammaLogCDF(g.a, g.b/x, true)
}

func (g invGammaTails) logSurvival(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return dist.GammaLogCDF(g.a, g.b/x, false)
}

// weibullTails is Weibull(shape k, scale lambda); Exponential(rate r) is
// Weibull(1, 1/r). P(X > x) = exp(−(x/λ)ᵏ).
type weibullTails struct{ k, lambda float64 }

func (w weibullTails) logCDF(x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	return log1mExp(-math.Pow(x/w.lambda, w.k))
}

func (w weibullTails) logSurvival(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return -math.Pow(x/w.lambda, w.k)
}

// betaTails is Beta(a, b): P(X ≤ x) = I(x; a, b), P(X > x) = I(1 − x; b, a).
type betaTails struct{ a, b float64 }

func (d betaTails) logCDF(x float64) float64 {
	switch {
	case x <= 0:
		return math.Inf(-1)
	case x >= 1:
		return 0
	}
	return math.Log(mathext.RegIncBeta(d.a, d.b, x))
}

func (d betaTails) logSurvival(x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return math.Inf(-1)
	}
	return math.Log(mathext.RegIncBeta(d.b, d.a, 1-x))
}

// logLaplaceMass returns log P(a < X < b) for X ~ Laplace(mu, sigma) and
// a < b (b may be +Inf), without the cancellation of a difference of CDFs:
// on one side of mu the mass is the tail at the nearer end times
// 1 − e^(−(b−a)/σ), and across mu it is −½·(expm1((a−μ)/σ) +
// expm1(−(b−μ)/σ)), a sum of two terms of one sign.
func logLaplaceMass(a, b, mu, sigma float64) float64 {
	logW := log1mExp(-(b - a) / sigma)
	switch {
	case a >= mu:
		return -math.Ln2 - (a-mu)/sigma + logW
	case b <= mu:
		return -math.Ln2 + (b-mu)/sigma + logW
	}
	return math.Log(-0.5 * (math.Expm1((a-mu)/sigma) + math.Expm1(-(b-mu)/sigma)))
}
