package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// TestStepWatch: the first steps get one line once they are found slow
// (a step of slowStep or more, or slowAfter without a progress line),
// with the pace, what the fit would take and the advice; none for fast
// steps, none again, none after a progress line, none with --quiet. The
// timer's line comes only while no step has finished. The times are
// given, not measured.
func TestStepWatch(t *testing.T) {
	var b strings.Builder
	w := newStepWatch(newConsole(&b, false, false, false), 10000, 100, "ADVICE")
	w.waiting(slowAfter)
	wait := "no step has finished after 10 s (before step 1 the fit estimates its start's ELBO from up to 20 draws of q, a log joint each); a line will say what step 1 took\n"
	if b.String() != wait {
		t.Errorf("no step yet:\n%q\nwant\n%q", b.String(), wait)
	}
	w.stepped(1, 48300*time.Millisecond, 60*time.Second)
	want := wait + "step 1 took 48.3 s, after 11.7 s for the fit's start: the 10000 steps of --iter would take about 134 h, and the first progress line comes at step 100, in about 79.7 min; ADVICE\n"
	if b.String() != want {
		t.Errorf("a slow first step:\n%q\nwant\n%q", b.String(), want)
	}
	w.stepped(2, 100*time.Second, 120*time.Second)
	w.waiting(slowAfter)
	if b.String() != want {
		t.Errorf("a second line: %q", b.String())
	}

	b.Reset()
	w = newStepWatch(newConsole(&b, false, false, false), 10000, 100, "")
	w.stepped(1, slowStep-time.Millisecond, slowStep) // fast enough, not long yet
	w.stepped(40, 40*200*time.Millisecond, slowAfter-time.Millisecond)
	w.waiting(slowAfter) // a step has finished
	if b.String() != "" {
		t.Errorf("fast steps before slowAfter: %q", b.String())
	}
	w.stepped(50, 50*200*time.Millisecond, slowAfter)
	want = "steps 1-50 took 0.2 s each: the 10000 steps of --iter would take about 33.3 min, and the first progress line comes at step 100, in about 10 s\n"
	if b.String() != want {
		t.Errorf("slowAfter without a progress line:\n%q\nwant\n%q", b.String(), want)
	}

	b.Reset()
	w = newStepWatch(newConsole(&b, false, false, false), 10000, 100, "")
	w.progressed()
	w.waiting(slowAfter)
	w.stepped(1, time.Minute, time.Minute)
	if b.String() != "" {
		t.Errorf("after a progress line: %q", b.String())
	}
	w = newStepWatch(newConsole(&b, false, true, false), 10000, 100, "")
	w.waiting(slowAfter)
	w.stepped(1, time.Minute, time.Minute)
	if b.String() != "" {
		t.Errorf("--quiet: %q", b.String())
	}
}

// TestSampleSlowLine: gpp sample's first iterations get one line when the
// first took slowStep or more, or slowAfter passed before the first
// progress line, and no more; the clock is injected.
func TestSampleSlowLine(t *testing.T) {
	for _, c := range []struct {
		ticks []time.Duration // the clock's readings after the start, one per iteration
		want  string
	}{
		{[]time.Duration{3 * time.Second, 4 * time.Second}, "iteration 1 took 3 s: the 8000 iterations of 4 chains would take about 6.67 h at this pace (early warm-up iterations are often the slowest), and the first progress line comes at iteration 800, in about 40 min; ADVICE\n"},
		{[]time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 11 * time.Second}, "3 iterations took 10 s, 3.33 s each across the chains: the 8000 iterations of 4 chains would take about 7.41 h"},
		{[]time.Duration{time.Second, 5 * time.Second, 9 * time.Second}, ""},
	} {
		var b strings.Builder
		i := -1
		t0 := time.Unix(0, 0)
		now := func() time.Time {
			if i < 0 {
				i++
				return t0
			}
			i++
			return t0.Add(c.ticks[i-1])
		}
		s := nuts.Settings{Chains: 4, Warmup: 1000, Draws: 1000}
		p, _, _ := sampleProgressAt(newConsole(&b, false, false, false), s, "ADVICE", now, noTimer)
		for k := range c.ticks {
			p(k%4, k/4+1, true)
		}
		if got := b.String(); c.want == "" && got != "" || !strings.Contains(got, c.want) || strings.Count(got, "\n") > 1 {
			t.Errorf("iterations at %v: %q, want %q", c.ticks, got, c.want)
		}
	}
}

// TestSampleSlowLineAfterProgress: once the first progress line is out,
// a slow stretch later in the run gets no slow line (which said the first
// progress line was still to come, after the 10 % and 20 % lines).
func TestSampleSlowLineAfterProgress(t *testing.T) {
	var b strings.Builder
	t0, k := time.Unix(0, 0), 0
	now := func() time.Time { return t0.Add(time.Duration(k) * time.Millisecond) }
	s := nuts.Settings{Chains: 4, Warmup: 1000, Draws: 1000}
	p, _, _ := sampleProgressAt(newConsole(&b, false, false, false), s, "ADVICE", now, noTimer)
	for ; k < 900; k++ {
		p(k%4, k/4+1, true)
	}
	k += int(slowAfter/time.Millisecond) + 1000 // a stretch past slowAfter since the start
	p(0, 226, true)
	got := b.String()
	if !strings.Contains(got, "10% of 8000 iterations") || strings.Contains(got, "took") {
		t.Errorf("a slow stretch after the first progress line: %q", got)
	}
}

// TestSlowAdvice: a model solving an ODE is told of tolerances, and of
// ode_bdf where it uses ode_rk45; another of --profile.
func TestSlowAdvice(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(csv, []byte("ts,y3\n0.4,0.014\n1.6,0.05\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const head = "fn rob(t, y, k1) = [-k1 * y[0], k1 * y[0], 0 * y[2]]\ndata ts: real[T]\ndata y3: positive[T]\nparam k1: positive ~ LogNormal(-3, 0.5)\nparam s: positive ~ HalfNormal(0.1)\n"
	for _, c := range []struct {
		solve     string
		want, not string
	}{
		{"let y = ode_rk45(rob, [1, 0, 0], 0, ts, k1)\ny3 ~ Normal(y[:, 2], s)\n", "m.gpp:6:9): a looser tolerance (rel_tol and abs_tol of the _tol form) makes each solve cheaper, ode_bdf solves a stiff system in far fewer steps than ode_rk45, and fewer --iter would end sooner", ""},
		{"let y = ode_bdf(rob, [1, 0, 0], 0, ts, k1)\ny3 ~ Normal(y[:, 2], s)\n", "m.gpp:6:9): a looser tolerance (rel_tol and abs_tol of the _tol form) makes each solve cheaper, and fewer --iter", "ode_bdf solves"},
		{"y3 ~ Normal(k1, s)\n", "--profile shows which statements take the time", "ODE"},
	} {
		path := filepath.Join(dir, "m.gpp")
		if err := os.WriteFile(path, []byte(head+c.solve), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := pipeline.Load(path, []string{csv}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := slowAdvice(l.Info, "--iter")
		if c.not != "ODE" && !strings.HasPrefix(got, "the model solves an ODE at every draw ("+strings.Split(strings.Fields(c.solve)[3], "(")[0]+" at ") {
			t.Errorf("%s: %q names no solver", c.solve, got)
		}
		if !strings.Contains(got, c.want) || c.not != "" && strings.Contains(got, c.not) {
			t.Errorf("%s: %q, want %q without %q", c.solve, got, c.want, c.not)
		}
	}
}

// fitExample loads examples/model with data and fits it briefly (seed
// 3, one worker, 200 steps), for the output-draw pacing tests.
func fitExample(t *testing.T, model, data string) (*pipeline.Loaded, *sgvb.Result, sgvb.Settings) {
	t.Helper()
	const ex = "../../examples/"
	l, err := pipeline.Load(ex+model, []string{ex + data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := sgvb.Settings{Seed: 3, Workers: 1, MaxIter: 200}
	r, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
	if err != nil {
		t.Fatal(err)
	}
	return l, r, s
}

// TestDrawsPace: output draws that would take long get a line, and after
// an interrupted fit are cut to those that take about slowAfter (at least
// least), the same first draws as all of them; quick ones get neither.
// The clock is injected: each reading is a second after the last, so the
// row of q's mean takes 1 s.
func TestDrawsPace(t *testing.T) {
	l, r, s := fitExample(t, "regression.gpp", "wine_std.csv")
	clock := func() func() time.Time {
		t0 := time.Unix(0, 0)
		return func() time.Time { t0 = t0.Add(time.Second); return t0 }
	}
	all, err := makeDraws(r, nil, l.Model, 40, s.Seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		interrupted bool
		least, n    int
		want        int
		line        string
	}{
		{false, 2, 40, 40, "output draws: 40 draws of q at about 1 s each will take about 40 s (the row of q's mean took 1 s)"},
		{true, 2, 40, 10, "interrupted: making 10 of the 40 output draws of q, which would take about 40 s at 1 s each; the summary and draws.csv are of these 10"},
		{true, 12, 40, 12, "making 12 of the 40"},
		{true, 2, 9, 9, ""},  // 9 s in all: quick enough
		{false, 2, 9, 9, ""}, // and no line
	} {
		var b strings.Builder
		pace := &drawsPace{now: clock(), con: newConsole(&b, false, false, false), interrupted: c.interrupted, least: c.least}
		ds, err := makeDrawsPaced(r, nil, l.Model, c.n, s.Seed, nil, false, nil, pace)
		if err != nil {
			t.Fatal(err)
		}
		if pace.kept != c.want || len(ds.logp) != c.want || len(ds.cols[0]) != c.want || !strings.Contains(b.String(), c.line) || c.line == "" && b.String() != "" {
			t.Errorf("interrupted %v, least %d, %d draws: kept %d (%d rows), said %q; want %d and %q", c.interrupted, c.least, c.n, pace.kept, len(ds.logp), b.String(), c.want, c.line)
			continue
		}
		if c.n != 40 {
			continue
		}
		for k := range c.want {
			for col := range ds.cols {
				if ds.cols[col][k] != all.cols[col][k] {
					t.Fatalf("interrupted %v: draw %d column %d is %v, unpaced %v", c.interrupted, k, col, ds.cols[col][k], all.cols[col][k])
				}
			}
			if ds.logp[k] != all.logp[k] {
				t.Fatalf("draw %d: log p %v, unpaced %v", k, ds.logp[k], all.logp[k])
			}
		}
	}
}

// TestDrawsPaceLive: an interrupt that comes during the output draws cuts
// them to about slowAfter more at their pace so far (at least least),
// keeping the first draws a full run makes; the LOO is then that of a
// full run of as many draws (its defensive draws as many), with the
// LOO's cost counted. The clock ticks a second per draw, read by the
// injected interrupt check, which turns true before draw at.
func TestDrawsPaceLive(t *testing.T) {
	for _, c := range []struct {
		model, data  string
		at, least, n int
		want         int
		line         string
	}{
		{"regression.gpp", "wine_std.csv", 5, 2, 40, 15, "interrupted: making 15 of the 40 output draws of q (5 made), which would take about 35 s more at 1 s each; the summary and draws.csv are of these 15"},
		{"regression.gpp", "wine_std.csv", 5, 20, 40, 20, "making 20 of the 40"},
		{"regression.gpp", "wine_std.csv", 31, 2, 40, 40, ""}, // 9 s left: quick enough
		// with the LOO's draws: (10 + 30 made)/2, fewer than were made
		{"ordinal.gpp", "ordinal.csv", 30, 2, 40, 20, "interrupted: making 20 of the 40 output draws of q (2 evaluations each, with the LOO's) (30 made)"},
		{"ordinal.gpp", "ordinal.csv", 4, 2, 40, 7, "making 7 of the 40"},
	} {
		l, r, s := fitExample(t, c.model, c.data)
		all, err := makeDraws(r, nil, l.Model, c.n, s.Seed)
		if err != nil {
			t.Fatal(err)
		}
		now, calls := time.Unix(0, 0), 0
		live := func() bool {
			if calls == c.at {
				return true
			}
			calls++
			now = now.Add(time.Second)
			return false
		}
		var b strings.Builder
		pace := &drawsPace{now: func() time.Time { return now }, con: newConsole(&b, false, false, false), live: live, least: c.least}
		ds, err := makeDrawsPaced(r, nil, l.Model, c.n, s.Seed, nil, false, nil, pace)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s, interrupted before draw %d, least %d", c.model, c.at, c.least)
		if pace.kept != c.want || len(ds.logp) != c.want || len(ds.logq) != c.want || !strings.Contains(b.String(), c.line) || c.line == "" && b.String() != "" {
			t.Errorf("%s: kept %d (%d rows, %d log q), said %q; want %d and %q", name, pace.kept, len(ds.logp), len(ds.logq), b.String(), c.want, c.line)
			continue
		}
		for col := range ds.cols {
			if len(ds.cols[col]) != c.want || !slices.Equal(ds.cols[col], all.cols[col][:c.want]) {
				t.Fatalf("%s: column %d is %v, a full run's first %d %v", name, col, ds.cols[col], c.want, all.cols[col][:c.want])
			}
		}
		if !slices.Equal(ds.logp, all.logp[:c.want]) || !slices.Equal(ds.logq, all.logq[:c.want]) {
			t.Fatalf("%s: log p %v, log q %v; a full run's first %d %v, %v", name, ds.logp, ds.logq, c.want, all.logp[:c.want], all.logq[:c.want])
		}
		if ds.loo == nil {
			continue
		}
		// the LOO of the kept draws: a full run of as many draws
		few, err := makeDraws(r, nil, l.Model, c.want, s.Seed)
		if err != nil {
			t.Fatal(err)
		}
		if ds.loo.ELPD != few.loo.ELPD || ds.loo.P != few.loo.P || len(ds.pitDraws.lr) != 2*c.want || !slices.Equal(ds.pitDraws.lr, few.pitDraws.lr) {
			t.Errorf("%s: LOO elpd %v, p %v of %d weights; a full run of %d draws: %v, %v of %d", name, ds.loo.ELPD, ds.loo.P, len(ds.pitDraws.lr), c.want, few.loo.ELPD, few.loo.P, len(few.pitDraws.lr))
		}
	}
}
