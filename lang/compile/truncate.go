package compile

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// truncate adds the normalising constant of a prior truncated to the
// latent's values (its bounds, or its declared support): −Σ log P over the
// elements the ~ covers (of shape sh), P an element's prior mass there. The
// checker made sure the arguments do not depend on params; their values are
// read here from constants, data, elements of data and vector literals (in a
// loop lowered as vectors, at each row), or else from their nodes argNodes,
// evaluated now as a bound of data is (min(y), a let of data), and broadcast
// to sh as in any elementwise distribution. A prior whose mass is ½ whatever
// its arguments (check.Latent.HalfMass) needs none of them.
func (l *lowerer) truncate(call *ast.CallExpr, argNodes []autodiff.ID, d *stdlib.Dist, lat *check.Latent, sh autodiff.Shape, pos ast.Pos) {
	n := sh.Len()
	if lat.HalfMass(d, call, l.info) {
		l.add(l.b.Scalar(float64(n)*math.Ln2, pos), pos)
		return
	}
	where := lat.Values()
	args := make([]known, len(call.Args))
	for i, a := range call.Args {
		failed := l.failed()
		v, ok := l.argValues(a)
		if !ok && l.failed() == failed {
			// Any other expression of data and constants: its node (in a
			// loop lowered as vectors, a row per iteration, as the ~'s
			// value has), evaluated as a bound of data is (dataBounds).
			if vals, isKnown := l.b.Known(argNodes[i]); isKnown {
				s := l.b.Shape(argNodes[i])
				v, ok = known{vals, s.Rows, s.Cols}, true
			}
		}
		switch {
		case l.failed() != failed: // an index out of range, said where
			return
		case !ok:
			l.errorf(a.Pos(), "%s truncated to %s of %s needs arguments known before the fit, as a param's bounds are: data, constants, loop variables, arithmetic, indexing and the elementwise, reduction and matrix built-ins of them, but not densities or factorisations; `%s` is not (compute it in the data)",
				d.Name, where, lat.Name, ast.FormatExpr(a))
			return
		case v.rows != 1 && v.rows != sh.Rows || v.cols != 1 && v.cols != sh.Cols:
			l.errorf(a.Pos(), "%s truncated to %s of %s: argument `%s` is %s, which does not broadcast to the %s the ~ covers",
				d.Name, where, lat.Name, ast.FormatExpr(a), v.shapeWords(), sh)
			return
		}
		args[i] = v
	}
	r := lat.Range()
	elem := lat.LowerV != nil || lat.UpperV != nil // bounds per element
	if elem && n != max(len(lat.LowerV), len(lat.UpperV)) {
		// The checker allows no ~ on part of such a latent.
		l.errorf(pos, "compile: %s truncated to the bounds of %s covers %d of its %d elements", d.Name, lat.Name, n, max(len(lat.LowerV), len(lat.UpperV)))
		return
	}
	name := lat.Name
	at := make([]float64, len(args))
	var total float64 // Σ log P
	for k := range n {
		i, j := k/sh.Cols, k%sh.Cols
		scalar := true
		for a, v := range args {
			at[a] = v.at(i, j)
			scalar = scalar && len(v.v) == 1
		}
		if elem { // element k's bounds
			r = lat.RangeAt(k)
			where, name = "the bounds "+r.String(), lat.Name+elemLabel(k, dimsOf(sh))
		}
		if lo, hi := supportEnds(d, at); lo > r.Lo || hi < r.Hi {
			// Checked with the values here: a bound of data (and the
			// arguments of a Uniform) are known only now.
			what := d.Name + elemArgs(at, scalar)
			if scalar {
				what = ast.FormatExpr(call)
			}
			note := ""
			orig := l.info.Latent(lat.Name) // before the data gave its bounds values
			dataBounds := elem || orig != nil && orig.DataBounds()
			if dataBounds || readsData(l.info, call.Args) {
				note = " (with this data)"
			}
			fix := ""
			if !dataBounds && (lat.Support == dist.Real || lat.Support == dist.Positive) && lo > r.Lo && !math.IsInf(lo, 0) && math.IsInf(hi, 1) && !lat.HasUpper() {
				bound := strconv.FormatFloat(lo, 'g', -1, 64)
				if u, ok := dist.LookupUnivariate(d.Name); ok && u.LowerArg > 0 && len(call.Args) >= u.LowerArg {
					bound = ast.FormatExpr(call.Args[u.LowerArg-1]) // y_min or mu, as written
				}
				fix = "; declare " + lat.Name + " real<lower=" + bound + ">"
			}
			l.errorf(pos, "%s puts no mass on part of %s of %s%s: it is 0 outside %s%s", what, where, name, note, check.Interval{Lo: lo, Hi: hi, Known: true}, fix)
			return
		}
		if d.Name == "VonMises" && (r.Lo < -math.Pi || r.Hi > math.Pi) {
			// Its density is periodic and its CDF on [−π, π] (as Stan's).
			l.errorf(pos, "VonMises can be truncated only within [−π, π], where its CDF is (as in Stan), not to %s of %s; an angle whose model has its cosine and an amplitude is best written without one, by the cosine's and sine's coefficients (docs/language.md, Angles: circular params)", where, name)
			return
		}
		logP, ok := logIntervalMass(d.Name, at, r.Lo, r.Hi)
		switch {
		case !ok:
			l.errorf(pos, "truncating %s to %s of %s is not supported", d.Name, where, name)
			return
		case math.IsInf(logP, -1):
			l.errorf(pos, "%s%s puts too little mass on %s of %s to normalise it (less than a float64 holds)", d.Name, elemArgs(at, scalar), where, name)
			return
		case !(logP <= 0):
			l.errorf(pos, "compile: the mass of %s%s on %s of %s is %g", d.Name, elemArgs(at, scalar), where, name, math.Exp(logP))
			return
		}
		if scalar && !elem { // every element alike
			total = float64(n) * logP
			break
		}
		total += logP
	}
	l.add(l.b.Scalar(-total, pos), pos)
}

// readsData reports whether exprs read data (a data declaration's name,
// directly): only then does an error about their values hold "with this
// data".
func readsData(info *check.Info, exprs []ast.Expr) bool {
	found := false
	for _, e := range exprs {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if sym := info.Uses[id]; sym != nil && sym.Kind == check.Data {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// elemArgs shows an element's arguments in an error when they differ from
// element to element: "(0, 0.1)".
func elemArgs(args []float64, scalar bool) string {
	if scalar {
		return ""
	}
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = strconv.FormatFloat(a, 'g', 6, 64)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// known is an argument's value known when the model is compiled, row-major
// in a rows × cols matrix (a scalar 1 × 1, a vector n × 1, a row 1 × n).
type known struct {
	v          []float64
	rows, cols int
}

// at returns element (i, j) of the broadcast of k.
func (k known) at(i, j int) float64 {
	if k.rows == 1 {
		i = 0
	}
	if k.cols == 1 {
		j = 0
	}
	return k.v[i*k.cols+j]
}

func (k known) shapeWords() string {
	switch {
	case len(k.v) == 1:
		return "a scalar"
	case k.cols == 1:
		return "[" + strconv.Itoa(k.rows) + "]"
	}
	return "[" + strconv.Itoa(k.rows) + ", " + strconv.Itoa(k.cols) + "]"
}

// argValues returns the value of a truncated prior's argument when it is
// known before the fit: a constant expression, a data name, an element,
// slice or gather of data by indices known then (m[i] in a loop), a vector
// literal of scalars of those, or the transpose of one of these; ok is
// false otherwise. An index out of range is reported.
func (l *lowerer) argValues(e ast.Expr) (k known, ok bool) {
	if c := l.info.Types[e].Const; c != nil {
		return known{[]float64{*c}, 1, 1}, true
	}
	fromData := func(vals []float64, shape []int) known {
		switch len(shape) {
		case 0:
			return known{vals, 1, 1}
		case 1:
			return known{vals, shape[0], 1}
		}
		return known{vals, shape[0], shape[1]}
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if a := l.dataOf(x); a != nil {
			return fromData(a.Values, a.Shape), true
		}
	case *ast.IndexExpr:
		id, isIdent := ast.Unparen(x.X).(*ast.Ident)
		if !isIdent {
			return known{}, false
		}
		a := l.dataOf(id)
		if a == nil {
			return known{}, false
		}
		sels := make([]sel, len(x.Indices))
		for i, ix := range x.Indices {
			s, ok := l.resolve(ix)
			if !ok {
				return known{}, false
			}
			sels[i] = s
		}
		src, shape, ok := l.pick(a.Shape, sels, x)
		if !ok {
			return known{}, false
		}
		vals := make([]float64, len(src))
		for i, s := range src {
			vals[i] = a.Values[s]
		}
		return fromData(vals, shape), true
	case *ast.TransposeExpr:
		v, ok := l.argValues(x.X)
		if !ok {
			return known{}, false
		}
		t := known{make([]float64, len(v.v)), v.cols, v.rows}
		for i := range v.rows {
			for j := range v.cols {
				t.v[j*v.rows+i] = v.v[i*v.cols+j]
			}
		}
		return t, true
	case *ast.VectorLit:
		var vals []float64
		for _, el := range x.Elems {
			v, ok := l.argValues(el)
			if !ok || len(v.v) != 1 {
				return known{}, false
			}
			vals = append(vals, v.v[0])
		}
		return known{vals, len(vals), 1}, true
	}
	return known{}, false
}

// dataOf returns the data that name x refers to, or nil.
func (l *lowerer) dataOf(x *ast.Ident) *data.Array {
	if sym := l.info.Uses[x]; sym != nil && sym.Kind == check.Data {
		return l.data[sym.Name]
	}
	return nil
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
	case "BetaProportion":
		d = betaTails{args[0] * args[1], (1 - args[0]) * args[1]}
	case "Uniform":
		lo, hi := max(a, args[0]), min(b, args[1])
		return math.Log(max(hi-lo, 0) / (args[1] - args[0])), true
	default: // any other family with a log CDF: its kernels
		cdf, okC := dist.LogCDF(name, false)
		sf, okS := dist.LogCDF(name, true)
		if !okC || !okS {
			return 0, false
		}
		d = kernelTails{cdf, sf, args}
	}
	var near, far float64 // the logs of the two tails whose difference is P
	if ls := d.logSurvival(a); ls < pastMedian {
		near, far = ls, d.logSurvival(b)
	} else {
		near, far = d.logCDF(b), d.logCDF(a)
	}
	if math.IsInf(near, -1) {
		return near, true
	}
	logP, _ = logTailGap(near, far)
	if far-near > narrowInterval {
		// The tails nearly cancel (a narrow interval: (0, 1e-15) under
		// Normal(0, 1) came out 2.6 % off), so the density is integrated.
		return quadLogMass(name, args, a, b), true
	}
	return logP, true
}

// pastMedian is the log survival probability below which a lies past the
// median, so that a mass P(a < X < b) is taken from the upper tail.
const pastMedian = -math.Ln2

// logTailGap returns log(e^near − e^far) for the logs of two probabilities
// of one tail, the nearer one's near ≥ far (P(X > a) and P(X > b) for
// a < b), without the cancellation of a difference, and r = e^(far −
// near), the far tail's share of the near one.
func logTailGap(near, far float64) (logP, r float64) {
	return near + dist.Log1mexp(near-far), math.Exp(far - near)
}

// narrowInterval is the log ratio of the two tails above which their
// difference keeps fewer than 13 of its digits: the interval then holds
// less than 1/1000 of the tail beyond it, and logIntervalMass integrates
// the density over it instead.
var narrowInterval = math.Log1p(-1e-3)

// quadLogMass returns log ∫ₐᵇ p(x) dx for the density of the family name
// by 32-point Gauss–Legendre, in units of the density at the midpoint so
// that nothing underflows. logIntervalMass calls it for intervals that
// hold too little mass for a difference of tails, over which the density
// is smooth (all the families are unimodal, and the interval is narrow
// next to its distance from any edge of the support).
func quadLogMass(name string, args []float64, a, b float64) float64 {
	u, ok := dist.LookupUnivariate(name)
	if !ok {
		return math.NaN()
	}
	lp := func(x float64) float64 { v, _ := u.Kernel(x, args, nil); return v }
	mid := lp(a + (b-a)/2)
	s := quad.Fixed(func(x float64) float64 { return math.Exp(lp(x) - mid) }, a, b, 32, quad.Legendre{}, 0)
	return mid + math.Log(s)
}

// logTails gives a distribution's log CDF and log survival function, each
// keeping its relative accuracy where it is small: far in the tail it
// measures.
type logTails interface {
	logCDF(x float64) float64
	logSurvival(x float64) float64
}

// kernelTails are the tails of a family from its log CDF kernels
// (dist.LogCDF), for the families without a closed form here.
type kernelTails struct {
	cdf, sf dist.Kernel
	args    []float64
}

func (k kernelTails) logCDF(x float64) float64 {
	v, _ := k.cdf(x, k.args, make([]float64, len(k.args)))
	return v
}

func (k kernelTails) logSurvival(x float64) float64 {
	v, _ := k.sf(x, k.args, make([]float64, len(k.args)))
	return v
}

type normalTails struct{ mu, sigma float64 }

func (n normalTails) logCDF(x float64) float64 { return dist.NormalLogSurvival((n.mu - x) / n.sigma) }
func (n normalTails) logSurvival(x float64) float64 {
	return dist.NormalLogSurvival((x - n.mu) / n.sigma)
}

type logNormalTails struct{ mu, sigma float64 }

func (n logNormalTails) logCDF(x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	return dist.NormalLogSurvival((n.mu - math.Log(x)) / n.sigma)
}

func (n logNormalTails) logSurvival(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return dist.NormalLogSurvival((math.Log(x) - n.mu) / n.sigma)
}

type halfNormalTails struct{ sigma float64 }

func (h halfNormalTails) logCDF(x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	z := x / h.sigma
	if z > 1 {
		return math.Log1p(-2 * math.Exp(dist.NormalLogSurvival(z)))
	}
	return math.Log(math.Erf(z / math.Sqrt2))
}

func (h halfNormalTails) logSurvival(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Ln2 + dist.NormalLogSurvival(x/h.sigma)
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
	a, at := s.nu/2, math.Abs(t)
	var logTail float64 // log P(T > |t|) = log ½·I(w; a, ½), w = ν/(ν + t²)
	if at > 1e100 {
		// w underflows; I(w; a, ½) = w^a/(a·B(a, ½))·(1 + O(w)).
		logTail = -math.Ln2 + a*(math.Log(s.nu)-2*math.Log(at)) - math.Log(a) - dist.LogBeta(a, 0.5)
	} else {
		w := s.nu / (s.nu + t*t)
		if at > 1 {
			w = s.nu / at / (s.nu/at + at) // t² would overflow
		}
		logTail = -math.Ln2 + dist.LogRegIncBeta(a, 0.5, w)
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
	return dist.Log1mexp(math.Pow(x/w.lambda, w.k))
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
	return dist.LogRegIncBeta(d.a, d.b, x)
}

func (d betaTails) logSurvival(x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return math.Inf(-1)
	}
	return dist.LogRegIncBeta(d.b, d.a, 1-x)
}

// logLaplaceMass returns log P(a < X < b) for X ~ Laplace(mu, sigma) and
// a < b (b may be +Inf), without the cancellation of a difference of CDFs:
// on one side of mu the mass is the tail at the nearer end times
// 1 − e^(−(b−a)/σ), and across mu it is −½·(expm1((a−μ)/σ) +
// expm1(−(b−μ)/σ)), a sum of two terms of one sign.
func logLaplaceMass(a, b, mu, sigma float64) float64 {
	logW := dist.Log1mexp((b - a) / sigma)
	switch {
	case a >= mu:
		return -math.Ln2 - (a-mu)/sigma + logW
	case b <= mu:
		return -math.Ln2 + (b-mu)/sigma + logW
	}
	return math.Log(-0.5 * (math.Expm1((a-mu)/sigma) + math.Expm1(-(b-mu)/sigma)))
}

// supportEnds returns the ends of the support of d at the arguments args.
func supportEnds(d *stdlib.Dist, args []float64) (lo, hi float64) {
	if d.Support == dist.Interval {
		return args[0], args[1]
	}
	if u, ok := dist.LookupUnivariate(d.Name); ok && u.LowerArg > 0 { // from y_min or mu
		return args[u.LowerArg-1], math.Inf(1)
	}
	r := check.SupportInterval(d.Support)
	return r.Lo, r.Hi
}
