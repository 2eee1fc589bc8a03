package compile

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// stmt lowers one statement.
func (l *lowerer) stmt(s ast.Stmt) {
	if l.predict != nil && !l.predict.keep[s] {
		return // a density, or what only a density reads
	}
	defer l.splitPart(s)()
	switch s := s.(type) {
	case *ast.DataDecl, *ast.ConstDecl, *ast.FnDecl:
	case *ast.ParamDecl:
		l.setFixed(true)
		defer l.setFixed(false)
		if call := l.info.UserDensities[s.Prior]; call != nil && l.predict == nil {
			l.collect = l.prior
			l.userDensity(call, s.Prior.Fun.Pos())
			l.collect = false
		} else if s.Prior != nil && (l.predict == nil || l.prior && call == nil) {
			// a predict-mode build of the priors keeps their arguments
			// too: gpp predict --new-levels draws new elements from them
			lat := l.latent(l.info.Latent(s.Name.Name))
			l.collect = l.prior
			args := l.density(s.Prior, s.Name, l.env[lat.Symbol], lat)
			if lat.OrderedIID {
				l.orderedNormaliser(lat, s.Prior.Fun.Pos())
			}
			l.collect = false
			if l.prior && args != nil {
				l.priorArgs[l.latentIndex(lat)] = args
			}
		}
	case *ast.TildeStmt:
		if l.predict != nil && !(l.prior && l.wholeParamPrior(s)) { // kept: a ~ on left-out data, drawn
			l.drawTilde(s, l.predict.draw[s])
			break
		}
		var lat *check.Latent
		if id, ok := ast.Unparen(s.LHS).(*ast.Ident); ok {
			if sym := l.info.Uses[id]; sym != nil && sym.Kind == check.Param {
				lat = l.latent(l.info.Latent(sym.Name))
			}
		}
		if call := l.info.UserDensities[s.Dist]; call != nil {
			l.setFixed(lat != nil)
			defer l.setFixed(false)
			l.collect = l.prior && lat != nil
			l.userDensity(call, s.Dist.Fun.Pos())
			l.collect = false
			break
		}
		if l.leafDrawn != nil {
			l.drawLeaf(s)
		}
		mask, skip := l.tildeMask(s)
		if skip {
			break // every cell it observes is left out (leftout.go)
		}
		v := l.expr(s.LHS)
		l.setFixed(!l.readsBatch(v))
		defer l.setFixed(false)
		l.obsMask = mask
		defer func() { l.obsMask = value{} }()
		if s.Trunc == nil {
			l.collect = l.prior && lat != nil // a prior on the whole latent
			l.suffSlot = nil
			args := l.density(s.Dist, s.LHS, v, lat)
			if lat != nil && slices.Contains(l.info.OrderedIID, s) {
				l.orderedNormaliser(lat, s.Dist.Fun.Pos())
			}
			l.collect = false
			if l.prior && lat != nil && args != nil {
				l.priorArgs[l.latentIndex(lat)] = args
			}
			if l.prior && lat == nil && args != nil {
				l.tildeArgs[s] = args
			}
			if l.watch && lat == nil && len(args) > 0 {
				l.watchTilde(s, v, args[0], l.suffSlot)
			}
			break
		}
		y := l.node(v, s.LHS.Pos()) // one node for the density and the truncation
		var pair truncTerms
		prev, prevCall := l.truncPair, l.truncCall
		l.truncPair, l.truncCall = &pair, s.Dist
		if args := l.density(s.Dist, s.LHS, value{id: y, node: true}, lat); args != nil {
			l.truncData(s, y, args)
			if l.prior && lat == nil {
				l.tildeArgs[s] = args // the missing values' draws (truncated to their range)
			}
		}
		l.truncPair, l.truncCall = prev, prevCall
		l.addTruncPair(&pair, s)
	case *ast.LetStmt:
		if sym := l.info.Defs[s.Name]; !l.early[sym] {
			l.env[sym] = l.expr(s.Value)
		}
	case *ast.TargetStmt:
		l.inTarget = true // its logpdf terms on data are watched
		v := l.node(l.expr(s.Value), s.Value.Pos())
		l.inTarget = false
		if !l.b.Shape(v).IsScalar() {
			v = l.b.Sum(v, s.Value.Pos())
		}
		if s.Op == ast.Sub {
			v = l.b.Neg(v, s.OpPos)
		}
		l.add(v, s.Target)
	case *ast.ForStmt:
		lo, hi := l.expr(s.Lo), l.expr(s.Hi)
		if !lo.isInt || !hi.isInt || len(lo.ints) != 1 || len(hi.ints) != 1 {
			l.errorf(s.Lo.Pos(), "loop bounds must be int constants or data")
			return
		}
		if l.rowLoop(s) {
			l.batch.rowLoop++
			defer func() { l.batch.rowLoop-- }()
		}
		if l.vecFor(s, lo.ints[0], hi.ints[0]) {
			return
		}
		sym := l.info.Defs[s.Var]
		// Every iteration is unrolled into the tape: stop at MaxNodes
		// iterations in all, before the first one when the range alone is
		// longer (a body that builds no nodes would otherwise run for ever).
		if n := hi.ints[0] - lo.ints[0]; n > autodiff.MaxNodes-l.unrolled {
			if l.unrolled <= autodiff.MaxNodes { // once, not per outer iteration
				l.errorf(s.Pos(), "loops unroll to more than %d iterations in all (this one has %d): write long loops as vector operations", autodiff.MaxNodes, n)
			}
			l.unrolled = autodiff.MaxNodes + 1
			return
		}
		failed := l.failed()
		defer l.inLoop(s, sym)()
		// An iteration that fails ends the loop: the next would mostly
		// repeat its errors, and a loop of a million would take seconds.
		for i := lo.ints[0]; i < hi.ints[0] && !l.b.Full() && l.failed() == failed; i++ {
			l.unrolled++
			l.env[sym] = intScalar(i)
			done := l.iterAt()
			for _, t := range s.Body {
				l.stmt(t)
			}
			done()
		}
	case *ast.IfStmt:
		l.ifStmt(s)
	case *ast.OutputStmt:
		// Outputs are lowered in every build (so their shapes are known);
		// only an evaluator keeps their nodes alive.
		var ov *check.OutputVar
		for _, o := range l.info.Outputs {
			if o.Stmt == s {
				ov = o
			}
		}
		var v value
		l.outputName = s.Name.Name
		switch {
		case s.Dist != nil:
			v = l.predictive(s.Dist, ov != nil && len(ov.Dims) == 1, s.Tilde, nil, s.Trunc)
		case ov != nil && ov.Let != nil:
			v = l.env[ov.Let]
		default:
			v = l.expr(s.Value)
		}
		l.outputName = ""
		if sym := l.info.Defs[s.Name]; sym != nil {
			l.env[sym] = v // later outputs may use this one
		}
		id := l.node(v, s.Name.Pos())
		shape := dimsOf(l.b.Shape(id))
		l.outIDs = append(l.outIDs, id)
		l.outs = append(l.outs, Output{Name: s.Name.Name, Pos: s.Name.Pos(), Shape: shape})
	default:
		l.errorf(s.Pos(), "compile: unexpected statement %T", s)
	}
}

// add appends a term of the log joint; pos is where it was written.
func (l *lowerer) add(term autodiff.ID, pos ast.Pos) {
	if l.prior && !l.collect || l.predict != nil {
		return // the likelihood, left out of the log prior
	}
	term, ok := l.scaleTerm(term, pos)
	if !ok {
		return
	}
	switch l.part {
	case partJacobian:
		return
	case partLikelihood:
		l.likTerms = append(l.likTerms, term)
		l.likPos = append(l.likPos, pos)
		return
	}
	l.terms = append(l.terms, term)
	l.termPos = append(l.termPos, pos)
}

// setFixed says, in a minibatch build, whether the terms lowered next
// are priors (scaleTerm).
func (l *lowerer) setFixed(f bool) {
	if l.batch != nil {
		l.batch.fixed = f
	}
}

func intScalar(i int) value { return value{ints: []int{i}, isInt: true} }

// node returns v's tape node, creating a constant node for pure ints.
func (l *lowerer) node(v value, pos ast.Pos) autodiff.ID {
	if v.node {
		return v.id
	}
	if !v.isInt {
		return l.b.Scalar(math.NaN(), pos) // an error was reported already
	}
	if v.rows != nil && l.readsBatch(v) {
		return l.batchInts(v, pos)
	}
	vals := make([]float64, len(v.ints))
	for i, x := range v.ints {
		vals[i] = float64(x)
	}
	if v.data != "" && v.at != nil {
		return l.b.DataConst(v.data, vals, shapeOf(v.shape), pos, v.at)
	}
	return l.b.Const(vals, shapeOf(v.shape), pos)
}

// expr lowers an expression, recording data-only nodes (the tape hoists
// them; the tests check it).
func (l *lowerer) expr(e ast.Expr) value {
	if l.vec != nil && !l.depends(e) {
		// a value that reads no row, once for all of them
		defer l.b.Whole()()
	}
	v := l.expr1(e)
	if v.node && l.info.Types[e].DataOnly {
		l.dataNodes = append(l.dataNodes, v.id)
	}
	if f, ok := l.info.PositiveData[e]; ok {
		l.checkPositiveData(e, v, f)
	}
	if what := l.info.CountData[e]; what != "" {
		l.checkCountData(e, v, what)
	}
	return v
}

// checkCountData reports a value of e that is not a count: e is int data
// of a sign the checker cannot show (`data n: int[N]`) used as a count
// argument (check's unsignedCountData), which Stan also checks only when
// the values arrive. The error is at the value's data cell where it has
// one, and suggests the declaration that has the data load check it.
func (l *lowerer) checkCountData(e ast.Expr, v value, what string) {
	vals, ok := l.knownValues(v)
	if !ok {
		return
	}
	for k, x := range vals {
		if x >= 0 {
			continue
		}
		row, el := l.elemAt(e, len(vals), autodiff.Vector(len(vals)), k)
		if el != "" {
			el = " (element [" + el + "])"
		}
		fix := "declare the data int<lower=0> to have its values checked when they load"
		var at ast.Pos
		name, ok := "", false
		switch {
		case v.node:
			name, at, ok = l.b.Cell(v.id, k)
		case v.data != "" && v.at != nil:
			name, at, ok = v.data, v.at(k), true
		}
		if ok {
			l.rowErrorf(row, at, "%s: value %g is not a count, as %s at %s needs; %s", name, x, what, e.Pos(), fix)
			return
		}
		l.rowErrorf(row, e.Pos(), "`%s` is %g%s, not a count, as %s needs; %s", ast.FormatExpr(e), x, el, what, fix)
		return
	}
}

// checkPositiveData reports a value ≤ 0 (< 0 where f.Need is
// non-negative; or NaN) of e, a data-only factor or divisor of a positive
// (non-negative) distribution argument that also reads params (check's
// scaledByData), at e: the checker took the argument as so on the
// condition that e's values are. A value not known before the fit is
// checked with the argument at every evaluation.
func (l *lowerer) checkPositiveData(e ast.Expr, v value, f check.DataFactor) {
	vals, ok := l.knownValues(v)
	if !ok {
		return
	}
	for k, x := range vals {
		if !(x > 0) && !(f.Need == dist.NonNegative && x == 0) {
			row, el := l.elemAt(e, len(vals), autodiff.Vector(len(vals)), k)
			if el != "" {
				el = " (element [" + el + "])"
			}
			role := "scales a " + f.Need.String() + " distribution argument"
			if f.Divides {
				role = "divides a distribution argument"
			}
			l.rowErrorf(row, e.Pos(), "`%s` is %g%s, not %s: it %s, and depends on the data alone, so no fit can change it", ast.FormatExpr(e), x, el, map[bool]string{true: ">= 0", false: "> 0"}[f.Need == dist.NonNegative], role)
			return
		}
	}
}

// knownValues returns the values of v when they are known before the fit:
// its ints, or its node's value where Known evaluates it.
func (l *lowerer) knownValues(v value) ([]float64, bool) {
	switch {
	case v.isInt:
		vals := make([]float64, len(v.ints))
		for i, x := range v.ints {
			vals[i] = float64(x)
		}
		return vals, true
	case v.node:
		return l.b.Known(v.id)
	}
	return nil, false
}

// elemAt says where element k of the n values of e lies for an error: in a
// loop lowered as vectors, where e depends on the loop, the row (one per
// iteration, named as the unrolled loop names it); otherwise the element
// ("3", "2, 0") when e has more than one value, "" when it has one.
func (l *lowerer) elemAt(e ast.Expr, n int, shape autodiff.Shape, k int) (row int, elem string) {
	switch {
	case l.vec != nil && l.depends(e):
		return k, ""
	case n > 1:
		return 0, shapeElem(shape, k)
	}
	return 0, ""
}

func (l *lowerer) expr1(e ast.Expr) value {
	switch e := e.(type) {
	case *ast.NumberLit:
		if e.IsInt && e.Value == math.Trunc(e.Value) && math.Abs(e.Value) <= check.MaxInt {
			v := intScalar(int(e.Value))
			v.id, v.node = l.b.Scalar(e.Value, e.Pos()), true
			return v
		}
		return value{id: l.b.Scalar(e.Value, e.Pos()), node: true}
	case *ast.Ident:
		return l.ident(e)
	case *ast.ParenExpr:
		return l.expr(e.X)
	case *ast.UnaryExpr:
		if e.Op == ast.Not {
			return l.logical(e)
		}
		x := l.expr(e.X)
		if x.isInt {
			// Known ints stay known (-1 as a loop bound or an index), with
			// the node negated too when there is one (a literal's).
			neg := make([]int, len(x.ints))
			for i, v := range x.ints {
				neg[i] = -v
			}
			v := value{ints: neg, shape: x.shape, isInt: true, at: x.at, atExpr: derivedAt(x, e)}
			if x.node {
				v.id, v.node = l.b.Neg(x.id, e.OpPos), true
			}
			return v
		}
		return value{id: l.b.Neg(l.node(x, e.X.Pos()), e.OpPos), node: true}
	case *ast.BinaryExpr:
		return l.binary(e)
	case *ast.TransposeExpr:
		if l.vec != nil && l.info.Types[e.X].Shape.Rank() == 0 && l.depends(e) {
			return l.expr(e.X) // a scalar per row, its own transpose: the rows' vector
		}
		x := l.expr(e.X)
		if x.isInt {
			return l.transposeInts(e, x)
		}
		id := l.b.Transpose(l.node(x, e.X.Pos()), e.Quote)
		return value{id: l.asTyped(e, id, e.Quote), node: true}
	case *ast.CallExpr:
		return l.call(e)
	case *ast.IndexExpr:
		return l.index(e)
	case *ast.VectorLit:
		return l.vectorLit(e)
	}
	l.errorf(e.Pos(), "compile: unexpected expression %T", e)
	return value{}
}

// vectorLit lowers [e1, ..., en]: constants give one constant node, and
// ints known when compiling (constants, int data, loop variables) also an
// int value, so that the literal can index; otherwise the elements' nodes
// are stacked (a data-only stack is evaluated once, by Finish).
func (l *lowerer) vectorLit(e *ast.VectorLit) value {
	n := len(e.Elems)
	pos := e.Pos()
	if t := l.info.Types[e]; len(t.Shape) == 2 {
		return l.matrixLit(e)
	}
	vals := make([]float64, n)
	consts := true
	for i, x := range e.Elems {
		c := l.info.Types[x].Const
		if c == nil {
			consts = false
			break
		}
		vals[i] = *c
	}
	// An int literal also keeps its ints; an index out of range is
	// reported at its data cell, else at its element (cell may be nil).
	intValue := func(ints []int, cell func(k int) ast.Pos) value {
		at := func(k int) ast.Pos {
			if cell != nil {
				if p := cell(k); p.Line > 0 {
					return p
				}
			}
			return e.Elems[k].Pos()
		}
		return value{id: l.b.Const(vals, autodiff.Vector(n), pos), node: true, ints: ints, shape: []int{n}, isInt: true, at: at}
	}
	if consts {
		if l.info.Types[e].Elem != check.Int {
			return value{id: l.b.Const(vals, autodiff.Vector(n), pos), node: true}
		}
		ints := make([]int, n)
		for i, v := range vals {
			ints[i] = int(v)
		}
		return intValue(ints, nil)
	}
	elems := make([]value, n)
	ints := make([]int, n)
	allInts := true
	for i, x := range e.Elems {
		elems[i] = l.expr(x)
		if el := elems[i]; el.isInt && len(el.ints) == 1 {
			ints[i], vals[i] = el.ints[0], float64(el.ints[0])
		} else {
			allInts = false
		}
	}
	if allInts {
		return intValue(ints, func(k int) ast.Pos {
			if cell := elems[k].at; cell != nil {
				return cell(0)
			}
			return ast.Pos{}
		})
	}
	ids := make([]autodiff.ID, n)
	for i, el := range elems {
		ids[i] = l.node(el, e.Elems[i].Pos())
	}
	return value{id: l.b.Stack(ids, pos), node: true}
}

// matrixLit lowers [r0, ..., rn-1] whose elements are rows: literals of
// constants give one constant node (an int one also keeps its ints, as
// int data does), else the rows' nodes are stacked as rows. Rows whose
// lengths were known only with the data are compared here.
func (l *lowerer) matrixLit(e *ast.VectorLit) value {
	pos := e.Pos()
	var vals []float64
	consts := true
	for _, r := range e.Elems {
		lit, ok := ast.Unparen(r).(*ast.VectorLit)
		if !ok {
			consts = false
			break
		}
		for _, x := range lit.Elems {
			c := l.info.Types[x].Const
			if c == nil {
				consts = false
				break
			}
			vals = append(vals, *c)
		}
		if !consts {
			break
		}
	}
	n := len(e.Elems)
	if consts {
		m := len(vals) / n
		id := l.b.Const(vals, autodiff.Matrix(n, m), pos)
		if l.info.Types[e].Elem != check.Int {
			return value{id: id, node: true}
		}
		ints := make([]int, len(vals))
		for i, v := range vals {
			ints[i] = int(v)
		}
		at := func(k int) ast.Pos {
			return ast.Unparen(e.Elems[k/m]).(*ast.VectorLit).Elems[k%m].Pos()
		}
		return value{id: id, node: true, ints: ints, shape: []int{n, m}, isInt: true, at: at}
	}
	var m autodiff.ID
	cols := 0
	for i, r := range e.Elems {
		row := l.node(l.expr(r), r.Pos())
		k := l.b.Shape(row).Len()
		if i == 0 {
			cols = k
		} else if k != cols {
			l.errorf(r.Pos(), "a matrix literal's rows must have equal lengths: row %d `%s` has %d element%s, row 0 `%s` has %d",
				i, ast.FormatExpr(r), k, plural(k), ast.FormatExpr(e.Elems[0]), cols)
			return value{}
		}
		row = l.b.Reshape(row, autodiff.Matrix(1, k), r.Pos())
		if i == 0 {
			m = row
		} else {
			m = l.b.Concat(m, row, false, pos)
		}
	}
	return value{id: m, node: true}
}

// sized lowers the constructors whose length is argument 0 (Shape Sized
// or SizedRow, a row the transpose of the vector): linspaced_vector(n, lo,
// hi), lo + (hi − lo)·t for the constant t_i = i/(n − 1) (so lo and hi
// may be params), and the constants one_hot_vector(n, k) with k 0-based,
// ones_vector(n), zeros_vector(n), uniform_simplex(n) and their int forms
// (f.Op names the vector each lowers to).
func (l *lowerer) sized(e *ast.CallExpr, f *stdlib.Func, pos ast.Pos) value {
	nint := 1 // the int arguments known when compiling
	switch f.Op {
	case "one_hot_vector", "one_hot_int_array":
		nint = 2
	case "linspaced_int_array":
		nint = 3
	}
	var ints []int
	for i, a := range e.Args[:nint] {
		v := l.expr(a)
		if !v.isInt || len(v.ints) != 1 || i == 0 && v.ints[0] < 0 {
			what := "a non-negative int constant"
			if i > 0 {
				what = "an int constant"
			}
			l.errorf(a.Pos(), "%s needs %s here", e.Fun.Name, what)
			return value{}
		}
		ints = append(ints, v.ints[0])
	}
	n := ints[0]
	if msg := l.b.TooBig(fmt.Sprintf("%s(%d, ...)", e.Fun.Name, n), n); msg != "" {
		l.errorf(e.Args[0].Pos(), "%s", msg)
		return value{}
	}
	shape := autodiff.Vector(n)
	row := func(id autodiff.ID) autodiff.ID { // the vector, or its row [1, n]
		if f.Shape == stdlib.SizedRow {
			return l.b.Transpose(id, pos)
		}
		return id
	}
	t := make([]float64, n)
	switch f.Op {
	case "linspaced_vector":
		for i := range t {
			t[i] = float64(i) / float64(n-1)
		}
		if n == 1 {
			t[0] = 1 // hi alone, as Stan
		}
		lo, hi := l.node(l.expr(e.Args[1]), e.Args[1].Pos()), l.node(l.expr(e.Args[2]), e.Args[2].Pos())
		b := l.b
		return value{id: row(b.Add(lo, b.Mul(b.Sub(hi, lo, pos), b.Const(t, shape, pos), pos), pos)), node: true}
	case "one_hot_vector", "one_hot_int_array":
		k := ints[1]
		if k < 0 || k >= n {
			l.errorf(e.Args[1].Pos(), "%s: index %d is out of range for length %d (k counts from 0)", e.Fun.Name, k, n)
			return value{}
		}
		t[k] = 1
	case "ones_vector", "ones_int_array":
		for i := range t {
			t[i] = 1
		}
	case "uniform_simplex":
		if n == 0 {
			l.errorf(e.Args[0].Pos(), "uniform_simplex: a simplex needs n >= 1")
			return value{}
		}
		for i := range t {
			t[i] = 1 / float64(n)
		}
	case "linspaced_int_array":
		lo, hi := ints[1], ints[2]
		if hi < lo {
			l.errorf(e.Args[2].Pos(), "linspaced_int_array: hi (%d) is below lo (%d)", hi, lo)
			return value{}
		}
		for i, v := range linspacedInts(n, lo, hi) {
			t[i] = float64(v)
		}
	}
	v := value{id: row(l.b.Const(t, shape, pos)), node: true}
	if f.Elem == stdlib.IntResult {
		v.ints, v.shape, v.isInt = make([]int, n), dimsOf(shape), true
		for i, x := range t {
			v.ints[i] = int(x)
		}
	}
	return v
}

// linspacedInts returns Stan's linspaced_int_array(n, lo, hi), for hi ≥
// lo: Eigen's integer LinSpaced, lo + i·⌊(hi − lo)/(n − 1)⌋ where the
// range holds n distinct values (hi lowered to a multiple of the step),
// else lo + ⌊i/d⌋ with d = ⌊(n + hi − lo)/(hi − lo + 1)⌋ (each value
// repeated); hi alone for n = 1.
func linspacedInts(n, lo, hi int) []int {
	v := make([]int, n)
	switch span := hi - lo; {
	case n == 1:
		v[0] = hi
	case span+1 < n:
		d := (n + span) / (span + 1)
		for i := range v {
			v[i] = lo + i/d
		}
	default:
		step := span / max(n-1, 1)
		for i := range v {
			v[i] = lo + i*step
		}
	}
	return v
}

// pfq lowers hypergeometric_pFq(a, b, z) and hypergeometric_3F2(a, b, z):
// one node of pFq over z whose parameters are a's p elements and b's q (as
// hypergeometric_2F1 is over its four arguments). The elements of a
// vector literal are lowered one by one, so that a constant among params,
// [-2, s], stays a constant: no partial is asked of it (the partial in an
// upper parameter that is an int ≤ 0 is a series that diverges for |z| ≥
// 1, where the value is a polynomial).
func (l *lowerer) pfq(e *ast.CallExpr, name string, pos ast.Pos) value {
	b := l.b
	elems := func(a ast.Expr) []autodiff.ID {
		if lit, ok := a.(*ast.VectorLit); ok {
			ids := make([]autodiff.ID, len(lit.Elems))
			for i, el := range lit.Elems {
				ids[i] = l.node(l.expr(el), el.Pos())
			}
			return ids
		}
		v := l.node(l.expr(a), a.Pos())
		ids := make([]autodiff.ID, b.Shape(v).Len())
		for i := range ids {
			ids[i] = b.Elem(v, i, a.Pos())
		}
		return ids
	}
	ea, eb := elems(e.Args[0]), elems(e.Args[1])
	z := l.node(l.expr(e.Args[2]), e.Args[2].Pos())
	p, q := len(ea), len(eb)
	switch {
	case name == "hypergeometric_3F2" && (p != 3 || q != 2):
		l.errorf(pos, "hypergeometric_3F2 takes a [3] and b [2], got a [%d] and b [%d] (hypergeometric_pFq takes any sizes)", p, q)
		return value{}
	case p > dist.MaxPFQ || q > dist.MaxPFQ:
		l.errorf(pos, "%s takes at most %d upper and %d lower parameters, got a [%d] and b [%d]", name, dist.MaxPFQ, dist.MaxPFQ, p, q)
		return value{}
	}
	return value{id: b.LogPDF(dist.PFQFn(name, p, q), z, append(ea, eb...), pos), node: true}
}

// rep lowers rep(x, n) and rep_matrix(x, n, m): x times a constant vector
// [n] (matrix [n, m]) of ones, so that x's adjoint is the sum of the
// result's; an int x known when compiling also keeps its ints, so that a
// vector of them can index.
func (l *lowerer) rep(e *ast.CallExpr, pos ast.Pos) value {
	var dims []int
	for _, a := range e.Args[1:] {
		n := l.expr(a)
		if !n.isInt || len(n.ints) != 1 || n.ints[0] < 0 {
			l.errorf(a.Pos(), "%s needs non-negative int constants for its sizes", e.Fun.Name)
			return value{}
		}
		dims = append(dims, n.ints[0])
	}
	shape, size := autodiff.Vector(dims[0]), dims[0]
	if len(dims) == 2 {
		shape = autodiff.Matrix(dims[0], dims[1])
		if dims[1] > 0 && size > autodiff.MaxElements/dims[1] {
			size = autodiff.MaxElements + 1
		} else {
			size *= dims[1]
		}
	}
	sizes := fmt.Sprint(dims[0])
	if len(dims) == 2 {
		sizes += fmt.Sprintf(", %d", dims[1])
	}
	if msg := l.b.TooBig(fmt.Sprintf("%s(x, %s)", e.Fun.Name, sizes), size); msg != "" {
		l.errorf(e.Args[1].Pos(), "%s", msg)
		return value{}
	}
	x := l.expr(e.Args[0])
	if x.isInt && len(x.ints) == 1 {
		ints, vals := make([]int, size), make([]float64, size)
		for i := range ints {
			ints[i], vals[i] = x.ints[0], float64(x.ints[0])
		}
		at := func(int) ast.Pos { return e.Args[0].Pos() }
		return value{id: l.b.Const(vals, shape, pos), node: true, ints: ints, shape: dimsOf(shape), isInt: true, at: at}
	}
	ones := make([]float64, size)
	for i := range ones {
		ones[i] = 1
	}
	return value{id: l.b.Mul(l.node(x, e.Args[0].Pos()), l.b.Const(ones, shape, pos), pos), node: true}
}

// ident lowers a name.
func (l *lowerer) ident(id *ast.Ident) value {
	sym := l.info.Uses[id]
	if sym == nil {
		l.errorf(id.Pos(), "compile: unresolved name %s", id.Name)
		return value{}
	}
	if read := l.missRead[sym]; read != nil && id != l.missIdx {
		markRead(read, nil, nil) // read whole, or in a way not followed
	}
	if v, ok := l.env[sym]; ok {
		return v
	}
	// A whole const or data array, even when a loop lowered as vectors
	// reads it first: its elements are not the loop's rows, nor is it of
	// an iteration.
	defer l.b.InLoop(false)()
	defer l.b.AtIter(nil)()
	var v value
	switch sym.Kind {
	case check.Const:
		c := l.info.Const(sym.Name)
		v = value{id: l.b.Scalar(c.Value, id.Pos()), node: true}
		if c.Elem == check.Int {
			v.ints, v.isInt = []int{int(c.Value)}, true
		}
	case check.Data, check.Size:
		a, ok := l.data[sym.Name]
		if !ok {
			l.errorf(id.Pos(), "no data bound for %s", sym.Name)
			return value{}
		}
		v = value{id: l.b.DataConst(sym.Name, a.Values, shapeOf(a.Shape), id.Pos(), a.Locate), node: true}
		if dv := l.info.DataVar(sym.Name); dv != nil && dv.Elem == check.Int {
			v.ints, v.shape, v.isInt, v.at, v.data = make([]int, len(a.Values)), a.Shape, true, a.Locate, sym.Name
			for i, x := range a.Values {
				v.ints[i] = int(x)
			}
			if l.readsBatch(v) {
				v.rows = make([]int, len(a.Values))
				for i := range v.rows {
					v.rows[i] = i
				}
			}
		}
	case check.Let:
		// a let of the data alone read before its statement is lowered:
		// a param's size (let U = max(uid) + 1; param a: real[U]), as
		// Stan's transformed data size one
		ls, ok := sym.Decl.(*ast.LetStmt)
		if !ok || !sym.Type.DataOnly || l.sizing[sym] {
			l.errorf(id.Pos(), "%s %s is read before its value is known: a size must come from the data, consts or a let of them declared earlier", sym.Kind, sym.Name)
			return value{}
		}
		if l.sizing == nil {
			l.sizing, l.early = map[*check.Symbol]bool{}, map[*check.Symbol]bool{}
		}
		l.sizing[sym] = true
		v = l.expr(ls.Value)
		delete(l.sizing, sym)
		l.early[sym] = true
	default:
		l.errorf(id.Pos(), "compile: %s %s has no value here", sym.Kind, sym.Name)
		return value{}
	}
	l.env[sym] = v
	return v
}

// binary lowers an arithmetic operator.
func (l *lowerer) binary(e *ast.BinaryExpr) value {
	if e.Op.IsLogical() {
		return l.logical(e)
	}
	return l.binaryOf(e, l.expr(e.X), l.expr(e.Y))
}

// binaryOf lowers an arithmetic operator whose operands are lowered.
func (l *lowerer) binaryOf(e *ast.BinaryExpr, x, y value) value {
	if e.Op == ast.Mod || e.Op == ast.IntDiv {
		return l.intOp(e, x, y)
	}
	if x.isInt && y.isInt && len(x.shape) == 0 && len(y.shape) == 0 && e.Op != ast.Div && e.Op != ast.Pow {
		a, b := x.ints[0], y.ints[0]
		if !check.IntInRange(e.Op, int64(a), int64(b)) {
			// As the checker refuses a constant past 2^53: data make it
			// here, and a size or an index made from it would be wrong.
			l.errorf(e.OpPos, "int `%s` is %g with these data: an int holds at most 2^53 in magnitude",
				ast.FormatExpr(e), check.FoldBinary(e.Op, float64(a), float64(b)))
			return value{}
		}
		var r int
		switch e.Op {
		case ast.Add:
			r = a + b
		case ast.Sub:
			r = a - b
		default:
			r = a * b
		}
		v := intScalar(r)
		v.id, v.node = l.b.Scalar(float64(r), e.OpPos), true
		v.at, v.atExpr, v.cells = operandCells(e, x, y, 1)
		return v
	}
	xi, yi := l.node(x, e.X.Pos()), l.node(y, e.Y.Pos())
	var id autodiff.ID
	switch e.Op {
	case ast.Add:
		id = l.b.Add(xi, yi, e.OpPos)
	case ast.Sub:
		id = l.b.Sub(xi, yi, e.OpPos)
	case ast.EMul:
		id = l.b.Mul(xi, yi, e.OpPos)
	case ast.Div:
		id = l.b.Div(xi, yi, e.OpPos)
	case ast.Pow:
		id = l.b.Pow(xi, yi, e.OpPos)
	case ast.Mul:
		if l.b.Shape(xi).IsScalar() || l.b.Shape(yi).IsScalar() || l.vec != nil && l.depends(e) {
			// In a vectorised loop both are per-iteration scalars
			// (vecScan): their rows multiply elementwise.
			id = l.b.Mul(xi, yi, e.OpPos)
		} else {
			id = l.b.MatMul(xi, yi, e.OpPos)
		}
	default:
		l.errorf(e.OpPos, "compile: unexpected operator %s", e.Op)
	}
	v := l.knownInts(e, value{id: id, node: true})
	if v.isInt && e.Op != ast.Div && e.Op != ast.Pow {
		v.at, v.atExpr, v.cells = operandCells(e, x, y, len(v.ints))
	}
	return v
}

// intOp lowers a % b or a %/% b (e) of the ints x and y, known when the
// model compiles (the checker refuses others), elementwise with a scalar
// broadcast: the ints and a constant node of them. A zero divisor is an
// error at it, naming its element, or its iteration in a loop.
func (l *lowerer) intOp(e *ast.BinaryExpr, x, y value) value {
	if !x.isInt || !y.isInt {
		if l.failed() == 0 { // else an operand failed and said why
			l.errorf(e.OpPos, "compile: the operands of %s are not ints known when compiling", e.Op)
		}
		return value{}
	}
	if x.rows != nil || y.rows != nil {
		l.errorf(e.OpPos, "--minibatch %s: `%s` computes from int data of the subsampled rows, which are fixed when compiling: compute it as a column of the data instead", l.batch.size, ast.FormatExpr(e))
		return value{}
	}
	// broadcast as the checker does: both viewed as matrices (matDims),
	// a size 1 stretching
	xr, xc := matDims(x)
	yr, yc := matDims(y)
	rows, cols := max(xr, yr), max(xc, yc)
	if xr != rows && xr != 1 || yr != rows && yr != 1 || xc != cols && xc != 1 || yc != cols && yc != 1 {
		l.errorf(e.OpPos, "compile: %s of ints shaped %s and %s", e.Op, shapeText(x.shape), shapeText(y.shape))
		return value{}
	}
	var shape []int // nil: two scalars
	switch {
	case len(x.shape) == 0 && len(y.shape) == 0:
	case len(x.shape) < 2 && len(y.shape) < 2 || cols == 1 && (len(x.shape) == 1 || len(y.shape) == 1):
		shape = []int{rows} // a vector, [1] stretched as a scalar is
	default:
		shape = []int{rows, cols}
	}
	at := func(vr, vc, i, j int) int { return (i%vr)*vc + j%vc }
	n := rows * cols
	ints, vals := make([]int, n), make([]float64, n)
	for k := range n {
		i, j := k/cols, k%cols
		a, b := x.ints[at(xr, xc, i, j)], y.ints[at(yr, yc, i, j)]
		if b == 0 {
			what := ast.FormatExpr(e.Y)
			if len(y.shape) > 0 && l.vec == nil {
				what = elemText(what, y.shape, at(yr, yc, i, j))
			}
			l.rowErrorf(k, e.Y.Pos(), "%s by zero: `%s` is 0 in `%s`", check.IntOpName(e.Op), what, ast.FormatExpr(e))
			return value{}
		}
		ints[k] = int(check.IntOp(e.Op, int64(a), int64(b)))
		vals[k] = float64(ints[k])
	}
	v := value{ints: ints, shape: shape, isInt: true, node: true, id: l.b.Const(vals, shapeOf(shape), e.OpPos)}
	v.at, v.atExpr, v.cells = operandCells(e, x, y, n)
	return v
}

// operandCells returns, for the n ints of e = x op y computed element by
// element from one operand's data cells (located by its at, n of them,
// the other operand a scalar: site + 1, 2 * g, J - 1 - g), that operand's
// at and e's text, so that a bad index made of them is reported at its
// cell. Where both operands are n ints from cells, row by row (report -
// onset of two columns, or of their cells in a loop), which one is to
// blame is not known: the first's at, and cells, which names both
// operands' values and cells at int k. nil, "" and nil otherwise.
func operandCells(e *ast.BinaryExpr, x, y value, n int) (func(k int) ast.Pos, string, func(k int) string) {
	for _, p := range [2][2]value{{x, y}, {y, x}} {
		cells, other := p[0], p[1]
		if cells.at != nil && len(cells.ints) == n && cells.at(0).Line > 0 && len(other.shape) == 0 && (other.at == nil || len(cells.shape) > 0) {
			return cells.at, ast.FormatExpr(e), nil
		}
	}
	if x.at != nil && y.at != nil && len(x.ints) == n && len(y.ints) == n && len(x.shape) == len(y.shape) && len(x.shape) <= 1 &&
		n > 0 && x.at(0).Line > 0 && y.at(0).Line > 0 {
		xs, ys := ast.FormatExpr(e.X), ast.FormatExpr(e.Y)
		return x.at, ast.FormatExpr(e), func(k int) string {
			return fmt.Sprintf("%s = %d at %s, %s = %d at %s", xs, x.ints[k], x.at(k), ys, y.ints[k], y.at(k))
		}
	}
	return nil, "", nil
}

// derivedAt is the atExpr of a value computed by e from x alone: e's text
// where x has cells.
func derivedAt(x value, e ast.Expr) string {
	if x.at == nil {
		return ""
	}
	return ast.FormatExpr(e)
}

// joinedAt is the atExpr of a value e joined from x's and y's ints (their
// cells' own values or not): e's text where either was computed.
func joinedAt(x, y value, e ast.Expr) string {
	if x.atExpr == "" && y.atExpr == "" {
		return ""
	}
	return ast.FormatExpr(e)
}

// call lowers a built-in function call.
func (l *lowerer) call(e *ast.CallExpr) value {
	if in := l.info.Inlines[e]; in != nil {
		return l.inline(in)
	}
	if oc := l.info.ODEs[e]; oc != nil {
		return l.ode(oc)
	}
	if ac := l.info.Algebras[e]; ac != nil {
		return l.algebra(ac)
	}
	if ic := l.info.Integrals[e]; ic != nil {
		return l.integrate(ic)
	}
	f := l.info.Calls[e]
	if f == nil {
		l.errorf(e.Pos(), "compile: %s is not a built-in function here", e.Fun.Name)
		return value{}
	}
	pos := e.Fun.Pos()
	if f.Shape == stdlib.Constant { // pi(), e(): a scalar constant node
		v := f.Fold(nil)
		if math.IsInf(v, 0) || math.IsNaN(v) {
			// the tape holds finite values only; a const folds it away
			l.errorf(pos, "%s is %g: the log density and outputs hold finite values only (a const may use it: const c = fmin(x, positive_infinity()))", f.Signature(), v)
			return value{}
		}
		return value{id: l.b.Scalar(v, pos), node: true}
	}
	if f.Name == "rowsum" {
		if v, ok := l.rowSumProd(e, pos); ok {
			return v
		}
	}
	if f.Op == "logpdf" || f.Op == "logcdf" || f.Op == "logccdf" {
		return l.logpdf(e, pos)
	}
	if f.Op == "icdf" {
		return l.icdf(e, pos)
	}
	if f.Name == "I" {
		n := l.expr(e.Args[0])
		if !n.isInt || len(n.ints) != 1 || n.ints[0] < 0 {
			l.errorf(e.Args[0].Pos(), "I(n) needs a non-negative int constant")
			return value{}
		}
		return value{id: l.b.Identity(n.ints[0], pos), node: true}
	}
	if f.Name == "dot_product" && l.vec != nil && l.depends(e) {
		if v, ok := l.rowDot(e); ok {
			return v
		}
	}
	if l.vec != nil && l.depends(e) && l.rowVecScan().rowReduce(e) {
		return l.rowScalar(e) // sum, log_sum_exp of a row (looprows.go)
	}
	if f.Name == "rep" || f.Name == "rep_matrix" {
		return l.rep(e, pos)
	}
	if f.Shape == stdlib.Sized || f.Shape == stdlib.SizedRow {
		return l.sized(e, f, pos)
	}
	if f.Name == "hypergeometric_pFq" || f.Name == "hypergeometric_3F2" {
		return l.pfq(e, f.Name, pos)
	}
	if f.Shape == stdlib.Interp {
		return l.interp(e, pos)
	}
	if v, ok := l.csrCall(e, f.Name, pos); ok {
		return v
	}
	if v, ok := l.matCall(e, f.Name, pos); ok {
		return v
	}
	if v, ok := l.vecCall(e, f.Name, pos); ok {
		return v
	}
	if v, ok := l.gpCall(e, f, pos); ok {
		return v
	}
	args := make([]autodiff.ID, len(e.Args))
	for i, a := range e.Args {
		args[i] = l.node(l.expr(a), a.Pos())
	}
	return l.apply(e, f, args, pos)
}

// toInt is to_int(x) (e) of data x, whose truncation is id: its ints,
// or an error at x where an element is NaN or past 2^53 in magnitude.
func (l *lowerer) toInt(e *ast.CallExpr, id autodiff.ID) value {
	vals, ok := l.b.Known(id)
	if !ok {
		l.errorf(e.Args[0].Pos(), "compile: to_int's argument is not known when compiling")
		return value{}
	}
	for k, x := range vals {
		if math.IsNaN(x) || math.Abs(x) > check.MaxInt {
			what := ast.FormatExpr(e.Args[0])
			if s := l.b.Shape(id); !s.IsScalar() && l.vec == nil {
				what = elemText(what, dimsOf(s), k)
			}
			l.rowErrorf(k, e.Args[0].Pos(), "to_int: `%s` is %g, which is no int (an int holds at most 2^53 in magnitude)", what, x)
			return value{}
		}
	}
	return l.knownInts(e, value{id: id, node: true})
}

// apply lowers call e of built-in f on its lowered arguments.
func (l *lowerer) apply(e *ast.CallExpr, f *stdlib.Func, args []autodiff.ID, pos ast.Pos) value {
	b := l.b
	var id autodiff.ID
	if f.Name == "to_int" {
		return l.toInt(e, b.Unary(autodiff.OpTrunc, args[0], pos))
	}
	if op, ok := unaryOps[f.Name]; ok {
		return l.knownInts(e, value{id: b.Unary(op, args[0], pos), node: true})
	}
	if op, ok := binaryOps[f.Name]; ok {
		return l.knownInts(e, value{id: b.Binary(op, args[0], args[1], pos), node: true})
	}
	switch f.Name {
	case "exp":
		id = b.Exp(args[0], pos)
	case "log":
		id = b.Log(args[0], pos)
	case "log1p":
		id = b.Log1p(args[0], pos)
	case "expm1":
		id = b.Expm1(args[0], pos)
	case "log1mexp":
		id = b.Log1mexp(args[0], pos)
	case "lgamma":
		id = b.Lgamma(args[0], pos)
	case "digamma":
		id = b.Digamma(args[0], pos)
	case "softplus":
		id = b.Softplus(args[0], pos)
	case "sqrt":
		id = b.Sqrt(args[0], pos)
	case "square":
		id = b.Square(args[0], pos)
	case "abs":
		id = b.Abs(args[0], pos)
	case "inv_logit":
		id = b.InvLogit(args[0], pos)
	case "logit": // log(p) - log(1 - p)
		id = b.Sub(b.Log(args[0], pos), b.Log1p(b.Neg(args[0], pos), pos), pos)
	case "log_inv_logit": // -softplus(-x): exact negations around softplus
		id = b.Neg(b.Softplus(b.Neg(args[0], pos), pos), pos)
	case "log1m_inv_logit": // -softplus(x)
		id = b.Neg(b.Softplus(args[0], pos), pos)
	case "inv":
		id = b.Div(b.Scalar(1, pos), args[0], pos)
	case "inv_sqrt":
		id = b.Div(b.Scalar(1, pos), b.Sqrt(args[0], pos), pos)
	case "inv_square":
		id = b.Div(b.Scalar(1, pos), b.Square(args[0], pos), pos)
	case "fmin":
		id = b.Binary(autodiff.OpFmin, args[0], args[1], pos)
	case "fmax":
		id = b.Binary(autodiff.OpFmax, args[0], args[1], pos)
	case "lbeta":
		id = b.Binary(autodiff.OpLbeta, args[0], args[1], pos)
	case "lchoose": // -log1p(n) - lbeta(n - k + 1, k + 1), as Stan
		n, k, one := args[0], args[1], b.Scalar(1, pos)
		lb := b.Binary(autodiff.OpLbeta, b.Add(b.Sub(n, k, pos), one, pos), b.Add(k, one, pos), pos)
		id = b.Sub(b.Neg(b.Log1p(n, pos), pos), lb, pos)
	case "log_mix": // log(theta e^lp1 + (1 - theta) e^lp2), as Stan, lp2 at theta = 0 and lp1 at 1
		id = b.LogPDF(dist.LogMixFn, args[0], args[1:], pos)
	case "pow":
		id = b.Pow(args[0], args[1], pos)
	case "sum":
		id = b.Sum(args[0], pos)
	case "mean":
		id = b.Mean(args[0], pos)
	case "logsumexp", "log_sum_exp":
		if len(args) == 2 { // Stan's elementwise log_sum_exp(a, b)
			id = b.Binary(autodiff.OpLogAddExp, args[0], args[1], pos)
			break
		}
		id = b.LogSumExp(args[0], pos)
	case "rows_dot_product":
		id = b.RowSum(b.Mul(args[0], args[1], pos), pos)
	case "columns_dot_product":
		id = b.ColSum(b.Mul(args[0], args[1], pos), pos)
	case "prod":
		id = b.Prod(args[0], pos)
	case "inc_beta": // a node of I_x(a, b) per element, laid out as a density's: its three arguments broadcast
		id = b.LogPDF(dist.IncBetaFn, args[2], args[:2], pos)
	case "inv_inc_beta":
		id = b.LogPDF(dist.InvIncBetaFn, args[2], args[:2], pos)
	case "hypergeometric_2F1": // as inc_beta: a node per element, z the value
		id = b.LogPDF(dist.Hyp2F1Fn, args[3], args[:3], pos)
	case "fma": // x * y + z: two roundings on the tape
		id = b.Add(b.Mul(args[0], args[1], pos), args[2], pos)
	case "max":
		id = b.Max(args[0], pos)
	case "min":
		id = b.Min(args[0], pos)
	case "rowlogsumexp":
		id = b.RowLogSumExp(args[0], pos)
	case "rowsum":
		id = b.RowSum(args[0], pos)
	case "colsum":
		id = b.ColSum(args[0], pos)
	case "rowmean":
		id = b.RowMean(args[0], pos)
	case "colmean":
		id = b.ColMean(args[0], pos)
	case "cumsum":
		id = b.RowCumSum(args[0], pos) // a vector's, or along each row of a matrix
	case "ar_filter":
		if sp, se := b.Shape(args[0]), b.Shape(args[1]); sp.Rank == 1 && se.Rank > 0 && sp.Rows >= 2 && sp.Rows >= se.Rows {
			l.errorf(e.Args[0].Pos(), "%s", stdlib.FilterPhiTooLong(ast.FormatExpr(e.Args[0]), fmt.Sprint(sp.Rows), fmt.Sprint(se.Rows)))
			return value{}
		}
		id = b.ARFilter(args[0], args[1], pos)
	case "tv_filter":
		id = b.TVFilter(args[0], args[1], pos)
	case "renewal":
		id = b.Renewal(args[0], args[1], args[2], pos)
	case "hmm_marginal", "hmm_hidden_state_prob", "hmm_viterbi":
		lo := args[0]
		if s := b.Shape(lo); s.Rank == 1 { // one state's column (check.hmmShape)
			lo = b.Reshape(lo, autodiff.Matrix(s.Rows, 1), pos)
		}
		switch f.Name {
		case "hmm_marginal":
			id = b.HMMMarginal(lo, args[1], args[2], pos)
		case "hmm_viterbi":
			id = b.HMMViterbi(lo, args[1], args[2], pos)
		default:
			id = b.HMMStateProb(lo, args[1], args[2], pos)
		}
	case "hmm_latent_rng":
		lo := args[0]
		if s := b.Shape(lo); s.Rank == 1 {
			lo = b.Reshape(lo, autodiff.Matrix(s.Rows, 1), pos)
		}
		id = b.RandHMMLatent(lo, args[1], args[2], pos)
	case "variance", "sd":
		// Σ (x − mean)² / (n − 1), from the deviations: no cancellation;
		// sd its square root, as Stan's
		n := b.Shape(args[0]).Len()
		if n < 2 {
			id = b.Scalar(0, pos) // Stan's value for one element
			break
		}
		d := b.Sub(args[0], b.Mean(args[0], pos), pos)
		id = b.Div(b.Sum(b.Square(d, pos), pos), b.Scalar(float64(n-1), pos), pos)
		if f.Name == "sd" {
			id = b.Sqrt(id, pos)
		}
	case "diag":
		id = b.Diag(args[0], pos)
	case "chol":
		id = b.Chol(args[0], pos)
	case "logdet":
		id = b.LogDet(args[0], pos)
	case "solve":
		id = b.Solve(args[0], args[1], pos)
	case "inverse_spd": // solve(A, I): the Cholesky factor's solve and its gradient
		id = b.Solve(args[0], b.Identity(b.Shape(args[0]).Rows, pos), pos)
	case "inverse":
		id = b.LU(autodiff.OpInverse, args[0], pos)
	case "determinant":
		id = b.LU(autodiff.OpDeterminant, args[0], pos)
	case "log_determinant":
		id = b.LU(autodiff.OpLogAbsDet, args[0], pos)
	case "mdivide_left_tri_low":
		id = b.TriSolve(args[0], args[1], pos)
	case "mdivide_right_tri_low":
		id = b.TriSolveRight(args[0], args[1], pos)
	case "matrix_exp":
		id = b.MatrixExp(args[0], pos)
	case "matrix_exp_multiply":
		id = b.MatMul(b.MatrixExp(args[0], pos), args[1], pos)
	case "scale_matrix_exp_multiply": // t may be a param: exp(t A) of the scaled matrix
		id = b.MatMul(b.MatrixExp(b.Mul(args[0], args[1], pos), pos), args[2], pos)
	case "eigenvalues_sym":
		id = b.EigenSym(autodiff.OpEigvalsSym, args[0], pos)
	case "eigenvectors_sym":
		id = b.EigenSym(autodiff.OpEigvecsSym, args[0], pos)
	case "singular_values":
		id = b.SingularValues(args[0], pos)
	case "sort_asc", "sort_desc":
		id = b.Sort(args[0], f.Name == "sort_desc", pos)
	case "qr_thin_Q", "qr_thin_R", "qr_Q", "qr_R":
		id = b.QR(qrForms[f.Name], args[0], pos)
	case "svd_U", "svd_V":
		id = b.SVDVectors(f.Name == "svd_V", args[0], pos)
	case "chol2inv":
		id = b.Chol2Inv(args[0], pos)
	case "generalized_inverse":
		id = generalizedInverse(b, args[0], pos)
	case "symmetrize_from_lower_tri":
		id = symmetrizeLower(b, args[0], pos)
	case "trace_gen_quad_form": // trace(D B' A B)
		d, a, bm := args[0], args[1], args[2]
		id = b.Trace(b.MatMul(d, b.MatMul(b.Transpose(bm, pos), b.MatMul(a, bm, pos), pos), pos), pos)
	case "rows_dot_self":
		id = b.RowSum(b.Square(args[0], pos), pos)
	case "columns_dot_self":
		id = b.ColSum(b.Square(args[0], pos), pos)
	case "trace":
		id = b.Trace(args[0], pos)
	case "outer":
		id = b.Outer(args[0], args[1], pos)
	case "diag_pre_multiply": // v [n] is a column: it scales the rows of M
		id = b.Mul(args[0], args[1], pos)
	case "diag_post_multiply": // v' [1, m] scales the columns of M
		id = b.Mul(args[0], b.Transpose(args[1], pos), pos)
	case "quad_form_diag": // v [n] scales the rows of M, v' [1, n] its columns
		id = b.Mul(b.Mul(args[1], args[0], pos), b.Transpose(args[1], pos), pos)
	default:
		l.errorf(pos, "compile: built-in %s is not implemented", f.Name)
		return value{}
	}
	return l.knownInts(e, value{id: id, node: true})
}

// unaryOps are the built-ins that are one elementwise op of the tape.
var unaryOps = map[string]autodiff.Op{
	"log1m":       autodiff.OpLog1m,
	"inv_cloglog": autodiff.OpInvCloglog,
	"Phi":         autodiff.OpPhi,
	"Phi_approx":  autodiff.OpPhiApprox,
	"inv_Phi":     autodiff.OpInvPhi,
	"tanh":        autodiff.OpTanh,
	"sin":         autodiff.OpSin,
	"cos":         autodiff.OpCos,
	"atan":        autodiff.OpAtan,
	"tan":         autodiff.OpTan,
	"asin":        autodiff.OpAsin,
	"acos":        autodiff.OpAcos,
	"sinh":        autodiff.OpSinh,
	"cosh":        autodiff.OpCosh,
	"asinh":       autodiff.OpAsinh,
	"acosh":       autodiff.OpAcosh,
	"atanh":       autodiff.OpAtanh,
	"erf":         autodiff.OpErf,
	"erfc":        autodiff.OpErfc,
	"exp2":        autodiff.OpExp2,
	"log2":        autodiff.OpLog2, // log2(x); log2() is a constant
	"log10":       autodiff.OpLog10,
	"cbrt":        autodiff.OpCbrt,
	"trigamma":    autodiff.OpTrigamma,
	"tgamma":      autodiff.OpTgamma,
	"floor":       autodiff.OpFloor,
	"ceil":        autodiff.OpCeil,
	"round":       autodiff.OpRound,
	"trunc":       autodiff.OpTrunc,
	"lambert_w0":  autodiff.OpLambertW0,
	"lambert_wm1": autodiff.OpLambertWm1,
}

// binaryOps are the built-ins that are one elementwise binary op of the
// tape, with broadcasting.
var binaryOps = map[string]autodiff.Op{
	"log_diff_exp":                   autodiff.OpLogDiffExp,
	"hypot":                          autodiff.OpHypot,
	"atan2":                          autodiff.OpAtan2,
	"lmultiply":                      autodiff.OpLmultiply,
	"binary_log_loss":                autodiff.OpBinaryLogLoss,
	"log_inv_logit_diff":             autodiff.OpLogInvLogitDiff,
	"log_falling_factorial":          autodiff.OpLogFallingFactorial,
	"gamma_p":                        autodiff.OpGammaP,
	"gamma_q":                        autodiff.OpGammaQ,
	"log_modified_bessel_first_kind": autodiff.OpLogBesselI,
	"modified_bessel_first_kind":     autodiff.OpBesselI,
	"bessel_first_kind":              autodiff.OpBesselJ,
	"bessel_second_kind":             autodiff.OpBesselY,
	"modified_bessel_second_kind":    autodiff.OpBesselK,
	"owens_t":                        autodiff.OpOwensT,
	"log_rising_factorial":           autodiff.OpLogRisingFactorial,
	"rising_factorial":               autodiff.OpRisingFactorial,
	"falling_factorial":              autodiff.OpFallingFactorial,
	"fmod":                           autodiff.OpFmod,
	"ldexp":                          autodiff.OpLdexp,
	"lmgamma":                        autodiff.OpLmgamma,
}

// inline lowers a call of a user function, expanded by the checker: each
// argument (and local let) once, bound to its hidden let, then the body.
// Errors in the body's lets and expression name the call.
func (l *lowerer) inline(in *check.Inline) value {
	nargs := len(in.Fn.Params)
	for _, b := range in.Binds[:nargs] {
		l.env[b.Sym] = l.expr(b.Value)
	}
	nerr := len(l.errs)
	ctx := fmt.Sprintf(" (in the call of %s at %s)", in.Fn.Name.Name, in.Call.Fun.NamePos)
	done := l.b.InFnBody(ctx) // for the fit's and the builder's errors in the body
	for _, b := range in.Binds[nargs:] {
		l.env[b.Sym] = l.expr(b.Value)
	}
	v := l.expr(in.Body)
	done()
	for _, err := range l.errs[nerr:] {
		err.Msg += ctx
	}
	return v
}

// userDensity adds the term of a ~ (or a prior) whose family is a user
// density: the sum of the call NAME_lpdf(value, args...) the checker built.
func (l *lowerer) userDensity(call *ast.CallExpr, pos ast.Pos) {
	v := l.node(l.expr(call), call.Pos())
	if !l.b.Shape(v).IsScalar() {
		v = l.b.Sum(v, pos)
	}
	l.add(v, pos)
}

// knownInts gives v, lowered from e, its ints when the checker typed e an
// int of data and constants alone (sum(k), max(k), k + 1 for int data k),
// so that it can index, bound a slice or a loop, as Stan allows: its node
// is evaluated now. A value the node cannot give now (or a non-integer,
// which an int type rules out) is left as it is.
func (l *lowerer) knownInts(e ast.Expr, v value) value {
	t, ok := l.info.Types[e]
	if !ok || t.Elem != check.Int || !t.DataOnly || v.isInt || !v.node {
		return v
	}
	vals, ok := l.b.Known(v.id)
	if !ok {
		return v
	}
	ints := make([]int, len(vals))
	for i, x := range vals {
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return v
		}
		ints[i] = int(x)
	}
	v.ints, v.shape, v.isInt = ints, dimsOf(l.b.Shape(v.id)), true
	return v
}
