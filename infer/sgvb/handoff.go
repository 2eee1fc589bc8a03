package sgvb

import (
	"runtime"
	"sync/atomic"
	"time"
)

// crew hands jobs from the engine's goroutine (worker 0) to the helper
// goroutines (workers 1, 2, …) and waits for them. Each side spins on an
// atomic for a bounded time before blocking on a channel: waking a blocked
// goroutine costs some 40 µs on a small VM, as much as a step's shared work
// saves on a few hundred coordinates (see split), while a hand-off between
// spinning goroutines costs a few µs. The spins are bounded, so nothing
// busy-waits between fits, and they yield the CPU as they go (see
// spinUntil).
//
// Blocking is race-free by a Dekker handshake: the sleeper raises its flag,
// then checks the condition again; the waker changes the condition, then
// checks the flag. Go's atomics are sequentially consistent, so at least
// one of them sees the other, and CompareAndSwap decides which side owns
// the flag: a waker that wins sends one token, which the sleeper receives.
//
// A helper takes its job by a CompareAndSwap of its state from posted to
// taken. The engine, once its own part is done, takes back every job that
// no helper has taken and does that part itself (work(w, j) for the
// helper's w, on the engine's goroutine). When other processes keep the
// CPUs busy, a helper's thread can wait milliseconds for a CPU; without
// this the engine waited for it at every hand-off, and a fit on two workers
// took 4–7 times as long as on one (BenchmarkGoalFitContended in
// internal/pipeline). The parts are the same whoever does them, so the
// numbers do not change.
//
// When the engine takes back most parts (its helpers seldom find a CPU in
// time), a helper that spins only takes CPU time from the engine, and the
// crew goes solo for a while: the engine does every part without posting
// any (see account).
type crew struct {
	helpers []*helper // helpers[w] serves worker w; helpers[0] is nil
	spin    bool      // spin before blocking
	work    func(w int, j job)
	// idle, if not nil, does a piece of background work and reports
	// whether there was one; a spinning helper calls it instead of
	// yielding (see spinUntil).
	idle func() bool

	// The engine's own state (only its goroutine uses it).
	n        int  // the helpers of the job in hand (start's n)
	solo     bool // do every part on the engine, post nothing
	soloJob  job  // the job that start took in solo mode
	parts    int  // parts handed off in this window
	revoked  int  // of which the engine took back
	soloLeft int  // parts still to do solo before the next probe
	backoff  int  // the next solo period, in parts

	_       [64]byte     // keep pending off the helpers' cache lines
	pending atomic.Int32 // helpers still working on the current job
	waiting atomic.Bool  // the engine is blocked on done
	done    chan struct{}
}

// helper is one helper goroutine's job slot.
type helper struct {
	j      job           // the job, written before state and seq
	seq    atomic.Uint32 // the number of jobs posted
	state  atomic.Int32  // jobPosted, jobTaken or jobRevoked
	parked atomic.Bool   // the helper is blocked on wake
	wake   chan struct{}
	_      [64]byte
}

// The states of a helper's job: posted, then taken by the helper or
// revoked by the engine, which then does it itself.
const (
	jobPosted int32 = iota + 1
	jobTaken
	jobRevoked
)

// Spin budgets. A helper waits this long for its next job before it
// blocks: long enough to cover the log joint that the engine computes
// between a step's two split jobs (170–400 µs on the benchmark models).
// The engine waits this long for the helpers: long enough to cover the
// imbalance of a job, up to a segment's work.
const (
	helperSpin = 500 * time.Microsecond
	engineSpin = 200 * time.Microsecond
	spinYield  = 10 * time.Microsecond // see spinUntil
)

// jobQuit tells a helper to exit.
const jobQuit jobKind = -1

// newCrew starts helpers for workers 1..W-1, running work. With spin false
// nobody spins (the engine's choice when there are more workers than Ps).
func newCrew(W int, spin bool, work func(w int, j job), idle func() bool) *crew {
	c := &crew{helpers: make([]*helper, W), spin: spin, work: work, idle: idle, done: make(chan struct{}, 1)}
	for w := 1; w < W; w++ {
		h := &helper{wake: make(chan struct{}, 1)}
		c.helpers[w] = h
		go c.serve(w, h, work)
	}
	return c
}

// serve is helper w's loop: wait for a job, do it, count it done. It
// takes the latest job posted, so that a quit posted on top of a job not
// yet taken (close after a panic) still ends it.
func (c *crew) serve(w int, h *helper, work func(w int, j job)) {
	for last := uint32(0); ; {
		posted := func() bool { return h.seq.Load() != last }
		if !c.spinUntil(helperSpin, posted, c.idle) {
			h.parked.Store(true)
			if !posted() || !h.parked.CompareAndSwap(true, false) {
				<-h.wake
			}
		}
		last = h.seq.Load()
		if !h.state.CompareAndSwap(jobPosted, jobTaken) {
			continue // the engine took it back
		}
		if h.j.kind == jobQuit {
			return
		}
		work(w, h.j)
		if c.pending.Add(-1) == 0 && c.waiting.Load() && c.waiting.CompareAndSwap(true, false) {
			c.done <- struct{}{}
		}
	}
}

// Solo-mode tuning (see account): a window of soloWindow parts handed off,
// of which more than half taken back sends the crew solo for backoff parts,
// from soloWindow·4 doubling up to soloWindow·256 while each probe finds
// the helpers still absent (about 0.1 to 6 s of an EPM fit on a busy
// machine).
const (
	soloWindow     = 256
	soloBackoffMin = 4 * soloWindow
	soloBackoffMax = 256 * soloWindow
)

// goSolo lets crews go solo; tests that count hand-offs turn it off.
var goSolo = true

// account counts a hand-off of n parts, r of them taken back, and goes solo
// when most parts of a window were; after a solo period it hands off again
// for a window (a probe).
func (c *crew) account(n, r int) {
	if !goSolo {
		return
	}
	if c.solo {
		if c.soloLeft -= n; c.soloLeft <= 0 {
			c.solo = false
		}
		return
	}
	c.parts += n
	c.revoked += r
	if c.parts < soloWindow {
		return
	}
	if 2*c.revoked > c.parts {
		c.solo = true
		c.backoff = min(max(2*c.backoff, soloBackoffMin), soloBackoffMax)
		c.soloLeft = c.backoff
	} else {
		c.backoff = 0
	}
	c.parts, c.revoked = 0, 0
}

// start posts j to helpers 1..n. The previous job must be finished.
func (c *crew) start(j job, n int) {
	c.n = n
	if c.solo {
		c.soloJob = j
		return
	}
	c.pending.Store(int32(n))
	for w := 1; w <= n; w++ {
		c.post(w, j)
	}
}

// post hands j to helper w, waking it if it is blocked.
func (c *crew) post(w int, j job) {
	h := c.helpers[w]
	h.j = j
	h.state.Store(jobPosted)
	h.seq.Add(1)
	if h.parked.Load() && h.parked.CompareAndSwap(true, false) {
		h.wake <- struct{}{}
	}
}

// wait returns when the job posted by start is finished: it does the
// parts that no helper has taken yet itself, then waits for the helpers
// that took theirs.
func (c *crew) wait() { c.waitIdle(nil) }

// waitIdle is wait that does idle's pieces of work while it waits for the
// helpers (see spinUntil).
func (c *crew) waitIdle(idle func() bool) {
	if c.solo {
		for w := 1; w <= c.n; w++ {
			c.work(w, c.soloJob)
		}
		c.account(c.n, c.n)
		return
	}
	r := 0
	for w := 1; w <= c.n; w++ {
		h := c.helpers[w]
		if h.state.CompareAndSwap(jobPosted, jobRevoked) {
			c.work(w, h.j)
			c.pending.Add(-1)
			r++
		}
	}
	c.account(c.n, r)
	if c.spinUntil(engineSpin, func() bool { return c.pending.Load() == 0 }, idle) {
		return
	}
	c.waiting.Store(true)
	if c.pending.Load() != 0 || !c.waiting.CompareAndSwap(true, false) {
		<-c.done
	}
}

// stop makes the helpers exit once they have finished their job.
func (c *crew) stop() {
	for w := 1; w < len(c.helpers); w++ {
		c.post(w, job{kind: jobQuit})
	}
}

// spinUntil polls cond for up to d (not at all without c.spin) and reports
// whether it became true. Between polls it yields the CPU to other threads
// (osYield), which costs little on an idle machine and keeps a spinner from
// slowing the thread it waits for when the CPUs are oversubscribed; every
// spinYield it also yields to other goroutines, as the one it waits for may
// be queued behind it on its P (a goroutine woken from a channel is queued
// on the waker's P). With idle, it does idle's pieces of work instead of
// yielding while there are any (a helper waiting for its next job while
// worker 0 computes the log joint: see deferred), and the time d counts
// from the last piece.
func (c *crew) spinUntil(d time.Duration, cond func() bool, idle func() bool) bool {
	if cond() {
		return true
	}
	if !c.spin {
		return false
	}
	t0 := time.Now()
	for y := spinYield; ; {
		if cond() {
			return true
		}
		if idle != nil && idle() {
			t0, y = time.Now(), spinYield
			continue
		}
		osYield()
		if t := time.Since(t0); t >= d {
			return false
		} else if t >= y {
			runtime.Gosched()
			y = t + spinYield
		}
	}
}
