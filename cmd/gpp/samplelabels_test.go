package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// synthChains returns draws elems[k][c] of a vector whose element k has
// mean means[c][k] in chain c, with normal noise of sd sd (n a chain).
func synthChains(rng *rand.Rand, means [][]float64, sd float64, n int) [][][]float64 {
	K := len(means[0])
	elems := make([][][]float64, K)
	for k := range K {
		elems[k] = make([][]float64, len(means))
		for c := range means {
			elems[k][c] = make([]float64, n)
			for i := range n {
				elems[k][c][i] = means[c][k] + sd*rng.NormFloat64()
			}
		}
	}
	return elems
}

// TestPermutedChains: chains whose means are one another's in another
// order (label switching) are found, the first such pair named; chains in
// one mode, and chains in modes that are not permutations of one another
// (one element 6 sds off after any order), are not.
func TestPermutedChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	base := []float64{-2, 0, 3}
	for _, c := range []struct {
		name   string
		means  [][]float64
		ok     bool
		a, b   int
		apartS float64
	}{
		{"permuted", [][]float64{base, base, {3, -2, 0}, {0, 3, -2}}, true, 0, 2, switchApart},
		{"permuted, first pair later", [][]float64{base, base, base, {-2, 3, 0}}, true, 0, 3, switchApart},
		{"one mode", [][]float64{base, base, base, base}, false, 0, 0, switchApart},
		{"different modes", [][]float64{base, base, {3, -2, 6}, base}, false, 0, 0, switchApart},
		{"close but in order", [][]float64{base, {-1.6, 0.4, 3.3}}, false, 0, 0, switchMatch},
	} {
		a, b, ok := permutedChains(synthChains(rng, c.means, 0.5, 300), c.apartS)
		if ok != c.ok || ok && (a != c.a || b != c.b) {
			t.Errorf("%s: chains %d and %d, ok %v; want %d and %d, ok %v", c.name, a, b, ok, c.a, c.b, c.ok)
		}
	}
	// the weights of a two-component mixture: 0.4 and 0.6 swapped, sd 0.075
	w := synthChains(rng, [][]float64{{0.4, 0.6}, {0.6, 0.4}}, 0.075, 300)
	if _, _, ok := permutedChains(w, switchApart); ok {
		t.Errorf("weights 0.4 and 0.6 (sd 0.075) swapped count as apart by %v sds", switchApart)
	}
	if _, _, ok := permutedChains(w, switchMatch); !ok {
		t.Errorf("weights 0.4 and 0.6 (sd 0.075) swapped do not match in another order within %v sds", switchMatch)
	}
}

// TestLabelSwitchWarning: the R̂ warning names the params whose chains sit
// in permuted modes (the weights with the means they switch with) and
// advises an ordered param by the model's type of it; chains in modes
// that are not permutations keep the usual advice.
func TestLabelSwitchWarning(t *testing.T) {
	const chains, n = 4, 300
	rng := rand.New(rand.NewPCG(23, 24))
	make3 := func(mu [][]float64) *sampleDraws {
		w := make([][]float64, chains)
		for c := range chains {
			w[c] = []float64{0.4, 0.6}
			if mu[c][0] > mu[c][1] {
				w[c] = []float64{0.6, 0.4}
			}
		}
		sd := &sampleDraws{n: n, chains: chains, res: &nuts.Result{Chains: make([]nuts.Chain, chains)},
			divergent: make([]bool, chains*n), depth: make([]int, chains*n), energy: make([]float64, chains*n)}
		for d := range sd.energy {
			sd.energy[d] = rng.NormFloat64()
		}
		sd.ds = &drawSet{vars: []variable{
			{name: "w", shape: []int{2}, elems: []int{0, 1}},
			{name: "mu", shape: []int{2}, elems: []int{0, 1}, first: 2},
			{name: "tau", shape: []int{2}, elems: []int{0, 1}, first: 4},
		}, ncol: 6}
		for _, v := range [][][][]float64{synthChains(rng, w, 0.075, n), synthChains(rng, mu, 0.5, n), synthChains(rng, [][]float64{{1, 2}, {1, 2}, {1, 2}, {1, 2}}, 0.5, n)} {
			for k := range v {
				var col []float64
				for _, ch := range v[k] {
					col = append(col, ch...)
				}
				sd.ds.cols = append(sd.ds.cols, col)
			}
		}
		return sd
	}
	ms := []mcmcStats{{rhat: 1.3}, {rhat: 1.3}, {rhat: 1.7}, {rhat: 1.7}, {rhat: 1.001}, {rhat: 1.001}}
	for i := range ms {
		ms[i].essBulk, ms[i].essTail = 1e4, 1e4
	}
	sd := make3([][]float64{{-1, 2}, {-1, 2}, {2, -1}, {-1, 2}})
	m := &compile.Model{Latents: []compile.Latent{{Name: "w", Support: dist.Simplex, Size: 1}, {Name: "mu", Support: dist.Real, Size: 2, Pos: ast.Pos{File: "m.gpp", Line: 3, Col: 7}}}}
	got := strings.Join(sampleWarnings(sd, nuts.Settings{MaxDepth: 10, Delta: 0.8, Warmup: 1000}, ms, m, divAdvice{}), "\n")
	for _, want := range []string{
		"chains found the same values of w, mu in different orders (label switching: chain 3 holds chain 1's in another order",
		"declare mu ordered[2] (param mu: ordered[2]) at m.gpp:3:7, or", // where to change it
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q; got:\n%s", want, got)
		}
	}
	if strings.Contains(got, "run longer chains, or reparameterise") {
		t.Errorf("label switching advises longer chains:\n%s", got)
	}
	m.Latents[1].Support = dist.Positive // a positive vector: its ordered type
	got = strings.Join(sampleWarnings(sd, nuts.Settings{MaxDepth: 10, Delta: 0.8, Warmup: 1000}, ms, m, divAdvice{}), "\n")
	if want := "declare mu positive_ordered[2] (param mu: positive_ordered[2]) at m.gpp:3:7, or"; !strings.Contains(got, want) {
		t.Errorf("warnings lack %q; got:\n%s", want, got)
	}
	got = strings.Join(sampleWarnings(sd, nuts.Settings{MaxDepth: 10, Delta: 0.8, Warmup: 1000}, ms, nil, divAdvice{}), "\n")
	if !strings.Contains(got, "give the components an order") {
		t.Errorf("without the model, the advice is not the general one:\n%s", got)
	}
	sd = make3([][]float64{{-1, 2}, {-1, 2}, {2, 5}, {-1, 2}}) // another mode, not a permutation
	got = strings.Join(sampleWarnings(sd, nuts.Settings{MaxDepth: 10, Delta: 0.8, Warmup: 1000}, ms, m, divAdvice{}), "\n")
	if strings.Contains(got, "label switching") || !strings.Contains(got, "run longer chains, or reparameterise the model") {
		t.Errorf("chains in modes that are not permutations:\n%s", got)
	}
}

// TestLabelSwitchWarningMatrix: chains that hold a factor model's
// loadings W [P, K] with the columns in another order (chain 2 swaps two,
// chain 4 cycles three) get the R̂ warning's label-switching reading with
// the matrix advice; chains whose column moved elsewhere keep the usual
// advice.
func TestLabelSwitchWarningMatrix(t *testing.T) {
	const chains, n, P, K = 4, 300, 10, 3
	load := func(p, k int) float64 {
		if p%K == k {
			return 2 + float64(k)
		}
		return 0.01
	}
	make1 := func(perm [chains][K]int, moved bool) *sampleDraws {
		rng := rand.New(rand.NewPCG(25, 26))
		sd := &sampleDraws{n: n, chains: chains, res: &nuts.Result{Chains: make([]nuts.Chain, chains)},
			divergent: make([]bool, chains*n), depth: make([]int, chains*n), energy: make([]float64, chains*n)}
		for d := range sd.energy {
			sd.energy[d] = rng.NormFloat64()
		}
		v := variable{name: "W", shape: []int{P, K}}
		sd.ds = &drawSet{}
		for k := range K { // column-major columns
			for p := range P {
				v.elems = append(v.elems, p*K+k)
				var col []float64
				for c := range chains {
					m := load(p, perm[c][k])
					if moved && c == 1 && k == 0 {
						m = load((p+1)%P, perm[c][k]) + 1
					}
					for range n {
						col = append(col, m+0.05*m*rng.NormFloat64())
					}
				}
				sd.ds.cols = append(sd.ds.cols, col)
			}
		}
		sd.ds.vars, sd.ds.ncol = []variable{v}, len(sd.ds.cols)
		return sd
	}
	ms := make([]mcmcStats, P*K)
	for i := range ms {
		ms[i] = mcmcStats{rhat: 1.5, essBulk: 1e4, essTail: 1e4}
	}
	id := [K]int{0, 1, 2}
	set := nuts.Settings{MaxDepth: 10, Delta: 0.8, Warmup: 1000}
	got := strings.Join(sampleWarnings(make1([chains][K]int{id, {1, 0, 2}, id, {2, 0, 1}}, false), set, ms, nil, divAdvice{}), "\n")
	if want := "chains found the same values of W in different orders (label switching: chain 2 holds chain 1's rows or columns, or elements, in another order"; !strings.Contains(got, want) || !strings.Contains(got, "a product such as W * H") {
		t.Errorf("warnings lack %q and the matrix advice; got:\n%s", want, got)
	}
	got = strings.Join(sampleWarnings(make1([chains][K]int{id, {1, 0, 2}, id, id}, true), set, ms, nil, divAdvice{}), "\n")
	if strings.Contains(got, "label switching") {
		t.Errorf("a column moved elsewhere reads as label switching:\n%s", got)
	}
}

// TestSampleMixtureLabels: NUTS on the mixture example puts chain 3 in
// the other labelling of the components (seed 1), and the R̂ warning says
// so; with mu ordered the chains agree and nothing is said of labels.
func TestSampleMixtureLabels(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "mixture.gpp"))
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join("..", "..", "examples", "wine_std.csv")
	ordered := writeFile(t, dir, "ordered.gpp", strings.Replace(string(src), "param mu:    real[K]", "param mu:    ordered[K]", 1))
	for _, c := range []struct {
		model string
		want  bool
	}{{filepath.Join("..", "..", "examples", "mixture.gpp"), true}, {ordered, false}} {
		code, _, stderr := runGpp("sample", c.model, data, "--warmup", "200", "--draws", "200", "--quiet", "--out", filepath.Join(dir, "out"))
		if code != exitOK {
			t.Fatalf("%s: exit %d:\n%s", c.model, code, stderr)
		}
		got := strings.Contains(stderr, "chains found the same values of w, mu, sigma in different orders (label switching") &&
			strings.Contains(stderr, "declare mu ordered[2]")
		if got != c.want {
			t.Errorf("%s: label switching named: %v, want %v:\n%s", c.model, got, c.want, stderr)
		}
	}
}

// permuted: components apart by more than switchApart in one order and
// within switchMatch in another are switched; so are a matrix's
// components (diluted) apart by less (a sparse factor's columns: a
// Poisson factorisation's user factors 1.7 joint sds apart as labelled,
// 0.06 in another order) where the other order matches within a quarter
// of that, but not a vector's, nor where the other order matches only
// about as well, nor where the order given matches.
func TestPermuted(t *testing.T) {
	for _, c := range []struct {
		name string
		d    [][]float64
		want bool
	}{
		{"far apart, swapped", [][]float64{{3, 0.4}, {0.5, 3.1}}, true},
		{"sparse factor, swapped", [][]float64{{1.68, 0.06, 1.82}, {0.05, 1.71, 1.03}, {1.02, 1.83, 0.06}}, true},
		{"apart by little, no order much closer", [][]float64{{1.6, 0.5}, {0.6, 1.5}}, false},
		{"same order", [][]float64{{0.3, 2.5}, {2.4, 0.2}}, false},
	} {
		d := func(i, j int) float64 { return c.d[i][j] }
		if got := permuted(len(c.d), d, switchApart, true); got != c.want {
			t.Errorf("%s: permuted %v, want %v", c.name, got, c.want)
		}
		if got := permuted(len(c.d), d, switchApart, false); got != (c.want && c.name == "far apart, swapped") {
			t.Errorf("%s, not diluted: permuted %v", c.name, got)
		}
	}
}
