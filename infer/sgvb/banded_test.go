package sgvb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"

	"github.com/gpplang/gpp/dist"
)

// bandedTol bounds the disagreement of a banded factor's closed forms
// with their dense counterparts (rounding only).
const bandedTol = 1e-9

// bandedFDTol bounds the relative disagreement of a derivative with
// central finite differences at step 1e-6.
const bandedFDTol = 1e-6

// testBandedBlock returns a banded block of n elements and bandwidth K on
// values (or on the logs of a positive latent) with random constrained
// parameters val (d in [0.5, 2], C entries N(0, 0.5²)).
func testBandedBlock(n, K int, pos bool, seed uint64) (*block, []float64) {
	return testArrowBlock(n, K, 0, pos, seed)
}

// testArrowBlock is testBandedBlock with the last g of the n elements
// global (an arrowhead: dense rows of C, entries N(0, 0.3²)).
func testArrowBlock(n, K, g int, pos bool, seed uint64) (*block, []float64) {
	s := dist.Real
	if pos {
		s = dist.Positive
	}
	b := &block{fam: FamilyBanded, support: s, n: n, band: K, glob: g, k: 1}
	rng := rand.New(rand.NewPCG(seed, 13))
	val := make([]float64, b.np())
	nc := n - g
	for i := range n {
		val[i] = rng.NormFloat64()
		val[n+i] = 0.5 + 1.5*rng.Float64()
		if i >= nc {
			for j := range i {
				val[arIdx(n, K, nc, i-nc, j)] = 0.3 * rng.NormFloat64()
			}
			continue
		}
		for k := 1; k <= K && k <= i; k++ {
			val[bdIdx(n, K, i, k)] = 0.5 * rng.NormFloat64()
		}
	}
	return b, val
}

// bandedDenseL returns the dense L = D(I + C) of banded block b.
func bandedDenseL(b *block, val []float64) *mat.Dense {
	n, K, nc := b.n, b.band, b.n-b.glob
	l := mat.NewDense(n, n, nil)
	for i := range n {
		d := val[n+i]
		l.Set(i, i, d)
		if i >= nc {
			for j := range i {
				l.Set(i, j, d*val[arIdx(n, K, nc, i-nc, j)])
			}
			continue
		}
		for k := 1; k <= K && k <= i; k++ {
			l.Set(i, i-k, d*val[bdIdx(n, K, i, k)])
		}
	}
	return l
}

// bandedDenseSigma returns Σ = (LLᵀ)⁻¹ of banded block b.
func bandedDenseSigma(t *testing.T, b *block, val []float64) *mat.SymDense {
	l := bandedDenseL(b, val)
	p := mat.NewSymDense(b.n, nil)
	p.SymOuterK(1, l)
	var ch mat.Cholesky
	if !ch.Factorize(p) {
		t.Fatal("precision not positive definite")
	}
	s := mat.NewSymDense(b.n, nil)
	if err := ch.InverseTo(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBandedDensity checks a banded factor's draws, log q, entropy and
// marginal sds (the banded inverse's diagonal) against the dense
// N(μ, (LLᵀ)⁻¹): the draws' recorded ε satisfy Lᵀ(x − μ) = ε, log q is
// gonum's density, the entropy ½ log det(2πeΣ), the sds √Σ_ii; and the
// entropy's gradient against finite differences (n = 9, K = 1, 2, 3).
func TestBandedDensity(t *testing.T) {
	const n = 9
	for _, K := range []int{1, 2, 3} {
		b, val := testBandedBlock(n, K, false, uint64(K))
		sig := bandedDenseSigma(t, b, val)
		mvn, ok := distmv.NewNormal(val[:n], sig, nil)
		if !ok {
			t.Fatal("distmv")
		}
		var ch mat.Cholesky
		ch.Factorize(sig)
		if h, w := b.bandedEntropy(val), 0.5*ch.LogDet()+n*halfLog2PiE; math.Abs(h-w) > bandedTol {
			t.Errorf("K = %d: entropy %.12g, dense %.12g", K, h, w)
		}
		l := bandedDenseL(b, val)
		rng := rand.New(rand.NewPCG(3, uint64(K)))
		x, aux := make([]float64, n), make([]float64, b.np())
		for range 3 {
			b.bandedSample(val, rng, x, aux)
			for j := range n { // (Lᵀ(x − μ))_j = ε_j
				e := 0.0
				for i := range n {
					e += l.At(i, j) * (x[i] - val[i])
				}
				if math.Abs(e-aux[j]) > bandedTol {
					t.Errorf("K = %d: (Lᵀ(x−μ))[%d] = %.12g, ε %.12g", K, j, e, aux[j])
				}
			}
			if lq, w := b.bandedLogq(val, x), mvn.LogProb(x); math.Abs(lq-w) > bandedTol {
				t.Errorf("K = %d: log q %.12g, dense %.12g", K, lq, w)
			}
		}
		sds := b.bandedSDsVal(val)
		ps := b.bandedParams(thetaOfD(b, val))
		fsd := bandedSDs(ps)
		for i := range n {
			w := math.Sqrt(sig.At(i, i))
			if math.Abs(sds[i]-w) > bandedTol*w || math.Abs(fsd[i]-w) > bandedTol*w {
				t.Errorf("K = %d: sd[%d] %.12g (from Params %.12g), dense %.12g", K, i, sds[i], fsd[i], w)
			}
		}
		h := func(v []float64) float64 { return b.bandedEntropy(v) }
		want := fd.Gradient(nil, h, val, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		got := make([]float64, len(val))
		b.bandedEntropyGrad(val, got)
		for j := range got {
			if math.Abs(got[j]-want[j]) > bandedFDTol*(1+math.Abs(want[j])) {
				t.Errorf("K = %d: ∂H/∂val[%d] = %.8g, finite differences %.8g", K, j, got[j], want[j])
			}
		}
	}
}

// thetaOfD returns val with its d slots replaced by log d (theta's layout).
func thetaOfD(b *block, val []float64) []float64 {
	th := append([]float64(nil), val...)
	for i := range b.n {
		th[b.n+i] = math.Log(val[b.n+i])
	}
	return th
}

// TestBandedPathwise checks bandedBackprop, the adjoint of the banded
// back-substitution, draw by draw against finite differences: for a fixed
// ε the draw x(val) is a smooth function of the constrained parameters,
// and the gradient is that of f(x(val)) with f = log p of a Gaussian (on
// values, or on the logs of a positive latent with its −Σx); with STL,
// of f(x(val)) − log q_{val₀}(x(val)) at q's parameters held at val₀
// (n = 8, K = 1, 2, 3).
func TestBandedPathwise(t *testing.T) {
	const n = 8
	for _, pos := range []bool{false, true} {
		tg := newMVGauss(make([]float64, n), regressionSigma(n, 5), pos)
		for _, K := range []int{1, 2, 3} {
			b, val0 := testBandedBlock(n, K, pos, uint64(10+K))
			rng := rand.New(rand.NewPCG(7, uint64(K)))
			eps := make([]float64, n)
			for i := range eps {
				eps[i] = rng.NormFloat64()
			}
			aux, x, g := make([]float64, b.np()), make([]float64, n), make([]float64, n)
			// draw replays bandedSample's back-substitution for the fixed ε.
			draw := func(val []float64) {
				for i := n - 1; i >= 0; i-- {
					v := eps[i]
					for k := 1; k <= K && i+k < n; k++ {
						v -= val[bdIdx(n, K, i+k, k)] * aux[n+i+k]
					}
					aux[i], aux[n+i] = eps[i], v
					x[i] = val[i] + v/val[n+i]
				}
			}
			skip := func(j int) bool { // the unused slots of C_ik, k > i
				return j >= 2*n && (j-2*n)%K+1 > (j-2*n)/K
			}
			checkBandedPathwise(t, fmt.Sprintf("positive %v, K = %d", pos, K), b, tg, val0, x, g, aux, draw, skip)
		}
	}
}

// ar1Posterior returns the exact posterior mean and covariance of latent
// AR(1) states x_1 … x_n (x_1 ~ N(0, σ²/(1−φ²)), x_t = φx_{t−1} + σ·η)
// observed with N(0, τ²) noise, y simulated with the seed: its precision
// Q + I/τ² is tridiagonal.
func ar1Posterior(n int, phi, sigma, tau float64, seed uint64) ([]float64, *mat.SymDense) {
	rng := rand.New(rand.NewPCG(seed, 17))
	p := mat.NewSymDense(n, nil)
	y := make([]float64, n)
	x := rng.NormFloat64() * sigma / math.Sqrt(1-phi*phi)
	for t := range n {
		if t > 0 {
			x = phi*x + sigma*rng.NormFloat64()
		}
		y[t] = x + tau*rng.NormFloat64()
	}
	s2 := sigma * sigma
	for t := range n {
		d := 1 / (tau * tau)
		if t == 0 || t == n-1 {
			d += 1 / s2
		} else {
			d += (1 + phi*phi) / s2
		}
		if t == 0 && n == 1 {
			d = 1/(tau*tau) + (1-phi*phi)/s2
		}
		p.SetSym(t, t, d)
		if t > 0 {
			p.SetSym(t, t-1, -phi/s2)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(p) {
		panic("AR(1) precision not positive definite")
	}
	sig := mat.NewSymDense(n, nil)
	if err := ch.InverseTo(sig); err != nil {
		panic(err)
	}
	m := make([]float64, n)
	for i := range n {
		for j := range n {
			m[i] += sig.At(i, j) * y[j] / (tau * tau)
		}
	}
	return m, sig
}

// TestBandedAR1 fits the posterior of 40 latent AR(1) states (φ = 0.9,
// σ = 0.5, τ = 1: neighbouring states correlated about 0.8 a posteriori)
// whose precision is tridiagonal: a band-1 factor holds it exactly, so the
// fit reaches it (KL(q ‖ p) below bandedKLTol, every mean and marginal sd
// within 2 % of the posterior sd), on values and on the logs of a
// positive latent; mean-field normals cannot (KL above 1).
func TestBandedAR1(t *testing.T) {
	const n = 40
	m, sig := ar1Posterior(n, 0.9, 0.5, 1, 3)
	for _, pos := range []bool{false, true} {
		tg := newMVGauss(m, sig, pos)
		s := conjugateSettings()
		s.MaxIter, s.PSISDraws = 10000, -1
		s.FullRankGroups, s.Band = [][]string{{"beta"}}, 1
		res, err := Fit(context.Background(), tg, tg.latents(), s)
		if err != nil {
			t.Fatal(err)
		}
		g, f := res.Groups[0], res.Factor("beta")
		if g.Band != 1 || f.Family != FamilyBanded || len(f.Params) != 3 {
			t.Fatalf("group %+v, factor %v with %d params", g, f.Family, len(f.Params))
		}
		b := &block{fam: FamilyBanded, n: n, band: 1}
		val := make([]float64, b.np())
		copy(val, g.Params[0])
		for i := range n {
			val[n+i] = g.Params[1][i]
			if i > 0 {
				val[bdIdx(n, 1, i, 1)] = g.Params[2][i] / g.Params[1][i]
			}
		}
		sq := bandedDenseSigma(t, b, val)
		kl := gaussKL(g.Params[0], sq, m, sig)
		sds := coordSDs(f)
		for i := range n {
			si := math.Sqrt(sig.At(i, i))
			if math.Abs(g.Params[0][i]-m[i]) > 0.02*si || math.Abs(sds[i]-si) > 0.02*si {
				t.Errorf("positive %v: x[%d] mean %.4f sd %.4f, exact %.4f sd %.4f", pos, i, g.Params[0][i], sds[i], m[i], si)
			}
		}
		// mean-field normals (lognormals on the logs)
		s.FullRankGroups, s.Band = nil, 0
		if pos {
			s.Families = map[string]Family{"beta": FamilyLognormal}
		}
		mf, err := Fit(context.Background(), tg, tg.latents(), s)
		if err != nil {
			t.Fatal(err)
		}
		mfs := mat.NewSymDense(n, nil)
		mm := mf.Factors[0].Params[0]
		for i := range n {
			sd := mf.Factors[0].Params[1][i]
			mfs.SetSym(i, i, sd*sd)
		}
		mfKL := gaussKL(mm, mfs, m, sig)
		t.Logf("positive %v: banded KL(q ‖ p) %.3g (%d iterations), mean-field %.3g", pos, kl, res.Iterations, mfKL)
		if !(kl < bandedKLTol) {
			t.Errorf("positive %v: banded KL(q ‖ p) %.3g, want < %g", pos, kl, bandedKLTol)
		}
		if !(mfKL > 1) {
			t.Errorf("positive %v: mean-field KL %.3g, want > 1", pos, mfKL)
		}
	}
}

// bandedKLTol bounds KL(q ‖ p) of a banded fit whose family holds the
// posterior: with STL the gradient's noise vanishes at that optimum.
const bandedKLTol = 1e-3

// TestBandedZeroAllocs checks that a banded group's step and ELBO
// evaluation allocate nothing.
func TestBandedZeroAllocs(t *testing.T) {
	m, sig := ar1Posterior(20, 0.9, 0.5, 1, 1)
	for _, pos := range []bool{false, true} {
		tg := newMVGauss(m, sig, pos)
		for _, K := range []int{1, 3} {
			s := conjugateSettings()
			s.FullRankGroups, s.Band = [][]string{{"beta"}}, K
			ws := s.withDefaults()
			e, err := newEngine(tg, tg.latents(), &ws)
			if err != nil {
				t.Fatal(err)
			}
			checkZeroAllocs(t, e, fmt.Sprintf("band %d, positive %v", K, pos))
			e.close()
		}
	}
}

// TestBandedWorkers checks that a fit with a banded group gives the same
// result bit for bit with 1 and 2 workers, and that its warm start from
// its own result holds its parameters.
func TestBandedWorkers(t *testing.T) {
	m, sig := ar1Posterior(30, 0.9, 0.5, 1, 2)
	tg := newMVGauss(m, sig, false)
	e := bandedWorkersWarm(t, tg, tg.latents(), []string{"beta"}, 500)
	defer e.close()
}

// TestBandedErrors checks the settings a banded group refuses.
func TestBandedErrors(t *testing.T) {
	tg := &splitGauss{mvGauss: newMVGauss([]float64{0, 0, 0}, lowRankSigma(3, 1, 1), false), na: 1}
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{FullRankGroups: [][]string{{"a"}}, Band: 1, Rank: 2}, "Band and Rank"},
		{Settings{FullRankGroups: [][]string{{"a"}}, Band: MaxBand + 1}, "bandwidth"},
	} {
		_, err := Fit(context.Background(), tg, tg.latents(), c.s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.s, err, c.want)
		}
	}
	big := &splitGauss{mvGauss: newMVGauss(make([]float64, 20), lowRankSigma(20, 1, 1), false), na: 20 - MaxArrow - 1}
	_, err := Fit(context.Background(), big, big.latents(), Settings{FullRankGroups: [][]string{{"a", "b"}}, Band: 1})
	if err == nil || !strings.Contains(err.Error(), "MaxArrow") {
		t.Errorf("%d globals: error %v, want MaxArrow", MaxArrow+1, err)
	}
}

// arrowCases are the (n, K, g) of the arrowhead tests: a chain of n − g
// states, bandwidth K, then g global elements with dense rows.
var arrowCases = [][3]int{{9, 1, 1}, {10, 1, 3}, {11, 2, 2}, {6, 3, 1}}

// TestArrowDensity checks an arrowhead factor (a banded chain then dense
// global rows of L) against the dense N(μ, (LLᵀ)⁻¹): the recorded ε of a
// draw is Lᵀ(x − μ), log q is gonum's density, the entropy ½ log
// det(2πeΣ); the Takahashi recursion's Σ (the chain's band, every entry
// with a global, the marginal sds) the dense inverse's, from the step
// cache and from Params; and Params → theta → Params the identity.
func TestArrowDensity(t *testing.T) {
	for _, c := range arrowCases {
		n, K, g := c[0], c[1], c[2]
		nc := n - g
		b, val := testArrowBlock(n, K, g, false, uint64(n*K+g))
		sig := bandedDenseSigma(t, b, val)
		mvn, ok := distmv.NewNormal(val[:n], sig, nil)
		if !ok {
			t.Fatal("distmv")
		}
		var ch mat.Cholesky
		ch.Factorize(sig)
		if h, w := b.bandedEntropy(val), 0.5*ch.LogDet()+float64(n)*halfLog2PiE; math.Abs(h-w) > bandedTol {
			t.Errorf("%v: entropy %.12g, dense %.12g", c, h, w)
		}
		l := bandedDenseL(b, val)
		rng := rand.New(rand.NewPCG(3, uint64(n)))
		x, aux := make([]float64, n), make([]float64, b.np())
		for range 3 {
			b.bandedSample(val, rng, x, aux)
			for j := range n {
				e := 0.0
				for i := range n {
					e += l.At(i, j) * (x[i] - val[i])
				}
				if math.Abs(e-aux[j]) > bandedTol {
					t.Errorf("%v: (Lᵀ(x−μ))[%d] = %.12g, ε %.12g", c, j, e, aux[j])
				}
			}
			if lq, w := b.bandedLogq(val, x), mvn.LogProb(x); math.Abs(lq-w) > bandedTol {
				t.Errorf("%v: log q %.12g, dense %.12g", c, lq, w)
			}
		}
		th := thetaOfD(b, val)
		ps := b.bandedParams(th)
		if len(ps) != K+2+g {
			t.Fatalf("%v: %d Params, want %d", c, len(ps), K+2+g)
		}
		th2 := make([]float64, b.np())
		b.bandedTheta(ps, th2)
		for j := range th {
			if math.Abs(th[j]-th2[j]) > 1e-12*(1+math.Abs(th[j])) {
				t.Errorf("%v: theta[%d] %.12g, through Params %.12g", c, j, th2[j], th[j])
			}
		}
		cv := bandedCovOf(ps, K)
		for i := range n {
			for j := i; j < n; j++ {
				if j >= nc || j-i <= K {
					if w := sig.At(i, j); math.Abs(cv.at(i, j)-w) > bandedTol*(1+math.Abs(w)) {
						t.Errorf("%v: Σ[%d][%d] %.12g, dense %.12g", c, i, j, cv.at(i, j), w)
					}
				}
			}
		}
		sds := b.bandedSDsVal(val)
		for i := range n {
			if w := math.Sqrt(sig.At(i, i)); math.Abs(sds[i]-w) > bandedTol*w {
				t.Errorf("%v: sd[%d] %.12g, dense %.12g", c, i, sds[i], w)
			}
		}
	}
}

// TestArrowPathwise checks bandedBackprop on arrowhead blocks draw by draw
// against finite differences, as TestBandedPathwise: every mean, d, band
// entry of C and dense global row entry, with and without STL, on values
// and on the logs of a positive latent.
func TestArrowPathwise(t *testing.T) {
	for _, pos := range []bool{false, true} {
		for _, c := range arrowCases {
			n, K, g := c[0], c[1], c[2]
			nc := n - g
			tg := newMVGauss(make([]float64, n), regressionSigma(n, 5), pos)
			b, val0 := testArrowBlock(n, K, g, pos, uint64(20+n+K+g))
			rng := rand.New(rand.NewPCG(7, uint64(n)))
			eps := make([]float64, n)
			for i := range eps {
				eps[i] = rng.NormFloat64()
			}
			aux, x, gr := make([]float64, b.np()), make([]float64, n), make([]float64, n)
			// draw replays the back-substitution Lᵀ(x − μ) = ε for the fixed ε.
			draw := func(val []float64) {
				for j := n - 1; j >= 0; j-- {
					v := eps[j]
					for i := j + 1; i < n; i++ {
						switch {
						case i >= nc:
							v -= val[arIdx(n, K, nc, i-nc, j)] * aux[n+i]
						case i-j <= K:
							v -= val[bdIdx(n, K, i, i-j)] * aux[n+i]
						}
					}
					aux[j], aux[n+j] = eps[j], v
					x[j] = val[j] + v/val[n+j]
				}
			}
			used := make([]bool, b.np()) // the slots of C in the pattern, and μ, d
			for j := range 2 * n {
				used[j] = true
			}
			for i := range n {
				for j := range i {
					switch {
					case i >= nc:
						used[arIdx(n, K, nc, i-nc, j)] = true
					case i-j <= K:
						used[bdIdx(n, K, i, i-j)] = true
					}
				}
			}
			checkBandedPathwise(t, fmt.Sprintf("positive %v, %v", pos, c), b, tg, val0, x, gr, aux, draw, func(j int) bool { return !used[j] })
		}
	}
}

// TestArrowExact fits a Gaussian whose precision is an arrowhead (a
// chain "a" of 24 states, tridiagonal among themselves, and 2 globals "b"
// coupled to every state): the arrowhead factor a+b of band 1 holds it,
// so the fit reaches it (KL(q ‖ p) below bandedKLTol; the members'
// factors' means and sds, from the recursion, within 2 % of the exact
// marginal sds), where a band-1 factor of "a" alone with "b" mean-field
// cannot (KL above 0.1). Also: the same bits with 1 and 2 workers, the
// warm start from the result holds it, and no allocations a step.
func TestArrowExact(t *testing.T) {
	const n, g = 26, 2
	b0, val := testArrowBlock(n, 1, g, false, 5)
	sig := bandedDenseSigma(t, b0, val)
	for _, pos := range []bool{false, true} {
		tg := &splitGauss{mvGauss: newMVGauss(val[:n], sig, pos), na: n - g}
		s := conjugateSettings()
		s.MaxIter, s.PSISDraws = 10000, -1
		s.FullRankGroups, s.Band = [][]string{{"a", "b"}}, 1
		res, err := Fit(context.Background(), tg, tg.latents(), s)
		if err != nil {
			t.Fatal(err)
		}
		gr := res.Groups[0]
		if gr.Band != 1 || len(gr.Params) != 3+g {
			t.Fatalf("group %+v", gr)
		}
		b := &block{fam: FamilyBanded, n: n, band: 1, glob: g}
		th := make([]float64, b.np())
		b.bandedTheta(gr.Params, th)
		vq := append([]float64(nil), th...)
		for i := range n {
			vq[n+i] = math.Exp(th[n+i])
		}
		kl := gaussKL(gr.Params[0], bandedDenseSigma(t, b, vq), val[:n], sig)
		for _, f := range res.Factors {
			sds := coordSDs(&f)
			for i := range f.Size {
				k := f.Offset + i
				si := math.Sqrt(sig.At(k, k))
				if math.Abs(f.Params[0][i]-val[k]) > 0.02*si || math.Abs(sds[i]-si) > 0.02*si {
					t.Errorf("positive %v: %s[%d] mean %.4f sd %.4f, exact %.4f sd %.4f", pos, f.Name, i, f.Params[0][i], sds[i], val[k], si)
				}
			}
		}
		s.FullRankGroups = [][]string{{"a"}}
		if pos { // lognormal: a normal on the logs, as the arrowhead's
			s.Families = map[string]Family{"b": FamilyLognormal}
		}
		bd, err := Fit(context.Background(), tg, tg.latents(), s)
		if err != nil {
			t.Fatal(err)
		}
		bb := &block{fam: FamilyBanded, n: n - g, band: 1}
		th = make([]float64, bb.np())
		bb.bandedTheta(bd.Groups[0].Params, th)
		vb := append([]float64(nil), th...)
		for i := range n - g {
			vb[n-g+i] = math.Exp(th[n-g+i])
		}
		sb := mat.NewSymDense(n, nil)
		sa := bandedDenseSigma(t, bb, vb)
		mb := append(append([]float64(nil), bd.Groups[0].Params[0]...), make([]float64, g)...)
		for i := range n - g {
			for j := range n - g {
				sb.SetSym(i, j, sa.At(i, j))
			}
		}
		fb := bd.Factor("b")
		for i := range g {
			mean, sd := fb.Params[0][i], fb.Params[1][i]
			mb[n-g+i] = mean
			sb.SetSym(n-g+i, n-g+i, sd*sd)
		}
		bkl := gaussKL(mb, sb, val[:n], sig)
		t.Logf("positive %v: arrowhead KL(q ‖ p) %.3g (%d iterations), band alone %.3g (b %v)", pos, kl, res.Iterations, bkl, fb.Family)
		if !(kl < bandedKLTol) {
			t.Errorf("positive %v: arrowhead KL(q ‖ p) %.3g, want < %g", pos, kl, bandedKLTol)
		}
		if !(bkl > 0.1) {
			t.Errorf("positive %v: band alone KL %.3g, want > 0.1", pos, bkl)
		}
	}
	tg := &splitGauss{mvGauss: newMVGauss(val[:n], sig, false), na: n - g}
	e := bandedWorkersWarm(t, tg, tg.latents(), []string{"a", "b"}, 300)
	defer e.close()
	checkZeroAllocs(t, e, "arrowhead")
}

// checkBandedPathwise compares the banded block b's pathwise gradient
// (bandedBackprop), with and without STL, with central finite differences
// of the log joint at the draw that draw(val) makes into x, for every
// variational parameter j that skip does not leave out.
func checkBandedPathwise(t *testing.T, what string, b *block, tg Target, val0, x, g, aux []float64, draw func([]float64), skip func(int) bool) {
	t.Helper()
	for _, stl := range []bool{false, true} {
		f := func(val []float64) float64 {
			draw(val)
			lp, _ := tg.LogJoint(x, g)
			if stl {
				lp -= b.bandedLogq(val0, x)
			}
			return lp
		}
		want := fd.Gradient(nil, f, val0, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		draw(val0)
		tg.LogJoint(x, g)
		got := make([]float64, b.np())
		b.bandedBackprop(val0, stl, g, aux, got)
		for j := range got {
			if skip(j) {
				continue
			}
			if math.Abs(got[j]-want[j]) > bandedFDTol*(1+math.Abs(want[j])) {
				t.Errorf("%s, STL %v: ∂f/∂val[%d] = %.8g, finite differences %.8g", what, stl, j, got[j], want[j])
			}
		}
	}
}

// bandedWorkersWarm fits target tg with one banded group of bandwidth 2
// over names for iters steps with 1 and with 2 workers, checks that the
// two results are the same bit for bit, and returns an engine warm-started
// from that result (the caller closes it), after checking that the warm
// start holds the result's group parameters.
func bandedWorkersWarm(t *testing.T, tg Target, lats []Latent, names []string, iters int) *engine {
	t.Helper()
	var rs [2]*Result
	for w := range 2 {
		s := Settings{Seed: 4, MaxIter: iters, Tol: -1, Workers: w + 1, DrawsPerStep: 2, PSISDraws: -1,
			FullRankGroups: [][]string{names}, Band: 2}
		r, err := Fit(context.Background(), tg, lats, s)
		if err != nil {
			t.Fatal(err)
		}
		rs[w] = r
	}
	sameResult(t, rs[0], rs[1])
	s := Settings{Seed: 5, MaxIter: 1, Tol: -1, PSISDraws: -1, FullRankGroups: [][]string{names}, Band: 2, Init: rs[0]}
	ws := s.withDefaults()
	e, err := newEngine(tg, lats, &ws)
	if err != nil {
		t.Fatal(err)
	}
	got := e.blocks[0].params(e.theta)
	for j, p := range rs[0].Groups[0].Params {
		for i, v := range p {
			if math.Abs(got[j][i]-v) > 1e-12*(1+math.Abs(v)) {
				e.close()
				t.Fatalf("warm start: Params[%d][%d] = %.12g, from %.12g", j, i, got[j][i], v)
			}
		}
	}
	return e
}
