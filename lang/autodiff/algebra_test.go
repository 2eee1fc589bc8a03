package autodiff

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// Tolerances of the algebraic solver tests: a root polished to a Newton
// step of 1e-10 relative is exact to rounding (algValueTol); its gradient
// by the implicit function theorem needs no differencing of the solve
// (algGradTol against closed forms), and central differences of solves of
// step 1e-6 carry errors of about 1e-10 (odeFDTol, checkGradFD).
const (
	algValueTol = 1e-10
	algGradTol  = 1e-10
)

// ugSystem is the Stan user's guide's f(y, θ) = (y0 − θ0, y0·y1 − θ1),
// whose root is (θ0, θ1/θ0).
func ugSystem(t *testing.T) *System {
	t.Helper()
	b := NewBuilder()
	y := b.Input("y", Vector(2), testPos)
	th := b.Input("theta", Vector(2), testPos)
	y0, y1 := b.Elem(y, 0, testPos), b.Elem(y, 1, testPos)
	f := b.Stack([]ID{b.Sub(y0, b.Elem(th, 0, testPos), testPos), b.Sub(b.Mul(y0, y1, testPos), b.Elem(th, 1, testPos), testPos)}, testPos)
	s, err := b.FinishSystem(f, testPos)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// atanSystem is f(y, a) = (atan(y0 − a0), y1³ + y1 − a1·(1 + a0²)): from a
// guess with |y0 − a0| > 1.4 the full Newton step on atan overshoots
// further each time, so Newton converges only through its line search.
func atanSystem(t *testing.T) *System {
	t.Helper()
	b := NewBuilder()
	y := b.Input("y", Vector(2), testPos)
	a := b.Input("a", Vector(2), testPos)
	y0, y1 := b.Elem(y, 0, testPos), b.Elem(y, 1, testPos)
	a0, a1 := b.Elem(a, 0, testPos), b.Elem(a, 1, testPos)
	one := b.Const([]float64{1}, Scalar(), testPos)
	f0 := b.Unary(OpAtan, b.Sub(y0, a0, testPos), testPos)
	f1 := b.Sub(b.Add(b.Mul(y1, b.Square(y1, testPos), testPos), y1, testPos), b.Mul(a1, b.Add(one, b.Square(a0, testPos), testPos), testPos), testPos)
	s, err := b.FinishSystem(b.Stack([]ID{f0, f1}, testPos), testPos)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// algProgram builds sum(w .* solve(f, guess, args)) with guess a
// constant and each argument an input (or a constant where data[i]), and
// returns the program, the solve's node and the inputs' values.
func algProgram(t testing.TB, sys *System, guess []float64, tol AlgebraTol, vals [][]float64, shapes []Shape, data []bool, w []float64) (*Program, ID, []float64) {
	t.Helper()
	b := NewBuilder()
	ids, x := testOperands(b, vals, shapes, data)
	name := "solve_newton"
	if tol.Method == AlgebraPowell {
		name = "solve_powell"
	}
	out := b.AlgebraSolve(sys, b.Const(guess, Vector(len(guess)), testPos), tol, ids, name, "f", testPos)
	p, err := b.Finish(b.Sum(b.Mul(out, b.Const(w, Vector(len(w)), testPos), testPos), testPos), out)
	if err != nil {
		t.Fatal(err)
	}
	return p, out, x
}

var algMethods = []AlgebraTol{{}, {Method: AlgebraPowell}}

// TestAlgebraClosedForm checks the user's guide system's root against
// (θ0, θ1/θ0) and the gradient of w·y* against the closed form and
// central differences, with both solvers, from a guess far from the root.
func TestAlgebraClosedForm(t *testing.T) {
	w := []float64{0.7, -1.3}
	for _, tol := range algMethods {
		for _, th := range [][]float64{{3, 6}, {0.5, -2}, {-4, 1e-3}} {
			p, out, x := algProgram(t, ugSystem(t), []float64{1, 1}, tol, [][]float64{th}, []Shape{Vector(2)}, []bool{false}, w)
			g := make([]float64, p.Dim())
			if _, err := p.LogJoint(x, g); err != nil {
				t.Fatal(err)
			}
			label := fmt.Sprintf("method %d, theta %v", tol.Method, th)
			want := []float64{th[0], th[1] / th[0]}
			for i, v := range p.Value(out) {
				if math.Abs(v-want[i]) > algValueTol*max(1, math.Abs(want[i])) {
					t.Errorf("%s: y*[%d] = %.17g, want %.17g", label, i, v, want[i])
				}
			}
			dwant := []float64{w[0] - w[1]*th[1]/(th[0]*th[0]), w[1] / th[0]}
			for i := range g {
				if math.Abs(g[i]-dwant[i]) > algGradTol*max(1, math.Abs(dwant[i])) {
					t.Errorf("%s: grad[%d] = %.17g, want %.17g", label, i, g[i], dwant[i])
				}
			}
			checkGradFD(t, p, x, 1e-6, label)
		}
	}
}

// TestAlgebraLineSearch solves the atan system from a guess where the
// plain Newton iteration diverges (checked here), with both solvers, and
// checks the root (a0, cube root of t³ + t = a1(1 + a0²)), a data argument
// passed as a constant, and the gradient against central differences.
func TestAlgebraLineSearch(t *testing.T) {
	// plain Newton on atan(x) from 3: x − atan(x)(1 + x²) grows
	xn := 3.0
	for range 3 {
		xn -= math.Atan(xn) * (1 + xn*xn)
	}
	if math.Abs(xn) < 100 {
		t.Fatalf("plain Newton on atan from 3 reached %v; the test needs a guess where it diverges", xn)
	}
	w := []float64{1, 2}
	for _, tol := range algMethods {
		for _, data := range []bool{false, true} {
			a := []float64{0.4, 1.5}
			p, out, x := algProgram(t, atanSystem(t), []float64{3.4, 0}, tol, [][]float64{a}, []Shape{Vector(2)}, []bool{data}, w)
			g := make([]float64, p.Dim())
			if _, err := p.LogJoint(x, g); err != nil {
				t.Fatalf("method %d: %v", tol.Method, err)
			}
			y := p.Value(out)
			c := a[1] * (1 + a[0]*a[0])
			if math.Abs(y[0]-a[0]) > algValueTol || math.Abs(y[1]*y[1]*y[1]+y[1]-c) > algValueTol {
				t.Errorf("method %d: y* = %v, want y0 = %v and y1³ + y1 = %v", tol.Method, y, a[0], c)
			}
			if !data {
				checkGradFD(t, p, x, 1e-6, fmt.Sprintf("method %d", tol.Method))
			}
		}
	}
}

// TestAlgebraZeroAllocs checks that a steady-state value and gradient
// through both solvers allocate nothing and that a clone gives the same
// numbers.
func TestAlgebraZeroAllocs(t *testing.T) {
	for _, tol := range algMethods {
		p, _, x := algProgram(t, atanSystem(t), []float64{3.4, 0}, tol, [][]float64{{0.4, 1.5}}, []Shape{Vector(2)}, []bool{false}, []float64{1, 2})
		checkZeroAllocsClone(t, p, x, 10)
	}
}

// TestAlgebraErrors checks the solves' failures: the step limit, a
// singular Jacobian (Newton), a system with no root (Powell), and a
// domain error in f at the guess.
func TestAlgebraErrors(t *testing.T) {
	solve := func(sys *System, guess []float64, tol AlgebraTol, a []float64) error {
		p, _, x := algProgram(t, sys, guess, tol, [][]float64{a}, []Shape{Vector(len(a))}, []bool{false}, make([]float64, len(guess)))
		_, err := p.LogJoint(x, make([]float64, p.Dim()))
		return err
	}
	err := solve(atanSystem(t), []float64{3.4, 0}, AlgebraTol{MaxSteps: 2}, []float64{0.4, 1.5})
	if err == nil || !strings.HasPrefix(err.Error(), "test.gpp:1:1: solve_newton: max_steps 2 reached without a root of f: ") || !strings.Contains(err.Error(), "solve_newton_tol(f, y_guess, scaling_step, f_tol, max_steps, ...)") {
		t.Errorf("step limit: %v", err)
	}
	err = solve(atanSystem(t), []float64{3.4, 0}, AlgebraTol{MaxSteps: 2, Method: AlgebraPowell}, []float64{0.4, 1.5})
	if err == nil || !strings.HasPrefix(err.Error(), "test.gpp:1:1: solve_powell: max_steps 2 reached") {
		t.Errorf("powell step limit: %v", err)
	}

	// y² + a = 0 for a > 0: no root; J = 2y is singular at the guess 0
	b := NewBuilder()
	y := b.Input("y", Vector(1), testPos)
	a := b.Input("a", Vector(1), testPos)
	sq, err := b.FinishSystem(b.Add(b.Square(y, testPos), a, testPos), testPos)
	if err != nil {
		t.Fatal(err)
	}
	err = solve(sq, []float64{0}, AlgebraTol{}, []float64{1})
	if err == nil || !strings.Contains(err.Error(), "solve_newton: the Jacobian of f is singular at y = [0]") {
		t.Errorf("singular: %v", err)
	}
	err = solve(sq, []float64{2}, AlgebraTol{Method: AlgebraPowell}, []float64{1})
	if err == nil || !strings.Contains(err.Error(), "test.gpp:1:1: solve_powell: ") || !strings.Contains(err.Error(), "not a root") && !strings.Contains(err.Error(), "no root") {
		t.Errorf("no root, powell: %v", err)
	}
	err = solve(sq, []float64{2}, AlgebraTol{}, []float64{1})
	if err == nil || !strings.Contains(err.Error(), "test.gpp:1:1: solve_newton: ") {
		t.Errorf("no root, newton: %v", err)
	}
	// a domain error at the guess: log(y) at y = −1
	b = NewBuilder()
	y = b.Input("y", Vector(1), testPos)
	a = b.Input("a", Vector(1), testPos)
	bodyPos := testPos
	bodyPos.Col = 9
	lg, err := b.FinishSystem(b.Sub(b.Log(y, bodyPos), a, testPos), testPos)
	if err != nil {
		t.Fatal(err)
	}
	err = solve(lg, []float64{-1}, AlgebraTol{}, []float64{1})
	if err == nil || !strings.HasPrefix(err.Error(), "test.gpp:1:9: log: ") || !strings.Contains(err.Error(), "(in the system f of solve_newton at test.gpp:1:1, at y_guess)") {
		t.Errorf("log(-1): %v", err)
	}
	// the builder's shape checks
	b = NewBuilder()
	b.AlgebraSolve(ugSystem(t), b.Input("g", Vector(3), testPos), AlgebraTol{}, []ID{b.Input("th", Vector(2), testPos)}, "solve_newton", "f", testPos)
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "y_guess is [3]") {
		t.Errorf("guess [3]: %v", err)
	}
	b = NewBuilder()
	b.Input("y", Vector(2), testPos)
	if _, err := b.FinishSystem(b.Input("z", Vector(3), testPos), testPos); err == nil || !strings.Contains(err.Error(), "the system returns [3]; it must be a vector [2], as long as y") {
		t.Errorf("f [3]: %v", err)
	}
}
