package compile

import (
	"errors"
	"math"
	"slices"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// Sufficient statistics of a ~ on many rows of data whose family's
// parameters are params picked per row by one int data index (y ~
// Bernoulli(p[g]) over 200 000 rows, p[4]), or scalars beside such a
// pick (Normal(mu[g], s)): the log density
// summed over the rows depends on the data only through a few sums per
// group, computed here once, so the tape evaluates a density per group
// instead of per row. The sum is the per-row one, rearranged: equal to
// rounding (suffstats_test.go checks it and its gradient).
//
// The rewrite is made only in the log joint of a fit and in its
// evaluator's (buildJoint, buildOutputs: l.suff), where a watched ~
// reports each row's argument through the row's group (suffSlot): not in
// a minibatch build (which scales the terms of the rows it draws), a
// split or prior build, or predict; not in a loop, on data with missing
// cells, for a truncated ~, or with data that any row's density would
// reject (then the per-row density reports it at its cell, as before).

// suffArg is one argument of an aggregated density: a param picked per
// row by the index (pick), a scalar param (node), or data known now
// (vals, one value or one per row).
type suffArg struct {
	node autodiff.ID
	pick bool
	vals []float64
	pos  ast.Pos
}

// suffDensity lowers y ~ call as a density of per-group sufficient
// statistics when it can (see above), adding its term; it reports whether
// it did, and the nodes of the arguments it made.
func (l *lowerer) suffDensity(call *ast.CallExpr, lhs ast.Node, lat *check.Latent, d *stdlib.Dist) ([]autodiff.ID, bool) {
	if !l.suff || lat != nil || l.vec != nil || len(l.loops) > 0 || l.obsMask.node || l.truncPair != nil ||
		l.batch != nil || l.predict != nil || l.prior || l.part != partJoint {
		return nil, false
	}
	switch d.Name {
	case "Bernoulli", "BernoulliLogit", "Poisson", "PoissonLog", "Binomial", "BinomialLogit", "Normal":
	default:
		return nil, false
	}
	e, ok := lhs.(ast.Expr)
	if !ok {
		return nil, false
	}
	ys, ok := l.suffData(ast.Unparen(e), false)
	if !ok || len(ys) < 2 {
		return nil, false
	}
	n := len(ys)
	var groups []int    // the index's values, one per row (nil: none)
	var index []float64 // the same, as bound
	args := make([]suffArg, len(call.Args))
	for i, a := range call.Args {
		a = ast.Unparen(a)
		switch a := a.(type) {
		case *ast.IndexExpr:
			x, ok := a.X.(*ast.Ident)
			if !ok || len(a.Indices) != 1 {
				return nil, false
			}
			sym := l.info.Uses[x]
			ix, ok := ast.Unparen(a.Indices[0]).(*ast.Ident)
			if !ok || sym == nil || sym.Kind != check.Param {
				return nil, false
			}
			g, ok := l.suffData(ix, true)
			if !ok || len(g) != n || groups != nil && !slices.Equal(g, index) {
				return nil, false
			}
			pv := l.ident(x)
			if !pv.node {
				return nil, false
			}
			sh := l.b.Shape(pv.id)
			if sh.Rank != 1 {
				return nil, false
			}
			if groups == nil {
				index, groups = g, make([]int, n)
				for k, v := range g {
					if v < 0 || v >= float64(sh.Rows) {
						return nil, false // out of range: the gather reports it at its cell
					}
					groups[k] = int(v)
				}
				l.oneBasedIndexNote(a, sel{data: ix.Name, many: groups}, sh.Rows, 0)
			} else if slices.Max(groups) >= sh.Rows {
				return nil, false
			}
			args[i] = suffArg{node: pv.id, pick: true, pos: a.Pos()}
		case *ast.Ident:
			sym := l.info.Uses[a]
			if sym == nil {
				return nil, false
			}
			switch sym.Kind {
			case check.Param:
				pv := l.ident(a)
				if !pv.node || !l.b.Shape(pv.id).IsScalar() {
					return nil, false
				}
				args[i] = suffArg{node: pv.id, pos: a.Pos()}
			case check.Data, check.Const, check.Size:
				vals, ok := l.suffData(a, false)
				if !ok || len(vals) != 1 && len(vals) != n {
					return nil, false
				}
				args[i] = suffArg{vals: vals, pos: a.Pos()}
			default:
				return nil, false
			}
		case *ast.NumberLit:
			v := l.expr(a)
			vals, ok := l.knownValues(v)
			if !ok || len(vals) != 1 {
				return nil, false
			}
			args[i] = suffArg{vals: vals, pos: a.Pos()}
		default:
			return nil, false
		}
	}
	if groups == nil {
		// scalar arguments alone: an iid sample, left per row (its value
		// would change in the last bits, as would every fit of one)
		return nil, false
	}
	// Group the rows: slot[k] is row k's group among those present, in
	// increasing order of the index.
	present := slices.Clone(groups)
	slices.Sort(present)
	present = slices.Compact(present)
	slot := make([]int, n)
	for k, g := range groups {
		slot[k], _ = slices.BinarySearch(present, g)
	}
	s := &suffStats{l: l, pos: call.Fun.Pos(), present: present, slot: slot, ng: len(present)}
	var ids []autodiff.ID
	switch d.Name {
	case "Bernoulli", "BernoulliLogit", "Poisson", "PoissonLog":
		if args[0].vals != nil {
			return nil, false // a density of data alone is constant anyway
		}
		ids, ok = s.counts(d.Name, ys, args[0])
	case "Binomial", "BinomialLogit":
		if args[0].vals == nil || args[1].vals != nil {
			return nil, false // the trials must be data
		}
		ids, ok = s.binomial(d.Name, ys, args[0].vals, args[1])
	case "Normal":
		if args[0].vals != nil {
			return nil, false
		}
		ids, ok = s.normal(ys, args[0], args[1])
	}
	if ok {
		l.suffAt = append(l.suffAt, call.Pos())
		l.suffSlot = slot
	}
	return ids, ok
}

// suffData returns the values of id when it names data (or a const) bound
// now as a scalar or vector with no missing cell; with index, only int data.
func (l *lowerer) suffData(e ast.Expr, index bool) ([]float64, bool) {
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil, false
	}
	sym := l.info.Uses[id]
	if sym == nil {
		return nil, false
	}
	if sym.Kind == check.Const && !index {
		return []float64{l.info.Const(sym.Name).Value}, true
	}
	if sym.Kind != check.Data {
		return nil, false
	}
	a := l.data[sym.Name]
	if a == nil || len(a.Missing) > 0 || len(a.Shape) > 1 {
		return nil, false
	}
	if dv := l.info.DataVar(sym.Name); dv == nil || index && dv.Elem != check.Int {
		return nil, false
	}
	if _, left := l.leftOut[sym.Name]; left {
		return nil, false
	}
	if _, skip := l.skipped[sym.Name]; skip {
		return nil, false
	}
	return a.Values, true
}

// suffStats builds the per-group density of one ~ statement.
type suffStats struct {
	l       *lowerer
	pos     ast.Pos // the family's, as the per-row density's
	present []int   // the index values present, increasing
	slot    []int   // each row's group, into present
	ng      int
}

// param returns a family argument per group: the param picked at the
// groups present, the scalar param itself, or a scalar known now.
func (s *suffStats) param(a suffArg) autodiff.ID {
	switch {
	case a.pick:
		return s.l.b.Gather(a.node, s.present, a.pos)
	case a.vals != nil:
		return s.l.b.Scalar(a.vals[0], a.pos)
	}
	return a.node
}

// vec makes a constant vector of one value per group.
func (s *suffStats) vec(v []float64) autodiff.ID {
	return s.l.b.Const(v, autodiff.Vector(s.ng), s.pos)
}

// finish adds the density node plus the constant c that the regrouping
// leaves over, as one term.
func (s *suffStats) finish(term autodiff.ID, c float64) {
	if c != 0 {
		term = s.l.b.Add(term, s.l.b.Scalar(c, s.pos), s.pos)
	}
	s.l.add(term, s.pos)
}

// isCount reports whether x is a whole number ≥ 0.
func isCount(x float64) bool { return x >= 0 && x == math.Trunc(x) && !math.IsInf(x, 1) }

// lfact is log x!.
func lfact(x float64) float64 {
	v, _ := math.Lgamma(x + 1)
	return v
}

// lchoose is log C(n, k) for counts k ≤ n.
func lchoose(n, k float64) float64 { return lfact(n) - lfact(k) - lfact(n-k) }

// counts aggregates Bernoulli(p), BernoulliLogit(a), Poisson(rate) and
// PoissonLog(eta) by their rows n_g and sums S_g = Σ y: the rows of a
// group are one Binomial(n_g, ·) at S_g less log C(n_g, S_g), or one
// Poisson(n_g·rate) (PoissonLog(eta + log n_g)) at S_g plus log S_g! −
// S_g log n_g − Σ log y!.
func (s *suffStats) counts(family string, ys []float64, a suffArg) ([]autodiff.ID, bool) {
	bern := family == "Bernoulli" || family == "BernoulliLogit"
	ng, sg := make([]float64, s.ng), make([]float64, s.ng)
	rowC := 0.0 // Σ −log y! over the rows
	for k, y := range ys {
		if !isCount(y) || bern && y > 1 {
			return nil, false // the per-row density reports the cell
		}
		ng[s.slot[k]]++
		sg[s.slot[k]] += y
		if !bern {
			rowC -= lfact(y)
		}
	}
	b := s.l.b
	p := s.param(a)
	c := rowC
	var term autodiff.ID
	switch family {
	case "Bernoulli", "BernoulliLogit":
		fam := "Binomial"
		if family == "BernoulliLogit" {
			fam = "BinomialLogit"
		}
		for j := range ng {
			c -= lchoose(ng[j], sg[j])
		}
		term = b.Density(mustFamily(fam), s.vec(sg), []autodiff.ID{s.vec(ng), p}, s.pos)
	case "Poisson":
		for j := range ng {
			c += lfact(sg[j]) - sg[j]*math.Log(ng[j])
		}
		term = b.Density(mustFamily(family), s.vec(sg), []autodiff.ID{b.Mul(s.vec(ng), p, s.pos)}, s.pos)
	case "PoissonLog":
		logn := make([]float64, s.ng)
		for j := range ng {
			c += lfact(sg[j]) - sg[j]*math.Log(ng[j])
			logn[j] = math.Log(ng[j])
		}
		term = b.Density(mustFamily(family), s.vec(sg), []autodiff.ID{b.Add(p, s.vec(logn), s.pos)}, s.pos)
	}
	s.finish(term, c)
	return []autodiff.ID{p}, true
}

// binomial aggregates Binomial(n, p) and BinomialLogit(n, eta) with data
// trials by Σ y and Σ n per group: one Binomial(Σ n, ·) at Σ y, less
// log C(Σ n, Σ y), plus Σ log C(n, y) over the rows.
func (s *suffStats) binomial(family string, ys, trials []float64, a suffArg) ([]autodiff.ID, bool) {
	sy, sn := make([]float64, s.ng), make([]float64, s.ng)
	c := 0.0
	for k, y := range ys {
		n := trials[0]
		if len(trials) > 1 {
			n = trials[k]
		}
		if !isCount(y) || !isCount(n) || y > n {
			return nil, false
		}
		sy[s.slot[k]] += y
		sn[s.slot[k]] += n
		c += lchoose(n, y)
	}
	for j := range sy {
		c -= lchoose(sn[j], sy[j])
	}
	p := s.param(a)
	s.finish(s.l.b.Density(mustFamily(family), s.vec(sy), []autodiff.ID{s.vec(sn), p}, s.pos), c)
	return []autodiff.ID{p}, true
}

// normal aggregates Normal(mu, sigma) by n_g, the group mean ȳ_g and the
// centred sum of squares Q_g = Σ (y − ȳ_g)² (two passes, no cancellation):
// Σ log N(y | mu, sigma) = log N(ȳ_g | mu, sigma/√n_g) − (n_g − 1) log sigma
// − Q_g / (2 sigma²) − ((n_g − 1) log 2π + log n_g) / 2.
func (s *suffStats) normal(ys []float64, mu, sigma suffArg) ([]autodiff.ID, bool) {
	ng, mean, q := make([]float64, s.ng), make([]float64, s.ng), make([]float64, s.ng)
	for k, y := range ys {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return nil, false
		}
		ng[s.slot[k]]++
		mean[s.slot[k]] += y
	}
	for j := range mean {
		mean[j] /= ng[j]
	}
	for k, y := range ys {
		d := y - mean[s.slot[k]]
		q[s.slot[k]] += d * d
	}
	if sigma.vals != nil && (len(sigma.vals) != 1 || !(sigma.vals[0] > 0) || math.IsInf(sigma.vals[0], 1)) {
		return nil, false // the per-row density reports a bad scale
	}
	b := s.l.b
	m := s.param(mu)
	sd := s.param(sigma)
	rn, nm1, hq := make([]float64, s.ng), make([]float64, s.ng), make([]float64, s.ng)
	c := 0.0
	for j := range ng {
		rn[j] = 1 / math.Sqrt(ng[j])
		nm1[j] = -(ng[j] - 1)
		hq[j] = -q[j] / 2
		c -= ((ng[j]-1)*math.Log(2*math.Pi) + math.Log(ng[j])) / 2
	}
	means := b.Density(mustFamily("Normal"), s.vec(mean), []autodiff.ID{m, b.Mul(sd, s.vec(rn), s.pos)}, s.pos)
	// −(n_g − 1) log sigma − Q_g / (2 sigma²), summed over the groups
	rest := b.Sum(b.Add(b.Mul(s.vec(nm1), b.Log(sd, s.pos), s.pos),
		b.Div(s.vec(hq), b.Square(sd, s.pos), s.pos), s.pos), s.pos)
	s.finish(b.Add(means, rest, s.pos), c)
	return []autodiff.ID{m, sd}, true
}

// mustFamily returns the univariate family name (one of dist's built-ins).
func mustFamily(name string) dist.Univariate {
	u, ok := dist.LookupUnivariate(name)
	if !ok {
		panic("compile: no univariate family " + name)
	}
	return *u
}

// rowsError returns the error that the model as written, a density per
// row, gives at x when err, the error of the log joint at x, lies in a ~
// lowered by groups: there the node failing is the per-group density
// (Binomial for Bernoulli rows, a group's mean for Normal), and the
// per-row one names the family written and the cell of the row. The
// per-row log joint is built the first time only and evaluated with the
// gradient when grad is set, as the failed evaluation was: a step that
// succeeds never comes here, and one that fails costs an evaluation of
// the model as written besides. err is kept when it lies elsewhere, or
// when the per-row form does not fail at x (rounding apart).
func (m *Model) rowsError(x []float64, err error, grad bool) error {
	var pe *ast.Error
	if !errors.As(err, &pe) || !slices.Contains(m.suffAt, pe.Pos) {
		return err
	}
	if m.rows == nil {
		c := *m
		c.perRow, c.track, c.missRead = true, nil, nil
		prog, _, berr := c.build(buildJoint)
		if berr != nil {
			return err
		}
		m.rows, m.rowsGrad = prog, make([]float64, len(x))
	}
	var rerr error
	if grad {
		_, rerr = m.rows.LogJoint(x, m.rowsGrad)
	} else {
		_, rerr = m.rows.ForwardJoint(x)
	}
	if rerr == nil {
		return err
	}
	return rerr
}
