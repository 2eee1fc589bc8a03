package sgvb

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpplang/gpp/internal/par"
)

// Every job reaches every helper exactly once, whether the helpers and the
// engine find each other spinning or blocked (the pauses between jobs are
// below and above the spin budgets).
func TestCrewJobs(t *testing.T) {
	for _, spin := range []bool{true, false} {
		const W, jobs = 3, 300
		var done [W]atomic.Int64
		var sum atomic.Int64
		c := newCrew(W, spin, func(w int, j job) {
			done[w].Add(1)
			sum.Add(int64(j.iter))
			if j.iter%7 == 0 { // a slow helper: the engine blocks
				time.Sleep(time.Duration(j.iter%3) * engineSpin)
			}
		}, nil)
		want := int64(0)
		for i := 1; i <= jobs; i++ {
			c.start(job{iter: uint64(i)}, W-1)
			c.wait()
			want += int64(i) * (W - 1)
			if got := sum.Load(); got != want {
				t.Fatalf("spin %v, job %d: sum %d, want %d", spin, i, got, want)
			}
			if i%5 == 0 { // a slow engine: the helpers block
				time.Sleep(time.Duration(i%2) * 2 * helperSpin)
			}
		}
		c.stop()
		for w := 1; w < W; w++ {
			if n := done[w].Load(); n != jobs {
				t.Errorf("spin %v: helper %d did %d jobs, want %d", spin, w, n, jobs)
			}
		}
	}
}

// A job that its helper has not taken when the engine has done its own
// part is taken back and done by the engine, once: with one P and no
// spinning the helper cannot run before the engine waits, so the engine
// does (almost) every part itself; it used to block until the helper got
// a CPU.
func TestCrewRevokes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const jobs = 50
	var ran [jobs + 1]atomic.Int32
	var byEngine atomic.Int32
	engine := goid()
	c := newCrew(2, false, func(w int, j job) {
		ran[j.iter].Add(1)
		if goid() == engine {
			byEngine.Add(1)
		}
	}, nil)
	for i := 1; i <= jobs; i++ {
		c.start(job{iter: uint64(i)}, 1)
		c.wait()
		if n := ran[i].Load(); n != 1 {
			t.Fatalf("job %d done %d times, want once", i, n)
		}
	}
	c.stop()
	if n := byEngine.Load(); n < jobs/2 {
		t.Errorf("the engine did %d of %d parts that its helper had not taken, want most", n, jobs)
	}
}

// A crew whose helpers never take a part in time (one P, no spinning: the
// engine takes every part back) goes solo after a window: it posts nothing
// for soloBackoffMin parts, then probes with a window of hand-offs, and
// goes solo again for twice as long. Every part is still done once.
func TestCrewSolo(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ran atomic.Int64
	c := newCrew(2, false, func(w int, j job) { ran.Add(1) }, nil)
	defer c.stop()
	var soloAt []int // the parts after which the crew went solo
	posted := uint32(0)
	for i := 1; i <= soloWindow+soloBackoffMin+soloWindow+1; i++ {
		was := c.solo
		c.start(job{iter: uint64(i)}, 1)
		if c.solo && c.helpers[1].seq.Load() != posted {
			t.Fatalf("part %d: posted in solo mode", i)
		}
		posted = c.helpers[1].seq.Load()
		c.wait()
		if c.solo && !was {
			soloAt = append(soloAt, i)
		}
		if n := ran.Load(); n != int64(i) {
			t.Fatalf("after %d jobs %d parts done, want %d", i, n, i)
		}
	}
	want := []int{soloWindow, soloWindow + soloBackoffMin + soloWindow}
	if !slices.Equal(soloAt, want) {
		t.Errorf("went solo after parts %v, want %v", soloAt, want)
	}
	if c.backoff != 2*soloBackoffMin {
		t.Errorf("second solo period %d parts, want %d", c.backoff, 2*soloBackoffMin)
	}
}

// Closing an engine ends its helpers, spinning or blocked, and a fit
// cancelled through its context still closes its engine.
func TestCrewStop(t *testing.T) {
	base := runtime.NumGoroutine()
	settled := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > base; {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d goroutines, want %d", what, runtime.NumGoroutine(), base)
			}
			time.Sleep(time.Millisecond)
		}
	}
	tg, lat := newPoissonGamma(1200, 0.1, 1)
	for _, pause := range []time.Duration{0, 2 * helperSpin} {
		s := Settings{Seed: 1, Workers: 2}.withDefaults()
		e, err := newEngine(tg, lat, &s)
		if err != nil {
			t.Fatal(err)
		}
		for it := range 3 {
			e.step(streamStep, it, s.StepSize)
		}
		time.Sleep(pause)
		e.close()
		settled("close")
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	s := Settings{Seed: 1, Workers: 2, MaxIter: 1000, Tol: -1, Progress: func(Progress) {
		if n++; n == 3 {
			cancel()
		}
	}, EvalEvery: 10}
	r, err := Fit(ctx, tg, lat, s)
	if err != nil || !r.Interrupted {
		t.Fatalf("cancelled fit: err %v, interrupted %v", err, r != nil && r.Interrupted)
	}
	settled("cancelled fit")
}

// BenchmarkCrew is a step's pattern of work on two workers: 100 µs on the
// engine alone (the log joint), then a job of 20 µs on each; ideally 120 µs
// per op. spin=false is the blocking hand-off alone.
func BenchmarkCrew(b *testing.B) {
	busy := func(d time.Duration) {
		for t0 := time.Now(); time.Since(t0) < d; {
		}
	}
	for _, spin := range []bool{true, false} {
		b.Run(fmt.Sprintf("spin=%v", spin), func(b *testing.B) {
			c := newCrew(2, spin, func(int, job) { busy(20 * time.Microsecond) }, nil)
			defer c.stop()
			for b.Loop() {
				busy(100 * time.Microsecond)
				c.start(job{}, 1)
				busy(20 * time.Microsecond)
				c.wait()
			}
		})
	}
}

// teamed is a poissonGamma that computes its gradient in a team's parts
// when it has one, and records what it was lent.
type teamed struct {
	poissonGamma
	team     par.Team
	shared   int  // log joints computed by a team of more than one
	helped   bool // some part ran on another goroutine than part 0
	everLent bool
	waits    int // log joints whose part 0 waited for a helper (see RunPart)
}

func (t *teamed) SetTeam(tm par.Team) {
	t.team = tm
	t.everLent = t.everLent || tm != nil
}

// Clone drops the team, as compile.Model does.
func (t *teamed) Clone() Target { c := *t; c.team = nil; return &c }

type gradTask struct {
	t       *teamed
	x, g    []float64
	lp      []float64 // per part
	gids    []uint64
	started []atomic.Bool
}

// RunPart computes part i. Until a helper has been seen at work, part 0
// waits (up to a second, in at most five log joints) for part 1 to start:
// the engine takes back a part that no helper has taken when its own is
// done (crew.wait), so on a busy machine the cheap parts here could all
// end up on the engine's goroutine, and the test would not see a helper.
func (k *gradTask) RunPart(i, n int) {
	k.started[i].Store(true)
	if i == 0 && n > 1 && !k.t.helped && k.t.waits < 5 {
		k.t.waits++
		for t0 := time.Now(); !k.started[1].Load() && time.Since(t0) < time.Second; {
			runtime.Gosched()
		}
	}
	lo, hi := i*len(k.x)/n, (i+1)*len(k.x)/n
	sub := k.t.poissonGamma
	sub.y = sub.y[lo:hi]
	k.lp[i], _ = sub.LogJoint(k.x[lo:hi], k.g[lo:hi])
	k.gids[i] = goid()
}

func (t *teamed) LogJoint(x, grad []float64) (float64, error) {
	if t.team == nil || t.team.Size() == 1 {
		return t.poissonGamma.LogJoint(x, grad)
	}
	n := t.team.Size()
	k := &gradTask{t: t, x: x, g: grad, lp: make([]float64, n), gids: make([]uint64, n), started: make([]atomic.Bool, n)}
	t.team.Run(k)
	t.shared++
	lp := 0.0
	for i, v := range k.lp {
		lp += v
		t.helped = t.helped || k.gids[i] != k.gids[0]
	}
	return lp, nil
}

// goid returns the calling goroutine's id (for this test only).
func goid() uint64 {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	var id uint64
	fmt.Sscanf(string(b), "goroutine %d ", &id)
	return id
}

// With two workers and one draw per step, Fit lends the helper to the
// Target's log joint during the step (not during the ELBO estimates, whose
// draws the workers share out), takes the team back at the end, and the
// numbers are those of one worker.
func TestTeamLent(t *testing.T) {
	defer func(v bool) { goSolo = v }(goSolo)
	goSolo = false // on a busy machine the crew could go solo and lend no team
	pg, lat := newPoissonGamma(1200, 0.1, 1)
	var res []*Result
	for _, w := range []int{1, 2} {
		tg := &teamed{poissonGamma: *pg}
		r, err := Fit(context.Background(), tg, lat, Settings{Seed: 3, Workers: w, MaxIter: 200, Tol: -1, PSISDraws: -1})
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, r)
		if w == 1 {
			if tg.everLent {
				t.Error("one worker: a team was lent")
			}
			continue
		}
		if tg.shared < 200 || !tg.helped {
			t.Errorf("two workers: %d shared log joints (want ≥ 200), helped %v", tg.shared, tg.helped)
		}
		if tg.team != nil {
			t.Error("the team was not taken back")
		}
	}
	sameResult(t, res[0], res[1])
}
