package sgvb

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
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
		})
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
			c := newCrew(2, spin, func(int, job) { busy(20 * time.Microsecond) })
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
