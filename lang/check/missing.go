package check

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// Missing data, as PyMC's masked observations: the missing cells of a real
// data declaration that the model only observes — every mention of it is
// the value of a ~, whole (y ~ D(...)) or indexed (y[i] ~ D(...)) — are
// fitted as one latent vector NAME_missing, whose values take those cells'
// places. The ~ statements are then the missing values' prior. Data also
// read in an expression (a covariate with a model of its own, as PyMC's
// masked observed covariate) is fitted so too, unless a read is where a
// value must be known before the fit (imputable); every read is then of
// the mixed value. A covariate observed by no ~ would need a model of its
// own, and int data a discrete latent: their missing cells stay errors,
// and NoMissing says why — except int data that the model only observes,
// by ~ of built-in count families (DataVar.LeftOut): summing a
// missing cell out of the joint removes its term, whatever the family, so
// the compiler leaves those cells out of the ~'s density. Real data
// observed by a family with a point mass at 0 (HurdleGamma: rain on a dry
// day is exactly 0) is left out so too, not fitted: a continuous latent
// is never 0, so each missing cell would add log psi, a value above 0,
// and bias psi up; summed out of the joint, the term goes.

// MissingFit describes the latent values fitted for the missing cells of
// a data declaration: their bounds, the declaration's narrowed to the
// supports of the families it is observed by.
type MissingFit struct {
	Lower, Upper *float64 // nil: unbounded on that side
}

// Support is the support of the latent's variational factor: unit with
// both bounds, positive with one, else real.
func (m *MissingFit) Support() dist.Support {
	switch {
	case m.Lower != nil && m.Upper != nil:
		return dist.Unit
	case m.Lower != nil || m.Upper != nil:
		return dist.Positive
	}
	return dist.Real
}

// Family is the variational family of the latent's factor, as for a param
// of its support.
func (m *MissingFit) Family() string {
	switch m.Support() {
	case dist.Unit:
		return "beta"
	case dist.Positive:
		return "gamma"
	}
	return "normal"
}

// MissingLatent returns the param of n values (a vector) that the compiler
// lays out for the missing cells of d (d.Missing not nil): named d.Name +
// "_missing", with no prior of its own and no declaration. Bounds other
// than (0, ∞) and (0, 1) are its Lower and Upper, mapped as a bounded
// param's are (Latent.Affine).
func (d *DataVar) MissingLatent(n int) *Latent {
	m := d.Missing
	name := d.Name + "_missing"
	lat := &Latent{Name: name, Pos: d.Pos, Kind: ast.Real, Dims: Shape{{N: n}},
		Support: m.Support(), Family: m.Family()}
	is := func(p *float64, v float64) bool { return p != nil && *p == v }
	switch {
	case is(m.Lower, 0) && is(m.Upper, 1):
		lat.Kind = ast.Unit
	case is(m.Lower, 0) && m.Upper == nil:
		lat.Kind = ast.Positive
	default:
		lat.Lower, lat.Upper = m.Lower, m.Upper
	}
	lat.Symbol = &Symbol{Name: name, Kind: Param, Pos: d.Pos,
		Type: Type{Elem: Real, Shape: lat.Dims, Support: lat.Support, Range: lat.Range()}}
	return lat
}

// missingData decides, for each real data declaration, whether its
// missing cells can be fitted (DataVar.Missing) or why not (NoMissing).
func (c *checker) missingData() {
	type observation struct {
		narrow  []dist.Support // the supports of the families observing it
		trunc   []Interval     // the constant bounds of the truncated ~ on it
		why     string         // a reason a ~ on it cannot fit missing cells
		readPos ast.Pos        // the first mention in an expression
		tilde   bool           // the value of a ~
		output  bool           // read by an output
		// unmasked: a ~ on it of a family whose terms are not one per
		// cell (a user density, a multivariate family) or truncated,
		// whose missing cells could not be left out cell by cell
		unmasked bool
		// zeroMass is the first ~ on it of a family with a point mass at
		// 0 (dist.Univariate.ZeroMass) and zeroAt where; otherMass that
		// another ~ on it is of a family without one
		zeroMass  string
		zeroAt    ast.Pos
		otherMass bool
		// inValue is the first ~ whose value is an expression reading it
		// (append_col(x, y) ~ MvNormal(...)): observed there, but not
		// cell by cell, so its missing cells cannot be fitted
		inValue ast.Pos
		// notLeaf: a ~ on it whose missing cells could not be summed
		// out cell by cell when it is real data (realLeaf); constReads
		// the cells an expression reads at constant indices (y[0]) and
		// otherRead that one reads it otherwise
		notLeaf    bool
		tildes     int // the ~ statements on it: a leaf has one
		constReads [][]int
		otherRead  bool
	}
	obs := map[*Symbol]*observation{}
	of := func(sym *Symbol) *observation {
		if obs[sym] == nil {
			obs[sym] = &observation{}
		}
		return obs[sym]
	}
	observed := map[*ast.Ident]bool{} // a ~'s value, or read by an output
	ast.Inspect(c.file, func(n ast.Node) bool {
		if o, ok := n.(*ast.OutputStmt); ok {
			// an output reads the data with its missing values filled
			// in at each draw, as PyMC's posterior predictive does
			value := logLikValues(o)
			ast.Inspect(o, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					observed[id] = true
					if sym := c.info.Uses[id]; sym != nil && sym.Kind == Data && !value[id] {
						of(sym).output = true
					}
				}
				return true
			})
			return false
		}
		s, ok := n.(*ast.TildeStmt)
		if !ok {
			return true
		}
		id := ObservedIdent(s.LHS)
		if id == nil {
			ast.Inspect(s.LHS, func(n ast.Node) bool {
				if v, ok := n.(*ast.Ident); ok {
					if sym := c.info.Uses[v]; sym != nil && sym.Kind == Data {
						if o := of(sym); !o.inValue.IsValid() {
							o.inValue = s.Pos()
						}
					}
				}
				return true
			})
			return true
		}
		sym := c.info.Uses[id]
		if sym == nil || sym.Kind != Data {
			return true
		}
		observed[id] = true
		o := of(sym)
		o.tilde = true
		o.tildes++
		d := c.info.Dists[s.Dist]
		if d == nil || c.info.UserDensities[s.Dist] != nil || s.Trunc != nil || !leavesOut(d) {
			o.unmasked = true
		}
		if d == nil || c.info.UserDensities[s.Dist] != nil || !realLeaf(d) {
			o.notLeaf = true
		}
		if zeroMass(d) && c.info.UserDensities[s.Dist] == nil {
			if o.zeroMass == "" {
				o.zeroMass, o.zeroAt = d.Name, s.Dist.Fun.Pos()
			}
		} else {
			o.otherMass = true
		}
		switch {
		case o.why != "":
		case c.info.UserDensities[s.Dist] != nil || d == nil:
			o.why = fmt.Sprintf("`%s` is observed by a user density at %s", sym.Name, s.Dist.Fun.Pos())
		default:
			sup := d.Support
			if u, ok := dist.LookupUnivariate(d.Name); ok {
				sup = u.Support
			}
			switch sup {
			case dist.Real, dist.Positive, dist.NonNegative, dist.Unit:
				o.narrow = append(o.narrow, sup)
			default:
				o.why = fmt.Sprintf("`%s` is observed by %s at %s, %s", sym.Name, d.Name, s.Dist.Fun.Pos(), supportWords(sup))
			}
			if s.Trunc != nil && o.why == "" {
				if r, bad := c.constantTruncation(s.Trunc); bad != nil {
					o.why = fmt.Sprintf("`%s` is observed by a ~ truncated at %s by `%s`, which is not a constant", sym.Name, s.Trunc.T, exprString(bad))
				} else {
					o.trunc = append(o.trunc, r)
				}
			}
		}
		return true
	})
	mentioned := map[*Symbol]bool{}
	constAt := c.constIndexReads()
	for id, sym := range c.info.Uses {
		mentioned[sym] = true
		if sym.Kind != Data || observed[id] {
			continue
		}
		o := of(sym)
		if o.readPos.Line == 0 || id.Pos().Before(o.readPos) {
			o.readPos = id.Pos()
		}
		if cell, ok := constAt[id]; ok {
			o.constReads = append(o.constReads, cell)
		} else {
			o.otherRead = true
		}
	}
	// logpdfOnly: the logpdf calls of int data read only as their value
	logpdfOnly := c.logpdfValues()
	indexOnly := c.indexOnly() // int data read only as an index
	// outcome: the first read of each datum as the value of a log density
	// in a target += (t in target += logpdf(t, D(...)), or through a let)
	outcome := map[*Symbol]TargetRead{}
	for _, r := range c.info.TargetReads(c.file) {
		if _, target := r.Stmt.(*ast.TargetStmt); target && r.Value {
			if _, ok := outcome[r.Symbol]; !ok {
				outcome[r.Symbol] = r
			}
		}
	}
	// residual: the first read of each datum as the value of a ~ through a
	// let (r[1:] ~ Normal(phi * r[:T-1], s) with let r = y - mu)
	residual := map[*Symbol]TargetRead{}
	for _, r := range c.info.TargetReads(c.file) {
		if _, tilde := r.Stmt.(*ast.TildeStmt); tilde && r.Value && r.Let != nil {
			if _, ok := residual[r.Symbol]; !ok {
				residual[r.Symbol] = r
			}
		}
	}
	var covariates []string // those that may reach imputable
	for sym, o := range obs {
		if sym.Kind == Data && sym.Type.Elem != Int && o.readPos.Line != 0 && len(o.narrow) > 0 && o.why == "" {
			covariates = append(covariates, sym.Name)
		}
	}
	together := false // the file checks with all of them imputed
	if len(covariates) > 1 {
		together = c.imputableTogether(covariates)
	}
	// rowSizes: the sizes of the rows of the data a ~ observes (N), so
	// that data of another size (J) is a table of levels
	rowSizes := map[string]bool{}
	for sym, o := range obs {
		if dv := c.info.DataVar(sym.Name); sym.Kind == Data && o.tilde && dv != nil && len(dv.Dims) > 0 {
			rowSizes[dv.Dims[0].String()] = true
		}
	}
	byData := c.indexedByData()
	for _, d := range c.info.Data {
		if d.Implicit {
			continue
		}
		o := of(d.Symbol)
		d.ReadAt, d.Observed = o.readPos, o.tilde
		switch {
		case d.Elem == Int:
			predict := ""
			if o.tilde {
				predict = fmt.Sprintf("; gpp predict, given the rows with missing `%s`, then draws them", d.Name)
			}
			d.NoMissing = fmt.Sprintf("`%s` is int data: a missing count or class would be a discrete latent, which neither gpp fit (SGVB) nor gpp sample (NUTS) can infer: both follow gradients, which a discrete value has none of (fit or sample the other rows%s)", d.Name, predict)
			if at, ok := indexOnly[d.Symbol]; ok {
				d.NoMissing = fmt.Sprintf("`%s` is int data read only as an index (%s at %s): a missing cell is a missing index (an edge's node id, an observation's group), which names no element and is no count or class to infer: the row is incomplete", d.Name, d.Name, at)
			} else if o.tilde && !o.unmasked && !o.output && !o.readPos.IsValid() {
				d.LeftOut = true
			} else if calls := logpdfOnly[d.Symbol]; !o.tilde && len(calls) > 0 {
				d.NoMissing, d.Remedy = c.maskHint(d, calls)
			} else if o.tilde {
				d.NoMissing += leftOutWhy(d.Name, "built-in count families", fmt.Sprintf("a ~ on `%s` is truncated or not of a built-in count family with one term per cell and 0 in its support (Poisson, NegBinomial, Binomial, Bernoulli, ...)", d.Name), o.readPos, o.output)
			}
		case o.zeroMass != "":
			d.NoMissing = fmt.Sprintf("`%s` is observed by %s at %s, whose value is exactly 0 with probability 1 − psi: a fitted missing value, continuous, could never be 0, so it would count every missing cell as a value above 0", d.Name, o.zeroMass, o.zeroAt)
			if !o.unmasked && !o.otherMass && !o.output && !o.readPos.IsValid() {
				d.LeftOut, d.ZeroMass = true, o.zeroMass
			} else {
				d.NoMissing += leftOutWhy(d.Name, o.zeroMass, fmt.Sprintf("another ~ on `%s` is of a family without a point mass at 0, or not of a built-in family with one term per cell", d.Name), o.readPos, o.output)
			}
		case d.Kind != ast.Real && d.Kind != ast.Positive && d.Kind != ast.Unit:
			d.NoMissing = fmt.Sprintf("`%s` is %s data, whose missing values are not fitted", d.Name, d.Kind)
		case d.LowerExpr != nil && d.Lower == nil || d.UpperExpr != nil && d.Upper == nil:
			d.NoMissing = fmt.Sprintf("the bounds of `%s` depend on other data", d.Name)
		case o.why != "":
			d.NoMissing = o.why + ", and missing values are fitted only under built-in families on real, positive or unit values, truncated by constants if at all"
		case len(o.narrow) == 0 && outcome[d.Symbol].Symbol != nil:
			d.NoMissing = targetNoMissing(d, outcome[d.Symbol])
			if outcome[d.Symbol].InIf && len(d.Dims) == 1 {
				d.RowBranch = c.rowBranch(d)
			}
			d.Remedy = seriesRemedy(d, outcome[d.Symbol])
		case len(o.narrow) == 0 && o.inValue.IsValid():
			d.NoMissing = fmt.Sprintf("`%s` is observed only inside the expression on the left of the ~ at %s, which observes it as a whole, not cell by cell, so its missing values cannot be fitted: gpp fits them only where a ~ observes the data itself (%s ~ D(...) or %s[i] ~ D(...))", d.Name, o.inValue, d.Name, d.Name)
		case len(o.narrow) == 0 && o.readPos.Line != 0 && c.inTarget(o.readPos) != nil && !c.inDistArgs(o.readPos):
			// no family's argument, so no covariate: a hand-written log
			// density's value (a distance x in target += -square(x) / ...)
			d.NoMissing = fmt.Sprintf("`%s` is data read at %s, in the target += at %s (a log density written by hand), and observed by no ~, so its missing values would have no distribution: gpp fits missing values only where a ~ gives them one (%s ~ D(...)), whose ~ is then their prior", d.Name, o.readPos, c.inTarget(o.readPos).Pos(), d.Name)
		case len(o.narrow) == 0 && residual[d.Symbol].Symbol != nil && residualMean(residual[d.Symbol].Let, d.Name) != "":
			d.NoMissing, d.Remedy = residualNoMissing(d, residual[d.Symbol])
		case len(o.narrow) == 0 && o.readPos.Line != 0:
			d.NoMissing = fmt.Sprintf("`%s` is read in an expression at %s (a covariate) and observed by no ~, so its missing values would have no distribution: a missing covariate needs a model of its own (%s ~ D(...)), whose ~ is then their prior", d.Name, o.readPos, d.Name)
		case len(o.narrow) == 0:
			d.NoMissing = fmt.Sprintf("`%s` is not observed by any ~, so its missing values would have no distribution", d.Name)
			d.Unused = !mentioned[d.Symbol]
		case o.readPos.Line != 0:
			if !together {
				d.NoMissing = c.imputable(d, o.readPos)
			}
			if d.NoMissing == "" {
				d.Missing = missingBounds(d, o.narrow, o.trunc)
			}
		default:
			d.Missing = missingBounds(d, o.narrow, o.trunc)
		}
		if d.Missing != nil && o.tildes == 1 && !o.notLeaf && !o.output && !o.otherRead && !o.inValue.IsValid() && len(o.narrow) > 0 {
			// each missing cell is a leaf: summed out unless a read at
			// constant indices is of it (DataVar.LeavesOut)
			d.LeftOut, d.LeafReads, d.Fill = true, o.constReads, d.Missing.interior()
		}
		if d.Remedy == "" && d.Missing == nil {
			d.Remedy = levelRemedy(d, rowSizes, byData[d.Symbol])
		}
	}
}

// inTarget returns the target += statement whose value holds pos, or nil.
func (c *checker) inTarget(pos ast.Pos) *ast.TargetStmt {
	var found *ast.TargetStmt
	ast.Inspect(c.file, func(n ast.Node) bool {
		if t, ok := n.(*ast.TargetStmt); ok && found == nil && pos.File == t.Pos().File && !pos.Before(t.Value.Pos()) && pos.Before(t.Value.End()) {
			found = t
		}
		return found == nil
	})
	return found
}

// inDistArgs reports whether pos lies in the arguments of a family's call
// (the mu of Normal(mu, s)), where data is a covariate.
func (c *checker) inDistArgs(pos ast.Pos) bool {
	found := false
	ast.Inspect(c.file, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && c.info.Dists[call] != nil && pos.File == call.Lparen.File && call.Lparen.Before(pos) && pos.Before(call.Rparen) {
			found = true
		}
		return !found
	})
	return found
}

// interior returns a value inside m's range, which the compiler puts in
// the missing cells that it sums out (DataVar.Fill), so that each family
// observing them has a finite log density there to weight by 0.
func (m *MissingFit) interior() float64 {
	switch {
	case m.Lower != nil && m.Upper != nil:
		return (*m.Lower + *m.Upper) / 2
	case m.Lower != nil:
		return *m.Lower + 1
	case m.Upper != nil:
		return *m.Upper - 1
	}
	return 0
}

// IntLeftOut reports whether d's left-out cells are int data's (no
// Missing fit), which can never be fitted as a latent: they are drawn
// from their ~ or stay left out, never fitted as NAME_missing.
func (d *DataVar) IntLeftOut() bool { return d.Missing == nil && d.Kind == ast.Int }

// LeavesOut reports whether the missing cells (row-major) of d, of that
// shape, are left out of the likelihood (LeftOut): for real data whose
// missing cells are leaves, unless an expression reads one of them at
// constant indices (LeafReads), when they are fitted as NAME_missing
// (Missing) as before.
func (d *DataVar) LeavesOut(shape []int, missing []int) bool {
	if !d.LeftOut {
		return false
	}
	for _, cell := range d.LeafReads {
		if len(cell) != len(shape) {
			return false
		}
		k := 0
		for i, c := range cell {
			if c >= shape[i] {
				return false // an index error, reported by the build
			}
			k = k*shape[i] + c
		}
		if _, hit := slices.BinarySearch(missing, k); hit {
			return false
		}
	}
	return true
}

// Fitted reports whether the missing cells of d, of that shape, are
// fitted as the latent NAME_missing: Missing, and not left out.
func (d *DataVar) Fitted(shape []int, missing []int) bool {
	return d.Missing != nil && !d.LeavesOut(shape, missing)
}

// constIndexReads returns the mentions of data indexed at constant,
// non-negative int indices only (y[0], Y[2, 1]), each with its indices.
func (c *checker) constIndexReads() map[*ast.Ident][]int {
	out := map[*ast.Ident][]int{}
	ast.Inspect(c.file, func(n ast.Node) bool {
		ix, ok := n.(*ast.IndexExpr)
		if !ok {
			return true
		}
		id, ok := ast.Unparen(ix.X).(*ast.Ident)
		if sym := c.info.Uses[id]; !ok || sym == nil || sym.Kind != Data || len(ix.Indices) != sym.Type.Shape.Rank() {
			return true
		}
		cell := make([]int, len(ix.Indices))
		for i, e := range ix.Indices {
			ty := c.info.Types[e]
			if ty.Const == nil || ty.Shape.Rank() != 0 || ty.Elem != Int || *ty.Const < 0 || *ty.Const != math.Trunc(*ty.Const) {
				return true
			}
			cell[i] = int(*ty.Const)
		}
		out[id] = cell
		return true
	})
	return out
}

// realLeaf reports whether the missing cells of real data observed by a ~
// of d may be summed out of its density: d is a built-in elementwise
// family, a term per cell, whose support does not move with its
// arguments (Pareto's), so that a value inside the data's range has a
// finite density whatever the params. A truncation by constants keeps
// it so: each term, normalised, still integrates to 1.
func realLeaf(d *stdlib.Dist) bool {
	u, ok := dist.LookupUnivariate(d.Name)
	if !ok || d.Shape != stdlib.DistElementwise || u.ZeroMass || u.LowerArg > 0 || u.UpperArg > 0 || u.EndsOf != nil {
		return false
	}
	switch u.Support {
	case dist.Real, dist.Positive, dist.NonNegative, dist.Unit:
		return true
	}
	return false
}

// logLikValues returns, when o is the log_lik output, the names it reads
// as the value of a logpdf (log_lik = logpdf(y, D(...)), or y[i] in a
// loop's), or nil: PSIS-LOO leaves out the elements of log_lik at the
// missing cells of int data left out of the likelihood
// (compile.Model.ImputedCells), so such a read keeps them left out.
func logLikValues(o *ast.OutputStmt) map[*ast.Ident]bool {
	if o.Name.Name != LogLikOutput {
		return nil
	}
	value := map[*ast.Ident]bool{}
	ast.Inspect(o, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && call.Fun.Name == "logpdf" && len(call.Args) == 2 {
			if id := ObservedIdent(call.Args[0]); id != nil {
				value[id] = true
			}
		}
		return true
	})
	return value
}

// leftOutWhy says why the missing cells of data name, observed by ~ of
// observers (built-in count families; a family with a point mass at 0),
// are not left out of the likelihood (DataVar.LeftOut): read at read in
// an expression, read by an output, or else unmasked, the ~ on it that
// is not of such a family with one term per cell.
func leftOutWhy(name, observers, unmasked string, read ast.Pos, output bool) string {
	why := unmasked
	switch {
	case read.IsValid():
		why = fmt.Sprintf("`%s` is also read in an expression at %s", name, read)
	case output:
		why = fmt.Sprintf("an output reads `%s`", name)
	}
	return fmt.Sprintf("; its missing cells would be left out of the likelihood if `%s` were only observed by ~ of %s, but %s", name, observers, why)
}

// zeroMass reports whether d, a built-in family, has a point mass at 0
// beside a density (dist.Univariate.ZeroMass).
func zeroMass(d *stdlib.Dist) bool {
	if d == nil {
		return false
	}
	u, ok := dist.LookupUnivariate(d.Name)
	return ok && u.ZeroMass
}

// leavesOut reports whether the missing cells of int data observed by a ~
// of d may be left out of its density (DataVar.LeftOut): d is a built-in
// elementwise family of counts or 0/1 values, a term per cell, whose
// support holds 0, the value the compiler puts in those cells before it
// weights their terms by 0, or a family of real values with a point mass
// at 0 (ZeroMass), which 0 is in too (Hypergeometric's and DiscreteUniform's
// supports depend on their arguments; Geometric's starts at 1, so that
// 0 · −Inf there would be NaN). The families of classes and ordered
// categories (Categorical, CategoricalLogit, OrderedLogistic,
// OrderedProbit) and PoissonBinomial have a term per element too, and 0
// in their support: a choice model's NA holdout choices.
func leavesOut(d *stdlib.Dist) bool {
	switch d.Shape {
	case stdlib.DistCategorical, stdlib.DistOrdinal, stdlib.DistPoissonBinomial:
		return true
	}
	u, ok := dist.LookupUnivariate(d.Name)
	if !ok || d.Shape != stdlib.DistElementwise || d.Name == "Hypergeometric" || u.Least > 0 {
		return false
	}
	return u.ZeroMass || u.Support == dist.Count || u.Support == dist.Binary || u.Support == dist.BoundedCount
}

// seriesFuncs run along the rows of their argument as time steps:
// dropping a row joins the steps on either side of it.
var seriesFuncs = map[string]bool{"hmm_marginal": true, "ar_filter": true, "tv_filter": true, "renewal": true, "cumsum": true}

// seriesCall returns the first call of a seriesFuncs function in the
// statement of r (where a let's value reads d, the let's value too).
func seriesCall(r TargetRead) *ast.CallExpr {
	var found *ast.CallExpr
	look := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && found == nil && seriesFuncs[c.Fun.Name] {
				found = c
			}
			return found == nil
		})
	}
	if r.Let != nil {
		look(r.Let)
	}
	if found == nil && r.Stmt != nil {
		look(r.Stmt)
	}
	return found
}

// seriesRemedy is the remedy for missing cells of d read (r) through a
// function of a series (seriesFuncs), where dropping the rows would be
// wrong: mask the terms instead; "" for other reads.
func seriesRemedy(d *DataVar, r TargetRead) string {
	call := seriesCall(r)
	if call == nil {
		return ""
	}
	mask := "o_" + d.Name
	return fmt.Sprintf("do not drop the rows with missing `%s`: %s at %s reads its rows as a series, and dropping one joins the time steps on either side of it; keep the rows and mask the missing cells' terms: add a 0/1 column %s (1 where `%s` is observed, 0 where missing), fill the missing cells of `%s` with any value of its support, declare `data %s: int%s` and weight each term by it (`let lo = %s .* logpdf(%s, ...)`): a row of 0s is a step with no observation (docs/language.md, Missing data)",
		d.Name, call.Fun.Name, call.Pos(), mask, d.Name, d.Name, mask, d.Dims, mask, d.Name)
}

// targetNoMissing says why the missing cells of d, observed by no ~ but
// as the value of a log density in a target += (r), are not fitted: the
// model gives them no distribution. Stan would refuse them too. A plain
// likelihood (the value of a logpdf) written as a ~ is fitted; the value
// of a logcdf or logccdf is a censoring bound, which no ~ models.
func targetNoMissing(d *DataVar, r TargetRead) string {
	through := ""
	if r.Let != nil {
		through = fmt.Sprintf(" through let %s (%s)", r.Let.Name.Name, r.Let.Pos())
	}
	msg := fmt.Sprintf("`%s` is observed through the target += at %s%s, as the value of %s at %s, and by no ~, so its missing values cannot be fitted: no ~ gives them a distribution",
		d.Name, r.Stmt.Pos(), through, r.Func, r.At)
	switch {
	case r.Func == "logpdf" && seriesCall(r) != nil: // seriesRemedy says what to do
	case r.Func == "logpdf":
		msg += fmt.Sprintf("; for a plain likelihood, write it as a ~ (%s ~ D(...)), whose missing values gpp then fits", d.Name)
	default:
		msg += fmt.Sprintf(" (the value of a %s is a censoring bound, which a ~ would not model)", r.Func)
	}
	if r.InIf {
		msg += IfMissingNote(d.Name)
	}
	return msg
}

// residualNoMissing says why the missing cells of d, observed only as the
// value of a ~ through a let (r), are not fitted: the ~ observes the let,
// a residual such as y - mu, as a whole, so d is the response, not a
// covariate, and a ~ of its own would count it twice. Written on d itself
// (mu added to the location) the ~ observes d's cells, which gpp fits: the
// remedy. Filling the cells in would invent observations.
func residualNoMissing(d *DataVar, r TargetRead) (why, remedy string) {
	let, mean := r.Let.Name.Name, residualMean(r.Let, d.Name)
	n := "T"
	if len(d.Dims) == 1 {
		n = d.Dims[0].String()
	}
	why = fmt.Sprintf("`%s` is the response of the ~ at %s, which observes it through let %s (%s), a residual, as a whole expression and not cell by cell, so its missing values cannot be fitted (it is no covariate: a ~ of its own would count it twice)",
		d.Name, r.Stmt.Pos(), let, r.Let.Pos())
	remedy = fmt.Sprintf("write the likelihood on `%[1]s` itself, with %[2]s added to the location: %[1]s ~ Normal(%[2]s, sigma) for %[3]s ~ Normal(0, sigma), and for AR(1) errors %[1]s[0] ~ Normal(%[2]s[0], sigma / sqrt(1 - phi * phi)) with %[1]s[1:] ~ Normal(%[2]s[1:] + phi * (%[1]s[:%[4]s-1] - %[2]s[:%[4]s-1]), sigma); gpp then fits the missing cells as the latent %[1]s_missing (docs/language.md, Missing data); or drop the rows with missing `%[1]s` (a series: split it there)",
		d.Name, mean, let, n)
	return why, remedy
}

// residualMean returns m where let is the residual of the data name, let
// r = name - m, and "" for another let (one that reads name as a
// covariate, as mu's temp in r = demand - mu).
func residualMean(let *ast.LetStmt, name string) string {
	if b, ok := unparen(let.Value).(*ast.BinaryExpr); ok && b.Op == ast.Sub {
		if id, ok := unparen(b.X).(*ast.Ident); ok && id.Name == name {
			return exprString(b.Y)
		}
	}
	return ""
}

// IfMissingNote ends NoMissing where an if's branch reads data name, when
// bind cannot tell which rows' branches read it (DataVar.RowBranch).
func IfMissingNote(name string) string {
	return fmt.Sprintf("; an if's branch reads `%[1]s`, so a row that takes another branch leaves its cell unread, but gpp binds the whole column first and refuses a missing value anywhere in it: where the branch a row takes reads `%[1]s` (the condition is data), its cell is needed, a data error to mend at that row (a fill would change the likelihood); only a cell that its row's branch never reads may be filled, with any value of `%[1]s`'s type", name)
}

// imputableTogether reports whether the file checks with all the
// covariates named typed as changing with the fit (Config.Imputed): it
// then checks with each alone (typing more reads so only adds errors),
// so one check spares imputable's one per covariate, which made a model
// of n covariates take n checks, each of the n.
func (c *checker) imputableTogether(names []string) bool {
	if len(c.cfg.Imputed) > 0 {
		return true
	}
	_, err := checkImputed(c.file, c.cfg, names)
	errs, ok := err.(ast.ErrorList)
	return err == nil || !ok || len(errs) == 0
}

// imputable says why the missing values of d, a covariate (read in an
// expression first at read) observed by a ~, cannot be fitted, or "" if
// they can: a fitted value changes with the draws, so no read of d may be
// where a value must be known before the fit (an if condition, a bound,
// a const, an argument that needs data, a let used in one). The file is
// checked again with d typed so (Config.Imputed): its first error is the
// reason. In such a check itself, d is taken as imputable, and so is any
// other covariate, which Info.Imputing then decides as the first check did.
func (c *checker) imputable(d *DataVar, read ast.Pos) string {
	if len(c.cfg.Imputed) > 0 {
		return ""
	}
	_, err := checkImputed(c.file, c.cfg, []string{d.Name})
	errs, ok := err.(ast.ErrorList)
	if err == nil || !ok || len(errs) == 0 {
		return ""
	}
	return fmt.Sprintf("`%s` is a covariate (read at %s) with a model of its own, but fitted missing values of it would change with the draws, and it is read where a value must be known before the fit, which a model of its own does not change: %s: %s",
		d.Name, read, errs[0].Pos, errs[0].Msg)
}

// Imputing returns the Info of f, which info is of, checked again with
// the covariates named typed as changing with the fit (Config.Imputed):
// the compiler lowers f with it when the bound data have missing cells in
// covariates whose missing values the model fits (DataVar.ReadAt), so that
// the expressions that read them are recomputed at each draw. The
// decisions on missing values are info's.
func (info *Info) Imputing(f *ast.File, names []string) (*Info, error) {
	out, err := checkImputed(f, info.cfg, names)
	if err != nil {
		return nil, err
	}
	for _, d := range out.Data {
		if old := info.DataVar(d.Name); old != nil {
			d.Missing, d.NoMissing, d.Remedy, d.Unused, d.LeftOut, d.ZeroMass = old.Missing, old.NoMissing, old.Remedy, old.Unused, old.LeftOut, old.ZeroMass
			d.LeafReads, d.Fill = old.LeafReads, old.Fill
		}
	}
	return out, nil
}

// checkImputed checks f again under cfg (nil for the zero Config) with
// the data named typed as changing with the fit (Config.Imputed).
func checkImputed(f *ast.File, cfg *Config, names []string) (*Info, error) {
	again := Config{}
	if cfg != nil {
		again = *cfg
	}
	again.Imputed = map[string]bool{}
	for _, n := range names {
		again.Imputed[n] = true
	}
	return Check(f, &again)
}

// ScaleParams returns the params that the sigma argument of ~ t reads
// (VisitReads, through lets), in the order read: as such a scale → 0 the
// density of equal or repeated observed values grows without bound. nil
// when t's family has no sigma or it reads no param.
func (info *Info) ScaleParams(t *ast.TildeStmt) []string {
	d := info.Dists[t.Dist]
	if d == nil {
		return nil
	}
	var names []string
	for i, p := range d.Params {
		if p.Name == "sigma" && i < len(t.Dist.Args) {
			info.VisitReads(t.Dist.Args[i], true, func(s *Symbol) bool {
				if s.Kind == Param {
					names = append(names, s.Name)
				}
				return false
			})
		}
	}
	return names
}

// ObservedIdent returns the name that e, the value of a ~, observes whole
// or by indexing (y, y[i], y[i, j]), or nil.
func ObservedIdent(e ast.Expr) *ast.Ident {
	e = ast.Unparen(e)
	if ix, ok := e.(*ast.IndexExpr); ok {
		e = ast.Unparen(ix.X)
	}
	id, _ := e.(*ast.Ident)
	return id
}

// missingBounds is the range of d's missing values: its declared bounds
// and kind's, narrowed to each support in narrow.
func missingBounds(d *DataVar, narrow []dist.Support, trunc []Interval) *MissingFit {
	lo, hi := math.Inf(-1), math.Inf(1)
	if d.Lower != nil {
		lo = *d.Lower
	}
	if d.Upper != nil {
		hi = *d.Upper
	}
	clip := func(l, h float64) {
		lo, hi = math.Max(lo, l), math.Min(hi, h)
	}
	switch d.Kind {
	case ast.Positive:
		clip(0, math.Inf(1))
	case ast.Unit:
		clip(0, 1)
	}
	for _, s := range narrow {
		switch s {
		case dist.Positive, dist.NonNegative:
			clip(0, math.Inf(1))
		case dist.Unit:
			clip(0, 1)
		}
	}
	for _, r := range trunc {
		clip(r.Lo, r.Hi)
	}
	m := &MissingFit{}
	if !math.IsInf(lo, -1) {
		m.Lower = &lo
	}
	if !math.IsInf(hi, 1) {
		m.Upper = &hi
	}
	return m
}

// supportWords describes a support that missing values cannot have.
func supportWords(s dist.Support) string {
	switch {
	case s.Discrete():
		return "discrete"
	case s == dist.Interval:
		return "bounded by its arguments"
	}
	return "of " + s.String() + " values"
}

// constantTruncation returns the interval of a truncation T[L, U] whose
// bounds are scalar constants (an empty side unbounded), or the first
// bound that is not one.
func (c *checker) constantTruncation(t *ast.Truncation) (Interval, ast.Expr) {
	r := Interval{Lo: math.Inf(-1), Hi: math.Inf(1)}
	for _, b := range []struct {
		e   ast.Expr
		set *float64
	}{{t.Lower, &r.Lo}, {t.Upper, &r.Hi}} {
		if b.e == nil {
			continue
		}
		ty := c.info.Types[b.e]
		if ty.Const == nil || ty.Shape.Rank() != 0 {
			return r, b.e
		}
		*b.set = *ty.Const
	}
	return r, nil
}

// logpdfValues returns, for each int data every read of which is the
// value of a logpdf of a built-in elementwise family with 0 in its
// support (logpdf(t, Bernoulli(p)), or t[i] in a loop), those calls in
// source order.
func (c *checker) logpdfValues() map[*Symbol][]*ast.CallExpr {
	value := map[*ast.Ident]bool{}
	out := map[*Symbol][]*ast.CallExpr{} // in source order: Inspect's
	ast.Inspect(c.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || call.Fun.Name != "logpdf" || len(call.Args) != 2 {
			return true
		}
		id := ObservedIdent(call.Args[0])
		dc, _ := ast.Unparen(call.Args[1]).(*ast.CallExpr)
		if id == nil || dc == nil {
			return true
		}
		if d := c.info.Dists[dc]; d != nil && c.info.UserDensities[dc] == nil && leavesOut(d) {
			value[id] = true
			if sym := c.info.Uses[id]; sym != nil && sym.Kind == Data && sym.Type.Elem == Int {
				out[sym] = append(out[sym], call)
			}
		}
		return true
	})
	for id, sym := range c.info.Uses {
		if sym.Kind == Data && sym.Type.Elem == Int && !value[id] {
			delete(out, sym) // read otherwise too
		}
	}
	return out
}

// maskHint says why the missing cells of int data d, read only as the
// value of the logpdf calls given, are not left out as a ~'s are, and
// what to do in place of dropping the rows: a 0/1 mask weighting each
// term. gpp does not mask such terms itself: a logpdf's value may be
// used otherwise than as a term of the log likelihood (negated, in
// exp, compared), where leaving a cell out is no marginalisation.
func (c *checker) maskHint(d *DataVar, calls []*ast.CallExpr) (why, remedy string) {
	at := make([]string, 0, len(calls))
	for _, call := range calls {
		at = append(at, call.Pos().String())
	}
	why = fmt.Sprintf("`%s` is int data read only as the value of logpdf (%s), and a missing cell there would be a discrete latent, which neither gpp fit (SGVB) nor gpp sample (NUTS) can infer; gpp leaves the missing cells of int data out by itself only under a ~ (%s ~ D(...))", d.Name, strings.Join(at, ", "), d.Name)
	mask := "o_" + d.Name
	for c.info.DataVar(mask) != nil {
		mask = "o" + mask
	}
	// the mask picks the cells the term reads: o_y[:, 0] .* logpdf(y[:, 0], ...)
	var weight ast.Expr = &ast.Ident{Name: mask}
	indexed := ""
	if ix, ok := ast.Unparen(calls[0].Args[0]).(*ast.IndexExpr); ok {
		weight = &ast.IndexExpr{X: weight, Indices: ix.Indices}
		indexed = " indexed as the term indexes `" + d.Name + "`"
	}
	remedy = fmt.Sprintf("to leave out only the missing cells' terms, not the rows (whose other values still inform the fit), mask them: add a 0/1 column %s (1 where `%s` is observed, 0 where it is missing), fill the missing cells of `%s` with any value of its support (0), declare `data %s: int%s` and weight each term by it%s, `%s .* %s`; where each logpdf of `%s` is a term of the log likelihood (summed into target +=, or into a mixture component's log density in log_mix), that is the posterior given the observed cells, as a ~ gives (docs/language.md, Missing data)",
		mask, d.Name, d.Name, mask, d.Dims, indexed, ast.FormatExpr(weight), shorten(ast.FormatExpr(calls[0])), d.Name)
	return why, remedy
}

// indexOnly returns the symbols the model reads only as an index (x[sym],
// or x[sym[i]] in a loop), each with its first such read: a missing cell
// of one is then a missing index (an edge list's node id), not a count or
// class to infer.
func (c *checker) indexOnly() map[*Symbol]ast.Pos {
	uses, asIndex := map[*Symbol]int{}, map[*Symbol]int{}
	first := map[*Symbol]ast.Pos{}
	ast.Inspect(c.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if sym := c.info.Uses[n]; sym != nil {
				uses[sym]++
			}
		case *ast.IndexExpr:
			for _, ix := range n.Indices {
				ix = ast.Unparen(ix)
				if inner, ok := ix.(*ast.IndexExpr); ok && len(inner.Indices) == 1 { // sym[i]
					ix = ast.Unparen(inner.X)
				}
				id, ok := ix.(*ast.Ident)
				if sym := c.info.Uses[id]; ok && sym != nil {
					if asIndex[sym]++; asIndex[sym] == 1 {
						first[sym] = id.Pos()
					}
				}
			}
		}
		return true
	})
	for sym := range first {
		if uses[sym] != asIndex[sym] {
			delete(first, sym)
		}
	}
	return first
}

// indexedByData returns, for each data symbol read as x[g] with g int
// data of one value per row (a group's value looked up for each row),
// the first such read.
func (c *checker) indexedByData() map[*Symbol]*ast.IndexExpr {
	out := map[*Symbol]*ast.IndexExpr{}
	ast.Inspect(c.file, func(n ast.Node) bool {
		x, ok := n.(*ast.IndexExpr)
		if !ok {
			return true
		}
		base, ok := ast.Unparen(x.X).(*ast.Ident)
		if !ok {
			return true
		}
		sym := c.info.Uses[base]
		if sym == nil || sym.Kind != Data || out[sym] != nil {
			return true
		}
		for _, ix := range x.Indices {
			id, ok := ast.Unparen(ix).(*ast.Ident)
			if !ok {
				continue
			}
			if g := c.info.Uses[id]; g != nil && g.Kind == Data {
				if gv := c.info.DataVar(g.Name); gv != nil && gv.Elem == Int && len(gv.Dims) == 1 {
					out[sym] = x
				}
			}
		}
		return true
	})
	return out
}

// levelRemedy is what to do about a missing cell of d when d is a table
// of levels read by position (one row per teacher, its row k teacher k):
// fill it in, since dropping its row would shift every later level's
// value; "" for data with a row per observation, whose rows may be
// dropped. d is such a table when a size other than the observed data's
// rows sizes it (J, where the outcome has N rows), or when int data index
// it (x[teacher]).
func levelRemedy(d *DataVar, rowSizes map[string]bool, at *ast.IndexExpr) string {
	if len(d.Dims) == 0 {
		return ""
	}
	size := d.Dims[0].String()
	var why string
	switch {
	case at != nil:
		why = fmt.Sprintf("`%s` is read by position (%s at %s): its row k is level k", d.Name, exprString(at), at.Pos())
	case len(rowSizes) > 0 && !rowSizes[size]:
		why = fmt.Sprintf("`%s` is a table of one row per level of %s (not one per observation: the data a ~ observes have %s rows), read by position: its row k is level k", d.Name, size, strings.Join(slices.Sorted(maps.Keys(rowSizes)), " or "))
	default:
		return ""
	}
	return fmt.Sprintf("fill in the cell; do not drop its row: %s, so dropping a row would shift every later level's value to the level before", why)
}
