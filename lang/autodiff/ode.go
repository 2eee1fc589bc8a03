package autodiff

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// Ordinary differential equations, OpODE (Stan's ode_rk45, and ode_bdf
// with the stiff solver of odestiff.go: ODETol.Method). The node
// solves y' = f(t, y, θ) from y(t0) = y0 and holds y at the output times
// ts, a matrix [T, D] whose row i is y(ts[i]). f is an RHS: a small
// Program of its own, compiled from the user function's body, whose
// inputs are t, y and the arguments the op passes on from the tape.
//
// The solver is Dormand–Prince 5(4) with adaptive steps (first same as
// last: the last stage of a step is the first of the next), the error of
// each step measured in the max norm over the coupled system, each
// component against abs_tol + rel_tol · max(|z_i| before, after), as
// boost's odeint (Stan's rk45) does. It steps to each output time exactly
// (a step is shortened to end on it), so no interpolation enters the
// values or their derivatives.
//
// Gradients are forward sensitivities: with θ the scalars of y0 and of
// the arguments that depend on an input (data need none), S = ∂y/∂θ
// [D, P] obeys S' = J_y S + J_θ, S(t0) = [I | 0] (the I when y0 depends
// on an input). The op integrates y and S together, N = D·(1 + P)
// numbers, with the error control over all of them, and keeps S at each
// output time; the reverse pass contracts the output's adjoint with
// them. J_y and J_θ come from D reverse sweeps of f's program, one per
// component of f (seeded with e_i), after one forward pass.
//
// Everything the solve needs is allocated when the program is finished
// (odeRun), so an evaluation allocates nothing. A step whose later stages
// fail (f not finite, or a domain error in its body) is retried at a
// quarter of the size; a failure at a step's first stage, the state the
// solve has reached, is reported at once. The solve fails, with the time
// reached, after max_num_steps steps in all (Stan counts them between two
// output times; a bound on the whole solve bounds what one evaluation at a
// wild draw of q can cost) or when the step size falls below the rounding
// of t. It also fails, as interrupted, when the program's stop flag is
// set (Program.SetStop), read every odeStopEvery steps. The stiff solver
// shares this loop, the landing on output times, the sensitivities and the
// error control; only its step (stiffStep) and the exponent of the step
// size control differ.

// ODE solver defaults (Stan's): ode_rk45's, and ode_bdf's (Stan's CVODES
// defaults, which gpp's stiff solver keeps).
const (
	ODERelTol   = 1e-6
	ODEAbsTol   = 1e-6
	ODEMaxSteps = 1000000

	ODEStiffRelTol   = 1e-10
	ODEStiffAbsTol   = 1e-10
	ODEStiffMaxSteps = 100000000
)

// ODEMethod is an ODE solver.
type ODEMethod int

const (
	// ODERK45 is Dormand–Prince 5(4), explicit (Stan's ode_rk45).
	ODERK45 ODEMethod = iota
	// ODERosW is the Rosenbrock-W method ROS34PW2, linearly implicit, for
	// stiff systems (gpp's ode_bdf; odestiff.go).
	ODERosW
)

// RHS is the right-hand side f(t, y, args...) of an ODE: a program whose
// first input is the scalar t, whose second is the vector y [D], and
// whose further inputs are the arguments passed on by the op, in order.
// It is read-only once finished: each program that evaluates an OpODE
// node runs a clone of it.
type RHS struct{ subProgram }

// FinishRHS completes b, whose first inputs are t (a scalar) and y (a
// vector [D]), then those of the arguments, as the right-hand side f of
// an ODE: f must be a vector [D] (a [D, 1] is taken as one).
func (b *Builder) FinishRHS(f ID, pos ast.Pos) (*RHS, error) {
	s, err := b.finishVector(f, 2, "right-hand side", pos)
	if err != nil {
		return nil, err
	}
	return &RHS{s}, nil
}

// ODETol holds an ODE's solver and its settings (zero values: ode_rk45
// with Stan's defaults; ODERosW's zero settings are ode_bdf's defaults).
type ODETol struct {
	Rel, Abs float64
	MaxSteps int
	Method   ODEMethod
}

// odeSpec is what an OpODE node fixes when it is built.
type odeSpec struct {
	rhs *RHS
	t0  float64
	ts  []float64
	tol ODETol
	// name is the function's name for errors ("ode_rk45"), and fn the
	// user function's.
	name, fn string
}

// ODE returns the solution of y' = f(t, y, args...) from y(t0) = y0 at
// the increasing output times ts (each > t0): a matrix [len(ts), D] whose
// row i is y(ts[i]). args are the tape's values of f's inputs after t and
// y, in order and of the same shapes. name and fn name the call and the
// function in errors.
func (b *Builder) ODE(f *RHS, y0 ID, t0 float64, ts []float64, tol ODETol, args []ID, name, fn string, pos ast.Pos) ID {
	ops, ok := b.operands(append([]ID{y0}, args...)...)
	if !ok {
		return b.invalid(pos)
	}
	if s := b.shapeOf(ops[0]); s.Len() != f.d || s.Cols != 1 {
		return b.fail(pos, "%s: y0 is %s; the right-hand side takes a vector [%d]", name, s, f.d)
	}
	if id, ok := b.checkArgs(&f.subProgram, args, ops[1:], name, pos); !ok {
		return id
	}
	if len(ts) == 0 {
		return b.fail(pos, "%s: no output times", name)
	}
	if math.IsNaN(t0) || math.IsInf(t0, 0) {
		return b.fail(pos, "%s: t0 is %g; it must be finite", name, t0)
	}
	prev := t0
	for i, t := range ts {
		if !(t > prev) || math.IsInf(t, 0) {
			what := fmt.Sprintf("ts[%d] = %g", i-1, prev)
			if i == 0 {
				what = fmt.Sprintf("t0 = %g", t0)
			}
			return b.fail(pos, "%s: the output times must be finite and increase from t0: ts[%d] = %g is not > %s", name, i, t, what)
		}
		prev = t
	}
	rel, abs, steps := ODERelTol, ODEAbsTol, ODEMaxSteps
	if tol.Method == ODERosW {
		rel, abs, steps = ODEStiffRelTol, ODEStiffAbsTol, ODEStiffMaxSteps
	}
	if tol.Rel == 0 {
		tol.Rel = rel
	}
	if tol.Abs == 0 {
		tol.Abs = abs
	}
	if tol.MaxSteps == 0 {
		tol.MaxSteps = steps
	}
	if !(tol.Rel > 0) || !(tol.Abs > 0) || tol.MaxSteps < 0 || math.IsInf(tol.Rel, 0) || math.IsInf(tol.Abs, 0) {
		return b.fail(pos, "%s: rel_tol and abs_tol must be finite and > 0, max_num_steps > 0", name)
	}
	spec := &odeSpec{rhs: f, t0: t0, ts: append([]float64(nil), ts...), tol: tol, name: name, fn: fn}
	return b.push(node{op: OpODE, args: ops, shape: Matrix(len(ts), f.d), pos: pos, ode: spec})
}

// odeRun is one program's state for one OpODE node: its clone of f's
// program and the solver's buffers, allocated once.
type odeRun struct {
	spec *odeSpec
	// f's program, latent vector (t, y, args), gradient, and the
	// sensitivities' columns (np): those of each operand (y0, args)
	// that depends on an input; err is why the last evaluation failed.
	subRun
	// The coupled state z = (y, S row-major [D, P]), the stages, the
	// proposal and the Jacobians.
	z, znew, tmp []float64
	k            [7][]float64
	jy, jp       []float64 // [D, D], [D, P]
	sens         []float64 // S at each output time, [T, D, P]
	steps        int       // the steps of the last solve (tried, as counted against max_num_steps)
	// ODERosW's: J_y at the step's start [D, D], the LU factors of
	// I/(γh) − J_y [D, D] and their row swaps [D].
	jw, lu, piv []float64
}

func newODERun(spec *odeSpec, n *node, nodes []node) *odeRun {
	r := &odeRun{spec: spec, subRun: newSubRun(&spec.rhs.subProgram, n, nodes, true)}
	d := spec.rhs.d
	nz := d * (1 + r.np)
	r.z, r.znew, r.tmp = make([]float64, nz), make([]float64, nz), make([]float64, nz)
	for i := range r.k {
		r.k[i] = make([]float64, nz)
	}
	r.jy, r.jp = make([]float64, d*d), make([]float64, d*r.np)
	r.sens = make([]float64, len(spec.ts)*d*r.np)
	if spec.tol.Method == ODERosW {
		r.jw, r.lu, r.piv = make([]float64, d*d), make([]float64, d*d), make([]float64, d)
	}
	return r
}

// clone returns a run for another program (Program.Clone).
func (r *odeRun) clone(n *node, nodes []node) *odeRun { return newODERun(r.spec, n, nodes) }

// Dormand–Prince 5(4): the nodes c, the matrix a (row i: stage i+1's
// weights of stages 0..i) and the error weights e = b − b̂ (b is a's last
// row: the stage-7 point is the step's result).
var (
	dpC = [7]float64{0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1}
	dpA = [6][6]float64{
		{1.0 / 5},
		{3.0 / 40, 9.0 / 40},
		{44.0 / 45, -56.0 / 15, 32.0 / 9},
		{19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
		{9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
		{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84},
	}
	dpE = [7]float64{71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40}
)

// Step size control: the new step is h·0.9·err^(−1/5), at least a fifth and
// at most five times the old (growth right after a rejection is allowed,
// unlike Hairer's DOPRI5, which caps that step at the rejected size); a
// failed stage quarters it.
const (
	odeSafety  = 0.9
	odeFacMin  = 0.2
	odeFacMax  = 5
	odeFailFac = 0.25
	epsilon    = 0x1p-52
)

// odeStopEvery is how many steps a solve takes between two reads of the
// program's stop flag: a read costs nothing next to that many steps (each
// of 6 evaluations of f and its Jacobians), and a solve stops within a
// few milliseconds of the flag.
const odeStopEvery = 256

// rhs writes the coupled system's derivative at (t, z) into dz: f, and
// J_y S + J_θ, with J_y in r.jy (also without sensitivities when needJ).
// It returns an error from f's program, or one saying which value is not
// finite.
func (r *odeRun) rhs(t float64, z, dz []float64, needJ bool) error {
	f, d, np := &r.spec.rhs.subProgram, r.spec.rhs.d, r.np
	r.x[0] = t
	copy(r.x[1:1+d], z[:d])
	fv, err := r.forward(f)
	if err != nil {
		return err
	}
	copy(dz[:d], fv)
	if np == 0 && !needJ {
		return nil
	}
	if err := r.jacobians(f, 1, r.jy, r.jp); err != nil {
		return err
	}
	if np == 0 {
		return nil
	}
	s, ds := z[d:], dz[d:]
	for i := range d {
		row := ds[i*np : i*np+np]
		copy(row, r.jp[i*np:i*np+np])
		for k, j := range r.jy[i*d : i*d+d] {
			if j == 0 {
				continue
			}
			for c, v := range s[k*np : k*np+np] {
				row[c] += j * v
			}
		}
	}
	return nil
}

// evalODE is OpODE's forward rule; false (with r.err) when the solve
// fails.
func (p *Program) evalODE(n *node) bool {
	r := p.odes[n.i1]
	r.err = nil
	spec, d, np := r.spec, r.spec.rhs.d, r.np
	r.setArgs(p, n, &spec.rhs.subProgram) // fixed for the solve
	z := r.z
	clear(z)
	copy(z[:d], p.v(p.arg(n, 0)))
	if c := r.cols[0]; c >= 0 { // S(t0) = [I | 0]
		for i := range d {
			z[d+i*np+c+i] = 1
		}
	}
	out := p.v(n)
	t := spec.t0
	stiff := spec.tol.Method == ODERosW
	if err := r.rhs(t, r.z, r.k[0], stiff); err != nil {
		r.err = r.failAt(n, t, err)
		return false
	}
	if stiff {
		copy(r.jw, r.jy)
	}
	h := r.initialStep(t, spec.ts[0]-t)
	// The step size control: the error estimate is of order 5 (rk45) or 3
	// (the Rosenbrock-W method's embedded solution of order 2).
	expo := -0.2
	if stiff {
		expo = -1.0 / 3
	}
	r.steps = 0 // of the whole solve: one evaluation's work is bounded
	for i, target := range spec.ts {
		var stageErr error // the last failed stage since the last accepted step
		for t < target {
			if r.steps >= spec.tol.MaxSteps {
				advice := "a stiff system needs more steps than an explicit solver can take: raise max_num_steps with %s, or rescale the system, or use ode_bdf"
				if stiff {
					advice = "raise max_num_steps with %s, or rescale the system"
				}
				r.err = ast.Errorf(n.pos, "%s: max_num_steps %d reached at t = %.6g before ts[%d] = %g (%s)",
					spec.name, spec.tol.MaxSteps, t, i, target, fmt.Sprintf(advice, tolName(spec.name)))
				return false
			}
			if r.steps%odeStopEvery == 0 && p.stopped() {
				r.err = ast.Errorf(n.pos, "%s: interrupted at t = %.6g before ts[%d] = %g", spec.name, t, i, target)
				return false
			}
			r.steps++
			hstep, last := h, false
			if t+1.01*h >= target { // end on target (no sliver of a step after)
				hstep, last = target-t, true
			}
			if !(hstep > 4*epsilon*max(math.Abs(t), math.Abs(target))) {
				if stageErr != nil {
					r.err = r.failAt(n, t, stageErr)
					return false
				}
				why := "it may blow up, or the system be too stiff for an explicit solver: try ode_bdf"
				if stiff {
					why = "it may blow up"
				}
				r.err = ast.Errorf(n.pos, "%s: the step size fell to %.3g at t = %.6g before ts[%d] = %g: the solution cannot be followed there (%s)", spec.name, hstep, t, i, target, why)
				return false
			}
			var errNorm float64
			var err error
			if stiff {
				errNorm, err = r.stiffStep(t, hstep)
			} else {
				errNorm, err = r.step(t, hstep)
			}
			switch {
			case err != nil:
				h, stageErr = hstep*odeFailFac, err
				continue
			case math.IsNaN(errNorm):
				h = hstep * odeFailFac
				continue
			case errNorm > 1:
				h = hstep * max(odeFacMin, odeSafety*math.Pow(errNorm, expo))
				continue
			}
			stageErr = nil
			fac := float64(odeFacMax)
			if errNorm > 0 {
				fac = min(odeFacMax, odeSafety*math.Pow(errNorm, expo))
			}
			hprop := h
			h = hstep * max(fac, odeFacMin)
			if last {
				t = target
				if fac >= 1 { // a step cut short to end on target says little about the next
					h = max(h, hprop)
				}
			} else {
				t += hstep
			}
			r.z, r.znew = r.znew, r.z
			r.k[0], r.k[6] = r.k[6], r.k[0] // first same as last
			if stiff {
				r.jw, r.jy = r.jy, r.jw // J_y at the new start, from the step's last evaluation
			}
		}
		copy(out[i*d:i*d+d], r.z[:d])
		copy(r.sens[i*d*np:(i+1)*d*np], r.z[d:])
	}
	return true
}

// tolName is the name of the call that sets the solver's settings: name
// itself when it already does (ode_rk45_tol), else name + "_tol".
func tolName(name string) string {
	if strings.HasSuffix(name, "_tol") {
		return name
	}
	return name + "_tol"
}

// step takes one Dormand–Prince step of size h from (t, r.z), whose
// derivative is in r.k[0], into r.znew, with r.k[6] the derivative there;
// it returns the error's scaled max norm, or the failure of a stage.
func (r *odeRun) step(t, h float64) (float64, error) {
	z, y, tmp := r.z, r.znew, r.tmp
	for s := 1; s < 7; s++ {
		dst := tmp
		if s == 6 {
			dst = y // the 5th-order result
		}
		copy(dst, z)
		for j, a := range dpA[s-1][:s] {
			if a != 0 {
				axpy(h*a, r.k[j], dst)
			}
		}
		if err := r.rhs(t+dpC[s]*h, dst, r.k[s], false); err != nil {
			return 0, err
		}
	}
	return r.errNorm(h, dpE[:], r.k[:]), nil
}

// errNorm is a step's error, h·Σ_j e_j k_j, in the max norm scaled
// componentwise by abs_tol + rel_tol·max(|z_i|, |znew_i|): the error
// control of both solvers. A NaN is returned at once.
func (r *odeRun) errNorm(h float64, e []float64, k [][]float64) float64 {
	tol := r.spec.tol
	z, y := r.z, r.znew
	worst := 0.0
	for i := range z {
		ei := 0.0
		for j, c := range e {
			if c != 0 {
				ei += c * k[j][i]
			}
		}
		sc := tol.Abs + tol.Rel*max(math.Abs(z[i]), math.Abs(y[i]))
		q := math.Abs(h*ei) / sc
		if !(q <= worst) {
			worst = q // NaN sticks
			if math.IsNaN(q) {
				break
			}
		}
	}
	return worst
}

// initialStep guesses the first step (Hairer, Nørsett and Wanner's
// heuristic, from f at the start and after an Euler step), at most span.
func (r *odeRun) initialStep(t, span float64) float64 {
	tol := r.spec.tol
	z, f0 := r.z, r.k[0]
	d0, d1 := 0.0, 0.0
	for i := range z {
		sc := tol.Abs + tol.Rel*math.Abs(z[i])
		d0 += (z[i] / sc) * (z[i] / sc)
		d1 += (f0[i] / sc) * (f0[i] / sc)
	}
	d0, d1 = math.Sqrt(d0/float64(len(z))), math.Sqrt(d1/float64(len(z)))
	h0 := 1e-6
	if d0 >= 1e-5 && d1 >= 1e-5 {
		h0 = 0.01 * d0 / d1
	}
	h0 = min(h0, span)
	for i := range z {
		r.tmp[i] = z[i] + h0*f0[i]
	}
	if err := r.rhs(t+h0, r.tmp, r.k[1], false); err != nil {
		return h0
	}
	d2 := 0.0
	for i := range z {
		sc := tol.Abs + tol.Rel*math.Abs(z[i])
		q := (r.k[1][i] - f0[i]) / sc
		d2 += q * q
	}
	d2 = math.Sqrt(d2/float64(len(z))) / h0
	h1 := max(1e-6, h0*1e-3)
	if m := max(d1, d2); m > 1e-15 {
		h1 = math.Pow(0.01/m, 0.2)
	}
	h := min(100*h0, h1, span)
	if !(h > 0) {
		h = span
	}
	return h
}

// failAt turns a failure of f at time t into the op's error: f's own
// (positioned in its body) with the time and the call appended.
func (r *odeRun) failAt(n *node, t float64, err error) error {
	where := fmt.Sprintf(" (in the right-hand side %s of %s at %s, at t = %.6g)", r.spec.fn, r.spec.name, n.pos, t)
	return inBody(err, where, r.spec.name, n.pos)
}

// gradODE adds the contributions of n's adjoint g [T, D] to the adjoints
// of y0 and the arguments: g contracted with the sensitivities.
func (p *Program) gradODE(n *node, g []float64) {
	r := p.odes[n.i1]
	d, np := r.spec.rhs.d, r.np
	if np == 0 {
		return
	}
	gt := r.tmp[:np]
	clear(gt)
	for i := range r.spec.ts {
		s := r.sens[i*d*np : (i+1)*d*np]
		for k, gk := range g[i*d : i*d+d] {
			if gk == 0 {
				continue
			}
			for c, v := range s[k*np : k*np+np] {
				gt[c] += gk * v
			}
		}
	}
	for a, c := range r.cols {
		if c < 0 {
			continue
		}
		x := p.arg(n, a)
		ax := p.a(x)
		for j := range ax {
			ax[j] += gt[c+j]
		}
	}
}
