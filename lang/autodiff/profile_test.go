package autodiff

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpplang/gpp/lang/ast"
)

// TestProfileStatements builds a program as a compiler would, statement by
// statement (InStmt), with a value that one statement builds and two later
// ones read, and checks that every node counts at the statement that built
// it, that Profile computes each statement once per evaluation, and that
// profiling leaves the log joint and its gradient as LogJoint has them.
func TestProfileStatements(t *testing.T) {
	let := ast.Pos{File: "m.gpp", Line: 2, Col: 1}
	obs1 := ast.Pos{File: "m.gpp", Line: 3, Col: 1}
	obs2 := ast.Pos{File: "m.gpp", Line: 4, Col: 1}
	b := NewBuilder()
	in := func(pos ast.Pos, f func()) {
		done := b.InStmt(pos)
		f()
		done()
	}
	var x, mu, l1, l2, sq ID
	in(let, func() {
		x = b.Input("x", Vector(3), let)
		mu = b.Exp(x, let)
	})
	in(obs1, func() {
		l1 = b.Density(testNormal, b.Const([]float64{1, 2, 3}, Vector(3), obs1), []ID{mu, b.Scalar(1, obs1)}, obs1)
	})
	in(obs2, func() {
		sq = b.Mul(mu, mu, obs2)
		l2 = b.Density(testNormal, b.Const([]float64{0.5, 1, 2}, Vector(3), obs2), []ID{sq, b.Scalar(2, obs2)}, obs2)
	})
	in(let, func() { // a second InStmt at a position already seen adds to its row
		l2 = b.Add(l2, b.Sum(x, let), let)
	})
	root := b.Add(l1, l2, ast.Pos{})
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id   ID
		want ast.Pos
	}{{x, let}, {mu, let}, {l1, obs1}, {sq, obs2}, {l2, let}, {root, ast.Pos{}}} {
		if got := p.StmtOf(c.id); got != c.want {
			t.Errorf("node %d: statement %v, want %v", c.id&(1<<32-1), got, c.want)
		}
	}

	xs := []float64{0.1, -0.3, 0.2}
	grad := make([]float64, 3)
	lp, err := p.LogJoint(xs, grad)
	if err != nil {
		t.Fatal(err)
	}
	const n = 7
	before := p.Evals(root)
	pr, err := p.Profile(xs, n)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Evals(root) - before; got != n {
		t.Errorf("Profile computed the root %d times, want %d", got, n)
	}
	if got := p.Value(root)[0]; math.Float64bits(got) != math.Float64bits(lp) {
		t.Errorf("log joint after Profile %v, LogJoint's %v", got, lp)
	}
	if pr.Evals != n {
		t.Errorf("Evals = %d, want %d", pr.Evals, n)
	}
	// let: x, exp(x), sum(x) and the add; obs1: its density; obs2: the
	// product and its density; outside: the root.
	wantNodes := map[ast.Pos]int{let: 4, obs1: 1, obs2: 2, {}: 1}
	var fwd, rev time.Duration
	seen := map[ast.Pos]bool{}
	for _, s := range pr.Stmts {
		if seen[s.Pos] {
			t.Errorf("statement %v has two rows", s.Pos)
		}
		seen[s.Pos] = true
		if s.Nodes != wantNodes[s.Pos] {
			t.Errorf("statement %v: %d nodes, want %d", s.Pos, s.Nodes, wantNodes[s.Pos])
		}
		if s.Evals != n {
			t.Errorf("statement %v computed %d times, want %d", s.Pos, s.Evals, n)
		}
		if s.Forward < 0 || s.Reverse < 0 {
			t.Errorf("statement %v: negative time %v, %v", s.Pos, s.Forward, s.Reverse)
		}
		fwd += s.Forward
		rev += s.Reverse
	}
	if len(seen) != len(wantNodes) {
		t.Errorf("%d rows, want %d", len(seen), len(wantNodes))
	}
	if fwd != pr.Forward || rev != pr.Reverse {
		t.Errorf("rows sum to %v, %v; totals %v, %v", fwd, rev, pr.Forward, pr.Reverse)
	}
	// The gradient is LogJoint's after profiling too.
	g2 := make([]float64, 3)
	if _, err := p.LogJoint(xs, g2); err != nil {
		t.Fatal(err)
	}
	for i := range grad {
		if math.Float64bits(grad[i]) != math.Float64bits(g2[i]) {
			t.Errorf("gradient %d: %v after Profile, %v before", i, g2[i], grad[i])
		}
	}

	var sum Profile
	sum.Add(pr)
	sum.Add(pr)
	if sum.Evals != 2*n || sum.Stmts[0].Evals != 2*n || sum.Forward != 2*pr.Forward {
		t.Errorf("Add: %d evaluations, %d of the first row, forward %v; want %d, %d, %v", sum.Evals, sum.Stmts[0].Evals, sum.Forward, 2*n, 2*n, 2*pr.Forward)
	}
}

// TestProfileError checks that Profile returns LogJoint's error at a
// point where the log joint fails.
func TestProfileError(t *testing.T) {
	b := NewBuilder()
	done := b.InStmt(testPos)
	x := b.Input("x", Scalar(), testPos)
	root := b.Log(x, testPos)
	done()
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	_, want := p.LogJoint([]float64{-1}, make([]float64, 1))
	if want == nil {
		t.Fatal("log(-1) did not fail")
	}
	if _, err := p.Profile([]float64{-1}, 3); err == nil || err.Error() != want.Error() {
		t.Errorf("Profile error %v, want %v", err, want)
	}
}

// TestProfileErrorSameAsLogJoint: where a rowlogsumexp row's terms are
// all −Inf (an abundance grid's bound below a count), Profile names that
// row as LogJoint does (zeroRowError), not the first log 0 of the pass
// (the count 3 against N = 0, which its row takes in as a value).
func TestProfileErrorSameAsLogJoint(t *testing.T) {
	grid := make([]float64, 11)
	for i := range grid {
		grid[i] = float64(i)
	}
	p, _, q := dataArgCase(t, "Binomial", dhConst(Matrix(2, 1), []float64{3, 12}), dhConst(Matrix(1, 11), grid), dhIn(Scalar(), []float64{0.4}), true, true)
	_, want := p.LogJoint(q, make([]float64, 1))
	if want == nil || !strings.Contains(want.Error(), "every term of row 1") {
		t.Fatalf("LogJoint error %v, want row 1's", want)
	}
	if _, err := p.Profile(q, 2); err == nil || err.Error() != want.Error() {
		t.Errorf("Profile error %v, want %v", err, want)
	}
}
