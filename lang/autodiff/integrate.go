package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
)

// One-dimensional integrals, OpIntegrate (Stan's integrate_1d). The node
// holds I = ∫_a^b f(x, xc, args...) dx, a scalar. f is an Integrand: a
// small Program of its own, compiled from the user function's body, whose
// inputs are x, xc and the arguments the op passes on from the tape.
//
// The quadrature is double exponential, as Boost's (which Stan calls):
// tanh-sinh on a finite interval, exp-sinh on a half-infinite one and
// sinh-sinh on the whole line. An interval that crosses 0 is split there
// into two pieces, each converged to the relative tolerance on its own, as
// Stan does. On a piece the substitution x = φ(t) makes the integrand decay
// double exponentially in t, and the trapezoidal rule of step h in t is
// refined level by level (h halved, the new nodes the odd multiples of it)
// until two successive estimates differ by at most rel_tol times the
// estimate of ∫|f| (Boost's criterion), from level integMinLevel on and at
// most integMaxLevel. The range of t is cut where the terms become
// negligible: walking out from t = 0 at the first level's step, a side
// stops after two successive terms below integNegligible times the sum of
// |terms| so far, or at the end of the type's range.
//
// xc, Stan's complement, is the distance from x to the nearer bound of a
// finite piece, signed as Stan's: b − x near b (≥ 0) and a − x near a
// (≤ 0). Near a bound the node is computed as that distance (never as a
// difference of two nearly equal numbers), so an integrand written in xc
// keeps its digits there: on [0, 1], (1 − x)^(β−1) is pow(xc, β − 1) for
// x > 1/2. On a piece with an infinite bound xc is NaN (Stan's), and the
// compiler refuses an integrand that reads it there.
//
// Gradients: ∂I/∂θ = ∫ ∂f/∂θ dx for the arguments that depend on an input,
// summed with the same nodes and weights as I, each converged to the same
// relative tolerance (of its own ∫|∂f/∂θ|); each node costs one forward
// and one reverse sweep of f's program, which gives every partial at once.
// A finite bound that depends on an input has ∂I/∂b = f(b) and ∂I/∂a =
// −f(a), f there evaluated with xc = 0. All are computed with the value and
// kept for the reverse pass. A non-finite f or partial at a node, a domain
// error in f's body and a piece that does not converge stop the evaluation
// with an error that names the call and x. Everything is allocated when the
// program is finished (integRun): an evaluation allocates nothing.

// IntegRelTol is integrate_1d's default relative tolerance, Stan's:
// the square root of the machine epsilon.
var IntegRelTol = math.Sqrt(0x1p-52)

// The refinement levels: the first level's step in t, the level from which
// convergence is tested and the last (2·t_max·2^level/integH0 nodes).
const (
	integH0         = 0.5
	integMinLevel   = 3
	integMaxLevel   = 10
	integNegligible = 1e-20
)

// The ranges of t of the three rules: tanh-sinh's keeps the distance to a
// bound above ~1e-300 of the half width, exp-sinh's and sinh-sinh's keep
// |x| below ~1e200 (and exp-sinh's distance to its bound above ~1e-300).
const (
	tanhSinhTMax = 6.09
	expSinhTMin  = -6.78
	expSinhTMax  = 6.7
	sinhSinhTMax = 6.7
)

// Integrand is the integrand f(x, xc, args...) of a one-dimensional
// integral: a program whose first two inputs are the scalars x and xc and
// whose further inputs are the arguments passed on by the op, in order. It
// is read-only once finished: each program that evaluates an OpIntegrate
// node runs a clone of it.
type Integrand struct {
	subProgram      // f's value is a scalar (D = 1)
	readXC     bool // f's value reads xc
}

// FinishIntegrand completes b, whose first inputs are the scalars x and xc,
// then those of the arguments, as an integrand: f must be a scalar.
func (b *Builder) FinishIntegrand(f ID, pos ast.Pos) (*Integrand, error) {
	if err := b.Err(); err != nil {
		return nil, err
	}
	ins := b.inputIndices()
	if len(ins) < 2 || !b.nodes[ins[0]].shape.IsScalar() || !b.nodes[ins[1]].shape.IsScalar() {
		panic("autodiff: FinishIntegrand needs the inputs x and xc (scalars) first")
	}
	fi := b.index(f)
	if s := b.nodes[fi].shape; s.Len() != 1 {
		return nil, ast.Errorf(pos, "the integrand returns %s; it must be a scalar", s)
	}
	s, err := b.finishSub(f, fi, ins, 2, 1, "integrand", pos)
	if err != nil {
		return nil, err
	}
	return &Integrand{subProgram: s, readXC: s.p.nodes[ins[1]].live}, nil
}

// ReadsXC reports whether the integrand's value depends on xc.
func (in *Integrand) ReadsXC() bool { return in.readXC }

// Limit is a bound of an integral: a scalar node of the tape (finite), or,
// when Inf is −1 or +1, −∞ or +∞ (X unused).
type Limit struct {
	X   ID
	Inf int
}

// integSpec is what an OpIntegrate node fixes when it is built.
type integSpec struct {
	f   *Integrand
	rel float64
	// lo and hi are the operand indices of finite bounds (−1: infinite,
	// with loInf, hiInf the infinities).
	lo, hi       int
	loInf, hiInf float64
	fn           string  // the user function's name, for errors
	pos          ast.Pos // the call's
}

// Integrate returns ∫_a^b f(x, xc, args...) dx, a scalar: a ≤ b, either
// bound finite (a scalar node) or infinite; rel is the relative tolerance
// (0: IntegRelTol). args are the tape's values of f's inputs after x and
// xc, in order and of the same shapes; fn names f in errors.
func (b *Builder) Integrate(f *Integrand, a, bd Limit, rel float64, args []ID, fn string, pos ast.Pos) ID {
	const name = "integrate_1d"
	var ids []ID
	spec := &integSpec{f: f, rel: rel, lo: -1, hi: -1, fn: fn, pos: pos}
	for k, l := range []Limit{a, bd} {
		switch {
		case l.Inf == 0:
			if k == 0 {
				spec.lo = len(ids)
			} else {
				spec.hi = len(ids)
			}
			ids = append(ids, l.X)
		case k == 0 && l.Inf < 0:
			spec.loInf = math.Inf(-1)
		case k == 1 && l.Inf > 0:
			spec.hiInf = math.Inf(1)
		default:
			return b.fail(pos, "%s: the %s bound is %s∞", name, [2]string{"lower", "upper"}[k], [2]string{"-", "+"}[max(l.Inf, 0)])
		}
	}
	nb := len(ids)
	ops, ok := b.operands(append(ids, args...)...)
	if !ok {
		return b.invalid(pos)
	}
	for k := range nb {
		if s := b.shapeOf(ops[k]); s.Len() != 1 {
			return b.fail(pos, "%s: a bound is %s; it must be a scalar", name, s)
		}
	}
	if id, ok := b.checkArgs(&f.subProgram, args, ops[nb:], name, pos); !ok {
		return id
	}
	if (spec.lo < 0 || spec.hi < 0) && f.readXC {
		return b.fail(pos, "%s: the integrand %s reads xc, which is NaN when a bound is infinite (as in Stan): write it in x alone", name, fn)
	}
	if spec.rel == 0 {
		spec.rel = IntegRelTol
	}
	if !(spec.rel > 0 && spec.rel < 1) {
		return b.fail(pos, "%s: relative_tolerance is %g; it must be in (0, 1)", name, spec.rel)
	}
	return b.push(node{op: OpIntegrate, args: ops, shape: Scalar(), pos: pos, integ: spec})
}

// integRun is one program's state for one OpIntegrate node: its clone of
// f's program and the sums, allocated once.
type integRun struct {
	spec *integSpec
	// f's program, latent vector (x, xc, args), gradient, and the
	// partials' count (np) and columns: those of each argument that
	// depends on an input (the bounds have none); err is why the last
	// evaluation failed.
	subRun
	// The current piece's sums at this level and the last: the value's
	// and the partials' (index 0 the value, then np), and of their
	// absolute values.
	sum, abs, prev []float64
	dfx            []float64 // the partials at one node: ∂f/∂args
	tot            []float64 // the integral and its partials over all pieces
	dlo, dhi       float64   // ∂I/∂a, ∂I/∂b
	evals          int       // of f, in all (for benchmarks)
}

func newIntegRun(spec *integSpec, n *node, nodes []node) *integRun {
	r := &integRun{spec: spec, subRun: newSubRun(&spec.f.subProgram, n, nodes, false)}
	r.seed[0] = 1
	m := 1 + r.np
	r.sum, r.abs, r.prev, r.tot = make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	r.dfx = make([]float64, m)
	return r
}

func (r *integRun) clone(n *node, nodes []node) *integRun { return newIntegRun(r.spec, n, nodes) }

// integRule is a substitution x = φ(t) of a piece.
type integRule int

const (
	ruleTanhSinh     integRule = iota // [lo, hi] finite
	ruleExpSinhRight                  // [lo, ∞)
	ruleExpSinhLeft                   // (−∞, hi]
	ruleSinhSinh                      // (−∞, ∞)
)

// integPiece is one piece of the integral and its rule.
type integPiece struct {
	rule   integRule
	lo, hi float64
}

// node returns the abscissa, complement (NaN on an infinite piece) and
// weight dx/dt of the node t of piece pc.
func (pc *integPiece) node(t float64) (x, xc, w float64) {
	const halfPi = math.Pi / 2
	switch pc.rule {
	case ruleTanhSinh:
		hw := (pc.hi - pc.lo) / 2
		s := halfPi * math.Sinh(t)
		e := math.Exp(-math.Abs(s))
		sech := 2 * e / (1 + e*e)
		d := hw * e * sech // hw·(1 − tanh|s|): the distance to the nearer bound
		w = hw * halfPi * math.Cosh(t) * sech * sech
		if t >= 0 {
			return pc.hi - d, d, w
		}
		return pc.lo + d, -d, w
	case ruleExpSinhRight, ruleExpSinhLeft:
		e := math.Exp(halfPi * math.Sinh(t))
		w = halfPi * math.Cosh(t) * e
		if pc.rule == ruleExpSinhRight {
			return pc.lo + e, math.NaN(), w
		}
		return pc.hi - e, math.NaN(), w
	default:
		s := halfPi * math.Sinh(t)
		return math.Sinh(s), math.NaN(), halfPi * math.Cosh(t) * math.Cosh(s)
	}
}

// tRange is the range of t of the piece's rule.
func (pc *integPiece) tRange() (float64, float64) {
	switch pc.rule {
	case ruleTanhSinh:
		return -tanhSinhTMax, tanhSinhTMax
	case ruleExpSinhRight, ruleExpSinhLeft:
		return expSinhTMin, expSinhTMax
	}
	return -sinhSinhTMax, sinhSinhTMax
}

// pieces splits [lo, hi] as Stan does: at 0 when it crosses 0 (a finite
// bound on each side, or one infinite bound and the other across 0).
func pieces(lo, hi float64, buf *[2]integPiece) []integPiece {
	loInf, hiInf := math.IsInf(lo, -1), math.IsInf(hi, 1)
	switch {
	case loInf && hiInf:
		buf[0] = integPiece{rule: ruleSinhSinh}
		return buf[:1]
	case loInf && hi <= 0:
		buf[0] = integPiece{rule: ruleExpSinhLeft, hi: hi}
		return buf[:1]
	case loInf:
		buf[0], buf[1] = integPiece{rule: ruleExpSinhLeft, hi: 0}, integPiece{rule: ruleTanhSinh, lo: 0, hi: hi}
		return buf[:2]
	case hiInf && lo >= 0:
		buf[0] = integPiece{rule: ruleExpSinhRight, lo: lo}
		return buf[:1]
	case hiInf:
		buf[0], buf[1] = integPiece{rule: ruleTanhSinh, lo: lo, hi: 0}, integPiece{rule: ruleExpSinhRight, lo: 0}
		return buf[:2]
	case lo < 0 && hi > 0:
		buf[0], buf[1] = integPiece{rule: ruleTanhSinh, lo: lo, hi: 0}, integPiece{rule: ruleTanhSinh, lo: 0, hi: hi}
		return buf[:2]
	}
	buf[0] = integPiece{rule: ruleTanhSinh, lo: lo, hi: hi}
	return buf[:1]
}

// eval evaluates f and, with partials, its gradient in the arguments at
// (x, xc) into r.dfx (index 0 f, then the partials).
func (r *integRun) eval(x, xc float64, partials bool) error {
	in := &r.spec.f.subProgram
	r.evals++
	r.x[0], r.x[1] = x, xc
	fv, err := r.forward(in)
	if err != nil {
		return err
	}
	r.dfx[0] = fv[0]
	if !partials || r.np == 0 {
		return nil
	}
	r.f.vjp(in.f, in.fpos, r.seed, r.g)
	r.argPartials(in, r.dfx[1:])
	if k := firstBad(r.dfx[1:]); k >= 0 {
		return fmt.Errorf("the integrand's derivative in its arguments is %s", kind(r.dfx[1+k]))
	}
	return nil
}

// add adds the terms of node t (unscaled by the step) to the sums and
// reports whether each is negligible: at most integNegligible of its sum
// of absolute values so far (and the value's sum not 0).
func (r *integRun) add(pc *integPiece, t float64) (bool, error) {
	x, xc, w := pc.node(t)
	if err := r.eval(x, xc, true); err != nil {
		return false, r.failAt(x, xc, err)
	}
	small := r.abs[0] > 0
	for k, v := range r.dfx {
		wv := math.Abs(w * v)
		r.sum[k] += w * v
		r.abs[k] += wv
		small = small && wv <= integNegligible*r.abs[k]
	}
	return small, nil
}

// piece integrates f over one piece into r.tot.
func (r *integRun) piece(pc *integPiece) error {
	clear(r.sum)
	clear(r.abs)
	tmin, tmax := pc.tRange()
	if _, err := r.add(pc, 0); err != nil {
		return err
	}
	// Walk out from 0 at the first level's step, each side to where the
	// terms become negligible.
	var ends [2]float64
	for side, dir := range [2]float64{1, -1} {
		small := 0
		k := 1
		for ; ; k++ {
			t := dir * float64(k) * integH0
			if t > tmax || t < tmin {
				k--
				break
			}
			negligible, err := r.add(pc, t)
			if err != nil {
				return err
			}
			if negligible {
				small++
				if small == 2 {
					break
				}
			} else {
				small = 0
			}
		}
		ends[side] = float64(k) * integH0
	}
	h := integH0
	for k := range r.sum {
		r.prev[k] = h * r.sum[k]
	}
	spec := r.spec
	for level := 1; ; level++ {
		h /= 2
		// The new nodes: the odd multiples of h inside the range.
		for side, dir := range [2]float64{1, -1} {
			for j := 1; float64(j)*h < ends[side]; j += 2 {
				if _, err := r.add(pc, dir*float64(j)*h); err != nil {
					return err
				}
			}
		}
		done := level >= integMinLevel
		worst, at := 0.0, 0 // the largest relative change, and whose
		for k, s := range r.sum {
			est := h * s
			diff := math.Abs(est - r.prev[k])
			if !(diff <= spec.rel*h*r.abs[k]) {
				done = false
				if q := diff / (h * r.abs[k]); !(q <= worst) {
					worst, at = q, k
				}
			}
			r.prev[k] = est
		}
		if done {
			break
		}
		if level == integMaxLevel {
			what := "value"
			if at > 0 {
				what = "derivative"
			}
			return fmt.Errorf("the integral over %s did not converge to relative_tolerance %.3g in %d levels (step %g in t): the %s's last two estimates differ by %.3g of ∫|f| (the integrand may be singular or oscillate inside the interval, or need a looser relative_tolerance)",
				pc.describe(), spec.rel, integMaxLevel, h, what, worst)
		}
	}
	for k, v := range r.prev {
		r.tot[k] += v
	}
	return nil
}

// describe writes the piece's interval for errors.
func (pc *integPiece) describe() string {
	switch pc.rule {
	case ruleSinhSinh:
		return "(-∞, ∞)"
	case ruleExpSinhRight:
		return fmt.Sprintf("[%g, ∞)", pc.lo)
	case ruleExpSinhLeft:
		return fmt.Sprintf("(-∞, %g]", pc.hi)
	}
	return fmt.Sprintf("[%g, %g]", pc.lo, pc.hi)
}

// failAt turns a failure of f at x into the op's error: f's own
// (positioned in its body) with x and the call appended.
func (r *integRun) failAt(x, xc float64, err error) error {
	where := fmt.Sprintf(" (in the integrand %s of integrate_1d at %s, at x = %.17g", r.spec.fn, r.spec.pos, x)
	if !math.IsNaN(xc) {
		where += fmt.Sprintf(", xc = %.17g", xc)
		if xc != 0 && x+xc == x {
			// x rounded to the bound: only xc says how far it is
			where += "; x has rounded to the bound: near it, write the integrand in xc, the distance to it"
		}
	}
	where += ")"
	return inBody(err, where, "integrate_1d", r.spec.pos)
}

// evalIntegrate is OpIntegrate's forward rule; false (with r.err) when
// the integral fails.
func (p *Program) evalIntegrate(n *node) bool {
	r := p.integs[n.i1]
	r.err = nil
	spec := r.spec
	r.setArgs(p, n, &spec.f.subProgram)
	lo, hi := spec.loInf, spec.hiInf
	if spec.lo >= 0 {
		lo = p.v(p.arg(n, spec.lo))[0]
	}
	if spec.hi >= 0 {
		hi = p.v(p.arg(n, spec.hi))[0]
	}
	clear(r.tot)
	r.dlo, r.dhi = 0, 0
	if !(lo <= hi) {
		r.err = ast.Errorf(n.pos, "integrate_1d: the lower bound a = %g is greater than the upper bound b = %g", lo, hi)
		return false
	}
	if lo < hi {
		var buf [2]integPiece
		for _, pc := range pieces(lo, hi, &buf) {
			if err := r.piece(&pc); err != nil {
				r.err = r.wrap(n, err)
				return false
			}
		}
	}
	// The bounds' derivatives: f at each bound that depends on an input.
	for k, at := range [2]int{spec.lo, spec.hi} {
		if at < 0 || !p.arg(n, at).dyn {
			continue
		}
		x := lo
		if k == 1 {
			x = hi
		}
		if err := r.eval(x, 0, false); err != nil {
			r.err = r.wrap(n, r.failAt(x, 0, err))
			return false
		}
		if v := r.dfx[0]; math.IsNaN(v) || math.IsInf(v, 0) {
			r.err = ast.Errorf(n.pos, "integrate_1d: the derivative in the bound %s = %g is the integrand there, which is %s", [2]string{"a", "b"}[k], x, kind(v))
			return false
		}
		if k == 0 {
			r.dlo = -r.dfx[0]
		} else {
			r.dhi = r.dfx[0]
		}
	}
	p.v(n)[0] = r.tot[0]
	return true
}

// wrap positions an error of the integral at the call, unless f's body
// gave it a position.
func (r *integRun) wrap(n *node, err error) error {
	if _, ok := err.(*ast.Error); ok {
		return err
	}
	return ast.Errorf(n.pos, "integrate_1d: %s", err)
}

// gradIntegrate adds g·∂I/∂(operand) to each operand's adjoint.
func (p *Program) gradIntegrate(n *node, g float64) {
	r := p.integs[n.i1]
	spec := r.spec
	if spec.lo >= 0 {
		if x := p.arg(n, spec.lo); x.aoff >= 0 {
			p.a(x)[0] += g * r.dlo
		}
	}
	if spec.hi >= 0 {
		if x := p.arg(n, spec.hi); x.aoff >= 0 {
			p.a(x)[0] += g * r.dhi
		}
	}
	for a, c := range r.cols {
		if c < 0 {
			continue
		}
		ax := p.a(p.arg(n, a))
		for j := range ax {
			ax[j] += g * r.tot[1+c+j]
		}
	}
}
