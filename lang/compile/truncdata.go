package compile

import (
	"math"
	"slices"
	"strconv"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// Truncated data, y ~ D(args) T[L, U] (Stan's truncation): the density of
// each element of y is D's divided by D's mass on [L, U], so the log joint
// gets −Σ log P(L ≤ y ≤ U) on top of D's log density. P is F(U) − F(L) for
// a continuous D, F(U) − F(L − 1) for a discrete one (the mass of L
// included), P(X > L) or P(X ≥ L) with only a lower bound and F(U) with
// only an upper one, F being D's CDF from its log CDF kernels
// (dist.LogCDF), so that any family with a log CDF can be truncated. The
// bounds may depend on params. The normaliser is a density node whose
// parameters are D's followed by the bounds, so its gradient reaches both.
// When the bounds and y are known before the fit, y was checked against
// the bounds then, and the node is taken over the broadcast of the
// arguments and bounds alone (once for scalars), times the elements of y
// each stands for; otherwise its value is y, outside [L, U] −Inf, so that
// a bound that moves with the params past a value is an error at the T.

// truncData adds the normaliser of the truncation of s, whose left side
// has node y and whose distribution's arguments have nodes args, and
// checks what is known before the fit: the bounds' order and every value
// of y against them, at its data cell.
func (l *lowerer) truncData(s *ast.TildeStmt, y autodiff.ID, args []autodiff.ID) {
	t := s.Trunc
	if !slices.Contains(l.info.Truncations, s) || t.Lower == nil && t.Upper == nil {
		return // refused by the checker, or T[, ]: nothing to normalise
	}
	d := l.info.Dists[s.Dist]
	u, ok := dist.LookupUnivariate(d.Name)
	lower, okL := dist.LogCDF(d.Name, false)
	upper, okU := dist.LogCDF(d.Name, true)
	if !ok || !okL || !okU {
		l.errorf(t.T, "compile: no log CDF for distribution %s", d.Name)
		return
	}
	k := &truncNorm{family: d.Name, lower: lower, upper: upper, na: len(u.Params), hasLo: t.Lower != nil, hasHi: t.Upper != nil, discrete: u.Support.Discrete()}
	if k.na > maxTruncArgs {
		l.errorf(t.T, "compile: %s has %d parameters; a truncation handles %d", d.Name, k.na, maxTruncArgs)
		return
	}
	params := slices.Clone(u.Params)
	ps := append([]autodiff.ID(nil), args...)
	var bounds []ast.Expr
	for _, b := range []struct {
		e    ast.Expr
		name string
	}{{t.Lower, "L"}, {t.Upper, "U"}} {
		if b.e != nil {
			params = append(params, dist.Param{Name: b.name, Support: dist.Real})
			ps = append(ps, l.node(l.expr(b.e), b.e.Pos()))
			bounds = append(bounds, b.e)
		}
	}
	checked, failed := l.checkTruncData(s, y, ps[k.na:], bounds)
	if failed {
		return
	}
	nu := dist.Univariate{Name: d.Name + " " + k.label(), Params: params, Support: dist.Real, // y is checked by the bounds
		Kernel: k.kernel, Hoisted: k, LogProb: true, Explain: k.explain}
	if !checked {
		k.checkY = true
		if l.truncCall == s.Dist && l.truncPair.awaitsNorm() {
			l.truncPair.norm = l.b.LogPDF(nu, y, ps, t.T)
			l.truncPair.hasNorm = true
			return
		}
		l.add(l.b.Density(nu, y, ps, t.T), t.T)
		return
	}
	if l.truncCall == s.Dist && l.truncPair.awaitsNorm() {
		// the normaliser over the broadcast of the arguments and bounds,
		// which addTruncPair broadcasts to the elements of y
		norm := l.b.LogPDF(nu, l.b.Scalar(0, t.T), ps, t.T)
		if ns := l.b.Shape(norm); ns.Len() == 1 || ns == l.truncPair.shape {
			l.truncPair.norm, l.truncPair.hasNorm = norm, true
			return
		}
	}
	rows, cols := 1, 1 // the broadcast of the arguments and bounds
	for _, p := range ps {
		sh := l.b.Shape(p)
		rows, cols = max(rows, sh.Rows), max(cols, sh.Cols)
	}
	norm := l.b.Density(nu, l.b.Scalar(0, t.T), ps, t.T)
	if n := l.b.Shape(y).Len() / (rows * cols); n != 1 {
		norm = l.b.Mul(l.b.Scalar(float64(n), t.T), norm, t.T)
	}
	l.add(norm, t.T)
}

// fuseTrunc is false only in tests, which compare the fused density of a
// truncated ~ with the family's LogPDF and the normaliser added and summed.
var fuseTrunc = true

// truncTerms collects what lowering a truncated ~ of data adds
// (lowerer.truncPair): its family's log density, per element, and the
// truncation's normaliser, one per element or one for all.
type truncTerms struct {
	fam     *dist.Univariate // the family, when its density is pending
	val     autodiff.ID
	args    []autodiff.ID
	pos     ast.Pos
	shape   autodiff.Shape // the broadcast of val and args
	lp      autodiff.ID    // the family's LogPDF, built (hasLP)
	hasLP   bool
	norm    autodiff.ID
	hasNorm bool
}

// family records the family's density of the value val at the arguments
// args, added by addTruncPair with the normaliser. When their shapes do
// not broadcast or the arguments are not the family's, its LogPDF is
// built now, for the error at pos in its place among the statement's.
func (tt *truncTerms) family(b *autodiff.Builder, u *dist.Univariate, val autodiff.ID, args []autodiff.ID, pos ast.Pos) {
	shapes := []autodiff.Shape{b.Shape(val)}
	for _, a := range args {
		shapes = append(shapes, b.Shape(a))
	}
	sh, ok := autodiff.Broadcast(shapes...)
	if !ok || len(args) != len(u.Params) {
		tt.lp, tt.hasLP = b.LogPDF(*u, val, args, pos), true
		tt.shape = b.Shape(tt.lp)
		return
	}
	tt.fam, tt.val, tt.args, tt.pos, tt.shape = u, val, args, pos, sh
}

// awaitsNorm reports whether the family's density was collected and no
// normaliser yet.
func (tt *truncTerms) awaitsNorm() bool { return (tt.fam != nil || tt.hasLP) && !tt.hasNorm }

// addTruncPair adds the terms that lowering the truncated ~ s collected
// (lowerer.truncPair): its family's log density per element and the
// truncation's normaliser per element (or one for all), added element by
// element and then summed, one term. Near a tail far from the rate (a
// Poisson of rate 2e12 truncated to a few counts) each element's log mass
// and normaliser nearly cancel: adding them first keeps the digits that
// summing each over the elements would lose, and makes the terms the same
// whether the loop is unrolled (a scalar each) or lowered as vectors. The
// two are one density node (Builder.DensityNorm), which adds them in its
// one pass with the family's hoisted constants; a normaliser of another
// shape is added to the family's LogPDF elementwise and summed.
func (l *lowerer) addTruncPair(tt *truncTerms, s *ast.TildeStmt) {
	pos := s.Dist.Fun.Pos()
	if tt.fam != nil && l.obsMask.node { // cells left out (leftout.go): per-cell terms, masked
		tt.lp, tt.hasLP, tt.fam = l.b.LogPDF(*tt.fam, tt.val, tt.args, tt.pos), true, nil
	}
	if tt.fam != nil {
		if !tt.hasNorm {
			l.add(l.b.Density(*tt.fam, tt.val, tt.args, tt.pos), pos)
			return
		}
		if fuseTrunc {
			if id, ok := l.b.DensityNorm(*tt.fam, tt.val, tt.args, tt.norm, tt.pos); ok {
				l.add(id, pos)
				return
			}
		}
		tt.lp, tt.hasLP = l.b.LogPDF(*tt.fam, tt.val, tt.args, tt.pos), true
	}
	if !tt.hasLP {
		return
	}
	t := tt.lp
	if tt.hasNorm {
		t = l.b.Add(t, tt.norm, s.Trunc.T)
	}
	if l.obsMask.node {
		l.maskedDensity(t, l.obsMask.id, pos)
		return
	}
	if !l.b.Shape(t).IsScalar() {
		t = l.b.Sum(t, pos)
	}
	l.add(t, pos)
}

// checkTruncData checks, as far as their values are known before the fit,
// that the lower bound is below the upper one and that every value of y
// lies in [L, U]: a value outside has no density whatever the params, so
// the fit could only fail. A value taken from a data file is reported at
// its cell. It returns whether y and both bounds were known and so
// checked, and whether it reported an error.
func (l *lowerer) checkTruncData(s *ast.TildeStmt, y autodiff.ID, bnodes []autodiff.ID, bounds []ast.Expr) (checked, failed bool) {
	t := s.Trunc
	ys := l.b.Shape(y)
	yv, ok := l.b.Known(y)
	if !ok {
		return false, false // data, but not evaluated before the fit: checked at every evaluation
	}
	checked = true
	var lo, hi *known
	for i, b := range bounds {
		vals, ok := l.b.Known(bnodes[i])
		if !ok {
			checked = false // a bound of params: checked at every evaluation
			continue
		}
		sh := l.b.Shape(bnodes[i])
		kv := &known{vals, sh.Rows, sh.Cols}
		if b == t.Lower {
			lo = kv
		} else {
			hi = kv
		}
	}
	// In a loop lowered as vectors, y holds one value per row: an error
	// names the row's iteration, as the unrolled loop's scalar y does.
	perRow := l.vec != nil && ys.Len() == l.vec.n
	elem := func(k int) string {
		if ys.Len() == 1 || perRow {
			return ""
		}
		return " (element " + shapeElem(ys, k) + ")"
	}
	errorf := func(k int, at ast.Pos, format string, args ...any) {
		if perRow {
			l.rowErrorf(k, at, format, args...)
		} else {
			l.errorf(at, format, args...)
		}
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for k := range yv {
		i, j := k/ys.Cols, k%ys.Cols
		if lo != nil && hi != nil {
			if a, b := lo.at(i, j), hi.at(i, j); !(a < b) {
				at := t.Lower.Pos()
				if l.b.Shape(bnodes[0]) == ys { // a lower bound per element: at its cell
					if _, cell, ok := l.b.Cell(bnodes[0], k); ok {
						at = cell
					}
				}
				errorf(k, at, "T[L, U] needs L < U; found L = %s, U = %s%s", num(a), num(b), elem(k))
				return false, true
			}
		}
	}
	for k, v := range yv {
		i, j := k/ys.Cols, k%ys.Cols
		var why string
		switch {
		case lo != nil && v < lo.at(i, j):
			why = "below the lower bound " + num(lo.at(i, j))
		case hi != nil && v > hi.at(i, j):
			why = "above the upper bound " + num(hi.at(i, j))
		default:
			continue
		}
		if name, at, ok := l.b.Cell(y, k); ok {
			errorf(k, at, "%s: value %s is %s of T[...] at %s, where its density is 0", name, num(v), why, t.T)
		} else {
			errorf(k, t.T, "`%s`%s is %s, %s of T[...], where its density is 0", ast.FormatExpr(s.LHS), elem(k), num(v), why)
		}
		return false, true
	}
	return checked, false
}

// maxTruncArgs bounds the parameters of a family that truncNorm takes (no
// family has more than 3), so that its scratch is an array on the stack.
const maxTruncArgs = 8

// truncNorm is the kernel of a truncation's normaliser: at the value y and
// the parameters p, D's na parameters then the bounds present (L, U), it
// is −log P(L ≤ X ≤ U), and with checkY −Inf for y outside [L, U] (without,
// y is a placeholder: the values were checked before the fit). Its Prepare and
// Eval (dist.Hoisted, every parameter hoisted) compute P once per
// evaluation when the parameters and bounds are scalars, whatever the
// length of y.
type truncNorm struct {
	family                 string      // D's name, for errors
	lower, upper           dist.Kernel // D's log CDF and log survival function
	na                     int         // D's parameters
	hasLo, hasHi, discrete bool
	checkY                 bool // the value is y, to be checked against the bounds
}

func (k *truncNorm) label() string {
	switch {
	case !k.hasHi:
		return "T[L, ]"
	case !k.hasLo:
		return "T[, U]"
	}
	return "T[L, U]"
}

// explain says why the kernel is not finite at y and p, for the error at
// the T (dist.Univariate.Explain): y outside bounds that move with the
// params, bounds out of order, or D's mass on [L, U] at these arguments 0
// in float64, the log of which is −Inf (Normal(−325.5, 10⁻³⁰⁰) above 0.8,
// which underflows); the generic message would name the kernel's
// placeholder value, which no y has. It returns "" for a mass its log CDF
// could not compute, which the generic message reports as a NaN.
func (k *truncNorm) explain(y float64, p []float64, lp float64) (string, bool) {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var lo, hi float64
	i := k.na
	if k.hasLo {
		lo, i = p[i], i+1
	}
	if k.hasHi {
		hi = p[i]
	}
	switch {
	case k.outside(y, p):
		if k.hasLo && y < lo {
			return "value " + num(y) + " is below the lower bound " + num(lo) + ", where the truncated density is 0", true
		}
		return "value " + num(y) + " is above the upper bound " + num(hi) + ", where the truncated density is 0", true
	case k.hasLo && k.hasHi && !(lo < hi):
		return "T[L, U] needs L < U; found L = " + num(lo) + ", U = " + num(hi), false
	}
	var buf [maxTruncArgs + 2]float64
	dp := buf[:len(p)]
	lm := k.logMass(p, dp)
	args := p[:k.na]
	var prob, set string
	switch {
	case !k.hasHi:
		prob, set = "P(X >= "+num(lo)+")", "["+num(lo)+", +Inf)"
	case !k.hasLo:
		prob, set = "P(X <= "+num(hi)+")", "(-Inf, "+num(hi)+"]"
	default:
		prob, set = "P("+num(lo)+" <= X <= "+num(hi)+")", "["+num(lo)+", "+num(hi)+"]"
		if math.IsNaN(lm) { // both tails empty: log(0 − 0)
			a := lo
			if k.discrete {
				a--
			}
			if ls, _ := k.upper(a, args, dp[:k.na]); math.IsInf(ls, -1) {
				lm = ls
			} else if lf, _ := k.lower(hi, args, dp[:k.na]); math.IsInf(lf, -1) {
				lm = lf
			}
		}
	}
	if !math.IsInf(lm, -1) {
		return "", false
	}
	return "the truncation's normaliser " + prob + ", " + k.family + "'s mass on " + set +
		" at these arguments, is 0 or underflows to 0, so its log is -Inf", false
}

// outside reports whether y lies outside the bounds in p.
func (k *truncNorm) outside(y float64, p []float64) bool {
	if !k.checkY {
		return false
	}
	i := k.na
	if k.hasLo {
		if y < p[i] {
			return true
		}
		i++
	}
	return k.hasHi && y > p[i]
}

func (k *truncNorm) kernel(y float64, p, dp []float64) (float64, float64) {
	if k.outside(y, p) {
		clear(dp)
		return math.Inf(-1), 0
	}
	if dp == nil {
		var buf [maxTruncArgs + 2]float64
		dp = buf[:len(p)]
	}
	lp := k.logMass(p, dp)
	for i := range dp {
		dp[i] = -dp[i]
	}
	return -lp, 0
}

// StateLen, Prepare, Eval and HoistArgs make truncNorm a dist.Hoisted: the
// state is log P and its partials.
func (k *truncNorm) StateLen() int { return k.np() + 1 }

func (k *truncNorm) Prepare(p, state []float64) { state[0] = k.logMass(p, state[1:1+len(p)]) }

func (k *truncNorm) Eval(y float64, p, state, dp []float64) (float64, float64) {
	if k.outside(y, p) {
		clear(dp)
		return math.Inf(-1), 0
	}
	for i := range dp {
		dp[i] = -state[1+i]
	}
	return -state[0], 0
}

func (k *truncNorm) HoistArgs() uint { return 1<<k.np() - 1 }

func (k *truncNorm) np() int {
	n := k.na
	if k.hasLo {
		n++
	}
	if k.hasHi {
		n++
	}
	return n
}

// logMass returns log P(L ≤ X ≤ U) at D's parameters p[:na] and the bounds
// after them, with its partials in dp (of p's length). With both bounds
// the mass is a difference of two probabilities of the tail that a lies
// in (a = L, or L − 1 for a discrete D), as logIntervalMass takes it for a
// truncated prior: S(a) − S(U) when a is past the median, F(U) − F(a)
// otherwise, each from logs (logTailGap), so that bounds far out in a
// tail keep their digits.
func (k *truncNorm) logMass(p, dp []float64) float64 {
	args, da := p[:k.na], dp[:k.na]
	i := k.na
	var a, b float64
	if k.hasLo {
		a = p[i]
		if k.discrete {
			a-- // P(X ≥ L) = P(X > L − 1)
		}
		i++
	}
	if k.hasHi {
		b = p[i]
	}
	switch {
	case !k.hasHi:
		lp, dx := k.upper(a, args, da)
		dp[k.na] = dx
		return lp
	case !k.hasLo:
		lp, dx := k.lower(b, args, da)
		dp[k.na] = dx
		return lp
	case !(p[k.na] < p[k.na+1]):
		for i := range dp {
			dp[i] = math.NaN()
		}
		return math.NaN()
	}
	var near [maxTruncArgs]float64 // the near tail's partials
	var ln, lf, dxn, dxf float64
	ls, dxa := k.upper(a, args, da)
	lowerTail := !(ls < pastMedian)
	if lowerTail { // F(b) − F(a)
		ln, dxn = k.lower(b, args, da)
		copy(near[:], da)
		lf, dxf = k.lower(a, args, da)
	} else { // S(a) − S(b)
		ln, dxn = ls, dxa
		copy(near[:], da)
		lf, dxf = k.upper(b, args, da)
	}
	lp, r := logTailGap(ln, lf)
	if math.IsInf(lf, -1) {
		r = 0 // the far tail is empty (a bound past the support's end)
	}
	w := 1 / -math.Expm1(lf-ln) // 1/(1 − r)
	for j := range da {
		da[j] = (near[j] - r*da[j]) * w
	}
	dn, df := dxn*w, -r*dxf*w
	if lowerTail { // near is b, far is a
		dp[k.na], dp[k.na+1] = df, dn
	} else {
		dp[k.na], dp[k.na+1] = dn, df
	}
	return lp
}
