package autodiff

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// This file builds the error messages of a failed pass. It runs only on the
// error path, so it may allocate and recompute.

// msg formats "head (part, part, ...)", dropping empty parts.
func msg(head string, parts ...string) string {
	var keep []string
	for _, s := range parts {
		if s != "" {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 {
		return head
	}
	return head + " (" + strings.Join(keep, ", ") + ")"
}

// elemPart returns "element [i, j]" for element k of shape s, or "".
func elemPart(s Shape, k int) string {
	if e := s.elem(k); e != "" {
		return "element " + e
	}
	return ""
}

// elemPart is elemPart for an element of node n: "" for a loop's rows
// (Builder.InLoop).
func (n *node) elemPart(s Shape, k int) string {
	if n.rows {
		return ""
	}
	return elemPart(s, k)
}

// kind names a non-finite value.
func kind(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case v > 0:
		return "+Inf"
	}
	return "-Inf"
}

func g(v float64) string { return fmt.Sprintf("%g", v) }

// operandAt returns the value of operand a of an elementwise node n at
// output element k.
func (p *Program) operandAt(n *node, a, k int) float64 {
	i, j := k/max(n.gc, 1), k%max(n.gc, 1)
	o := p.arg(n, a)
	return p.val[o.off+i*n.bc[2*a]+j*n.bc[2*a+1]]
}

// nodeError is forwardError with node i's call context, if it has one.
func (p *Program) nodeError(i int32, ok bool) error {
	return p.inCall(i, p.forwardError(i, ok))
}

// inCall appends node i's call context (Builder.InCall) to err's message.
func (p *Program) inCall(i int32, err error) error {
	if c := p.ctxOf[i]; c != "" {
		if e, ok := err.(*ast.Error); ok {
			e.Msg += c
		}
	}
	return err
}

// forwardError describes the failure of node i: either eval reported one
// (ok false), or its value has a NaN or an infinity.
func (p *Program) forwardError(i int32, ok bool) error {
	n := &p.nodes[i]
	name := n.op.String()
	if !ok {
		switch n.op {
		case OpChol, OpGaussRowsSS:
			what := "chol: matrix" // logdet and solve go through chol
			if n.op == OpGaussRowsSS {
				what = "MvNormalRows: covariance matrix"
			}
			if p.fail < 0 { // asymmetric's pair, as −(i·d + j + 1)
				a := p.arg(n, 0)
				d := a.shape.Rows
				i, j := (-p.fail-1)/d, (-p.fail-1)%d
				v := p.v(a)
				return ast.Errorf(n.pos, "%s is not symmetric: element [%d, %d] is %g, [%d, %d] is %g", what, i, j, v[i*d+j], j, i, v[j*d+i])
			}
			return ast.Errorf(n.pos, "%s is not positive definite (leading minor %d)", what, p.fail)
		case OpInverse, OpLogAbsDet:
			return ast.Errorf(n.pos, "%s: matrix is singular (no pivot in column %d of its LU factorisation)", name, p.fail-1)
		case OpGaussRowsLR:
			return p.lrError(n)
		case OpCategorical:
			return p.categoricalError(n, false)
		case OpMultinomial:
			return p.multinomialError(n, false)
		case OpOrderedLogistic:
			return p.orderedError(n, false)
		case OpLKJCorrChol:
			return p.lkjError(n)
		case OpMvNormalChol:
			return p.mvCholError(n)
		case OpWishart:
			return p.wishartError(n)
		}
		return ast.Errorf(n.pos, "%s: evaluation failed", name)
	}
	z := p.v(n)
	k := firstBad(z)
	el := n.elemPart(n.shape, k)
	bad := kind(z[k])
	switch op := n.op; {
	case op == OpInput:
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("input %s: value is %s", n.name, bad), el))
	case op == OpConst:
		return ast.Errorf(n.pos, "%s", msg("constant: value is "+bad, el))
	case op == OpDensity || op == OpLogPDF:
		return p.densityError(n)
	case op == OpRand:
		return p.randError(n, k, el)
	case op == OpCategorical:
		return p.categoricalError(n, true)
	case op == OpMultinomial:
		return p.multinomialError(n, true)
	case op == OpOrderedLogistic:
		return p.orderedError(n, true)
	case op == OpLKJCorrChol:
		return p.lkjError(n)
	case op == OpMvNormalChol:
		return p.mvCholError(n)
	case op == OpWishart:
		return p.wishartError(n)
	case op == OpRowSumProd && n.sumOf > 0:
		return p.sumRowSumProdError(n, bad)
	case op == OpRowSumProd:
		return p.rowSumProdError(n, k, bad)
	case op.isUnary():
		return ast.Errorf(n.pos, "%s", unaryMessage(op, p.v(p.arg(n, 0))[k], bad, el))
	case op.isBinary():
		x, y := p.operandAt(n, 0, k), p.operandAt(n, 1, k)
		return ast.Errorf(n.pos, "%s", binaryMessage(op, x, y, bad, el))
	}
	return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: result is %s", name, bad), el))
}

func unaryMessage(op Op, x float64, bad, el string) string {
	name := op.String()
	switch {
	case (op == OpLog || op == OpSqrt || op == OpLog1mexp) && x < 0:
		return msg(fmt.Sprintf("%s: argument %g < 0", name, x), el)
	case op == OpLog1p && x < -1:
		return msg(fmt.Sprintf("log1p: argument %g < -1", x), el)
	case (op == OpLog || op == OpLog1mexp) && x == 0, op == OpLog1p && x == -1:
		return msg(fmt.Sprintf("%s: argument %g gives -Inf", name, x), el)
	case (op == OpLgamma || op == OpDigamma || op == OpTrigamma || op == OpTgamma) && x <= 0 && x == math.Floor(x):
		return msg(fmt.Sprintf("%s: argument %g is a pole", name, x), el)
	case op == OpLog1m && x > 1:
		return msg(fmt.Sprintf("log1m: argument %g > 1", x), el)
	case op == OpLog1m && x == 1, op == OpInvPhi && (x == 0 || x == 1):
		return msg(fmt.Sprintf("%s: argument %g gives %s", name, x, bad), el)
	case op == OpInvPhi && !(x > 0 && x < 1):
		return msg(fmt.Sprintf("inv_Phi: argument %g is outside [0, 1]", x), el)
	case (op == OpAsin || op == OpAcos || op == OpAtanh) && !(x >= -1 && x <= 1):
		return msg(fmt.Sprintf("%s: argument %g is outside [-1, 1]", name, x), el)
	case op == OpAtanh && (x == 1 || x == -1):
		return msg(fmt.Sprintf("atanh: argument %g gives %s", x, bad), el)
	case op == OpAcosh && x < 1:
		return msg(fmt.Sprintf("acosh: argument %g < 1", x), el)
	case (op == OpLog2 || op == OpLog10) && x < 0:
		return msg(fmt.Sprintf("%s: argument %g < 0", name, x), el)
	case (op == OpLog2 || op == OpLog10) && x == 0:
		return msg(fmt.Sprintf("%s: argument 0 gives -Inf", name), el)
	}
	return msg(fmt.Sprintf("%s: result is %s", name, bad), "argument "+g(x), el)
}

func binaryMessage(op Op, x, y float64, bad, el string) string {
	switch {
	case op == OpDiv && y == 0:
		return msg(fmt.Sprintf("div: division by zero (%g / 0)", x), el)
	case op == OpPow && x < 0 && y != math.Trunc(y):
		return msg(fmt.Sprintf("pow: negative base %g with non-integer exponent %g", x, y), el)
	case op == OpPow && x == 0 && y < 0:
		return msg(fmt.Sprintf("pow: 0 to the negative power %g", y), el)
	case op == OpLbeta && !(x > 0 && y > 0):
		return msg(fmt.Sprintf("lbeta: arguments %g and %g must be > 0", x, y), el)
	case op == OpLogDiffExp && x < y:
		return msg(fmt.Sprintf("log_diff_exp: argument 1 (%g) < argument 2 (%g): the difference would be negative", x, y), el)
	case op == OpLogDiffExp && x == y:
		return msg(fmt.Sprintf("log_diff_exp: equal arguments (%g) give -Inf, the log of 0", x), el)
	case op == OpLogInvLogitDiff && x < y:
		return msg(fmt.Sprintf("log_inv_logit_diff: argument 1 (%g) < argument 2 (%g): the difference would be negative", x, y), el)
	case op == OpLogInvLogitDiff && x == y:
		return msg(fmt.Sprintf("log_inv_logit_diff: equal arguments (%g) give -Inf, the log of 0", x), el)
	case op == OpLogFallingFactorial && !(x-y+1 > 0 && y > -1):
		return msg(fmt.Sprintf("log_falling_factorial: arguments %g and %g need x - n + 1 > 0 and n > -1", x, y), el)
	case op == OpLmultiply && y < 0:
		return msg(fmt.Sprintf("lmultiply: argument 2 (%g) < 0", y), el)
	case op == OpLmultiply && y == 0:
		return msg(fmt.Sprintf("lmultiply: argument 2 is 0 with argument 1 %g: gives %s (only 0 log 0 is 0)", x, bad), el)
	case op == OpBinaryLogLoss && !(y >= 0 && y <= 1):
		return msg(fmt.Sprintf("binary_log_loss: argument 2 (%g) is outside [0, 1]", y), el)
	case op == OpBinaryLogLoss:
		return msg(fmt.Sprintf("binary_log_loss: argument 2 (%g) gives +Inf for outcome %g", y, x), el)
	}
	return msg(fmt.Sprintf("%s: result is %s", op, bad), "arguments "+g(x)+" and "+g(y), el)
}

// densityError finds the first element whose log density is not finite and
// explains it: an argument outside its support, or a value outside the
// support of the distribution.
func (p *Program) densityError(n *node) error {
	d := n.dist
	na := len(n.args) - 1
	par, dpar := make([]float64, na), make([]float64, na)
	bc := n.bc
	out := Shape{Rank: 2, Rows: n.gr, Cols: n.gc}
	// The broadcast shape of the operands, for the element index.
	shapes := make([]Shape, len(n.args))
	for a := range n.args {
		shapes[a] = p.arg(n, a).shape
	}
	if s, ok := broadcast(shapes...); ok {
		out = s
	}
	k := 0
	for i := 0; i < n.gr; i++ {
		for j := 0; j < n.gc; j++ {
			for a := range par {
				q := bc[3+3*a:]
				par[a] = p.val[q[0]+i*q[1]+j*q[2]]
			}
			x := p.val[bc[0]+i*bc[1]+j*bc[2]]
			lp, _ := d.Kernel(x, par, dpar)
			if !math.IsNaN(lp) && !math.IsInf(lp, 0) {
				k++
				continue
			}
			el := n.elemPart(out, k)
			for a, v := range par {
				if a < len(d.Params) {
					if need, ok := d.Params[a].Support.Admits(v); !ok {
						return ast.Errorf(n.pos, "%s: %s must be %s (got %g%s)", d.Name, paramName(d, a), need, v, withComma(el))
					}
				}
			}
			// A value read from a data file is named at its cell, which
			// counts rows from 1 where the element index counts from 0.
			cell := ""
			if src, at, ok := p.cellOf(n.args[0], i*bc[1]+j*bc[2]); ok {
				cell = fmt.Sprintf("; the value is %s's at %s", src.name, at)
			}
			if math.IsInf(lp, -1) {
				if _, ok := d.Support.Admits(x); !ok {
					return ast.Errorf(n.pos, "%s%s", msg(fmt.Sprintf("%s is -Inf: value %g outside the support of %s", quantity(d), x, d.Name), el), cell)
				}
			}
			return ast.Errorf(n.pos, "%s%s", msg(fmt.Sprintf("%s: %s is %s at value %g", d.Name, quantity(d), kind(lp), x), paramList(d, par), el), cell)
		}
	}
	if d.LogProb {
		return ast.Errorf(n.pos, "%s: sum of log probabilities overflows", d.Name)
	}
	return ast.Errorf(n.pos, "%s: sum of log densities overflows", d.Name)
}

// quantity names what d's kernel computes: a log density, or the log
// probability of logcdf and logccdf.
func quantity(d *dist.Univariate) string {
	if d.LogProb {
		return "log probability"
	}
	return "log density"
}

func withComma(s string) string {
	if s == "" {
		return ""
	}
	return ", " + s
}

func paramList(d *dist.Univariate, par []float64) string {
	var parts []string
	for a, v := range par {
		parts = append(parts, fmt.Sprintf("%s %g", paramName(d, a), v))
	}
	return strings.Join(parts, ", ")
}

// lastBad returns the index of the last NaN or infinity in v, or −1.
func lastBad(v []float64) int {
	for k := len(v) - 1; k >= 0; k-- {
		if math.IsNaN(v[k]) || math.IsInf(v[k], 0) {
			return k
		}
	}
	return -1
}

// backwardError reruns the reverse sweep checking every adjoint a node
// writes, and blames the first node whose contribution is not finite.
func (p *Program) backwardError() error {
	p.seed()
	for k := len(p.order) - 1; k >= 0; k-- {
		i := p.order[k]
		n := &p.nodes[i]
		if !n.joint {
			continue
		}
		p.grad(n)
		for a := range n.args {
			o := p.arg(n, a)
			if o.aoff < 0 {
				continue
			}
			ga := p.a(o)
			if e := firstBad(ga); e >= 0 {
				if n.rows {
					// A loop's rows: the unrolled loop's reverse sweep
					// met the last failing iteration first.
					e = lastBad(ga)
				}
				pos := n.pos
				if n.sumOf > 0 {
					pos = p.nodes[n.sumOf-1].pos // the rowsum's, as unfused
				}
				return p.inCall(i, ast.Errorf(pos, "%s", msg(
					fmt.Sprintf("%s: gradient is %s with respect to %s", p.label(n), kind(ga[e]), p.operandName(n, a)),
					"value "+g(p.v(o)[e]), n.elemPart(o.shape, e))))
			}
		}
	}
	r := &p.nodes[p.root]
	return ast.Errorf(r.pos, "gradient is not finite")
}

// label names a node's op in messages: the distribution for a density.
func (p *Program) label(n *node) string {
	if n.op == OpDensity || n.op == OpLogPDF {
		return n.dist.Name
	}
	if n.op == OpCategorical {
		return categoricalName(n.i0 == 1)
	}
	if n.op == OpMultinomial {
		return multinomialName(n.i0 == 1)
	}
	if n.op == OpOrderedLogistic {
		return orderedName(n.i0 == 1)
	}
	if n.op == OpWishart {
		return wishartForm(n.i0).Name()
	}
	return n.op.String()
}

func (p *Program) operandName(n *node, a int) string {
	if n.op == OpDensity || n.op == OpLogPDF {
		if a == 0 {
			return "the value"
		}
		return paramName(n.dist, a-1)
	}
	if n.op == OpOrderedLogistic && a > 0 {
		return [...]string{"", "eta", "the cutpoints"}[a]
	}
	if n.op == OpMvNormalChol {
		return [...]string{"the value", "mu", "L"}[a]
	}
	if n.op == OpWishart {
		if a == 2 && n.i0&wishartSFull == 0 {
			return "L_S"
		}
		return [...]string{"the value", "nu", "S"}[a]
	}
	if (n.op == OpCategorical || n.op == OpMultinomial) && a == 1 {
		if n.i0 == 1 {
			return "eta"
		}
		return "theta"
	}
	return fmt.Sprintf("argument %d", a+1)
}
