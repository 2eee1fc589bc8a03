package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/nuts"
)

// near says whether durations a and b agree to a microsecond (the
// estimates' float arithmetic rounds to the nanosecond).
func near(a, b time.Duration) bool { return math.Abs(float64(a-b)) < float64(time.Microsecond) }

// TestSampleRunSpan: the first estimate splits a leapfrog step's cost
// from the trees' sizes: the iterations before the metric is learned
// run at the latest half's tree size, the rest at depth settledDepth at
// the low end and at that size at the high end; trees already shallower
// are not assumed to shrink, nor any without adaptation. Synthetic
// trees and times, 1 ms a step.
func TestSampleRunSpan(t *testing.T) {
	const ms = time.Millisecond
	var leaps []float64
	for range 20 {
		leaps = append(leaps, leapfrogs(8)) // 255: the step size not yet adapted
	}
	for range 20 {
		leaps = append(leaps, leapfrogs(7)) // 127
	}
	el := time.Duration(20*255+20*127) * ms
	low, high := sampleRunSpan(el, leaps, 8000, 400)
	// 360 more iterations at 127 before the metric, 7600 at 15 after.
	if want := el + time.Duration(127*360+15*7600)*ms; !near(low, want) {
		t.Errorf("low %v, want %v", low, want)
	}
	if want := el + time.Duration(127*7960)*ms; !near(high, want) {
		t.Errorf("high %v, want %v", high, want)
	}
	// The old pace extrapolation (el/n each) lies above the high end here
	// (the earliest trees were the deepest) and far above the low end.
	if old := el / 40 * 8000; old <= high || old < 5*low {
		t.Errorf("pace extrapolation %v against %v to %v", old, low, high)
	}

	// No metric learned (--adapt=false, a short warm-up): no shrinking.
	if low, high := sampleRunSpan(el, leaps, 8000, 0); low != high || !near(high, el+time.Duration(127*7960)*ms) {
		t.Errorf("no adaptation: %v to %v", low, high)
	}
	// Trees already of depth 3 (an expensive gradient, not deep trees).
	shallow := []float64{7, 7, 7, 7}
	if low, high := sampleRunSpan(28*ms, shallow, 1000, 400); low != high || !near(high, 28*ms+time.Duration(7*996)*ms) {
		t.Errorf("shallow trees: %v to %v", low, high)
	}
	// Past the metric's first window: all the rest at the shrunk size.
	if low, _ := sampleRunSpan(el, leaps, 8000, 20); !near(low, el+time.Duration(15*7960)*ms) {
		t.Errorf("past the first window: low %v", low)
	}
}

// TestSampleRestSpan: the update at the first progress line reads the
// trees since every chain learned its metric, or the latest half's
// where too few came since.
func TestSampleRestSpan(t *testing.T) {
	const ms = time.Millisecond
	var leaps []float64
	for i := range 800 {
		l := leapfrogs(8)
		if i >= 400 {
			l = leapfrogs(4)
		}
		leaps = append(leaps, l)
	}
	el := time.Duration(400*255+400*15) * ms
	if got, want := sampleRestSpan(el, leaps, 8000, 400), time.Duration(15*7200)*ms; !near(got, want) {
		t.Errorf("after the metric: %v, want %v", got, want)
	}
	// Settled at 780: 20 since, under a tenth: the latest half's 400, at 15.
	if got, want := sampleRestSpan(el, leaps, 8000, 780), time.Duration(15*7200)*ms; !near(got, want) {
		t.Errorf("few since the metric: %v, want %v", got, want)
	}
	// Settled at 200: trees 200..799, half at 255, half at 15.
	if got, want := sampleRestSpan(el, leaps, 8000, 200), time.Duration(float64(200*255+400*15)/600*7200)*ms; !near(got, want) {
		t.Errorf("settled at 200: %v, want %v", got, want)
	}
}

// TestSampleSlowLineTrees: with the trees' depths known (Settings.Tree),
// the slow line gives the estimate of sampleRunSpan, and the first
// progress line an update from sampleRestSpan; the clock is injected,
// 1 ms a leapfrog step.
func TestSampleSlowLineTrees(t *testing.T) {
	var b strings.Builder
	t0 := time.Unix(0, 0)
	var steps float64
	now := func() time.Time { return t0.Add(time.Duration(steps) * time.Millisecond) }
	s := nuts.Settings{Chains: 4, Warmup: 1000, Draws: 1000}
	p, tree, _ := sampleProgressAt(newConsole(&b, false, false, false), s, "ADVICE", now, noTimer)
	for k := range 800 {
		depth := 8
		if k >= 400 { // every chain past warm-up iteration 100
			depth = 4
		}
		tree(k%4, depth)
		steps += leapfrogs(depth)
		p(k%4, k/4+1, true)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want the slow line, 10%% and the update, got %q", b.String())
	}
	// At 10 s: 40 iterations of 255 steps; 360 more of them and 7600 at 15.
	low := time.Duration(40*255+360*255+7600*15) * time.Millisecond
	high := time.Duration(40*255+7960*255) * time.Millisecond
	if want := "40 iterations took 10.2 s, 0.255 s each across the chains: the 8000 iterations of 4 chains would take about " + humanSpan(low) +
		" if the trees shrink to depth 4 once the chains learn their metric at warm-up iteration 100, as they often do (the latest trees took 255 leapfrog steps each, 0.001 s a step across the chains; " +
		humanSpan(high) + " if they stay as deep), and the first progress line comes at iteration 800"; !strings.HasPrefix(lines[0], want) || !strings.HasSuffix(lines[0], "; ADVICE") {
		t.Errorf("slow line\n%q\nwant it to start\n%q", lines[0], want)
	}
	if want := "the 7200 iterations left would take about " + humanSpan(7200*15*time.Millisecond) + " more"; !strings.HasPrefix(lines[2], want) {
		t.Errorf("update %q, want %q", lines[2], want)
	}
}
