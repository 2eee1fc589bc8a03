package sgvb

import (
	"math"
	"slices"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// above is a Target whose log joint is finite only where coordinate 0
// exceeds cut (and 0 there), counting its evaluations.
type above struct {
	cut   float64
	calls int
}

func (t *above) LogJoint(x, grad []float64) (float64, error) {
	t.calls++
	clear(grad)
	if x[0] > t.cut {
		return 0, nil
	}
	return math.Inf(-1), nil
}

func (t *above) Clone() Target { c := *t; return &c }

// TestRandomStart checks Stan's random inits for restarts: every element
// of a positive, unit or real latent at e^u, logistic(u) or u with u in
// (−r, r), the same for the same seed and not for another, the other
// supports' starts and the caller's latents untouched, and draws repeated
// while the log joint is not finite at the start.
func TestRandomStart(t *testing.T) {
	const r = 2.0
	lats := []Latent{
		{Name: "pos", Offset: 0, Size: 3, Support: dist.Positive, Init: []float64{800, 800, 800}},
		{Name: "unit", Offset: 3, Size: 2, Support: dist.Unit},
		{Name: "real", Offset: 5, Size: 2, Support: dist.Real, Init: []float64{50, 50}},
		{Name: "simplex", Offset: 7, Size: 3, Support: dist.Simplex, Shape: []int{3}, Init: []float64{0.2, 0.3, 0.5}},
	}
	keep := slices.Clone(lats[0].Init)
	tg := &above{cut: math.Inf(-1)}
	got := RandomStart(tg, lats, r, 7)
	if !slices.Equal(lats[0].Init, keep) || lats[1].Init != nil {
		t.Fatalf("RandomStart modified its input: %v, %v", lats[0].Init, lats[1].Init)
	}
	if tg.calls != 1 {
		t.Errorf("%d log joints at a finite start, want 1", tg.calls)
	}
	coord := map[dist.Support]func(v float64) float64{
		dist.Positive: math.Log,
		dist.Unit:     func(v float64) float64 { return math.Log(v / (1 - v)) },
		dist.Real:     func(v float64) float64 { return v },
	}
	for _, l := range got[:3] {
		if len(l.Init) != l.Size {
			t.Fatalf("%s: %d initial values for %d elements", l.Name, len(l.Init), l.Size)
		}
		for j, v := range l.Init {
			if u := coord[l.Support](v); !(math.Abs(u) < r) {
				t.Errorf("%s[%d] = %v: u = %v, want it in (−%v, %v)", l.Name, j, v, u, r, r)
			}
		}
		if l.Init[0] == l.Init[1] {
			t.Errorf("%s: elements start alike (%v)", l.Name, l.Init)
		}
	}
	if !slices.Equal(got[3].Init, lats[3].Init) {
		t.Errorf("simplex start %v, want it kept %v", got[3].Init, lats[3].Init)
	}
	again := RandomStart(tg, lats, r, 7)
	other := RandomStart(tg, lats, r, 8)
	if !slices.Equal(again[0].Init, got[0].Init) || slices.Equal(other[0].Init, got[0].Init) {
		t.Errorf("seed 7 twice: %v, %v; seed 8: %v: want the same start for a seed and another for another seed", got[0].Init, again[0].Init, other[0].Init)
	}

	// finite only where pos[0] > e^1.5: drawn again until it is
	cut := &above{cut: 1.5}
	moved := RandomStart(cut, lats, r, 7)
	if v := moved[0].Init[0]; !(math.Log(v) > 1.5) {
		t.Errorf("pos[0] starts at %v (log %v) where the log joint is not finite", v, math.Log(v))
	}
	if cut.calls < 2 || cut.calls > MAPStartTries {
		t.Errorf("%d tries, want between 2 and %d", cut.calls, MAPStartTries)
	}
	never := &above{cut: math.Inf(1)}
	RandomStart(never, lats, r, 7)
	if never.calls != MAPStartTries {
		t.Errorf("%d tries where the log joint is never finite, want %d", never.calls, MAPStartTries)
	}
}

// TestRestartsRadiusBadInput checks Restarts.Radius's checks.
func TestRestartsRadiusBadInput(t *testing.T) {
	lats := []Latent{{Name: "x", Offset: 0, Size: 1, Support: dist.Real}}
	for _, rs := range []Restarts{{N: 2, Radius: -1}, {N: 2, Radius: math.NaN()}, {N: 2, Radius: math.Inf(1)}, {N: 2, Radius: 2, Inits: make([]*Result, 2)}} {
		if _, err := FitRestarts(t.Context(), &above{cut: math.Inf(-1)}, lats, Settings{}, rs); err == nil {
			t.Errorf("Radius %v, Inits %v: no error", rs.Radius, rs.Inits != nil)
		}
	}
}
