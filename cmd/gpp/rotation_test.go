package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"gonum.org/v1/gonum/mat"
)

// randomOrthogonal returns a K×K orthogonal matrix: the Q of the QR
// decomposition of a matrix of normal draws.
func randomOrthogonal(rng *rand.Rand, K int) *mat.Dense {
	g := mat.NewDense(K, K, nil)
	for i := range K {
		for j := range K {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

// signedLoadings returns P×K row-major loadings of both signs, each
// column with weight on its own rows, and the same loadings times q.
func signedLoadings(P, K int, q *mat.Dense) (w0, w []float64) {
	w0 = make([]float64, P*K)
	for p := range P {
		for k := range K {
			w0[p*K+k] = 0.05 * float64(p%3-1)
			if p%K == k {
				w0[p*K+k] = float64(1+k) * float64(1-2*(p%2))
			}
		}
	}
	var turned mat.Dense
	turned.Mul(mat.NewDense(P, K, w0), q)
	return w0, turned.RawMatrix().Data
}

// TestMatrixAxisRotated: loadings turned by an orthogonal matrix (a
// rotation, a column's sign flipped) match along their columns; the same
// loadings, loadings with a column moved after turning, a matrix with no
// more rows than columns, and a transposed comparison (rows) do not.
func TestMatrixAxisRotated(t *testing.T) {
	const P, K = 12, 3
	rng := rand.New(rand.NewPCG(31, 32))
	sds := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = 0.1
		}
		return s
	}
	flip := mat.NewDense(K, K, []float64{1, 0, 0, 0, -1, 0, 0, 0, 1})
	for _, c := range []struct {
		name  string
		q     *mat.Dense
		shape []int
		axis  int
		move  bool
		want  bool
	}{
		{"rotated", randomOrthogonal(rng, K), []int{P, K}, 1, false, true},
		{"sign flipped", flip, []int{P, K}, 1, false, true},
		{"same", mat.NewDense(K, K, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}), []int{P, K}, 1, false, false},
		{"rotated, then a column moved", randomOrthogonal(rng, K), []int{P, K}, 1, true, false},
		{"read along the rows", randomOrthogonal(rng, K), []int{P, K}, 0, false, false},
	} {
		w0, w := signedLoadings(P, K, c.q)
		if c.move {
			for p := range P {
				w[p*K] += 0.5
			}
		}
		if got := matrixAxisRotated(c.shape, c.axis, w0, sds(P*K), w, sds(P*K), switchApart); got != c.want {
			t.Errorf("%s: rotated %v, want %v", c.name, got, c.want)
		}
	}
	// non-negative loadings turned by 20° stay non-negative: not tried, as
	// a non-negative param (gamma loadings) has no rotations to find
	nn := make([]float64, P*K)
	for i := range nn {
		nn[i] = 1 + float64(i%2)
	}
	c, s := math.Cos(math.Pi/9), math.Sin(math.Pi/9)
	var turned mat.Dense
	turned.Mul(mat.NewDense(P, K, nn), mat.NewDense(K, K, []float64{c, -s, 0, s, c, 0, 0, 0, 1}))
	if nt := turned.RawMatrix().Data; slices.Min(nt) < 0 || matrixAxisRotated([]int{P, K}, 1, nn, sds(P*K), nt, sds(P*K), switchApart) {
		t.Errorf("non-negative loadings (min %g after turning) are tried", slices.Min(nt))
	}
	// a 3×3 matrix: Q's three angles fit nine elements too closely to tell
	w0, w := signedLoadings(K, K, randomOrthogonal(rng, K))
	if matrixAxisRotated([]int{K, K}, 1, w0, sds(K*K), w, sds(K*K), switchApart) {
		t.Errorf("a %d×%d matrix is tried", K, K)
	}
}

// rotatedDrawSet returns a fit's draws of two restarts of loadings W
// [P, K]: restart 1's means are restart 0's times q (nil: the same), sd
// 0.1 each.
func rotatedDrawSet(rng *rand.Rand, P, K int, q *mat.Dense) *drawSet {
	const S = 300
	if q == nil {
		q = mat.NewDense(K, K, nil)
		for k := range K {
			q.Set(k, k, 1)
		}
	}
	w0, w := signedLoadings(P, K, q)
	ds := &drawSet{R: 2}
	for d := range 2 * S {
		ds.comp = append(ds.comp, d%2)
	}
	v := variable{name: "L", shape: []int{P, K}}
	for k := range K { // column-major columns
		for p := range P {
			v.elems = append(v.elems, p*K+k)
			col := make([]float64, 2*S)
			for d := range col {
				m := w0[p*K+k]
				if ds.comp[d] == 1 {
					m = w[p*K+k]
				}
				col[d] = m + 0.1*rng.NormFloat64()
			}
			ds.cols = append(ds.cols, col)
		}
	}
	ds.vars, ds.ncol = []variable{v}, len(ds.cols)
	return ds
}

// TestLabelSwitchHintRotated: restarts whose loadings are one another's
// rotated get the rotation hint, naming the param and the product that
// does not depend on the rotation; restarts that agree get none.
func TestLabelSwitchHintRotated(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	h := labelSwitchHint(rotatedDrawSet(rng, 12, 3, randomOrthogonal(rng, 3)))
	want := "restart 1 found L of restart 0 with its columns rotated or reflected"
	if len(h) != 1 || !strings.HasPrefix(h[0], want) || !strings.Contains(h[0], "(L * L', a covariance") {
		t.Errorf("hints %q, want one starting %q", h, want)
	}
	if h := labelSwitchHint(rotatedDrawSet(rng, 12, 3, nil)); h != nil {
		t.Errorf("restarts that agree: %q", h)
	}
}

// TestLabelSwitchWarningRotated: NUTS chains whose loadings are one
// another's rotated get the rotation reading in the R̂ warning, naming
// the param's own product L * L'; chains that agree do not.
func TestLabelSwitchWarningRotated(t *testing.T) {
	const chains, n, P, K = 2, 300, 12, 3
	rng := rand.New(rand.NewPCG(35, 36))
	for _, c := range []struct {
		name string
		q    *mat.Dense
		want bool
	}{
		{"rotated", randomOrthogonal(rng, K), true},
		{"same", nil, false},
	} {
		ds := rotatedDrawSet(rng, P, K, c.q)
		// a fit's draws alternate between the restarts; a sample's are chain by chain
		for i, col := range ds.cols {
			byChain := make([]float64, 0, len(col))
			for ch := range chains {
				for d := ch; d < len(col); d += chains {
					byChain = append(byChain, col[d])
				}
			}
			ds.cols[i] = byChain
		}
		ds.comp, ds.R = nil, 0
		sd := &sampleDraws{n: n, chains: chains, ds: ds, res: &nuts.Result{Chains: make([]nuts.Chain, chains)},
			divergent: make([]bool, chains*n), depth: make([]int, chains*n), energy: make([]float64, chains*n)}
		for d := range sd.energy {
			sd.energy[d] = rng.NormFloat64()
		}
		ms := make([]mcmcStats, P*K)
		for i := range ms {
			ms[i] = mcmcStats{rhat: 1.5, essBulk: 1e4, essTail: 1e4}
		}
		got := strings.Join(sampleWarnings(sd, nuts.Settings{MaxDepth: 10, Delta: 0.8, Warmup: 1000}, ms, nil, divAdvice{}), "\n")
		has := strings.Contains(got, "chains found the same values of L rotated or reflected (chain 2 holds chain 1's mixed by an orthogonal matrix")
		if has != c.want {
			t.Errorf("%s: rotation reading %v, want %v; warnings:\n%s", c.name, has, c.want, got)
		}
		// the product named is the param's own, not another model's W
		if c.want && !strings.Contains(got, "a product such as L * L' are identified") {
			t.Errorf("%s: the reading names another product than L * L'; warnings:\n%s", c.name, got)
		}
	}
}

// TestFitRotationHint: four restarts of factor analysis with signed
// loadings (examples/fa.gpp, K = 4, the wine data) end at ELBOs within a
// nat of one another with W rotated, and the hint says so; the paper's
// model with non-negative loadings and a noise precision per marker
// (examples/gpfa_diag.gpp), whose restarts differ otherwise, gets no
// rotation hint.
func TestFitRotationHint(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	ex := func(name string) string { return filepath.Join("..", "..", "examples", name) }
	code, _, stderr := runSafe(t, "fit", ex("fa.gpp"), ex("wine_std.csv"), "--set", "K=4", "--restarts", "4", "--quiet", "--out", filepath.Join(dir, "fa"))
	if want := "found W of restart 0 with its columns rotated or reflected"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("fa: exit %d, want a hint %q; stderr\n%s", code, want, stderr)
	}
	code, _, stderr = runSafe(t, "fit", ex("gpfa_diag.gpp"), ex("wine_std.csv"), "--set", "K=4", "--restarts", "4", "--quiet", "--out", filepath.Join(dir, "gpfa"))
	if code != 0 || strings.Contains(stderr, "rotated") {
		t.Errorf("gpfa_diag: exit %d, want no rotation hint; stderr\n%s", code, stderr)
	}
}
