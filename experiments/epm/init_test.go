package epm

import (
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// Two disjoint 5-cliques: a rank-2 symmetric NMF puts each clique in its
// own component, so every within-clique score exceeds every cross score.
func TestSymNMFTwoCliques(t *testing.T) {
	var links []Pair
	for _, off := range []int{0, 5} {
		for i := 0; i < 5; i++ {
			for j := i + 1; j < 5; j++ {
				links = append(links, Pair{off + i, off + j})
			}
		}
	}
	h := SymNMF(10, 2, links, 300, 1)
	score := func(i, j int) float64 { return h[i*2]*h[j*2] + h[i*2+1]*h[j*2+1] }
	minIn, maxCross := 1e300, 0.0
	for i := 0; i < 10; i++ {
		for j := i + 1; j < 10; j++ {
			if (i < 5) == (j < 5) {
				minIn = min(minIn, score(i, j))
			} else {
				maxCross = max(maxCross, score(i, j))
			}
		}
	}
	if !(minIn > 0.5 && maxCross < 0.05) {
		t.Errorf("within-clique scores ≥ %.3f, cross scores ≤ %.3f; want ≈ 1 and ≈ 0", minIn, maxCross)
	}
	for _, v := range h {
		if v < 0 {
			t.Fatalf("negative entry %v", v)
		}
	}
}

// Start sets the paper's initial means, and for InitNMF a gamma warm start
// of W at shape 1, rate 1/mean.
func TestStart(t *testing.T) {
	lat := []sgvb.Latent{{Name: "a", Size: 3}, {Name: "W", Offset: 3, Size: 6, Shape: []int{3, 2}}, {Name: "c", Offset: 9, Size: 3}}
	var s sgvb.Settings
	Start(lat, &s, InitPaper, 2, 3, nil, 1)
	if lat[0].Init[0] != 0.5 || lat[1].Init[5] != 0.5 || lat[2].Init != nil || s.Init != nil {
		t.Fatalf("paper start: %v %v %v %v", lat[0].Init, lat[1].Init, lat[2].Init, s.Init)
	}
	Start(lat, &s, InitNMF, 2, 3, []Pair{{0, 1}, {1, 2}}, 1)
	f := s.Init.Factor("W")
	if f == nil || f.Family != sgvb.FamilyGamma {
		t.Fatalf("nmf start: no gamma warm start of W: %+v", s.Init)
	}
	for i, m := range lat[1].Init {
		if m < NMFFloor || f.Params[0][i] != 1 || f.Params[1][i] != 1/m {
			t.Fatalf("element %d: mean %v, shape %v, rate %v", i, m, f.Params[0][i], f.Params[1][i])
		}
	}
}

// The engine settings of each method under DefaultFitSettings: the
// lognormal family gets its own draws per step (its one-draw fits diverge
// at K ≥ 20), every fit runs on one worker, and the gamma coordinates are
// pinned rather than left to the engine's default.
func TestSGVBSettingsPerMethod(t *testing.T) {
	fs := DefaultFitSettings().withDefaults()
	for _, c := range []struct {
		m     Method
		draws int
	}{{GammaImplicit, 1}, {GammaPaper, 1}, {Lognormal, 8}} {
		s := fs.sgvbSettings(c.m, 3)
		if s.DrawsPerStep != c.draws || s.Workers != 1 || s.GammaParam != sgvb.GammaLogMeanShape || s.Seed != 3 {
			t.Errorf("%s: draws %d, workers %d, gamma param %v, seed %d; want %d, 1, %v, 3",
				c.m, s.DrawsPerStep, s.Workers, s.GammaParam, s.Seed, c.draws, sgvb.GammaLogMeanShape)
		}
	}
	if s := fs.sgvbSettings(MAP, 3); s.Method != sgvb.MAP || s.Workers != 1 {
		t.Errorf("map: method %v, workers %d", s.Method, s.Workers)
	}
}
