package compile

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// density adds the log density of call at the value v of lhs. lat is the
// latent when lhs is exactly a latent (a prior), else nil.
func (l *lowerer) density(call *ast.CallExpr, lhs ast.Node, v value, lat *check.Latent) {
	d := l.info.Dists[call]
	if d == nil {
		l.errorf(call.Pos(), "compile: %s is not a distribution here", call.Fun.Name)
		return
	}
	pos := call.Fun.Pos()
	val := l.node(v, lhs.Pos())
	args := make([]autodiff.ID, len(call.Args))
	for i, a := range call.Args {
		args[i] = l.node(l.expr(a), a.Pos())
	}
	switch d.Name {
	case "MvNormal", "MvNormalRows":
		l.gauss(call, lhs, val, args[0], args[1], pos)
	case "Dirichlet":
		l.dirichlet(val, args[0], lat, pos)
	case "Categorical", "CategoricalLogit":
		l.add(l.b.Categorical(val, args[0], d.Name == "CategoricalLogit", pos), pos)
	default:
		u, ok := dist.LookupUnivariate(d.Name)
		if !ok {
			l.errorf(pos, "compile: no kernel for distribution %s", d.Name)
			return
		}
		if lat != nil && lat.Support == dist.Positive && !lat.Bounded() {
			// The density of a positive latent from its coordinate log z:
			// finite even where z underflows to 0.
			l.add(l.b.Density(dist.LogScale(u), l.coords[l.latentIndex(lat)], args, pos), pos)
			break
		}
		l.add(l.b.Density(*u, val, args, pos), pos)
	}
	if lat != nil && lat.Truncated && (lat.Bounded() || !lat.Support.Contains(d.Support)) {
		l.truncate(call, d, lat, pos)
	}
}

// logpdf lowers logpdf(value, D(args)) to the node of D's log density per
// element (the checker made D an elementwise distribution).
func (l *lowerer) logpdf(e *ast.CallExpr, pos ast.Pos) value {
	call, _ := unparen(e.Args[1]).(*ast.CallExpr)
	var d *stdlib.Dist
	if call != nil {
		d = l.info.Dists[call]
	}
	if d == nil {
		l.errorf(e.Args[1].Pos(), "compile: logpdf needs a distribution")
		return value{}
	}
	u, ok := dist.LookupUnivariate(d.Name)
	if !ok {
		l.errorf(call.Fun.Pos(), "compile: no kernel for distribution %s", d.Name)
		return value{}
	}
	val := l.node(l.expr(e.Args[0]), e.Args[0].Pos())
	args := make([]autodiff.ID, len(call.Args))
	for i, a := range call.Args {
		args[i] = l.node(l.expr(a), a.Pos())
	}
	return value{id: l.b.LogPDF(*u, val, args, pos), node: true}
}

// predictive lowers the distribution of `output NAME ~ D(args)` to a node
// that draws from D at every evaluation.
func (l *lowerer) predictive(call *ast.CallExpr, pos ast.Pos) value {
	d := l.info.Dists[call]
	var u *dist.Univariate
	if d != nil {
		u, _ = dist.LookupUnivariate(d.Name)
	}
	if u == nil {
		l.errorf(call.Fun.Pos(), "compile: no sampler for distribution %s", call.Fun.Name)
		return value{}
	}
	args := make([]autodiff.ID, len(call.Args))
	for i, a := range call.Args {
		args[i] = l.node(l.expr(a), a.Pos())
	}
	return value{id: l.b.Rand(*u, args, pos), node: true}
}

// gauss lowers MvNormal and MvNormalRows through the scatter matrix, so a
// data value costs O(d³) per evaluation whatever the number of rows: Y'Y
// (and the row sum) are data-only nodes, computed once.
func (l *lowerer) gauss(call *ast.CallExpr, lhs ast.Node, y, mu, cov autodiff.ID, pos ast.Pos) {
	b := l.b
	ys, ms := b.Shape(y), b.Shape(mu)
	if ys.Rank == 1 { // one vector: centre it, scatter = outer product
		if ms.Rank == 2 && ms.Rows == 1 {
			mu = b.Transpose(mu, pos)
		}
		c := b.Sub(y, mu, pos)
		l.add(b.GaussRowsSS(cov, b.Outer(c, c, pos), 1, pos), pos)
		return
	}
	n, dd := float64(ys.Rows), ys.Cols
	dataOnly := false
	if e, ok := lhs.(ast.Expr); ok {
		dataOnly = l.info.Types[e].DataOnly
	}
	zeroMean := false
	if t, ok := l.info.Types[call.Args[0]]; ok && t.Const != nil && *t.Const == 0 {
		zeroMean = true
	}
	switch {
	case dataOnly && zeroMean:
		s := b.MatMul(b.Transpose(y, pos), y, pos)
		l.add(b.GaussRowsSS(cov, s, n, pos), pos)
	case dataOnly: // centred statistics of the data, computed once
		ybar := b.Div(b.Transpose(b.ColSum(y, pos), pos), b.Scalar(n, pos), pos)
		c := b.Sub(y, b.Transpose(ybar, pos), pos)
		s := b.MatMul(b.Transpose(c, pos), c, pos)
		switch {
		case ms.Rank == 0:
			ones := make([]float64, dd)
			for i := range ones {
				ones[i] = 1
			}
			mu = b.Mul(mu, b.Const(ones, autodiff.Vector(dd), pos), pos)
		case ms.Rank == 2 && ms.Rows == 1:
			mu = b.Transpose(mu, pos)
		}
		l.add(b.GaussRowsSSMean(cov, s, ybar, mu, n, pos), pos)
	default:
		if ms.Rank == 1 {
			mu = b.Transpose(mu, pos)
		}
		c := b.Sub(y, mu, pos)
		l.add(b.GaussRowsSS(cov, b.MatMul(b.Transpose(c, pos), c, pos), n, pos), pos)
	}
}

// dirichlet adds log Dirichlet(z | alpha) for a simplex vector z [k] or rows
// z [n, k]. For a simplex latent, log z is its coordinate node.
func (l *lowerer) dirichlet(z, alpha autodiff.ID, lat *check.Latent, pos ast.Pos) {
	b := l.b
	var logz autodiff.ID
	if lat != nil && lat.Support == dist.Simplex {
		logz = l.coords[l.latentIndex(lat)]
	} else {
		logz = b.Log(z, pos)
	}
	zs, as := b.Shape(z), b.Shape(alpha)
	one := b.Scalar(1, pos)
	if as.Rank == 0 { // a scalar concentration: the same alpha for each of the k components
		k := zs.Rows
		ones := autodiff.Vector(k)
		if zs.Rank == 2 {
			k, ones = zs.Cols, autodiff.Matrix(1, zs.Cols)
		}
		v := make([]float64, k)
		for i := range v {
			v[i] = 1
		}
		alpha = b.Mul(alpha, b.Const(v, ones, pos), pos)
		as = b.Shape(alpha)
	}
	if zs.Rank == 2 && as.Rank == 1 {
		alpha = b.Transpose(alpha, pos)
		as = b.Shape(alpha)
	}
	kernel := b.Sum(b.Mul(b.Sub(alpha, one, pos), logz, pos), pos)
	var norm autodiff.ID
	if zs.Rank == 2 && as.Rank == 2 && as.Rows == zs.Rows && zs.Rows != 1 {
		norm = b.Sub(b.Sum(b.Lgamma(b.RowSum(alpha, pos), pos), pos), b.Sum(b.Lgamma(alpha, pos), pos), pos)
	} else {
		norm = b.Sub(b.Lgamma(b.Sum(alpha, pos), pos), b.Sum(b.Lgamma(alpha, pos), pos), pos)
		if zs.Rank == 2 && zs.Rows != 1 {
			norm = b.Mul(b.Scalar(float64(zs.Rows), pos), norm, pos)
		}
	}
	l.add(b.Add(kernel, norm, pos), pos)
}

func (l *lowerer) latentIndex(lat *check.Latent) int {
	for i, x := range l.info.Latents {
		if x == lat {
			return i
		}
	}
	panic("compile: latent not found")
}

// truncate adds the normalising constant of a prior truncated to the
// latent's declared support: −size·log P(support). Only constant prior
// arguments are supported; otherwise the normaliser would depend on the
// latent's own hyperparameters and is reported as unsupported.
func (l *lowerer) truncate(call *ast.CallExpr, d *stdlib.Dist, lat *check.Latent, pos ast.Pos) {
	args := make([]float64, len(call.Args))
	for i, a := range call.Args {
		t := l.info.Types[a]
		if t.Const == nil {
			half := "" // Normal(0, s) and Cauchy(0, s) on the positive half have their own names
			if z := l.info.Types[call.Args[0]].Const; z != nil && *z == 0 && lat.Support == dist.Positive && (d.Name == "Normal" || d.Name == "Cauchy") {
				half = fmt.Sprintf(" (here Half%s(%s), the same prior)", d.Name, ast.FormatExpr(call.Args[1]))
			}
			l.errorf(a.Pos(), "%s truncated to the %s support of %s needs constant arguments (the normalising constant would depend on %s); declare %s with a support inside %s's, or use a prior on the %s support%s",
				d.Name, lat.Support, lat.Name, l.describe(a), lat.Name, d.Name, lat.Support, half)
			return
		}
		args[i] = *t.Const
	}
	var p float64 // mass of the declared support under the prior
	switch {
	case lat.Bounded():
		r := lat.Range()
		var ok bool
		if p, ok = intervalMass(d.Name, args, r.Lo, r.Hi); !ok {
			l.errorf(pos, "truncating %s to the bounds %s of %s is not supported", d.Name, r, lat.Name)
			return
		}
		if !(p > 0) {
			l.errorf(pos, "%s puts no mass on the bounds %s of %s", d.Name, r, lat.Name)
			return
		}
	case lat.Support == dist.Positive && d.Name == "Normal":
		p = distuv.Normal{Mu: args[0], Sigma: args[1]}.Survival(0)
	case lat.Support == dist.Positive && d.Name == "Cauchy":
		p = 0.5 + math.Atan(args[0]/args[1])/math.Pi
	case lat.Support == dist.Positive && d.Name == "Laplace":
		p = laplaceMass(0, math.Inf(1), args[0], args[1])
	case lat.Support == dist.Positive && d.Name == "StudentT":
		p = distuv.StudentsT{Nu: args[0], Mu: args[1], Sigma: args[2]}.Survival(0)
	case lat.Support == dist.Unit && d.Name == "Normal":
		n := distuv.Normal{Mu: args[0], Sigma: args[1]}
		p = n.CDF(1) - n.CDF(0)
	case lat.Support == dist.Unit && d.Name == "Laplace":
		p = laplaceMass(0, 1, args[0], args[1])
	case lat.Support == dist.Unit && d.Name == "Weibull":
		p = -math.Expm1(-math.Pow(1/args[1], args[0])) // 1 − exp(−(1/σ)^α)
	case lat.Support == dist.Unit && d.Name == "Gamma":
		p = mathext.GammaIncReg(args[0], args[1])
	case lat.Support == dist.Unit && d.Name == "Exponential":
		p = -math.Expm1(-args[0])
	default:
		l.errorf(pos, "truncating %s to the %s support of %s is not supported", d.Name, lat.Support, lat.Name)
		return
	}
	if !(p > 0) {
		l.errorf(pos, "%s puts no mass on the %s support of %s", d.Name, lat.Support, lat.Name)
		return
	}
	size := 1
	for _, x := range l.lats[l.latentIndex(lat)].Shape {
		size *= x
	}
	l.add(l.b.Scalar(-float64(size)*math.Log(p), pos), pos)
}

// cdfSurvival is a distribution's CDF and survival function.
type cdfSurvival interface {
	CDF(x float64) float64
	Survival(x float64) float64
}

// cauchy, halfNormal, halfCauchy and invGamma give the CDFs that
// gonum/stat/distuv lacks.
type cauchy struct{ mu, s float64 }

func (c cauchy) CDF(x float64) float64      { return 0.5 + math.Atan((x-c.mu)/c.s)/math.Pi }
func (c cauchy) Survival(x float64) float64 { return 0.5 - math.Atan((x-c.mu)/c.s)/math.Pi }

type halfNormal struct{ s float64 }

func (h halfNormal) CDF(x float64) float64      { return math.Erf(max(x, 0) / (h.s * math.Sqrt2)) }
func (h halfNormal) Survival(x float64) float64 { return math.Erfc(max(x, 0) / (h.s * math.Sqrt2)) }

type halfCauchy struct{ s float64 }

func (h halfCauchy) CDF(x float64) float64      { return 2 * math.Atan(max(x, 0)/h.s) / math.Pi }
func (h halfCauchy) Survival(x float64) float64 { return 1 - h.CDF(x) }

type invGamma struct{ a, b float64 } // shape, scale: 1/x ~ Gamma(a, rate b)

func (g invGamma) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return mathext.GammaIncRegComp(g.a, g.b/x)
}
func (g invGamma) Survival(x float64) float64 {
	if x <= 0 {
		return 1
	}
	return mathext.GammaIncReg(g.a, g.b/x)
}

// intervalMass returns P(a < X < b) for the prior X ~ name(args) of a
// bounded param, from the upper tail when a is past the median (where the
// CDF's difference would cancel), or ok false for a distribution it does
// not know.
func intervalMass(name string, args []float64, a, b float64) (p float64, ok bool) {
	var d cdfSurvival
	switch name {
	case "Normal":
		d = distuv.Normal{Mu: args[0], Sigma: args[1]}
	case "StudentT":
		d = distuv.StudentsT{Nu: args[0], Mu: args[1], Sigma: args[2]}
	case "Cauchy":
		d = cauchy{args[0], args[1]}
	case "Laplace":
		return laplaceMass(a, b, args[0], args[1]), true
	case "Gamma":
		d = distuv.Gamma{Alpha: args[0], Beta: args[1]}
	case "Exponential":
		d = distuv.Exponential{Rate: args[0]}
	case "Weibull":
		d = distuv.Weibull{K: args[0], Lambda: args[1]}
	case "LogNormal":
		d = distuv.LogNormal{Mu: args[0], Sigma: args[1]}
	case "Beta":
		d = distuv.Beta{Alpha: args[0], Beta: args[1]}
	case "HalfNormal":
		d = halfNormal{args[0]}
	case "HalfCauchy":
		d = halfCauchy{args[0]}
	case "InvGamma":
		d = invGamma{args[0], args[1]}
	case "Uniform":
		lo, hi := max(a, args[0]), min(b, args[1])
		return max(hi-lo, 0) / (args[1] - args[0]), true
	default:
		return 0, false
	}
	if d.CDF(a) > 0.5 {
		return d.Survival(a) - d.Survival(b), true
	}
	return d.CDF(b) - d.CDF(a), true
}

// laplaceMass returns P(a < X < b) for X ~ Laplace(mu, sigma) and a < b
// (b may be +Inf), without the cancellation of a difference of CDFs: on one
// side of mu the mass is the tail at the nearer end times 1 − e^(−(b−a)/σ),
// and across mu it is −½·(expm1((a−μ)/σ) + expm1(−(b−μ)/σ)), a sum of two
// terms of one sign.
func laplaceMass(a, b, mu, sigma float64) float64 {
	w := -math.Expm1(-(b - a) / sigma)
	switch {
	case a >= mu:
		return 0.5 * math.Exp(-(a-mu)/sigma) * w
	case b <= mu:
		return 0.5 * math.Exp((b-mu)/sigma) * w
	}
	return -0.5 * (math.Expm1((a-mu)/sigma) + math.Expm1(-(b-mu)/sigma))
}
