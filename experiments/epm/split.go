package epm

import (
	"math/rand/v2"
)

// Split is a link-prediction split of a network's node pairs i < j.
type Split struct {
	Seed  uint64
	Train []Pair // the links left in training
	// Test are the held-out pairs (links and non-links), in the order the
	// permutation visited them, and TestLink tells which are links.
	Test     []Pair
	TestLink []bool
	// Excluded are pairs that are neither training nor test pairs of this
	// split (for an inner split: the outer test pairs). Like the test
	// pairs they are missing in the likelihood.
	Excluded []Pair
}

// Missing returns the pairs that are missing in the likelihood: the test
// pairs followed by the excluded ones.
func (s *Split) Missing() []Pair {
	return append(append([]Pair(nil), s.Test...), s.Excluded...)
}

// TestLinks returns the number of links among the test pairs.
func (s *Split) TestLinks() int {
	n := 0
	for _, l := range s.TestLink {
		if l {
			n++
		}
	}
	return n
}

// NumTest returns the number of test pairs of Zhou's protocol for n nodes:
// floor(frac · n(n−1)/2).
func NumTest(n int, frac float64) int {
	return int(frac * float64(n*(n-1)/2))
}

// Random streams of the splits: PCG(seed, stream).
const (
	splitStream = 0x9e3779b97f4a7c15
	innerStream = 0x6a09e667f3bcc909
)

// MakeSplit holds out a fraction frac of the node pairs i < j of g, after
// Zhou's Create_Mask_network (EPM code; the paper uses frac = 0.2):
// randomly permute all pairs, walk through them and move a pair to the test
// set until NumTest(g.N, frac) pairs are collected. A non-link always
// qualifies; a link only if both its endpoints keep at least one other
// training link (their training degrees, updated as links leave, are ≥ 2
// before the move). Every pair not moved stays in training.
//
// The permutation is rand.Perm of a math/rand/v2 PCG seeded (seed,
// 0x9e3779b97f4a7c15), applied to the pairs in row-major order (0,1),
// (0,2), …, (0,N−1), (1,2), …; the same seed gives the same split.
func MakeSplit(g *Network, frac float64, seed uint64) *Split {
	pairs := make([]Pair, 0, g.NumPairs())
	for i := 0; i < g.N; i++ {
		for j := i + 1; j < g.N; j++ {
			pairs = append(pairs, Pair{i, j})
		}
	}
	rng := rand.New(rand.NewPCG(seed, splitStream))
	s := holdOut(g.N, pairs, g.Links, NumTest(g.N, frac), rng)
	s.Seed = seed
	return s
}

// InnerSplit holds out, by the same rule as MakeSplit, floor(frac · P) of
// the P training pairs of outer (the pairs not in outer.Test), for tuning
// on training data only: its Train are the remaining training links, its
// Test the validation pairs and its Excluded the outer test pairs. Its
// random stream is PCG(seed, 0x6a09e667f3bcc909).
func InnerSplit(g *Network, outer *Split, frac float64, seed uint64) *Split {
	n := g.N
	out := make([]bool, n*n)
	for _, p := range outer.Test {
		out[p.I*n+p.J] = true
	}
	var pairs []Pair
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if !out[i*n+j] {
				pairs = append(pairs, Pair{i, j})
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, innerStream))
	s := holdOut(n, pairs, outer.Train, int(frac*float64(len(pairs))), rng)
	s.Seed = seed
	s.Excluded = append([]Pair(nil), outer.Test...)
	return s
}

// holdOut walks the candidate pairs in a random order and moves want of
// them to the test set; links (among links) only while both endpoints keep
// another link.
func holdOut(n int, pairs, links []Pair, want int, rng *rand.Rand) *Split {
	isLink := make([]bool, n*n)
	deg := make([]int, n)
	for _, p := range links {
		isLink[p.I*n+p.J] = true
		deg[p.I]++
		deg[p.J]++
	}
	s := &Split{}
	inTest := make([]bool, n*n)
	for _, k := range rng.Perm(len(pairs)) {
		if len(s.Test) == want {
			break
		}
		p := pairs[k]
		link := isLink[p.I*n+p.J]
		if link {
			if deg[p.I] < 2 || deg[p.J] < 2 {
				continue
			}
			deg[p.I]--
			deg[p.J]--
		}
		s.Test = append(s.Test, p)
		s.TestLink = append(s.TestLink, link)
		inTest[p.I*n+p.J] = true
	}
	for _, p := range links {
		if !inTest[p.I*n+p.J] {
			s.Train = append(s.Train, p)
		}
	}
	return s
}
