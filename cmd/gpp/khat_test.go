package main

import (
	"io"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// TestKhatDrawsFlag: without --khat-draws k̂'s estimate again is capped
// by the fit's work (khatCost); --khat-draws N sets its draws uncapped,
// 0 skips it, and a negative count or one not above the final 1000
// draws (which would estimate nothing again) is refused.
func TestKhatDrawsFlag(t *testing.T) {
	for _, c := range []struct {
		args        []string
		draws       int
		cost        float64
		refusedWith string
	}{
		{nil, 0, khatCost, ""},
		{[]string{"--khat-draws", "0"}, -1, 0, ""},
		{[]string{"--khat-draws", "5000"}, 5000, 0, ""},
		{[]string{"--khat-draws", "-3"}, 0, 0, "--khat-draws must be 0"},
		{[]string{"--khat-draws", "1000"}, 0, 0, "or more than 1000, got 1000"},
		{[]string{"--khat-draws", "1001"}, 1001, 0, ""},
	} {
		var stderr strings.Builder
		args := append([]string{poissonModel, poissonData, "--out", t.TempDir()}, c.args...)
		cfg, _, ok := parseFitArgs(args, io.Discard, &stderr)
		if c.refusedWith != "" {
			if ok || !strings.Contains(stderr.String(), c.refusedWith) {
				t.Errorf("%v: ok %v, stderr %q; want it refused with %q", c.args, ok, stderr.String(), c.refusedWith)
			}
			continue
		}
		if !ok {
			t.Fatalf("%v: %s", c.args, stderr.String())
		}
		if s := cfg.settings; s.ParetoKDraws != c.draws || s.ParetoKCost != c.cost {
			t.Errorf("%v: ParetoKDraws %d, ParetoKCost %g; want %d, %g", c.args, s.ParetoKDraws, s.ParetoKCost, c.draws, c.cost)
		}
	}
}

// TestKhatFree: a capped fit may take khatFreeValues data values' worth
// of extra draws whatever its work (the fit_counts data: 8 counts and N), and
// an uncapped fit (--khat-draws) none.
func TestKhatFree(t *testing.T) {
	l, err := pipeline.Load(poissonModel, []string{poissonData}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := l.Model.DataValues(); n != 9 {
		t.Fatalf("%d data values, want 9: the 8 counts and N", n)
	}
	if f := khatFree(sgvb.Settings{ParetoKCost: khatCost}, l.Model); f != 111111111 {
		t.Errorf("free draws %d, want %d", f, 111111111)
	}
	if f := khatFree(sgvb.Settings{}, l.Model); f != 0 {
		t.Errorf("uncapped: free draws %d, want 0", f)
	}
}

// TestKhatCappedText: the Pareto k̂ line says when the cap cut k̂'s
// draws, and how to lift it; nothing when it did not, nor where the
// draws it took put k̂ outside 0.5–1 (1.58 from 9000: t67's line said
// "k̂ near 0.7 is estimated again" there).
func TestKhatCappedText(t *testing.T) {
	if s := khatCappedText(&sgvb.Result{ParetoK: 0.8, ParetoKDraws: 10000}); s != "" {
		t.Errorf("uncapped: %q", s)
	}
	want := "; from 1000 draws, not 10000: a k̂ of 0.5–1 from the final 1000 draws is estimated again from at most 2 times the fit's gradient draws in log joints of all the data (--khat-draws 10000 takes them)"
	if s := khatCappedText(&sgvb.Result{ParetoK: 0.8, ParetoKDraws: 1000, ParetoKCapped: 10000}); s != want {
		t.Errorf("capped: %q\nwant %q", s, want)
	}
	want = strings.Replace(want, "from 1000 draws", "from 9000 draws", 1)
	if s := khatCappedText(&sgvb.Result{ParetoK: 0.9, ParetoKDraws: 9000, ParetoKCapped: 10000}); s != want {
		t.Errorf("capped, in the band: %q\nwant %q", s, want)
	}
	for _, k := range []float64{1.58, 0.3} {
		if s := khatCappedText(&sgvb.Result{ParetoK: k, ParetoKDraws: 9000, ParetoKCapped: 10000}); s != "" {
			t.Errorf("capped, k̂ %g out of the band: %q", k, s)
		}
	}
}
