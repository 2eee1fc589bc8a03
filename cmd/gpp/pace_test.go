package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/check"
)

// fakeTimers stands for time.AfterFunc in tests: it records the timers
// set, and fire runs the last one, as its expiry would.
type fakeTimers struct {
	set     []time.Duration
	f       func()
	stopped int
}

func (ft *fakeTimers) after(d time.Duration, f func()) func() {
	ft.set, ft.f = append(ft.set, d), f
	return func() { ft.stopped++ }
}

func (ft *fakeTimers) fire() {
	if ft.f != nil {
		ft.f()
	}
}

// noTimer sets no timer.
func noTimer(time.Duration, func()) func() { return func() {} }

// TestSamplePace: after the first progress line, gpp sample says once
// where no tenth's line has come for 3 times the interval before (a
// minute at least): the iterations since, warm-up or sampling, the pace
// against before's, the time left at it, the trees' depth and the
// advice; a timer early by the clock waits on; again only after another
// line; never after the run's end or with --quiet. The clock and the
// timers are the test's.
func TestSamplePace(t *testing.T) {
	t0, at := time.Unix(0, 0), time.Duration(0)
	now := func() time.Time { return t0.Add(at) }
	s := nuts.Settings{Chains: 4, Warmup: 1000, Draws: 1000}
	var b strings.Builder
	var ft fakeTimers
	p, tree, stop := sampleProgressAt(newConsole(&b, false, false, false), s, "ADVICE", now, ft.after)
	n := 0
	iterate := func(k int, each time.Duration, depth int, warm bool) {
		for range k {
			at += each
			tree(n%4, depth)
			p(n%4, n/4+1, warm)
			n++
		}
	}
	iterate(1600, 10*time.Millisecond, 3, true) // 10 % at 8 s, 20 % at 16 s
	if len(ft.set) != 2 || ft.set[0] != paceFloor || ft.set[1] != paceFloor {
		t.Fatalf("timers %v after two lines 8 s apart, want two of %v", ft.set, paceFloor)
	}
	iterate(10, 2*time.Second, 10, true) // 20 s after the 20 % line
	b.Reset()
	ft.fire()
	if b.String() != "" || ft.set[len(ft.set)-1] != 40*time.Second {
		t.Fatalf("a timer early by the clock: said %q, timers %v; want nothing and one of 40 s", b.String(), ft.set)
	}
	iterate(27, 2*time.Second, 10, true) // 74 s since the 20 % line
	ft.fire()
	want := "slower: 74 s since 20% of the 8000 iterations: 37 iterations (all warm-up) since, 2 s each across the chains against 0.01 s before; at this pace the 6363 iterations left would take about 3.54 h; the trees' mean depth 10 since (--max-depth 10), 3 before; ADVICE\n"
	if b.String() != want {
		t.Fatalf("a collapse:\n%q\nwant\n%q", b.String(), want)
	}
	ft.fire()
	if b.String() != want {
		t.Errorf("said again: %q", b.String())
	}

	iterate(2400-n, time.Millisecond, 4, true) // the 30 % line, 74.763 s after the 20 %
	if got, want := ft.set[len(ft.set)-1], 3*74763*time.Millisecond; got != want {
		t.Errorf("timer %v after a line 74.763 s after the one before, want %v", got, want)
	}

	// into sampling (warm-up is the chains' first 4000 iterations): the
	// 40 % line, then 790 warm-up and 5 slow sampling iterations
	iterate(3990-n, time.Millisecond, 4, true)
	iterate(5, 10*time.Second, 6, false)
	b.Reset()
	at += 10 * time.Minute
	ft.fire()
	if got := b.String(); !strings.Contains(got, "since 40% of the 8000 iterations: 795 iterations (790 warm-up, 5 sampling) since") ||
		!strings.Contains(got, "the trees' mean depth 4.01 since (--max-depth 10), 4 before") {
		t.Errorf("warm-up and sampling: %q", got)
	}
	b.Reset()
	iterate(6400-n, time.Millisecond, 4, false) // to the 80 % line
	at += 5 * time.Minute
	ft.fire()
	want = "slower: 5 min since 80% of the 8000 iterations: no iteration has finished since (0.001 s each across the chains before); at 5 min or more each, the 1600 iterations left would take 133 h or more; ADVICE\n"
	if got := b.String(); !strings.HasSuffix(got, want) {
		t.Errorf("no iteration since:\n%q\nwant\n%q", got, want)
	}

	iterate(800, time.Millisecond, 4, false) // the 90 % line
	b.Reset()
	stop()
	at += time.Hour
	ft.fire()
	if b.String() != "" {
		t.Errorf("after stop: %q", b.String())
	}

	// the last line ends the watch
	ft = fakeTimers{}
	p, tree, stop = sampleProgressAt(newConsole(&b, false, false, false), nuts.Settings{Chains: 2, Warmup: 5, Draws: 5}, "", now, ft.after)
	n = 0
	iterate(20, time.Millisecond, 3, false)
	b.Reset()
	at += time.Hour
	ft.fire()
	if b.String() != "" {
		t.Errorf("after the last line: %q", b.String())
	}
	stop()

	// --quiet: no timer, no line
	ft = fakeTimers{}
	p, tree, _ = sampleProgressAt(newConsole(&b, false, true, false), s, "ADVICE", now, ft.after)
	n = 0
	iterate(1600, time.Second, 3, true)
	at += time.Hour
	ft.fire()
	if b.String() != "" || len(ft.set) != 0 {
		t.Errorf("--quiet: said %q, timers %v", b.String(), ft.set)
	}
}

// TestFitPace: after an ELBO evaluation, an SGVB fit says once where the
// next has not come for 3 times the interval before (a minute at least):
// the steps since, the pace against before's, the time left at it and
// the advice; none once the final estimate started (its own line) or
// after the last evaluation, none with --quiet; an L-BFGS fit (a line
// every iteration) gets no watch. The clock and the timers are the
// test's.
func TestFitPace(t *testing.T) {
	t0, at := time.Unix(0, 0), time.Duration(0)
	now := func() time.Time { return t0.Add(at) }
	type run struct {
		s       sgvb.Settings
		ft      fakeTimers
		b       strings.Builder
		stop    func()
		step    int
		scoring bool
	}
	start := func(m sgvb.Method, quiet bool) *run {
		r := &run{s: sgvb.Settings{Method: m, MaxIter: 10000, EvalEvery: 100}}
		con := newConsole(&r.b, false, quiet, false)
		con.start(10000, 100, 1, "")
		r.s.Scoring = func(int, time.Duration, bool) { r.scoring = true }
		r.stop = watchStepsAt(con, &r.s, &check.Info{}, nil, now, r.ft.after)
		return r
	}
	steps := func(r *run, k int, each time.Duration) {
		for range k {
			at += each
			r.step++
			if r.s.Stepped != nil {
				r.s.Stepped(r.step)
			}
		}
	}
	eval := func(r *run) { r.s.Progress(sgvb.Progress{Iter: r.step, Elapsed: at}) }

	r := start(sgvb.SGVB, false)
	defer r.stop()
	steps(r, 100, 10*time.Millisecond)
	eval(r)
	steps(r, 100, 10*time.Millisecond)
	eval(r)
	steps(r, 12, 10*time.Second)
	r.b.Reset()
	r.ft.fire()
	want := "slower: 2 min since the ELBO evaluation at step 200 (the next at step 300): 12 steps since, 10 s each against 0.01 s before; at this pace the 9788 steps left would take about 27.2 h; --profile shows which statements take the time; fewer --iter would end sooner\n"
	if r.b.String() != want {
		t.Fatalf("a collapse:\n%q\nwant\n%q", r.b.String(), want)
	}
	r.ft.fire()
	if r.b.String() != want {
		t.Errorf("said again: %q", r.b.String())
	}
	steps(r, 88, time.Millisecond)
	eval(r)
	r.s.Scoring(1000, at, true)
	if !r.scoring {
		t.Errorf("Scoring not passed on")
	}
	at += time.Hour
	r.b.Reset()
	r.ft.fire()
	if r.b.String() != "" {
		t.Errorf("during the final estimate: %q", r.b.String())
	}

	r = start(sgvb.SGVB, false)
	defer r.stop()
	steps(r, 100, time.Second)
	eval(r)
	r.step = 10000
	eval(r) // the last evaluation
	at += time.Hour
	r.b.Reset()
	r.ft.fire()
	if r.b.String() != "" {
		t.Errorf("after the last evaluation: %q", r.b.String())
	}

	for _, c := range []struct {
		m     sgvb.Method
		quiet bool
	}{{sgvb.SGVB, true}, {sgvb.MAP, false}} {
		r := start(c.m, c.quiet)
		defer r.stop()
		steps(r, 100, time.Second)
		eval(r)
		at += time.Hour
		r.b.Reset()
		r.ft.fire()
		if strings.Contains(r.b.String(), "slower") || len(r.ft.set) != 0 {
			t.Errorf("method %v, quiet %v: said %q, timers %v", c.m, c.quiet, r.b.String(), r.ft.set)
		}
	}
}

// TestWatchSample: gpp sample's settings get the progress and the tree
// depths' callbacks; the fixed_param sampler's no Tree (it builds none).
func TestWatchSample(t *testing.T) {
	var b strings.Builder
	for _, fixed := range []bool{false, true} {
		s := nuts.Settings{Chains: 1, Draws: 10, FixedParam: fixed}
		stop := watchSample(newConsole(&b, false, false, false), &s, "")
		stop()
		if s.Progress == nil || (s.Tree == nil) != fixed {
			t.Errorf("fixed_param %v: Progress set %v, Tree set %v", fixed, s.Progress != nil, s.Tree != nil)
		}
	}
}
