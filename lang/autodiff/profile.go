package autodiff

import (
	"math"
	"time"

	"github.com/gpplang/gpp/lang/ast"
)

// StmtTime is where one statement's share of a Profile went: the forward
// and reverse time of the nodes built for it (Builder.InStmt), summed over
// the profiled evaluations.
type StmtTime struct {
	// Pos is the statement's position; the zero Pos collects the nodes
	// built outside any statement (the sum of the statements' terms).
	Pos ast.Pos
	// Nodes counts the statement's nodes that an evaluation computes:
	// the live ones that depend on the latent vector (data-only nodes are
	// computed once, when the program is finished).
	Nodes int
	// Evals is how many times the profiled evaluations computed the
	// statement (its nodes' computations over Nodes): once each.
	Evals            int
	Forward, Reverse time.Duration
}

// Profile is the time of n value-and-gradient evaluations of a program,
// by statement (Program.Profile).
type Profile struct {
	Evals            int           // evaluations timed
	Forward, Reverse time.Duration // in all, every statement's and the rest
	Stmts            []StmtTime    // in the order the statements were built
}

// Add adds q's times and evaluations to pr's, statement by statement (the
// profiles of one program at several points).
func (pr *Profile) Add(q *Profile) {
	if pr.Stmts == nil {
		pr.Stmts = make([]StmtTime, len(q.Stmts))
		copy(pr.Stmts, q.Stmts)
		for i := range pr.Stmts {
			pr.Stmts[i].Evals, pr.Stmts[i].Forward, pr.Stmts[i].Reverse = 0, 0, 0
		}
	}
	pr.Evals += q.Evals
	pr.Forward += q.Forward
	pr.Reverse += q.Reverse
	for i := range q.Stmts {
		pr.Stmts[i].Evals += q.Stmts[i].Evals
		pr.Stmts[i].Forward += q.Stmts[i].Forward
		pr.Stmts[i].Reverse += q.Stmts[i].Reverse
	}
}

// Profile runs n evaluations of the log joint and its gradient at x, as
// LogJoint does (same nodes, same order, same numbers), with a clock read
// wherever the statement of the next node differs from the last one's,
// and returns each statement's forward and reverse time. Consecutive nodes
// of one statement are timed together, so the clock costs little even on
// a tape of many small nodes, and the cost of a clock read (clockCost) is
// taken off each run's time. The rows of large products that a team
// (SetTeam) computes on other goroutines count as the wall time the
// calling goroutine waits for them. An evaluation that fails returns its
// error (the same as LogJoint's at x). Profile is separate from LogJoint,
// which has no clock and whose speed it leaves alone.
func (p *Program) Profile(x []float64, n int) (*Profile, error) {
	if len(x) != p.dim {
		panic(errLatentLen)
	}
	fwd := make([]time.Duration, len(p.stmts)+1)
	rev := make([]time.Duration, len(p.stmts)+1)
	runs := make([]int64, 2*len(fwd)) // clock reads: forward, then reverse
	grad := make([]float64, p.dim)
	before := make([]int64, len(p.order))
	for k, i := range p.order {
		before[k] = p.evals[i]
	}
	for e := 0; e < n; e++ {
		if err := p.profileForward(x, fwd, runs[:len(fwd)]); err != nil {
			return nil, err
		}
		if err := p.profileBackward(grad, rev, runs[len(fwd):]); err != nil {
			return nil, err
		}
	}
	// Each run's time includes about one read of the clock: take it off,
	// so that a statement of a few small nodes is not mostly the clock.
	clock := clockCost()
	for s := range fwd {
		fwd[s] = max(0, fwd[s]-time.Duration(runs[s])*clock)
		rev[s] = max(0, rev[s]-time.Duration(runs[len(fwd)+s])*clock)
	}
	pr := &Profile{Evals: n, Stmts: make([]StmtTime, len(p.stmts)+1)}
	for s := range pr.Stmts {
		if s > 0 {
			pr.Stmts[s].Pos = p.stmts[s-1]
		}
		pr.Stmts[s].Forward, pr.Stmts[s].Reverse = fwd[s], rev[s]
		pr.Forward += fwd[s]
		pr.Reverse += rev[s]
	}
	computed := make([]int64, len(pr.Stmts))
	for k, i := range p.order {
		if n := &p.nodes[i]; n.joint {
			pr.Stmts[n.stmt].Nodes++
			computed[n.stmt] += p.evals[i] - before[k]
		}
	}
	for s := range pr.Stmts {
		if c := pr.Stmts[s].Nodes; c > 0 {
			pr.Stmts[s].Evals = int(computed[s] / int64(c))
		}
	}
	return pr, nil
}

// profileForward is Forward with the time of each run of nodes of one
// statement added to fwd[stmt]: the same checks, memo and error.
func (p *Program) profileForward(x []float64, fwd []time.Duration, runs []int64) error {
	p.ready = false
	p.x = x
	p.outErr, p.outNaN = p.dataOutErr, p.dataOutNaN
	cur := int32(0)
	t0 := time.Now()
	defer p.fuse()
	p.zgen++
	order := p.order
	for k := 0; k < len(order); k++ {
		i := order[k]
		n := &p.nodes[i]
		if n.stmt != cur {
			t := time.Now()
			fwd[cur] += t.Sub(t0)
			runs[cur]++
			t0, cur = t, n.stmt
		}
		ok := p.eval(n)
		p.evals[i]++
		if !ok || firstBad(p.val[n.off:n.off+n.n]) >= 0 {
			var goOn bool
			if order, k, goOn = p.passFailed(order, k, ok, false, nil); goOn {
				continue
			}
			fwd[cur] += time.Since(t0)
			runs[cur]++
			_, err := p.jointFailed(k, i, ok) // Forward's error
			p.x = nil
			return err
		}
	}
	fwd[cur] += time.Since(t0)
	runs[cur]++
	p.x = nil
	p.ready = true
	return nil
}

// profileBackward is Backward with the time of each run of nodes of one
// statement added to rev[stmt] (the seeding to the root's).
func (p *Program) profileBackward(grad []float64, rev []time.Duration, runs []int64) error {
	cur := p.nodes[p.root].stmt
	t0 := time.Now()
	p.seed()
	for k := len(p.order) - 1; k >= 0; k-- {
		n := &p.nodes[p.order[k]]
		if !n.joint {
			continue
		}
		if n.stmt != cur {
			t := time.Now()
			rev[cur] += t.Sub(t0)
			runs[cur]++
			t0, cur = t, n.stmt
		}
		if firstBad(p.adj[n.aoff:n.aoff+n.n]) >= 0 {
			rev[cur] += time.Since(t0)
			runs[cur]++
			return p.backwardFailed(grad)
		}
		p.grad(n)
	}
	p.inputGrad(grad)
	rev[cur] += time.Since(t0)
	runs[cur]++
	return nil
}

// clockCost returns the least mean time of a clock read over a few rounds
// of reads back to back: what one read adds to a timed run.
func clockCost() time.Duration {
	const reads, rounds = 256, 5
	best := time.Duration(math.MaxInt64)
	for range rounds {
		t0 := time.Now()
		var t time.Time
		for range reads {
			t = time.Now()
		}
		best = min(best, t.Sub(t0)/reads)
	}
	return best
}

// StmtOf returns the position of the statement a node was built for
// (Builder.InStmt), or the zero Pos if none. Tests use it.
func (p *Program) StmtOf(id ID) ast.Pos {
	if s := p.nodes[p.index(id)].stmt; s > 0 {
		return p.stmts[s-1]
	}
	return ast.Pos{}
}
