package autodiff

import (
	"fmt"

	"github.com/gpplang/gpp/lang/ast"
)

// Sub-programs: the ops that evaluate a user function compiled as a small
// Program of its own (OpODE's right-hand side, OpAlgebraSolve's system,
// OpIntegrate's integrand) share the way the program is finished
// (subProgram), the state each evaluating program keeps for it (subRun):
// its clone, latent vector, gradient and the partials' columns, the
// reverse sweeps that give f's derivatives, and the errors that name the
// call when f's body fails.

// subProgram is a finished function f(lead..., args...): a program whose
// first inputs are the lead ones the op sets (t and y, y, or x and xc)
// and whose further inputs are the arguments the op passes on from the
// tape, in order.
type subProgram struct {
	p    *Program
	f    int32 // f's value, a vector [D] (or a scalar, D = 1)
	fpos int   // f's index in p.order, −1 when f depends on no input
	d    int
	args []Shape // the inputs after the lead ones
	offs []int   // their offsets in p's latent vector
	// role names f in errors: "right-hand side", "system", "integrand".
	role string
}

// D returns the length of f's value (of y).
func (s *subProgram) D() int { return s.d }

// value is f's value in p, a clone of s.p, after a Forward.
func (s *subProgram) value(p *Program) []float64 { return p.val[p.nodes[s.f].off:][:s.d] }

// a is role with its article ("a system", "an integrand").
func (s *subProgram) a() string {
	if s.role[0] == 'i' {
		return "an " + s.role
	}
	return "a " + s.role
}

// inputIndices returns b's inputs, in build order.
func (b *Builder) inputIndices() []int32 {
	var ins []int32
	for i := range b.nodes {
		if b.nodes[i].op == OpInput {
			ins = append(ins, int32(i))
		}
	}
	return ins
}

// finishVector completes b, whose lead inputs are y (a vector [D]) or t
// (a scalar) and y, then those of the arguments, as the program of f, which
// must be a vector [D] (a [D, 1] is taken as one).
func (b *Builder) finishVector(f ID, lead int, role string, pos ast.Pos) (subProgram, error) {
	if err := b.Err(); err != nil {
		return subProgram{}, err
	}
	ins := b.inputIndices()
	if len(ins) < lead || b.nodes[ins[lead-1]].shape.Rank != 1 || lead == 2 && !b.nodes[ins[0]].shape.IsScalar() {
		panic("autodiff: the " + role + " needs the inputs y (a vector), or t (a scalar) and y, first")
	}
	d := b.nodes[ins[lead-1]].shape.Rows
	fi := b.index(f)
	if s := b.nodes[fi].shape; s.Len() != d || s.Cols != 1 || s.Rank == 0 && d != 1 {
		return subProgram{}, ast.Errorf(pos, "the %s returns %s; it must be a vector [%d], as long as y", role, s, d)
	}
	return b.finishSub(f, fi, ins, lead, d, role, pos)
}

// finishSub completes b, whose inputs are ins (the first lead of them f's
// lead inputs), as the program of f (node fi, of length d).
func (b *Builder) finishSub(f ID, fi int32, ins []int32, lead, d int, role string, pos ast.Pos) (subProgram, error) {
	s := subProgram{d: d, role: role}
	for _, i := range ins[lead:] {
		s.args = append(s.args, b.nodes[i].shape)
		s.offs = append(s.offs, b.nodes[i].i0)
	}
	p, err := b.Finish(b.Sum(f, pos), f)
	if err != nil {
		return s, err
	}
	s.p, s.f, s.fpos = p, fi, -1
	for k, i := range p.order {
		if i == fi {
			s.fpos = k
		}
	}
	return s, nil
}

// checkArgs reports, on b, operands ops (of f's arguments args) that do
// not fit s, their count or shapes, returning the invalid node and false.
func (b *Builder) checkArgs(s *subProgram, args []ID, ops []int32, name string, pos ast.Pos) (ID, bool) {
	if len(args) != len(s.args) {
		return b.fail(pos, "%s: %d arguments for %s of %d", name, len(args), s.a(), len(s.args)), false
	}
	for k, a := range ops {
		if sh := b.shapeOf(a); sh != s.args[k] {
			return b.fail(pos, "%s: argument %d is %s; the %s was built for %s", name, k+1, sh, s.role, s.args[k]), false
		}
	}
	return 0, true
}

// subRun is one program's state for one node that evaluates a
// subProgram: its clone of f's program, f's latent vector and gradient,
// and where the partials in each operand that depends on an input go.
type subRun struct {
	f    *Program
	x, g []float64 // f's latent vector (lead inputs, args) and gradient
	seed []float64 // the reverse sweeps' seed [D]
	np   int       // the partials' count
	// cols is the first partial of each operand, −1 for one that depends
	// on no input and for a lead operand without lead.
	cols  []int
	first int   // the operand of f's first argument
	err   error // why the last evaluation failed
}

// newSubRun allocates n's state for s. With lead, the operands before
// f's arguments (ODE's y0) have partials too, first.
func newSubRun(s *subProgram, n *node, nodes []node, lead bool) subRun {
	r := subRun{f: s.p.Clone(), first: len(n.args) - len(s.args)}
	r.cols = make([]int, len(n.args))
	for a, i := range n.args {
		r.cols[a] = -1
		if (lead || a >= r.first) && nodes[i].dyn {
			r.cols[a] = r.np
			r.np += nodes[i].n
		}
	}
	r.x, r.g = make([]float64, r.f.dim), make([]float64, r.f.dim)
	r.seed = make([]float64, s.d)
	return r
}

// setArgs copies n's argument operands into f's latent vector: they are
// fixed for the evaluation.
func (r *subRun) setArgs(p *Program, n *node, s *subProgram) {
	for a, off := range s.offs {
		copy(r.x[off:], p.v(p.arg(n, r.first+a)))
	}
}

// forward evaluates f at r.x and returns its value.
func (r *subRun) forward(s *subProgram) ([]float64, error) {
	if _, err := r.f.Forward(r.x); err != nil {
		return nil, err
	}
	return s.value(r.f), nil
}

// argPartials copies the gradient of the last reverse sweep in f's
// arguments that depend on an input into dst [np].
func (r *subRun) argPartials(s *subProgram, dst []float64) {
	for a, c := range r.cols[r.first:] {
		if c >= 0 {
			copy(dst[c:c+s.args[a].Len()], r.g[s.offs[a]:])
		}
	}
}

// jacobians writes J_y = ∂f/∂y [D, D] into jy and J_θ = ∂f/∂args [D, np]
// into jp, at the point of the last forward: D reverse sweeps of f's
// program, seeded with e_i. y is at yoff in f's latent vector. It returns
// an error saying which value is not finite.
func (r *subRun) jacobians(s *subProgram, yoff int, jy, jp []float64) error {
	d, np := s.d, r.np
	clear(jp)
	for i := range d {
		clear(r.seed)
		r.seed[i] = 1
		r.f.vjp(s.f, s.fpos, r.seed, r.g)
		copy(jy[i*d:i*d+d], r.g[yoff:yoff+d])
		r.argPartials(s, jp[i*np:i*np+np])
	}
	if k := firstBad(jy); k >= 0 {
		return fmt.Errorf("∂f[%d]/∂y[%d] is %s", k/d, k%d, kind(jy[k]))
	}
	if k := firstBad(jp); k >= 0 {
		return fmt.Errorf("the derivative of f[%d] in the arguments is %s", k/np, kind(jp[k]))
	}
	return nil
}

// vjp writes into g (of length Dim) the gradient of seed · (the value of
// node f), f at index fpos of p.order (−1: f depends on no input), at the
// point of the last successful Forward.
func (p *Program) vjp(f int32, fpos int, seed, g []float64) {
	clear(p.adj)
	if fpos >= 0 {
		copy(p.a(&p.nodes[f]), seed)
		for k := fpos; k >= 0; k-- {
			if n := &p.nodes[p.order[k]]; n.joint {
				p.grad(n)
			}
		}
	}
	for _, i := range p.inputs {
		n := &p.nodes[i]
		copy(g[n.i0:n.i0+n.n], p.adj[n.aoff:n.aoff+n.n])
	}
}

// inBody turns err, a failure of f, into the op's error with the call's
// context where appended: kept at its position in f's body when it has
// one, else at pos (the call's) after the call's name.
func inBody(err error, where, name string, pos ast.Pos) error {
	if e, ok := err.(*ast.Error); ok {
		return &ast.Error{Pos: e.Pos, Msg: e.Msg + where}
	}
	return ast.Errorf(pos, "%s: %s%s", name, err, where)
}

// failure is the failure of node n's last evaluation, a copy (the caller
// appends the call context and loop iteration).
func (r *subRun) failure(n *node) error {
	if r.err != nil {
		if e, ok := r.err.(*ast.Error); ok {
			c := *e
			return &c
		}
		return r.err
	}
	return ast.Errorf(n.pos, "%s: evaluation failed", n.op)
}
