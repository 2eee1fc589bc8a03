package epm

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// randomNetwork returns a network of n nodes with about density·n(n−1)/2
// links, some nodes of degree 1 and some isolated.
func randomNetwork(n int, density float64, seed uint64) *Network {
	rng := rand.New(rand.NewPCG(seed, 1))
	g := &Network{Name: "random", N: n}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < density {
				g.Links = append(g.Links, Pair{i, j})
			}
		}
	}
	return g
}

func checkSplit(t *testing.T, g *Network, s *Split, wantTest int) {
	t.Helper()
	n := g.N
	if len(s.Test) != wantTest || len(s.TestLink) != wantTest {
		t.Fatalf("%d test pairs (%d labels), want %d", len(s.Test), len(s.TestLink), wantTest)
	}
	link := map[Pair]bool{}
	for _, p := range g.Links {
		link[p] = true
	}
	test := map[Pair]bool{}
	for k, p := range s.Test {
		if p.I >= p.J || p.I < 0 || p.J >= n {
			t.Fatalf("bad test pair %v", p)
		}
		if test[p] {
			t.Fatalf("test pair %v twice", p)
		}
		test[p] = true
		if s.TestLink[k] != link[p] {
			t.Fatalf("test pair %v labelled %v, is a link: %v", p, s.TestLink[k], link[p])
		}
	}
	// Training links: every link not in test, and no pair in both sets.
	deg := make([]int, n)
	train := map[Pair]bool{}
	for _, p := range s.Train {
		if test[p] {
			t.Fatalf("pair %v in both training and test", p)
		}
		if !link[p] {
			t.Fatalf("training link %v is not a link", p)
		}
		train[p] = true
		deg[p.I]++
		deg[p.J]++
	}
	for _, p := range g.Links {
		if !train[p] && !test[p] {
			t.Fatalf("link %v lost", p)
		}
	}
	// Every test link's endpoints keep a training link.
	for k, p := range s.Test {
		if s.TestLink[k] && (deg[p.I] == 0 || deg[p.J] == 0) {
			t.Fatalf("test link %v leaves node without training links (degrees %d, %d)", p, deg[p.I], deg[p.J])
		}
	}
}

func TestMakeSplit(t *testing.T) {
	for _, c := range []struct {
		n       int
		density float64
	}{{30, 0.1}, {60, 0.03}, {40, 0.5}} {
		g := randomNetwork(c.n, c.density, uint64(c.n))
		for seed := uint64(0); seed < 5; seed++ {
			s := MakeSplit(g, 0.2, seed)
			// exact fraction: floor(0.2·n(n−1)/2)
			checkSplit(t, g, s, c.n*(c.n-1)/2/5)
			if s.TestLinks() == 0 {
				t.Errorf("n=%d seed %d: no test link", c.n, seed)
			}
		}
	}
}

func TestMakeSplitDeterministic(t *testing.T) {
	g := randomNetwork(50, 0.05, 7)
	a, b := MakeSplit(g, 0.2, 3), MakeSplit(g, 0.2, 3)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two splits with the same seed differ")
	}
	c := MakeSplit(g, 0.2, 4)
	if reflect.DeepEqual(a.Test, c.Test) {
		t.Fatal("splits with different seeds are equal")
	}
}

// A star keeps its hub's leaves: a leaf's only link can never be held out.
func TestMakeSplitStar(t *testing.T) {
	g := &Network{N: 10}
	for j := 1; j < 10; j++ {
		g.Links = append(g.Links, Pair{0, j})
	}
	for seed := uint64(0); seed < 20; seed++ {
		s := MakeSplit(g, 0.2, seed)
		checkSplit(t, g, s, 9)
		if s.TestLinks() != 0 || len(s.Train) != 9 {
			t.Fatalf("seed %d: %d test links, %d training links; want 0 and 9", seed, s.TestLinks(), len(s.Train))
		}
	}
}

func TestInnerSplit(t *testing.T) {
	g := randomNetwork(50, 0.08, 11)
	outer := MakeSplit(g, 0.2, 1)
	in := InnerSplit(g, outer, 0.2, 2)
	// The inner split is a split of the training network restricted to
	// the pairs outside outer.Test.
	trainNet := &Network{N: g.N, Links: outer.Train}
	pairs := g.NumPairs() - len(outer.Test)
	checkSplit(t, trainNet, in, pairs/5)
	outerTest := map[Pair]bool{}
	for _, p := range outer.Test {
		outerTest[p] = true
	}
	for _, p := range in.Test {
		if outerTest[p] {
			t.Fatalf("validation pair %v is an outer test pair", p)
		}
	}
	if !reflect.DeepEqual(in.Excluded, outer.Test) {
		t.Fatal("Excluded is not the outer test set")
	}
	if m := in.Missing(); len(m) != len(in.Test)+len(outer.Test) {
		t.Fatalf("Missing has %d pairs", len(m))
	}
}
