package compile

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// density adds the log density of call at the value v of lhs. lat is the
// latent when lhs is exactly a latent (a prior), else nil. It returns the
// nodes of call's arguments (nil after an error).
func (l *lowerer) density(call *ast.CallExpr, lhs ast.Node, v value, lat *check.Latent) []autodiff.ID {
	d := l.info.Dists[call]
	if d == nil {
		l.errorf(call.Pos(), "compile: %s is not a distribution here", call.Fun.Name)
		return nil
	}
	pos := call.Fun.Pos()
	if args, ok := l.suffDensity(call, lhs, lat, d); ok {
		return args
	}
	// X[i] ~ MvNormal(mu, Sigma) in a loop lowered as vectors: the rows
	// (looprows.go), their means one per row or broadcast along them
	e, rowMv := lhs.(ast.Expr)
	rowMv = rowMv && l.vec != nil && l.depends(e)
	rowChol := rowMv && d.Name == "MvNormalCholesky"
	if rowChol {
		// X[i] ~ MvNormalCholesky(mu, L): the rows [n, d] as one value,
		// mu shared or a row each (vecScan.rowMvNormalChol)
		v = value{id: l.rowMatrix(e), node: true}
	}
	rowDir := rowMv && d.Name == "Dirichlet"
	if rowMv && (d.Shape == stdlib.DistMultinomial || rowDir) {
		// Y[i] ~ Multinomial(theta): the count rows [n, k], an
		// observation per row (vecScan.rowMultinomial); W[i] ~
		// Dirichlet(alpha): the simplex rows (vecScan.rowDirichlet)
		v = value{id: l.rowMatrix(e), node: true}
	}
	rowMv = rowMv && d.Name == "MvNormal"
	if rowMv {
		v = value{id: l.rowMatrix(e), node: true}
	}
	val := l.node(v, lhs.Pos())
	args := make([]autodiff.ID, len(call.Args))
	for i, a := range call.Args {
		if rowMv && i == 0 {
			args[i] = l.rowOperand(a)
			continue
		}
		if l.vec != nil && l.depends(a) && l.rowVecScan().rowVec(a) {
			args[i] = l.rowMatrix(a) // a Categorical's rows (looprows.go)
			continue
		}
		args[i] = l.node(l.expr(a), a.Pos())
	}
	switch d.Name {
	case "MvNormal", "MvNormalRows":
		what := l.covSubject(d.Name, call.Args[1])
		if rowMv {
			l.gaussLoop(val, args[0], args[1], what, pos)
			break
		}
		l.gauss(call, lhs, val, args[0], args[1], what, pos)
	case "Dirichlet":
		if rowDir {
			l.dirichletRows(val, args[0], pos)
			break
		}
		l.dirichlet(val, args[0], lat, pos)
	case "Categorical", "CategoricalLogit":
		if l.obsMask.node { // classes left out (leftout.go)
			l.maskedDensity(l.b.CategoricalLogPDF(val, args[0], d.Name == "CategoricalLogit", pos), l.obsMask.id, pos)
			break
		}
		l.add(l.b.Categorical(val, args[0], d.Name == "CategoricalLogit", pos), pos)
	case "Multinomial", "MultinomialLogit":
		if len(args) > 1 && !l.multinomialTotals(d, val, args[1], call.Args[1], pos) {
			return nil
		}
		l.add(l.b.Multinomial(val, args[0], d.Name == "MultinomialLogit", pos), pos)
	case "DirichletMultinomial":
		if len(args) > 1 && !l.multinomialTotals(d, val, args[1], call.Args[1], pos) {
			return nil
		}
		l.add(l.b.Sum(l.dirichletMultinomial(val, args[0], pos), pos), pos)
	case "OrderedLogistic", "OrderedProbit":
		l.ordinalBoundCheck(call, lhs, args[1])
		l.ordinalEmptyNote(call, lhs, v, args[1])
		if l.obsMask.node {
			l.maskedDensity(l.b.OrderedLogPDF(val, args[0], args[1], d.Name == "OrderedProbit", pos), l.obsMask.id, pos)
			break
		}
		l.add(l.b.OrderedLogistic(val, args[0], args[1], d.Name == "OrderedProbit", pos), pos)
	case "PoissonBinomial":
		if l.obsMask.node {
			l.maskedDensity(l.b.PoissonBinomial(val, args[0], 0, true, pos), l.obsMask.id, pos)
			break
		}
		l.add(l.b.PoissonBinomial(val, args[0], 0, false, pos), pos)
	case "LKJCorrCholesky": // the checker made the value a cholesky_factor_corr param
		l.add(l.b.LKJCorrCholesky(val, args[0], pos), pos)
	case "LKJCorr": // the checker made the value a corr_matrix param
		l.add(l.b.LKJCorr(val, args[0], pos), pos)
	case "MvNormalCholesky":
		if rowChol { // a term per row, as the unrolled loop's
			l.add(l.b.Sum(l.b.MvNormalCholeskyRows(val, args[0], args[1], pos), pos), pos)
			break
		}
		l.add(l.b.MvNormalCholesky(val, args[0], args[1], pos), pos)
	case "MvNormalPrec": // each row's term whole, so that a minibatch scales all of it
		l.add(l.b.Sum(l.mvNormalPrecRows(val, args[0], args[1], l.matSubject(d.Name, "precision matrix", call.Args[1]), pos), pos), pos)
	case "GaussianDLMObs":
		l.gaussianDLM(val, args, pos)
	case "CAR":
		l.car(call, val, args[0], args[1], pos)
	case "MultiGP", "MultiGPCholesky":
		l.multiGP(val, args[0], args[1], d.Name == "MultiGPCholesky", pos)
	case "MultiStudentT", "MultiStudentTCholesky":
		l.add(l.b.Sum(l.multiStudentTRows(call, d, val, args, pos), pos), pos)
	case "Wishart", "InvWishart": // the checker made the value a cov_matrix param or data
		l.add(l.b.Wishart(val, args[0], args[1], d.Name == "InvWishart", pos), pos)
	case "WishartCholesky", "InvWishartCholesky": // a cholesky_factor_cov param or data
		l.add(l.b.WishartCholesky(val, args[0], args[1], d.Name == "InvWishartCholesky", pos), pos)
	default:
		u, ok := dist.LookupUnivariate(d.Name)
		if !ok {
			l.errorf(pos, "compile: no kernel for distribution %s", d.Name)
			return nil
		}
		if lat != nil && lat.Support == dist.Positive && !lat.Bounded() {
			// The density of a positive latent from its coordinate log z:
			// finite even where z underflows to 0.
			l.add(l.b.Density(dist.LogScale(u), l.coords[l.latentIndex(lat)], args, pos), pos)
			break
		}
		if l.truncPair != nil && l.truncCall == call {
			l.truncPair.family(l.b, u, val, args, pos)
			break
		}
		if lat != nil && lat.Support == dist.Unit && !lat.Bounded() {
			// The density of a unit latent from its coordinate logit z,
			// where the family has an exact kernel there: its gradient
			// finite and right where z rounds to 0 or 1.
			if lu, ok := dist.LogitScale(u); ok {
				l.add(l.b.Density(lu, l.coords[l.latentIndex(lat)], args, pos), pos)
				break
			}
		}
		if l.obsMask.node { // cells left out (leftout.go)
			l.maskedDensity(l.b.LogPDF(*u, val, args, pos), l.obsMask.id, pos)
			break
		}
		l.add(l.b.Density(*u, val, args, pos), pos)
	}
	// A prior truncated to the latent's values, on the whole latent or on
	// the elements of it that lhs selects (x[i] ~ D in a loop, x' ~ D, a
	// let that is x), is normalised per element of the ~ (the arguments
	// broadcast to it).
	trunc := lat
	if e, ok := lhs.(ast.Expr); ok && trunc == nil {
		if sel := l.info.SelectedLatent(e); sel != nil {
			trunc = l.latent(sel)
		}
	}
	if trunc != nil && (trunc.Truncated && (trunc.Bounded() || !elemSupport(trunc.Support).Contains(d.Support)) || lowerFromArgs(d.Name)) {
		l.truncate(call, args, d, trunc, l.b.Shape(val), pos)
	}
	return args
}

// lowerFromArgs reports whether the family's support starts at an argument
// (dist.Univariate.LowerArg: Pareto's y_min, ParetoType2's mu) rather than
// where its declared support does: a prior of it on a param is checked
// against the param's values, and normalised to them, as a truncated one is
// (supportEnds).
func lowerFromArgs(name string) bool {
	u, ok := dist.LookupUnivariate(name)
	return ok && u.LowerArg > 0
}

// elemSupport is the support of a latent's elements as a prior's is
// judged: positive for a positive_ordered latent, else its own.
func elemSupport(s dist.Support) dist.Support {
	if s == dist.PositiveOrdered {
		return dist.Positive
	}
	return s
}

// orderedNormaliser adds log K! (G log K! for ordered[G, K]) for a prior
// of an ordered[K] or positive_ordered[K] param with scalar arguments (check.Latent.OrderedIID
// for the declared one, check.Info.OrderedIID for a ~ on the param whole):
// the elementwise density of K iid values
// restricted to the increasing vectors, one of the K! orders of equal
// mass, is K!·Π p(x_k) (for positive_ordered, p already restricted to the
// positive half line by density's truncation). With arguments that vary
// per element no normaliser is known, and none is added (as in Stan,
// which never adds one).
func (l *lowerer) orderedNormaliser(lat *check.Latent, pos ast.Pos) {
	if !lat.Support.IsOrdered() {
		return
	}
	ml := l.lats[l.latentIndex(lat)]
	k, g := ml.Size, 1
	if len(ml.Shape) == 2 { // ordered[G, K]: G rows, log K! each
		g, k = ml.Shape[0], ml.Shape[1]
	}
	if lf, _ := math.Lgamma(float64(k) + 1); lf != 0 {
		l.add(l.b.Scalar(float64(g)*lf, pos), pos)
	}
}

// logpdf lowers logpdf(value, D(args)) to the node of D's log density per
// element (the checker made D an elementwise distribution), whose −Inf at
// a value outside D's support is a value (dist.Univariate.OutsideValue),
// and logcdf and logccdf to the same node with D's log CDF or log
// survival function.
func (l *lowerer) logpdf(e *ast.CallExpr, pos ast.Pos) value {
	return l.logpdfOf(e, pos, func(a ast.Expr) autodiff.ID { return l.node(l.expr(a), a.Pos()) }, nil, nil)
}

// logpdfOf is logpdf with the value and the arguments of an elementwise
// distribution lowered by arg, and the density node built between at's
// call on them and its done, or by mismatch when they do not broadcast
// (per-row vectors: looprows.go's rowMismatch).
func (l *lowerer) logpdfOf(e *ast.CallExpr, pos ast.Pos, arg func(ast.Expr) autodiff.ID, at func(ids ...autodiff.ID) (done func()),
	mismatch func(es []ast.Expr, ids []autodiff.ID, asCol bool, build func(ids ...autodiff.ID) autodiff.ID) (autodiff.ID, bool)) value {
	call, _ := ast.Unparen(e.Args[1]).(*ast.CallExpr)
	var d *stdlib.Dist
	if call != nil {
		d = l.info.Dists[call]
	}
	if d == nil {
		l.errorf(e.Args[1].Pos(), "compile: logpdf needs a distribution")
		return value{}
	}
	if d.Shape != stdlib.DistElementwise {
		return l.logpdfPerObservation(e, call, d, pos)
	}
	u, ok := dist.LookupUnivariate(d.Name)
	if !ok {
		l.errorf(call.Fun.Pos(), "compile: no kernel for distribution %s", d.Name)
		return value{}
	}
	if fn := e.Fun.Name; fn != "logpdf" { // logcdf or logccdf: the same node with the CDF's kernel
		k, ok := dist.LogCDF(d.Name, fn == "logccdf")
		if !ok {
			l.errorf(call.Fun.Pos(), "compile: no %s for distribution %s", fn, d.Name)
			return value{}
		}
		c := *u
		c.Name, c.Kernel, c.Prepared, c.Hoisted, c.DataHoisted, c.LogProb = fn+"("+d.Name+")", k, nil, nil, nil, true
		c.CDFTail = -1
		if fn == "logccdf" {
			c.CDFTail = 1
		}
		u = &c
	} else { // logpdf: its −Inf outside D's support is a value (dist.Univariate.OutsideValue)
		c := *u
		c.OutsideValue = true
		u = &c
	}
	val := arg(e.Args[0])
	args := make([]autodiff.ID, len(call.Args))
	for i, a := range call.Args {
		args[i] = arg(a)
	}
	if e.Fun.Name == "logpdf" && len(args) > 0 {
		l.watchLogPDF(e, d.Name, val, args[0])
	}
	if mismatch != nil {
		if bad, ok := mismatch(append([]ast.Expr{e.Args[0]}, call.Args...), append([]autodiff.ID{val}, args...), false, func(ids ...autodiff.ID) autodiff.ID {
			return l.b.LogPDF(*u, ids[0], ids[1:], pos)
		}); ok {
			return value{id: bad, node: true}
		}
	}
	if at != nil {
		defer at(append([]autodiff.ID{val}, args...)...)()
	}
	return value{id: l.b.LogPDF(*u, val, args, pos), node: true}
}

// icdf lowers icdf(p, D(args)) to a node of D's quantile per element
// (dist.Quantile), laid out as logcdf's: p in the value's place, so that
// p and the arguments broadcast as a density's do.
func (l *lowerer) icdf(e *ast.CallExpr, pos ast.Pos) value {
	call, _ := ast.Unparen(e.Args[1]).(*ast.CallExpr)
	var d *stdlib.Dist
	if call != nil {
		d = l.info.Dists[call]
	}
	if d == nil {
		l.errorf(e.Args[1].Pos(), "compile: icdf needs a distribution")
		return value{}
	}
	u, ok := dist.Quantile(d.Name)
	if !ok {
		l.errorf(call.Fun.Pos(), "compile: no quantile for distribution %s", d.Name)
		return value{}
	}
	p := l.node(l.expr(e.Args[0]), e.Args[0].Pos())
	args := make([]autodiff.ID, len(call.Args))
	for i, a := range call.Args {
		args[i] = l.node(l.expr(a), a.Pos())
	}
	return value{id: l.b.LogPDF(*u, p, args, pos), node: true}
}

// logpdfPerObservation lowers logpdf(value, D(args)) for a categorical,
// multinomial or ordinal D, PoissonBinomial, or a multivariate D of
// check's rowDensityFamily (the checker allowed no other; for
// PoissonBinomial logcdf and logccdf too) to the node of
// the density that value ~ D(args) adds, keeping a term per observation
// (per row of counts): the same kernel, so the terms sum to the ~'s term.
// Multinomial's number of trials is checked against the counts as for ~.
func (l *lowerer) logpdfPerObservation(e *ast.CallExpr, call *ast.CallExpr, d *stdlib.Dist, pos ast.Pos) value {
	val := l.node(l.expr(e.Args[0]), e.Args[0].Pos())
	args := make([]autodiff.ID, len(call.Args))
	for i, a := range call.Args {
		args[i] = l.node(l.expr(a), a.Pos())
	}
	dpos := call.Fun.Pos()
	switch d.Name {
	case "Categorical", "CategoricalLogit":
		return value{id: l.b.CategoricalLogPDF(val, args[0], d.Name == "CategoricalLogit", dpos), node: true}
	case "Multinomial", "MultinomialLogit":
		if len(args) > 1 && !l.multinomialTotals(d, val, args[1], call.Args[1], dpos) {
			return value{}
		}
		return value{id: l.b.MultinomialLogPDF(val, args[0], d.Name == "MultinomialLogit", dpos), node: true}
	case "DirichletMultinomial":
		if len(args) > 1 && !l.multinomialTotals(d, val, args[1], call.Args[1], dpos) {
			return value{}
		}
		return value{id: l.dirichletMultinomial(val, args[0], dpos), node: true}
	case "OrderedLogistic", "OrderedProbit":
		return value{id: l.b.OrderedLogPDF(val, args[0], args[1], d.Name == "OrderedProbit", dpos), node: true}
	case "MvNormal", "MvNormalRows", "MvNormalCholesky":
		return value{id: l.mvNormalLogPDF(call, d, val, args, dpos), node: true}
	case "MvNormalPrec":
		return value{id: l.rowTerms(val, l.mvNormalPrecRows(val, args[0], args[1], l.matSubject(d.Name, "precision matrix", call.Args[1]), dpos), dpos), node: true}
	case "MultiStudentT", "MultiStudentTCholesky":
		return value{id: l.rowTerms(val, l.multiStudentTRows(call, d, val, args, dpos), dpos), node: true}
	case "Dirichlet":
		return value{id: l.dirichletLogPDF(e.Args[0], val, args[0], dpos), node: true}
	case "PoissonBinomial": // logpdf, logcdf or logccdf, a term per count
		tail := map[string]int{"logpdf": 0, "logcdf": -1, "logccdf": 1}[e.Fun.Name]
		return value{id: l.b.PoissonBinomial(val, args[0], tail, true, dpos), node: true}
	}
	l.errorf(pos, "compile: logpdf does not take %s", d.Name)
	return value{}
}

// mvNormalLogPDF returns logpdf(y, D(mu, S)) for D MvNormal or
// MvNormalRows (S the covariance Sigma) or MvNormalCholesky (S its lower
// factor L): a scalar for a vector y [d], the log density of each row of
// y [n, d] as a vector [n]. Sigma's factor is Chol's, one per evaluation
// and shared with any other use of the same Sigma, and the rows are solved
// against it by the node of MvNormalCholesky (its per-row form, whose
// terms sum to the ~'s).
func (l *lowerer) mvNormalLogPDF(call *ast.CallExpr, d *stdlib.Dist, y autodiff.ID, args []autodiff.ID, pos ast.Pos) autodiff.ID {
	b := l.b
	lf := args[1]
	if d.Name != "MvNormalCholesky" {
		lf = b.Chol(args[1], pos)
		b.Subject(lf, l.covSubject(d.Name, call.Args[1]))
	}
	if b.Shape(y).Rank == 1 {
		return b.MvNormalCholesky(y, args[0], lf, pos)
	}
	return b.MvNormalCholeskyRows(y, args[0], lf, pos)
}

// predictive lowers the distribution of `output NAME ~ D(args)` to a node
// that draws from D at every evaluation; perRow (the output is a vector)
// asks a categorical D for a draw per row of its matrix argument. want,
// when not nil, is the shape of the data that a ~ observes and predict
// draws (drawTilde): the arguments are broadcast to it as the density
// broadcasts them (a scalar mean of y [N], a shared row of Y [N, D]).
// trunc, when not nil, is the T[L, U] of the replicate or of the ~: the
// draw is truncated to it (dist.TruncRand), each element to its bounds.
func (l *lowerer) predictive(call *ast.CallExpr, perRow bool, pos ast.Pos, want []int, trunc *ast.Truncation) value {
	d := l.info.Dists[call]
	args := make([]autodiff.ID, len(call.Args))
	lower := func() {
		for i, a := range call.Args {
			args[i] = l.node(l.expr(a), a.Pos())
		}
		if want != nil {
			l.broadcastDraw(d, args, want, pos)
		}
	}
	if d != nil {
		switch d.Shape {
		case stdlib.DistCategorical:
			lower()
			return value{id: l.b.RandCategorical(args[0], d.Name == "CategoricalLogit", perRow, pos), node: true}
		case stdlib.DistPoissonBinomial:
			lower()
			return value{id: l.b.RandPoissonBinomial(args[0], pos), node: true}
		case stdlib.DistOrdinal:
			lower()
			return value{id: l.b.RandOrdered(args[0], args[1], d.Name == "OrderedProbit", pos), node: true}
		case stdlib.DistDirichlet:
			lower()
			return value{id: l.b.RandDirichlet(args[0], pos), node: true}
		case stdlib.DistMultinomial: // the checker asked for the trials n
			lower()
			if d.Name == "DirichletMultinomial" {
				return value{id: l.randDirichletMultinomial(args[0], args[1], pos), node: true}
			}
			return value{id: l.b.RandMultinomial(args[0], args[1], d.Name == "MultinomialLogit", pos), node: true}
		case stdlib.DistMvNormal, stdlib.DistMvNormalRows:
			lower()
			return value{id: l.b.RandMvNormal(args[0], args[1], d.Shape == stdlib.DistMvNormalRows, pos), node: true}
		case stdlib.DistMvNormalChol:
			lower()
			return value{id: l.b.RandMvNormalCholesky(args[0], args[1], pos), node: true}
		case stdlib.DistMvNormalPrec: // the covariance Omega⁻¹ through Omega's factor
			lower()
			b := l.b
			cov := b.CholSolve(b.Chol(args[1], pos), b.Identity(b.Shape(args[1]).Rows, pos), pos)
			return value{id: b.RandMvNormal(args[0], cov, false, pos), node: true}
		case stdlib.DistMultiGP, stdlib.DistMultiGPChol:
			lower()
			return value{id: l.randMultiGP(args[0], args[1], d.Shape == stdlib.DistMultiGPChol, pos), node: true}
		case stdlib.DistMultiStudentT, stdlib.DistMultiStudentTChol:
			lower()
			return value{id: l.randMultiStudentT(args[0], args[1], args[2], d.Shape == stdlib.DistMultiStudentTChol, pos), node: true}
		case stdlib.DistWishart:
			lower()
			return value{id: l.b.RandWishart(args[0], args[1], strings.HasPrefix(d.Name, "Inv"), strings.HasSuffix(d.Name, "Cholesky"), pos), node: true}
		}
	}
	var u *dist.Univariate
	if d != nil {
		u, _ = dist.LookupUnivariate(d.Name)
	}
	if u == nil {
		l.errorf(call.Fun.Pos(), "compile: no sampler for distribution %s", call.Fun.Name)
		return value{}
	}
	lower()
	if trunc == nil {
		return value{id: l.b.Rand(*u, args, pos), node: true}
	}
	bound := func(e ast.Expr) *autodiff.ID {
		if e == nil {
			return nil
		}
		id := l.node(l.expr(e), e.Pos())
		return &id
	}
	return value{id: l.b.RandTrunc(*u, args, bound(trunc.Lower), bound(trunc.Upper), pos), node: true}
}

// covSubject is what the errors of an MvNormal or MvNormalRows statement
// name as its failing covariance (autodiff.Builder.Subject): the family
// as the model wrote it, though both lower to one rows' node, and a
// covariance that is a data item by its name and file, which the
// statement alone does not show.
func (l *lowerer) covSubject(family string, cov ast.Expr) string {
	return l.matSubject(family, "covariance matrix", cov)
}

// matSubject is covSubject for a matrix argument of any kind ("scale
// matrix", "precision matrix"): "family: kind", and the data item's name
// and file when the argument is one.
func (l *lowerer) matSubject(family, kind string, m ast.Expr) string {
	what := family + ": " + kind
	id, ok := m.(*ast.Ident)
	if !ok || l.info == nil {
		return what
	}
	if sym := l.info.Uses[id]; sym == nil || sym.Kind != check.Data {
		return what
	}
	what += " " + id.Name + " (data"
	if a := l.data[id.Name]; a != nil && a.Pos.File != "" {
		what += " from " + a.Pos.File
	}
	return what + ")"
}

// gaussRows adds a GaussRowsSS node whose errors name what.
func (l *lowerer) gaussRows(cov, s autodiff.ID, n float64, what string, pos ast.Pos) {
	if sh := l.b.Shape(cov); !sh.IsSquare() && !l.b.Failed(cov) {
		// named as the user wrote it, not by the tape's op
		l.errorf(pos, "%s is %s: it must be square, [d, d]", what, sh)
		return
	}
	id := l.b.GaussRowsSS(cov, s, n, pos)
	l.b.Subject(id, what)
	l.add(id, pos)
}

// gauss lowers MvNormal and MvNormalRows through the scatter matrix, so a
// data value costs O(d³) per evaluation whatever the number of rows: Y'Y
// (and the row sum) are data-only nodes, computed once. A mean with a row
// per row of Y [n, d] (Stan's array of means) takes the residuals' scatter
// C'C instead, C = Y − Mu, O(n d²): still one Cholesky of the covariance
// per evaluation. what names the covariance in errors (covSubject).
func (l *lowerer) gauss(call *ast.CallExpr, lhs ast.Node, y, mu, cov autodiff.ID, what string, pos ast.Pos) {
	b := l.b
	ys, ms := b.Shape(y), b.Shape(mu)
	if ys.Rank == 1 { // one vector: centre it, scatter = outer product
		if ms.Rank == 2 && ms.Rows == 1 {
			mu = b.Transpose(mu, pos)
		}
		c := b.Sub(y, mu, pos)
		l.gaussRows(cov, b.Outer(c, c, pos), 1, what, pos)
		return
	}
	n, dd := float64(ys.Rows), ys.Cols
	dataOnly := false
	if e, ok := lhs.(ast.Expr); ok {
		dataOnly = l.info.Types[e].DataOnly
	}
	perRow := ms.Rank == 2 && ms.Rows > 1 // the data's statistics do not see the means
	if perRow && ms.Rows != ys.Rows {
		// the checker passes a mean whose rows it cannot count, as mu[0:2] of Y [N, d]
		val := "the value"
		if e, ok := lhs.(ast.Expr); ok {
			val = "`" + ast.FormatExpr(e) + "`"
		}
		l.errorf(call.Args[0].Pos(), "%s argument 1 (mu): `%s` is [%d, %d]; for %s of shape [%d, %d] it must be a scalar, [%d], [1, %d] or [%d, %d] (a row per row)",
			call.Fun.Name, ast.FormatExpr(call.Args[0]), ms.Rows, ms.Cols, val, ys.Rows, dd, dd, dd, ys.Rows, dd)
		return
	}
	dataOnly = dataOnly && !perRow
	zeroMean := false
	if t, ok := l.info.Types[call.Args[0]]; ok && t.Const != nil && *t.Const == 0 {
		zeroMean = true
	}
	switch {
	case dataOnly && zeroMean:
		s := b.MatMul(b.Transpose(y, pos), y, pos)
		l.gaussRows(cov, s, n, what, pos)
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
		id := b.GaussRowsSSMean(cov, s, ybar, mu, n, pos)
		b.Subject(id, what)
		l.add(id, pos)
	default:
		if ms.Rank == 1 {
			mu = b.Transpose(mu, pos)
		}
		c := b.Sub(y, mu, pos)
		l.gaussRows(cov, b.MatMul(b.Transpose(c, pos), c, pos), n, what, pos)
	}
}

// mvNormalPrecRows returns the terms of log MvNormal(y | mu, Omega⁻¹) for
// a vector y [d] (a vector [1]) or the independent rows of y [n, d] (a
// vector [n]), given the precision matrix Omega:
//
//	−d/2·log 2π + ½·log det Omega − ½·(y_r − mu_r)' Omega (y_r − mu_r)
//
// the quadratic forms as one product C·Omega of the centred rows C, no
// inverse; Omega's Cholesky factor (Chol, which checks it symmetric and
// positive definite, its errors naming what) gives the log determinant.
// y ~ MvNormalPrec adds their sum, logpdf keeps them.
func (l *lowerer) mvNormalPrecRows(y, mu, omega autodiff.ID, what string, pos ast.Pos) autodiff.ID {
	b := l.b
	ys, ms := b.Shape(y), b.Shape(mu)
	d := b.Shape(omega).Rows
	var c autodiff.ID
	if ys.Rank == 1 {
		if ms.Rank == 2 { // a row [1, d]
			mu = b.Reshape(mu, autodiff.Vector(d), pos)
		}
		c = b.Reshape(b.Sub(y, mu, pos), autodiff.Matrix(1, d), pos)
	} else {
		if ms.Rank == 1 {
			mu = b.Reshape(mu, autodiff.Matrix(1, d), pos)
		}
		c = b.Sub(y, mu, pos)
	}
	q := b.RowSum(b.Mul(b.MatMul(c, omega, pos), c, pos), pos) // q_r, [n]
	lf := b.Chol(omega, pos)
	b.Subject(lf, what)
	norm := b.Sub(b.Mul(b.Scalar(0.5, pos), b.LogDetChol(lf, pos), pos), b.Scalar(float64(d)/2*math.Log(2*math.Pi), pos), pos)
	// the shared part added to each row's term
	return b.Sub(norm, b.Mul(b.Scalar(0.5, pos), q, pos), pos)
}

// multiStudentTRows returns the terms of log MultiStudentT(y | nu, mu, S)
// (call a MultiStudentT or, chol, MultiStudentTCholesky, args its nu, mu
// and S) for a vector y [d] (a scalar) or the independent rows of y
// [n, d] (a row [1, n]), S the scale matrix Sigma or its lower Cholesky
// factor L, as tape nodes whose gradients are each checked: with
// z_r = L⁻¹(y_r − mu_r) (one triangular solve for all rows) and
// q_r = |z_r|², each row's
//
//	lgamma((ν+d)/2) − lgamma(ν/2) − d/2·log(νπ) − Σ_i log L_ii − (ν+d)/2·log1p(q_r/ν)
//
// the lgammas' difference as log_falling_factorial((ν+d)/2 − 1, d/2),
// which keeps its digits for large ν (dist.MultiStudentTNorm). Sigma's
// factor is Chol's, shared with any other use of the same Sigma, its
// errors naming Sigma. y ~ MultiStudentT adds their sum, logpdf keeps
// them.
func (l *lowerer) multiStudentTRows(call *ast.CallExpr, d *stdlib.Dist, y autodiff.ID, args []autodiff.ID, pos ast.Pos) autodiff.ID {
	b := l.b
	nu, mu, lf := args[0], args[1], args[2]
	if d.Name != "MultiStudentTCholesky" {
		lf = b.Chol(lf, pos)
		b.Subject(lf, l.matSubject(d.Name, "scale matrix", call.Args[2]))
	}
	ys, ms := b.Shape(y), b.Shape(mu)
	k := b.Shape(lf).Rows
	var q autodiff.ID // q_r, a scalar or a row [1, n]
	if ys.Rank == 1 {
		if ms.Rank == 2 { // a row [1, d]
			mu = b.Reshape(mu, autodiff.Vector(k), pos)
		}
		q = b.Sum(b.Square(b.TriSolve(lf, b.Sub(y, mu, pos), pos), pos), pos)
	} else {
		if ms.Rank == 1 {
			mu = b.Reshape(mu, autodiff.Matrix(1, k), pos)
		}
		z := b.TriSolve(lf, b.Transpose(b.Sub(y, mu, pos), pos), pos) // [d, n]
		q = b.ColSum(b.Square(z, pos), pos)
	}
	h := float64(k) / 2
	half := b.Mul(nu, b.Scalar(0.5, pos), pos)
	norm := b.Sub(b.Binary(autodiff.OpLogRisingFactorial, half, b.Scalar(h, pos), pos),
		b.Mul(b.Scalar(h, pos), b.Log(b.Mul(nu, b.Scalar(math.Pi, pos), pos), pos), pos), pos)
	logdet := b.Mul(b.Scalar(0.5, pos), b.LogDetChol(lf, pos), pos)
	kernel := b.Mul(b.Add(half, b.Scalar(h, pos), pos), b.Log1p(b.Div(q, nu, pos), pos), pos)
	// the shared part added to each row's term
	return b.Sub(b.Sub(norm, logdet, pos), kernel, pos)
}

// rowTerms shapes the terms of a density's rows (mvNormalPrecRows',
// multiStudentTRows') as logpdf returns them: a scalar for a vector value
// y, a vector [n] for the rows of y [n, d].
func (l *lowerer) rowTerms(y, terms autodiff.ID, pos ast.Pos) autodiff.ID {
	b := l.b
	if b.Shape(y).Rank == 1 {
		return b.Sum(terms, pos) // the one term
	}
	return b.Reshape(terms, autodiff.Vector(b.Shape(y).Rows), pos)
}

// multiGP adds log MultiGP(y | S, w) for y [K, N], S Sigma [N, N] or
// (chol) its lower Cholesky factor L, w [K]: row i of y is MvNormal(0,
// Sigma / w_i). With z = L⁻¹ y' (one triangular solve for all rows) and
// q_i = |z_i|² the sum over the rows of
//
//	−N/2·log 2π − ½·log det Sigma + N/2·log w_i − w_i/2·q_i
//
// (each row's term whole, so that a minibatch of rows scales all of it),
// as tape nodes whose gradients are each checked: Sigma's factor is
// Chol's (which checks it symmetric and positive definite), shared with
// any other use of the same Sigma.
func (l *lowerer) multiGP(y, s, w autodiff.ID, chol bool, pos ast.Pos) {
	b := l.b
	lf := s
	if !chol {
		lf = b.Chol(s, pos)
	}
	n := b.Shape(lf).Rows
	k := b.Shape(w).Len()
	name := "MultiGP"
	if chol {
		name = "MultiGPCholesky"
	}
	if ys := b.Shape(y); ys.Rows != k || ys.Cols != n || b.Shape(s).Cols != n {
		// the sizes the checker could not compare (data dimensions), now known
		l.errorf(pos, "%s: y is %v, the kernel matrix %v and w [%d]: y must be [%d, %d], a row per element of w and a column per row of the kernel",
			name, ys, b.Shape(s), k, k, n)
		return
	}
	z := b.TriSolve(lf, b.Transpose(y, pos), pos) // [N, K]
	q := b.ColSum(b.Square(z, pos), pos)          // [1, K]
	wr := b.Reshape(w, autodiff.Matrix(1, k), pos)
	// log w before the reshape, so that a w ≤ 0 names its element of w
	logw := b.Reshape(b.LogArg(w, name+": w", pos), autodiff.Matrix(1, k), pos)
	h := float64(n) / 2
	norm := b.Add(b.Mul(b.Scalar(0.5, pos), b.LogDetChol(lf, pos), pos), b.Scalar(h*math.Log(2*math.Pi), pos), pos)
	rows := b.Sub(b.Mul(b.Scalar(h, pos), logw, pos), b.Mul(b.Mul(b.Scalar(0.5, pos), wr, pos), q, pos), pos)
	l.add(b.Sum(b.Sub(rows, norm, pos), pos), pos)
}

// gaussianDLM adds log GaussianDLMObs(y | F, G, V, W, m0, C0) for y
// [r, T] by the Kalman filter, written as tape nodes (about 20 per time,
// each op's gradient checked, so the reverse sweep is the filter's exact
// adjoint): from m = m0, C = C0, at each time t
//
//	a = G m,  R = G C G' + W,  B = F' R,  Q = B F + V,  L = chol(Q)
//	e = y_t − F' a,  z = L⁻¹ e,  K = L⁻¹ B
//	log p(y_t | y_<t) = −r/2·log 2π − ½·log det Q − ½·|z|²
//	m = a + K' z,  C = R − K' K
//
// (B' Q⁻¹ B as K' K: symmetric by construction, no inverse taken). V
// may be the vector of a diagonal V's variances. A Q that is not
// positive definite is Chol's error at the distribution, naming the
// element.
func (l *lowerer) gaussianDLM(y autodiff.ID, args []autodiff.ID, pos ast.Pos) {
	b := l.b
	f, g, v, w, m, c := args[0], args[1], args[2], args[3], args[4], args[5]
	ys := b.Shape(y)
	r, steps := ys.Rows, ys.Cols
	// the sizes the checker could not compare (data dimensions), now known
	n := b.Shape(g).Rows
	sq := func(s autodiff.Shape, k int) bool { return s.Rank == 2 && s.Rows == k && s.Cols == k }
	names := [...]string{"F", "G", "V", "W", "m0", "C0"}
	for i, ok := range [...]bool{
		b.Shape(f).Rank == 2 && b.Shape(f).Rows == n && b.Shape(f).Cols == r, sq(b.Shape(g), n),
		sq(b.Shape(v), r) || b.Shape(v).Rank == 1 && b.Shape(v).Rows == r, sq(b.Shape(w), n),
		b.Shape(m).Rank == 1 && b.Shape(m).Rows == n, sq(b.Shape(c), n),
	} {
		if !ok {
			l.errorf(pos, "GaussianDLMObs: %s is %v; with y %v (r = %d) and G's %d states it must be %s", names[i], b.Shape(args[i]), ys, r, n,
				[...]string{fmt.Sprintf("[%d, %d]", n, r), fmt.Sprintf("[%d, %d]", n, n), fmt.Sprintf("[%d, %d] or [%d]", r, r, r), fmt.Sprintf("[%d, %d]", n, n), fmt.Sprintf("[%d]", n), fmt.Sprintf("[%d, %d]", n, n)}[i])
			return
		}
	}
	if !l.dlmCovariances(v, c, pos) {
		return
	}
	if b.Shape(v).Rank == 1 {
		v = b.Diag(v, pos)
	}
	ft, gt := b.Transpose(f, pos), b.Transpose(g, pos)
	var lp autodiff.ID
	for t := range steps {
		a := b.MatMul(g, m, pos)
		rr := b.Add(b.MatMul(b.MatMul(g, c, pos), gt, pos), w, pos)
		bm := b.MatMul(ft, rr, pos)
		q := b.Add(b.MatMul(bm, f, pos), v, pos)
		lq := b.Chol(q, pos)
		e := b.Sub(b.Col(y, t, pos), b.MatMul(ft, a, pos), pos)
		z := b.TriSolve(lq, e, pos)
		k := b.TriSolve(lq, bm, pos)
		term := b.Add(b.Mul(b.Scalar(0.5, pos), b.LogDetChol(lq, pos), pos), b.Mul(b.Scalar(0.5, pos), b.Sum(b.Square(z, pos), pos), pos), pos)
		if t == 0 {
			lp = term
		} else {
			lp = b.Add(lp, term, pos)
		}
		if t+1 < steps {
			kt := b.Transpose(k, pos)
			m = b.Add(a, b.MatMul(kt, z, pos), pos)
			c = b.Sub(rr, b.MatMul(kt, k, pos), pos)
		}
	}
	if steps == 0 {
		return
	}
	l.add(b.Neg(b.Add(lp, b.Scalar(float64(r*steps)/2*math.Log(2*math.Pi), pos), pos), pos), pos)
}

// dlmCovariances checks GaussianDLMObs's V and C0 where they are known
// when the model compiles (data, constants): V's variances > 0, or V and
// C0 symmetric and positive definite, as Stan requires. The filter only
// factors each step's one-step covariance, which an indefinite V or C0
// can leave definite, so without this a bad one would give a wrong log
// likelihood and no error. A param V or C0 is not checked (docs).
func (l *lowerer) dlmCovariances(v, c autodiff.ID, pos ast.Pos) bool {
	b := l.b
	if vals, ok := b.Known(v); ok && b.Shape(v).Rank == 1 {
		for i, x := range vals {
			if !(x > 0) {
				l.errorf(pos, "GaussianDLMObs: V's variance [%d] is %v, not > 0", i, x)
				return false
			}
		}
	}
	for _, a := range [...]struct {
		name string
		id   autodiff.ID
	}{{"V", v}, {"C0", c}} {
		vals, ok := b.Known(a.id)
		sh := b.Shape(a.id)
		if !ok || sh.Rank != 2 {
			continue
		}
		k := sh.Rows
		for i := 0; i < k; i++ {
			for j := 0; j < i; j++ {
				x, y := vals[i*k+j], vals[j*k+i]
				if math.Abs(x-y) > 1e-8*math.Sqrt(math.Abs(vals[i*k+i]*vals[j*k+j])) {
					l.errorf(pos, "GaussianDLMObs: %s is not symmetric: element [%d, %d] is %v, [%d, %d] is %v", a.name, i, j, x, j, i, y)
					return false
				}
			}
		}
		if dist.CholLower(slices.Clone(vals), k) > 0 {
			l.errorf(pos, "GaussianDLMObs: %s is not positive definite (its Cholesky factorisation fails), as Stan requires", a.name)
			return false
		}
	}
	return true
}

// randMultiGP draws a MultiGP(S, w) replicate [K, N]: row i is L x_i /
// √w_i for x_i ~ MvNormal(0, I), S Sigma or (chol) its factor L.
func (l *lowerer) randMultiGP(s, w autodiff.ID, chol bool, pos ast.Pos) autodiff.ID {
	b := l.b
	k, n := b.Shape(w).Len(), b.Shape(s).Rows
	x := l.randMvZero(s, autodiff.Matrix(k, n), chol, pos)
	return b.Div(x, b.Sqrt(b.Reshape(w, autodiff.Matrix(k, 1), pos), pos), pos)
}

// randMvZero draws MvNormal(0, S) of shape (a vector, or a matrix of
// independent rows), S the covariance or (chol) its Cholesky factor.
func (l *lowerer) randMvZero(s autodiff.ID, shape autodiff.Shape, chol bool, pos ast.Pos) autodiff.ID {
	zero := l.b.Const(make([]float64, shape.Len()), shape, pos)
	if chol {
		return l.b.RandMvNormalCholesky(zero, s, pos)
	}
	return l.b.RandMvNormal(zero, s, false, pos)
}

// randMultiStudentT draws a MultiStudentT(nu, mu, S) replicate of mu's
// shape (a vector [d] for a scalar mu), S the scale matrix or (chol) its
// Cholesky factor: mu + x / √u for x ~ MvNormal(0, S) and u ~ Gamma(nu/2,
// nu/2) (nu·u is ChiSquare(nu)), one u per row.
func (l *lowerer) randMultiStudentT(nu, mu, s autodiff.ID, chol bool, pos ast.Pos) autodiff.ID {
	b := l.b
	ms := b.Shape(mu)
	shape := ms
	if ms.Rank == 0 {
		shape = autodiff.Vector(b.Shape(s).Rows)
	}
	x := l.randMvZero(s, shape, chol, pos)
	half := b.Mul(nu, b.Scalar(0.5, pos), pos)
	shapeArg := half
	if shape.Rank == 2 && shape.Rows > 1 { // a u per row: a vector [n], a column against the rows
		shapeArg = b.Mul(half, b.Const(ones(shape.Rows), autodiff.Vector(shape.Rows), pos), pos)
	}
	gamma, _ := dist.LookupUnivariate("Gamma")
	u := b.Rand(*gamma, []autodiff.ID{shapeArg, half}, pos)
	return b.Add(mu, b.Div(x, b.Sqrt(u, pos), pos), pos)
}

// dirichletMultinomial returns the log probability of each row of counts
// of y (a vector [k]: a scalar; a matrix [n, k]: a vector [n]) under
// DirichletMultinomial(alpha), alpha [k] or [1, k] shared by the rows or
// [n, k], a row each: with m the row's total and a0 the sum of its alpha,
//
//	Σ_k lrf(alpha_k, y_k) − lrf(a0, m) + lgamma(m + 1) − Σ_k lgamma(y_k + 1)
//
// for lrf = log_rising_factorial (lgamma(x + n) − lgamma(x)), which keeps
// the digits of each lgamma difference where alpha is large and the counts
// small, and where alpha is tiny (alpha + y − 1 would round it away). All
// of it is tape nodes: the counts' terms are
// data-only, computed once (or per minibatch), and alpha's gradient
// ψ(y_k + alpha_k) − ψ(alpha_k) − ψ(m + a0) + ψ(a0) is the op's.
func (l *lowerer) dirichletMultinomial(y, alpha autodiff.ID, pos ast.Pos) autodiff.ID {
	b := l.b
	ys, as := b.Shape(y), b.Shape(alpha)
	one := b.Scalar(1, pos)
	var m, a0, lrf, lfact autodiff.ID
	lrfOf := func(x, n autodiff.ID) autodiff.ID {
		return b.Binary(autodiff.OpLogRisingFactorial, x, n, pos)
	}
	if ys.Rank == 1 {
		if as.Rank == 2 { // a row [1, k]
			alpha = b.Reshape(alpha, autodiff.Vector(ys.Rows), pos)
		}
		m, a0 = b.Sum(y, pos), b.Sum(alpha, pos)
		lrf = b.Sum(lrfOf(alpha, y), pos)
		lfact = b.Sum(b.Lgamma(b.Add(y, one, pos), pos), pos)
	} else {
		if as.Rank == 1 {
			alpha = b.Reshape(alpha, autodiff.Matrix(1, as.Rows), pos)
			as = b.Shape(alpha)
		}
		m = b.RowSum(y, pos)
		if as.Rows == 1 {
			a0 = b.Sum(alpha, pos)
		} else {
			a0 = b.RowSum(alpha, pos)
		}
		lrf = b.RowSum(lrfOf(alpha, y), pos)
		lfact = b.RowSum(b.Lgamma(b.Add(y, one, pos), pos), pos)
	}
	norm := b.Sub(b.Lgamma(b.Add(m, one, pos), pos), lfact, pos)
	return b.Add(b.Sub(lrf, lrfOf(a0, m), pos), norm, pos)
}

// randDirichletMultinomial draws a DirichletMultinomial(alpha, n)
// replicate, the checker's shape: a theta ~ Dirichlet per row of the draw
// (alpha broadcast to a row per element of a vector n), then the counts
// from Multinomial(theta, n).
func (l *lowerer) randDirichletMultinomial(alpha, n autodiff.ID, pos ast.Pos) autodiff.ID {
	b := l.b
	as, ns := b.Shape(alpha), b.Shape(n)
	if ns.Rank == 1 && (as.Rank == 1 || as.Rows == 1) {
		k := as.Rows
		if as.Rank == 2 {
			k = as.Cols
		} else {
			alpha = b.Reshape(alpha, autodiff.Matrix(1, k), pos)
		}
		alpha = b.Add(alpha, b.Const(make([]float64, ns.Rows*k), autodiff.Matrix(ns.Rows, k), pos), pos)
	}
	return b.RandMultinomial(b.RandDirichlet(alpha, pos), n, false, pos)
}

// dirichlet adds log Dirichlet(z | alpha) for a simplex vector z [k] or rows
// z [n, k]. For a simplex latent, log z is its coordinate node.
func (l *lowerer) dirichlet(z, alpha autodiff.ID, lat *check.Latent, pos ast.Pos) {
	b := l.b
	logz, alpha := l.dirichletArgs(z, alpha, lat, pos)
	zs, as := b.Shape(z), b.Shape(alpha)
	one := b.Scalar(1, pos)
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

// dirichletArgs returns log z and alpha as dirichlet's terms take them:
// log z the coordinate node of a simplex latent lat, else Log's (whose
// error names a negative element of z, and its data cell); alpha a vector
// [k] for a vector z, a row [1, k] or the rows [n, k] for the rows of z
// [n, k], a scalar alpha repeated k times.
func (l *lowerer) dirichletArgs(z, alpha autodiff.ID, lat *check.Latent, pos ast.Pos) (logz, a autodiff.ID) {
	b := l.b
	if lat != nil && lat.Support == dist.Simplex {
		logz = l.coords[l.latentIndex(lat)]
	} else {
		logz = b.Log(z, pos)
	}
	zs, as := b.Shape(z), b.Shape(alpha)
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
	}
	return logz, alpha
}

// dirichletLogPDF returns logpdf(z, Dirichlet(alpha)), v the value as
// written: for a simplex vector z [k] the scalar that z ~ Dirichlet(alpha)
// adds, for the simplex rows of z [n, k] the vector [n] of the rows'
// terms, each
//
//	Σ_j (alpha_rj − 1)·log z_rj + lgamma(Σ_j alpha_rj) − Σ_j lgamma(alpha_rj)
//
// (alpha's row r, or the one row shared). As for the ~, a value that is a
// simplex param is taken through its coordinates (log z), and a data row
// is not checked to sum to 1: a negative element is Log's error.
func (l *lowerer) dirichletLogPDF(v ast.Expr, z, alpha autodiff.ID, pos ast.Pos) autodiff.ID {
	b := l.b
	var lat *check.Latent
	if id, ok := ast.Unparen(v).(*ast.Ident); ok {
		if sym := l.info.Uses[id]; sym != nil && sym.Kind == check.Param {
			lat = l.latent(l.info.Latent(sym.Name))
		}
	}
	zs := b.Shape(z)
	logz, a := l.dirichletArgs(z, alpha, lat, pos)
	terms := b.Mul(b.Sub(a, b.Scalar(1, pos), pos), logz, pos)
	if zs.Rank == 1 { // the ~'s nodes
		return b.Add(b.Sum(terms, pos), b.Sub(b.Lgamma(b.Sum(a, pos), pos), b.Sum(b.Lgamma(a, pos), pos), pos), pos)
	}
	kernel := b.RowSum(terms, pos) // [n]
	var norm autodiff.ID           // [n], or one shared by the rows
	if as := b.Shape(a); as.Rows == zs.Rows && zs.Rows != 1 {
		norm = b.Sub(b.Lgamma(b.RowSum(a, pos), pos), b.RowSum(b.Lgamma(a, pos), pos), pos)
	} else {
		norm = b.Sub(b.Lgamma(b.Sum(a, pos), pos), b.Sum(b.Lgamma(a, pos), pos), pos)
	}
	return b.Add(kernel, norm, pos)
}

func (l *lowerer) latentIndex(lat *check.Latent) int {
	for i, x := range l.info.Latents {
		if x == lat || l.bounded[x] == lat {
			return i
		}
	}
	panic("compile: latent not found")
}

// multinomialTotals checks the number of trials n of `y ~ Multinomial(theta,
// n)` (n known before the fit, as the checker asked; y data, as the tape
// asks) against y's rows: each row's counts must total its n (a scalar n
// every row's). A mismatch is an error at the row's first cell in its data
// file (else at the distribution); a row holding a value that is not a
// count is left to the tape's check of the counts. The density itself is
// the one without n.
func (l *lowerer) multinomialTotals(d *stdlib.Dist, y, n autodiff.ID, nExpr ast.Expr, pos ast.Pos) bool {
	b := l.b
	yv, yKnown := b.Known(y)
	nv, nKnown := b.Known(n)
	if !yKnown || !nKnown { // the tape's error (a param value), or the checker's
		return true
	}
	ys := b.Shape(y)
	k := ys.Cols
	if ys.Rank == 1 {
		k = ys.Rows
	}
	rows := 0
	if k > 0 {
		rows = len(yv) / k
	}
	if len(nv) != 1 && len(nv) != rows {
		l.errorf(nExpr.Pos(), "%s argument 2 (n) has %d elements with these data but the value has %d rows; n is a scalar or one per row", d.Name, len(nv), rows)
		return false
	}
	for r := range rows {
		total, counts := 0.0, true
		for _, c := range yv[r*k : r*k+k] {
			counts = counts && c >= 0 && c == math.Trunc(c) && !math.IsInf(c, 1)
			total += c
		}
		want := nv[min(r, len(nv)-1)]
		if !counts || total == want || want < 0 { // a negative n is checkCountData's
			continue
		}
		what, nName := "the counts", "n"
		if ys.Rank == 2 {
			what = fmt.Sprintf("the counts of row %d", r)
		}
		if len(nv) > 1 {
			nName = fmt.Sprintf("n[%d]", r)
		}
		if name, at, ok := b.Cell(y, r*k); ok {
			l.errorf(at, "%s: %s total %g but %s is %g, as %s at %s needs", name, what, total, nName, want, d.Name, pos)
		} else {
			l.errorf(pos, "%s: %s total %g but %s is %g; n is the number of draws, each row's total", d.Name, what, total, nName, want)
		}
		return false
	}
	return true
}

// ones returns n ones.
func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}
