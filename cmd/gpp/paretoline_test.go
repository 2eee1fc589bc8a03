package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestParetoLineLowESS: a k̂ of 0.7 or less (0.7 itself included) whose weights keep a relative
// ESS below lowRelESS keeps its reading with the caution; above it, with
// a NaN ESS, or for a k̂ above 0.7 (whose warning says more) the line is
// the reading alone.
func TestParetoLineLowESS(t *testing.T) {
	const caution = "but the weights p/q keep a relative ESS of"
	// of 10 000 draws, ESS 750, above the 275 that k̂ 0.59 needs (sgvb.ESSBelowMin)
	if l := paretoLine(0.59, "ok", 0.075, 10000); !strings.HasPrefix(l, "0.59 (ok, "+caution+" 7.5 %: q is farther from the posterior") {
		t.Errorf("k̂ 0.59, ESS 0.075: %q", l)
	}
	if l := paretoLine(0.7, "ok", 0.05, 100000); !strings.HasPrefix(l, "0.7 (ok, "+caution+" 5 %") { // 0.7 itself is "ok"; ESS 5000 of 2155 needed
		t.Errorf("k̂ 0.7, ESS 0.05: %q", l)
	}
	for _, c := range []struct {
		k, ess float64
		want   string
	}{
		{0.59, 0.3, "0.59 (ok)"},
		{0.3, 0.1, "0.3 (good)"},
		{0.6, math.NaN(), "0.6 (ok)"},
		{0.9, 0.01, "0.9 (unreliable)"},
	} {
		reading := map[bool]string{true: "good", false: "ok"}[c.k < 0.5]
		if c.k > 0.7 {
			reading = "unreliable"
		}
		if l := paretoLine(c.k, reading, c.ess, 1000); l != c.want {
			t.Errorf("k̂ %v, ESS %v: %q, want %q", c.k, c.ess, l, c.want)
		}
	}
}

// TestParetoLineDegenerate: weights whose ESS is below 2 draws (one draw
// holds more than half their weight) read unreliable whatever k̂, in the
// reading fit.json keeps and on the line, which says why; an ESS of 2 or
// more keeps k̂'s reading.
func TestParetoLineDegenerate(t *testing.T) {
	for _, c := range []struct {
		k, ess  float64
		S       int
		reading string
	}{
		{0.471, 1e-4, 10000, "unreliable"}, // the pf trial: ESS 1 of 10 000
		{0.3, 1.9e-3, 1000, "unreliable"},
		{0.3, 2e-3, 1000, "unreliable"}, // ESS 2: not degenerate, but below the 27 that k̂ 0.3 needs
		{0.3, 0.03, 1000, "good"},       // ESS 30
		{0.6, 0.01, 1000, "unreliable"}, // ESS 10: not degenerate, but below what k̂ 0.6 needs
		{0.3, 1e-4, 0, "good"},          // no draws counted
		{13.7, 1e-3, 1000, "unreliable"},
	} {
		reading := sgvb.TailReading(c.k, c.ess, c.S)
		if reading != c.reading {
			t.Errorf("k̂ %v, ESS %v of %d: reading %q, want %q", c.k, c.ess, c.S, reading, c.reading)
		}
		l := paretoLine(c.k, reading, c.ess, c.S)
		if says := strings.Contains(l, "one draw holds more than half of their weight"); says != (c.reading == "unreliable" && c.k <= 0.7 && c.ess*float64(c.S) < 2) {
			t.Errorf("k̂ %v, ESS %v of %d: %q", c.k, c.ess, c.S, l)
		}
	}
}

// TestScoringNote: the final estimate gets a line once the fit has run
// scoringAfter, none before, and none with --quiet; the second, k̂-only
// round near 0.7 is named as such.
func TestScoringNote(t *testing.T) {
	for _, c := range []struct {
		elapsed time.Duration
		quiet   bool
		want    bool
	}{{scoringAfter - time.Second, false, false}, {scoringAfter + time.Second, false, true}, {scoringAfter + time.Second, true, false}} {
		var b strings.Builder
		scoringNote(newConsole(&b, false, c.quiet, false))(1000, c.elapsed, true)
		if got := strings.Contains(b.String(), "scoring q: the ELBO and Pareto k̂ from 1000 draws of q on the full data"); got != c.want {
			t.Errorf("after %v (quiet %v): %q, want a line: %v", c.elapsed, c.quiet, b.String(), c.want)
		}
	}
	var b strings.Builder // the k̂-only round near 0.7 says so
	scoringNote(newConsole(&b, false, false, false))(10000, scoringAfter, false)
	if !strings.Contains(b.String(), "scoring q: Pareto k̂ again (near 0.7) from 10000 draws") {
		t.Errorf("the k̂-only round: %q", b.String())
	}
	// the steps' time is the fit's at the first round; the second's
	// includes the first round, and says so
	b.Reset()
	note := scoringNote(newConsole(&b, false, false, false))
	note(1000, 20*time.Second, true)
	note(10000, 50*time.Second, false)
	want := "scoring q: the ELBO and Pareto k̂ from 1000 draws of q on the full data, after 20 s of steps\n" +
		"scoring q: Pareto k̂ again (near 0.7) from 10000 draws of q on the full data, after 20 s of steps and 30 s of final estimates before this one\n"
	if b.String() != want {
		t.Errorf("two rounds:\n%s\nwant\n%s", b.String(), want)
	}
}

// TestTookLine: the fit's last line adds the outputs' time where they
// took outputsSaid or more, and the total; below it, the fit's time alone.
func TestTookLine(t *testing.T) {
	if l := tookLine("fit", 2.22, 9600*time.Millisecond); l != "fit took 2.22 s; its outputs (draws, summary, checks, files) took 9.6 s more, 11.8 s in all" {
		t.Errorf("slow outputs: %q", l)
	}
	if l := tookLine("fits", 2.22, outputsSaid-time.Millisecond); l != "fits took 2.22 s" {
		t.Errorf("fast outputs: %q", l)
	}
}

// TestParetoLineESSBelowMin: a k̂ of 0.7 or less reads unreliable where
// its weights' ESS is below the 10^(1/(1 − k̂)) draws Pareto smoothing
// needs at that k̂ (a user's full-rank meta-analysis read k̂ 0.632 "ok" at
// an ESS of 136 of 10 000, its τ 3 times too small), and keeps its
// reading at an ESS just above; the line says how many draws were wanted.
func TestParetoLineESSBelowMin(t *testing.T) {
	for _, c := range []struct {
		k, ess  float64
		S       int
		reading string
		want    string // in the line, where unreliable
	}{
		{0.6318532398682908, 0.013627797292111839, 10000, "unreliable", "ESS of 136 (1.4 %), below the 521 draws"},
		{0.6318532398682908, 0.06, 10000, "ok", ""},            // 600 of 10 000
		{0.3, 0.026, 1000, "unreliable", "below the 27 draws"}, // 10^(1/0.7) = 26.8
		{0.3, 0.027, 1000, "good", ""},
		{-0.2, 0.009, 1000, "unreliable", "below the 10 draws"}, // k̂ below 0 needs 10
		{-0.2, 0.011, 1000, "good", ""},
		{0.75, 0.01, 10000, "unreliable", ""}, // above 0.7: its own warning
		{math.Inf(-1), 0.5, 1000, "good", ""},
	} {
		reading := sgvb.TailReading(c.k, c.ess, c.S)
		if reading != c.reading {
			t.Errorf("k̂ %v, relative ESS %v of %d: reading %q, want %q", c.k, c.ess, c.S, reading, c.reading)
		}
		l := paretoLine(c.k, reading, c.ess, c.S)
		if c.want != "" && !strings.Contains(l, c.want) || c.want == "" && strings.Contains(l, "that Pareto smoothing needs") {
			t.Errorf("k̂ %v, relative ESS %v of %d: %q, want %q in it: %v", c.k, c.ess, c.S, l, c.want, c.want != "")
		}
	}
	for k, want := range map[float64]float64{-1: 10, 0: 10, 0.5: 100, 0.75: 10000, 1: math.Inf(1)} {
		if got := sgvb.PSISMinSS(k); math.Abs(got-want) > 1e-9*want && got != want {
			t.Errorf("PSISMinSS(%v) = %v, want %v", k, got, want)
		}
	}
}
