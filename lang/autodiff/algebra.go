package autodiff

import (
	"errors"
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
)

// Algebraic equations, OpAlgebraSolve (Stan's solve_newton and
// solve_powell). The node holds the root y* [D] of f(y, θ) = 0 that the
// solver reaches from the guess y_guess; f is a System: a small Program of
// its own, compiled from the user function's body, whose inputs are y and
// the arguments the op passes on from the tape, as an ODE's right-hand side
// (ode.go) is.
//
// Each solve starts from y_guess, as Stan's do, so the root depends on the
// arguments only: no state is kept between evaluations (results do not
// depend on what was evaluated before, nor on the number of workers).
// J_y = ∂f/∂y and J_θ = ∂f/∂θ come from D reverse sweeps of f's program
// after one forward pass. The methods (AlgebraTol.Method):
//
//   - Newton (solve_newton): the Newton step −J_y⁻¹ f, shortened by
//     backtracking until ½‖f‖₂² falls by the Armijo condition; the solve
//     fails when the step must fall below scaling_step (relative to
//     max(1, |y_i|)) or J_y is singular.
//   - Powell (solve_powell): Powell's dogleg in a trust region, between
//     the Newton step and the steepest descent of ½‖f‖₂² (which stands in
//     when J_y is singular); the solve fails when the region shrinks
//     below rel_tol relative to ‖y‖ at a point that is not a root (a
//     local minimum of ‖f‖).
//
// Both stop when ‖f‖∞ ≤ f_tol and the last step was below 1e-10 (Newton)
// or rel_tol (Powell) relative to ‖y‖: gpp polishes the root past f_tol
// (a Newton step there costs one iteration and squares the error), since
// the gradient below assumes an exact root. A step that cannot lower ‖f‖
// any more (rounding) also ends a solve within f_tol. Every iteration
// counts against max_steps; more is a positioned error, as is f not
// finite at the guess.
//
// The gradient is the implicit function theorem's: dy*/dθ = −J_y⁻¹ J_θ at
// y*. The reverse pass solves J_yᵀ λ = ȳ with the LU factors of J_yᵀ the
// forward pass kept, then adds −J_θᵀ λ to the arguments' adjoints. y_guess
// gets none (the root does not depend on it), as in Stan.

// Algebraic solver defaults (Stan's).
const (
	AlgebraScalingStep = 1e-3
	AlgebraFTol        = 1e-6
	AlgebraMaxSteps    = 200
	AlgebraRelTol      = 1e-10
)

// algebraPolish is the relative step below which a Newton solve within
// f_tol ends.
const algebraPolish = 1e-10

// AlgebraMethod is an algebraic solver.
type AlgebraMethod int

const (
	// AlgebraNewton is Newton's method with a line search (solve_newton).
	AlgebraNewton AlgebraMethod = iota
	// AlgebraPowell is Powell's dogleg (solve_powell).
	AlgebraPowell
)

// AlgebraTol holds an algebraic solver and its settings (zero values:
// Stan's defaults). Step is solve_newton's scaling_step or solve_powell's
// rel_tol.
type AlgebraTol struct {
	Step, FTol float64
	MaxSteps   int
	Method     AlgebraMethod
}

// System is an algebraic system f(y, args...): a program whose first
// input is the vector y [D] and whose further inputs are the arguments
// passed on by the op, in order. It is read-only once finished.
type System struct{ subProgram }

// FinishSystem completes b, whose first input is y (a vector [D]), then
// those of the arguments, as an algebraic system: f must be a vector [D]
// (a [D, 1] is taken as one).
func (b *Builder) FinishSystem(f ID, pos ast.Pos) (*System, error) {
	s, err := b.finishVector(f, 1, "system", pos)
	if err != nil {
		return nil, err
	}
	return &System{s}, nil
}

// algSpec is what an OpAlgebraSolve node fixes when it is built.
type algSpec struct {
	sys *System
	tol AlgebraTol
	// name is the function's name for errors ("solve_newton"), and fn
	// the user function's.
	name, fn string
}

// AlgebraSolve returns the root y* [D] of f(y, args...) = 0 that the
// solver finds from guess (its value only: y* gets no derivative in it).
// args are the tape's values of f's inputs after y, in order and of the
// same shapes. name and fn name the call and the function in errors.
func (b *Builder) AlgebraSolve(f *System, guess ID, tol AlgebraTol, args []ID, name, fn string, pos ast.Pos) ID {
	ops, ok := b.operands(append([]ID{guess}, args...)...)
	if !ok {
		return b.invalid(pos)
	}
	if s := b.shapeOf(ops[0]); s.Len() != f.d || s.Cols != 1 {
		return b.fail(pos, "%s: y_guess is %s; the system takes a vector [%d]", name, s, f.d)
	}
	if id, ok := b.checkArgs(&f.subProgram, args, ops[1:], name, pos); !ok {
		return id
	}
	if tol.Step == 0 {
		tol.Step = AlgebraScalingStep
		if tol.Method == AlgebraPowell {
			tol.Step = AlgebraRelTol
		}
	}
	if tol.FTol == 0 {
		tol.FTol = AlgebraFTol
	}
	if tol.MaxSteps == 0 {
		tol.MaxSteps = AlgebraMaxSteps
	}
	if !(tol.Step > 0) || !(tol.FTol > 0) || tol.MaxSteps < 0 || math.IsInf(tol.Step, 0) || math.IsInf(tol.FTol, 0) {
		return b.fail(pos, "%s: the tolerances must be finite and > 0, max_steps > 0", name)
	}
	spec := &algSpec{sys: f, tol: tol, name: name, fn: fn}
	return b.push(node{op: OpAlgebraSolve, args: ops, shape: Vector(f.d), pos: pos, alg: spec})
}

// algRun is one program's state for one OpAlgebraSolve node: its clone of
// f's program and the solver's buffers, allocated once.
type algRun struct {
	spec *algSpec
	// f's program, latent vector (y, args), gradient, and the columns of
	// J_θ (np): those of each argument (operands 1...) that depends on an
	// input; err is why the last evaluation failed.
	subRun
	// The iterate and its f, a trial point and its f, the step, the
	// steepest descent direction and a scratch vector, all [D].
	y, fy, yt, ft, step, sd, tmp []float64
	jy, jp                       []float64 // [D, D], [D, P]
	lu, piv                      []float64 // LU factors of J_y (of J_yᵀ after a solve), row swaps
	steps                        int       // the iterations of the last solve
}

func newAlgRun(spec *algSpec, n *node, nodes []node) *algRun {
	r := &algRun{spec: spec, subRun: newSubRun(&spec.sys.subProgram, n, nodes, false)}
	d := spec.sys.d
	vec := func() []float64 { return make([]float64, d) }
	r.y, r.fy, r.yt, r.ft, r.step, r.sd, r.tmp, r.piv = vec(), vec(), vec(), vec(), vec(), vec(), vec(), vec()
	r.jy, r.lu, r.jp = make([]float64, d*d), make([]float64, d*d), make([]float64, d*r.np)
	return r
}

func (r *algRun) clone(n *node, nodes []node) *algRun { return newAlgRun(r.spec, n, nodes) }

// eval writes f(y) into fv; with jac, J_y into r.jy and J_θ into r.jp. It
// returns f's program's error, or one saying which value is not finite.
func (r *algRun) eval(y, fv []float64, jac bool) error {
	s := &r.spec.sys.subProgram
	copy(r.x[:s.d], y)
	v, err := r.forward(s)
	if err != nil {
		return err
	}
	copy(fv, v)
	if k := firstBad(fv); k >= 0 {
		return fmt.Errorf("f[%d] is %s", k, kind(fv[k]))
	}
	if !jac {
		return nil
	}
	return r.jacobians(s, 0, r.jy, r.jp)
}

// factor LU-factors J_y (transposed with trans) into r.lu; false when it
// is singular: a pivot at most D·ε times J_y's largest entry.
func (r *algRun) factor(trans bool) bool {
	d := r.spec.sys.d
	big := 0.0
	for i := range d {
		for j := range d {
			v := r.jy[i*d+j]
			if trans {
				r.lu[j*d+i] = v
			} else {
				r.lu[i*d+j] = v
			}
			big = max(big, math.Abs(v))
		}
	}
	if _, zero := luFactor(r.lu, d, r.piv); zero != 0 || big == 0 {
		return false
	}
	for i := range d {
		if math.Abs(r.lu[i*d+i]) <= float64(d)*epsilon*big {
			return false
		}
	}
	return true
}

// evalAlgebra is OpAlgebraSolve's forward rule; false (with r.err) when
// the solve fails.
func (p *Program) evalAlgebra(n *node) bool {
	r := p.algs[n.i1]
	r.err = nil
	spec := r.spec
	r.setArgs(p, n, &spec.sys.subProgram)
	copy(r.y, p.v(p.arg(n, 0)))
	if err := r.eval(r.y, r.fy, true); err != nil {
		r.err = r.failAt(n, "at y_guess", err)
		return false
	}
	var err error
	if spec.tol.Method == AlgebraPowell {
		err = r.powell(p, n)
	} else {
		err = r.newton(p, n)
	}
	if err != nil && err != errDone {
		r.err = err
		return false
	}
	// r.jy and r.jp are at y*: keep J_yᵀ's factors for the reverse pass
	// (none without arguments that depend on an input).
	if r.np > 0 && !r.factor(true) {
		r.err = ast.Errorf(n.pos, "%s: the Jacobian of %s is singular at the root y = %s: the root does not determine its derivative (the system's equations are not independent there)", spec.name, spec.fn, vecString(r.y))
		return false
	}
	copy(p.v(n), r.y)
	return true
}

// normInf is the max norm of v; half2 is ½‖v‖₂².
func normInf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

func half2(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return s / 2
}

// relStep is the step's size relative to y: max |s_i| / max(1, |y_i|).
func relStep(s, y []float64) float64 {
	m := 0.0
	for i, v := range s {
		m = max(m, math.Abs(v)/max(1, math.Abs(y[i])))
	}
	return m
}

// errDone ends a solve that used its max_steps within f_tol: not a
// failure.
var errDone = errors.New("done")

// begin counts an iteration: an error past max_steps (errDone when ‖f‖∞
// is within f_tol) or when the program is stopped.
func (r *algRun) begin(p *Program, n *node) error {
	spec := r.spec
	if r.steps >= spec.tol.MaxSteps && normInf(r.fy) <= spec.tol.FTol {
		return errDone
	}
	if r.steps >= spec.tol.MaxSteps {
		what := "scaling_step, f_tol, max_steps"
		if spec.tol.Method == AlgebraPowell {
			what = "rel_tol, f_tol, max_steps"
		}
		return ast.Errorf(n.pos, "%s: max_steps %d reached without a root of %s: ‖f‖∞ = %.3g > f_tol = %g at y = %s (a better y_guess, or more steps with %s(%s, y_guess, %s, ...))",
			spec.name, spec.tol.MaxSteps, spec.fn, normInf(r.fy), spec.tol.FTol, vecString(r.y), tolName(spec.name), spec.fn, what)
	}
	if r.steps%16 == 0 && p.stopped() {
		return ast.Errorf(n.pos, "%s: interrupted", spec.name)
	}
	r.steps++
	return nil
}

// newton runs solve_newton from r.y (f and the Jacobians there).
func (r *algRun) newton(p *Program, n *node) error {
	spec := r.spec
	ftol := spec.tol.FTol
	r.steps = 0
	for {
		fn := normInf(r.fy)
		if fn == 0 {
			return nil
		}
		if err := r.begin(p, n); err != nil {
			return err
		}
		if !r.factor(false) {
			if fn <= ftol {
				return nil
			}
			return ast.Errorf(n.pos, "%s: the Jacobian of %s is singular at y = %s, where ‖f‖∞ = %.3g (solve_powell takes another path)", spec.name, spec.fn, vecString(r.y), fn)
		}
		for i, v := range r.fy {
			r.step[i] = -v
		}
		luSolve(r.lu, spec.sys.d, r.piv, r.step, 1)
		rel := relStep(r.step, r.y)
		if fn <= ftol && rel <= algebraPolish {
			return r.tryAccept(n) // a last step, kept when it does not raise ‖f‖
		}
		// Backtracking on φ = ½‖f‖²: the Newton step's slope is −2φ.
		phi := half2(r.fy)
		lam, ok := 1.0, false
		var stepErr error
		for lam*rel >= spec.tol.Step || lam == 1 {
			for i := range r.y {
				r.yt[i] = r.y[i] + lam*r.step[i]
			}
			err := r.eval(r.yt, r.ft, false)
			if err == nil {
				pt := half2(r.ft)
				if pt <= (1-2e-4*lam)*phi {
					ok = true
					break
				}
				// The minimum of the quadratic through φ(0), φ'(0), φ(λ),
				// kept in [0.1λ, 0.5λ].
				q := lam * lam * phi / (pt - phi + 2*lam*phi)
				lam = min(max(q, 0.1*lam), 0.5*lam)
			} else {
				stepErr = err
				lam /= 4
			}
		}
		if !ok {
			if fn <= ftol {
				return nil // ‖f‖ cannot be lowered further
			}
			why := ""
			if stepErr != nil {
				why = fmt.Sprintf(" (the last trial failed: %s)", stepErr)
			}
			return ast.Errorf(n.pos, "%s: the line search cannot lower ‖f‖ of %s from %.3g at y = %s with a step above scaling_step = %g: y_guess may be far from a root, or there is none near it (try solve_powell)%s",
				spec.name, spec.fn, fn, vecString(r.y), spec.tol.Step, why)
		}
		for i := range r.y {
			r.y[i] = r.yt[i]
		}
		if err := r.eval(r.y, r.fy, true); err != nil {
			return r.failAt(n, "at y = "+vecString(r.y), err)
		}
	}
}

// tryAccept moves r.y by r.step when that does not raise ‖f‖∞, and
// leaves r.fy and the Jacobians at the final y.
func (r *algRun) tryAccept(n *node) error {
	for i := range r.y {
		r.yt[i] = r.y[i] + r.step[i]
	}
	if r.eval(r.yt, r.ft, false) != nil || normInf(r.ft) > normInf(r.fy) {
		return nil // r.fy and the Jacobians are still y's
	}
	copy(r.y, r.yt)
	if err := r.eval(r.y, r.fy, true); err != nil {
		return r.failAt(n, "at y = "+vecString(r.y), err)
	}
	return nil
}

// powell runs solve_powell from r.y (f and the Jacobians there): Powell's
// dogleg with the trust region radius delta.
func (r *algRun) powell(p *Program, n *node) error {
	spec := r.spec
	d := spec.sys.d
	ftol, xtol := spec.tol.FTol, spec.tol.Step
	r.steps = 0
	delta := 100 * max(1, norm2(r.y))
	for {
		fn := normInf(r.fy)
		if fn == 0 {
			return nil
		}
		if err := r.begin(p, n); err != nil {
			return err
		}
		// Steepest descent of φ = ½‖f‖²: g = J_yᵀ f, its minimiser along
		// −g at α = ‖g‖² / ‖J_y g‖².
		g := r.sd
		for j := range d {
			s := 0.0
			for i := range d {
				s += r.jy[i*d+j] * r.fy[i]
			}
			g[j] = s
		}
		gn := norm2(g)
		jg := 0.0
		for i := range d {
			s := 0.0
			for j := range d {
				s += r.jy[i*d+j] * g[j]
			}
			jg += s * s
		}
		newtonOK := r.factor(false)
		if newtonOK {
			for i, v := range r.fy {
				r.tmp[i] = -v
			}
			luSolve(r.lu, d, r.piv, r.tmp, 1)
		}
		if !newtonOK && (gn == 0 || jg == 0) {
			if fn <= ftol {
				return nil
			}
			return ast.Errorf(n.pos, "%s: ‖f‖ of %s is stationary at y = %s, where ‖f‖∞ = %.3g and the Jacobian is singular: no root is reachable from y_guess", spec.name, spec.fn, vecString(r.y), fn)
		}
		// The dogleg step into r.step.
		switch {
		case newtonOK && norm2(r.tmp) <= delta:
			copy(r.step, r.tmp)
		default:
			alpha := gn * gn / jg
			if alpha*gn >= delta || !newtonOK {
				t := min(delta, alpha*gn) / gn
				for j := range d {
					r.step[j] = -t * g[j]
				}
				break
			}
			// p_sd + τ(p_gn − p_sd) with ‖·‖ = delta, τ ∈ [0, 1].
			var a, b, c float64
			for j := range d {
				sd := -alpha * g[j]
				dj := r.tmp[j] - sd
				a += dj * dj
				b += 2 * sd * dj
				c += sd * sd
			}
			c -= delta * delta
			tau := (-b + math.Sqrt(b*b-4*a*c)) / (2 * a)
			for j := range d {
				sd := -alpha * g[j]
				r.step[j] = sd + tau*(r.tmp[j]-sd)
			}
		}
		sn := norm2(r.step)
		yn := norm2(r.y)
		if fn <= ftol && sn <= xtol*(yn+xtol) {
			return r.tryAccept(n)
		}
		// The predicted fall of φ: φ − ½‖f + J p‖².
		pred := 0.0
		for i := range d {
			s := r.fy[i]
			for j := range d {
				s += r.jy[i*d+j] * r.step[j]
			}
			pred += s * s
		}
		phi := half2(r.fy)
		pred = phi - pred/2
		for i := range r.y {
			r.yt[i] = r.y[i] + r.step[i]
		}
		rho := -1.0
		if r.eval(r.yt, r.ft, false) == nil && pred > 0 {
			rho = (phi - half2(r.ft)) / pred
		}
		switch {
		case rho < 0.25:
			delta = sn / 4
		case rho > 0.75 && sn >= 0.99*delta:
			delta *= 2
		}
		if rho > 1e-4 {
			copy(r.y, r.yt)
			if err := r.eval(r.y, r.fy, true); err != nil {
				return r.failAt(n, "at y = "+vecString(r.y), err)
			}
			continue
		}
		if delta <= xtol*(yn+xtol) {
			if fn <= ftol {
				return nil
			}
			return ast.Errorf(n.pos, "%s: the trust region of %s shrank below rel_tol = %g at y = %s, where ‖f‖∞ = %.3g > f_tol = %g: a local minimum of ‖f‖ that is not a root, or a root that rounding hides (try another y_guess, or a larger f_tol with solve_powell_tol)",
				spec.name, spec.fn, xtol, vecString(r.y), fn, ftol)
		}
	}
}

func norm2(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// vecString prints a short vector for errors, at most 6 elements.
func vecString(v []float64) string {
	s := "["
	for i, x := range v {
		if i == 6 {
			s += ", ..."
			break
		}
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.6g", x)
	}
	return s + "]"
}

// failAt turns a failure of f at a point into the op's error: f's own
// (positioned in its body) with the point and the call appended.
func (r *algRun) failAt(n *node, at string, err error) error {
	where := fmt.Sprintf(" (in the system %s of %s at %s, %s)", r.spec.fn, r.spec.name, n.pos, at)
	return inBody(err, where, r.spec.name, n.pos)
}

// gradAlgebra adds the contributions of n's adjoint g [D] to the
// arguments' adjoints: −J_θᵀ λ with J_yᵀ λ = g.
func (p *Program) gradAlgebra(n *node, g []float64) {
	r := p.algs[n.i1]
	d, np := r.spec.sys.d, r.np
	if np == 0 {
		return
	}
	lam := r.tmp
	copy(lam, g)
	luSolve(r.lu, d, r.piv, lam, 1)
	for a, c := range r.cols {
		if c < 0 {
			continue
		}
		ax := p.a(p.arg(n, a))
		for i, l := range lam {
			if l == 0 {
				continue
			}
			for j, v := range r.jp[i*np+c : i*np+c+len(ax)] {
				ax[j] -= l * v
			}
		}
	}
}
