package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// wishartPriorTol bounds the difference of a prior draw's matrix from the
// same draw made by dist.WishartRand, relative to max(1, |entry|).
const wishartPriorTol = 1e-12

// latentByName returns the latent called name.
func latentByName(t *testing.T, m *Model, name string) *Latent {
	t.Helper()
	for i := range m.Latents {
		if m.Latents[i].Name == name {
			return &m.Latents[i]
		}
	}
	t.Fatalf("no latent %s", name)
	return nil
}

// covDraws returns, for each draw (a row of coordinates as priorDraws
// gives them), the K×K value of latent l: for a cholesky_factor_cov its
// L L', checking that L is lower triangular with a positive diagonal.
func covDraws(t *testing.T, z [][]float64, l *Latent) [][]float64 {
	t.Helper()
	k := l.Value[0]
	out := make([][]float64, len(z))
	lf := make([]float64, k*k)
	for d, r := range z {
		y := r[l.Offset : l.Offset+l.Size]
		out[d] = make([]float64, k*k)
		if l.Support == dist.CovMatrix {
			dist.CovMatrixValues(out[d], lf, y, k)
			continue
		}
		dist.CholCovValues(lf, y, k)
		for i := range k {
			if !(lf[i*k+i] > 0) {
				t.Fatalf("draw %d of %s: diagonal %v", d, l.Name, lf[i*k+i])
			}
		}
		dist.CovFromChol(out[d], lf, k)
	}
	return out
}

// checkMean checks the mean of xs against mean, within priorSE standard
// errors estimated from the sample.
func checkMean(t *testing.T, what string, xs []float64, mean float64) {
	t.Helper()
	n := float64(len(xs))
	m, v := 0.0, 0.0
	for _, x := range xs {
		m += x / n
	}
	for _, x := range xs {
		v += (x - m) * (x - m) / (n - 1)
	}
	if se := math.Sqrt(v / n); math.Abs(m-mean) > priorSE*se {
		t.Errorf("%s: mean %.5g, want %.5g (SE %.3g)", what, m, mean, se)
	}
}

// wishartS is the scale matrix of the tests, 3×3 with correlations of
// both signs.
var wishartS = []float64{
	2, 0.5, 0.3,
	0.5, 1, -0.2,
	0.3, -0.2, 1.5,
}

// Wishart-family priors, declared and on a ~ of the whole param, are drawn
// from: every entry of Σ (of L L' for the Cholesky forms) has the mean and
// variance of the distribution, within priorSE standard errors of 20 000
// draws: E Σ_ij = ν S_ij and Var Σ_ij = ν (S_ij² + S_ii S_jj) for the
// Wishart; E Σ_ij = S_ij/(ν − K − 1) and Var Σ_ij = ((ν − K + 1) S_ij² +
// (ν − K − 1) S_ii S_jj)/((ν − K)(ν − K − 1)²(ν − K − 3)) for the inverse
// Wishart (ν = 20, so that the sample variance's own variance, of the
// eighth moment, is finite).
func TestPriorDrawsWishartMoments(t *testing.T) {
	in := data.Input{File: "w.json", JSON: map[string]*data.Array{"S": {Name: "S", Shape: []int{3, 3}, Values: wishartS}}}
	src := `data S: real[3, 3]
param A: cov_matrix[3] ~ Wishart(5, S)
param B: cov_matrix[3]
param LA: cholesky_factor_cov[3] ~ WishartCholesky(5, chol(S))
param LB: cholesky_factor_cov[3]
B ~ InvWishart(20, S)
LB ~ InvWishartCholesky(20, chol(S))
`
	m := compileSrc(t, "w.gpp", src, nil, in)
	z, _ := priorDraws(t, m, 20000, 13)
	const k = 3
	s := wishartS
	for _, c := range []struct {
		name    string
		nu      float64
		inverse bool
	}{{"A", 5, false}, {"B", 20, true}, {"LA", 5, false}, {"LB", 20, true}} {
		sig := covDraws(t, z, latentByName(t, m, c.name))
		for i := range k {
			for j := 0; j <= i; j++ {
				sij, sii, sjj := s[i*k+j], s[i*k+i], s[j*k+j]
				mean, variance := c.nu*sij, c.nu*(sij*sij+sii*sjj)
				if c.inverse {
					d := c.nu - k
					mean = sij / (d - 1)
					variance = ((d+1)*sij*sij + (d-1)*sii*sjj) / (d * (d - 1) * (d - 1) * (d - 3))
				}
				xs := make([]float64, len(sig))
				for r, v := range sig {
					xs[r] = v[i*k+j]
					if v[i*k+j] != v[j*k+i] {
						t.Fatalf("%s draw %d is not symmetric", c.name, r)
					}
				}
				checkMoments(t, c.name+"["+string(rune('0'+i))+", "+string(rune('0'+j))+"]", xs, mean, variance)
			}
		}
	}
}

// A hierarchical Wishart prior is drawn ancestrally: Sigma's scale
// matrix reads tau ~ Gamma(4, 2) (mean 2, variance 1), so Sigma/tau is
// Wishart(4, S0) whatever tau, and Sigma has mean 8·S0 and variance
// 4·E[tau²]·(S_ij² + S_ii S_jj) + 16·Var(tau)·S_ij²; L, declared before
// Sigma, has a prior that reads Sigma (through chol), so E[L L' | Sigma]
// = Sigma/(8 − 2 − 1) and E[L L'] = 1.6·S0.
func TestPriorDrawsWishartHierarchical(t *testing.T) {
	s0 := []float64{1, 0.6, 0.6, 2}
	in := data.Input{File: "w.json", JSON: map[string]*data.Array{"S0": {Name: "S0", Shape: []int{2, 2}, Values: s0}}}
	src := `data S0: real[2, 2]
param L: cholesky_factor_cov[2]
param tau: positive ~ Gamma(4, 2)
param Sigma: cov_matrix[2] ~ Wishart(4, tau * S0)
L ~ InvWishartCholesky(8, chol(Sigma))
`
	m := compileSrc(t, "h.gpp", src, nil, in)
	z, _ := priorDraws(t, m, 20000, 17)
	tl := latentByName(t, m, "tau")
	sig := covDraws(t, z, latentByName(t, m, "Sigma"))
	llt := covDraws(t, z, latentByName(t, m, "L"))
	for _, e := range [][2]int{{0, 0}, {1, 0}, {1, 1}} {
		i, j := e[0], e[1]
		sij, sii, sjj := s0[i*2+j], s0[i*2+i], s0[j*2+j]
		scaled, raw, lx := make([]float64, len(z)), make([]float64, len(z)), make([]float64, len(z))
		for d := range z {
			tau := z[d][tl.Offset]
			scaled[d], raw[d], lx[d] = sig[d][i*2+j]/tau, sig[d][i*2+j], llt[d][i*2+j]
		}
		checkMoments(t, "Sigma/tau", scaled, 4*sij, 4*(sij*sij+sii*sjj))
		checkMoments(t, "Sigma", raw, 8*sij, 4*5*(sij*sij+sii*sjj)+16*sij*sij)
		checkMean(t, "L L'", lx, 1.6*sij)
	}
}

// A prior draw of a cov_matrix param is the draw of dist.WishartRand, the
// replicates' sampler, from the same stream, and the evaluator sees it:
// the output Sigma reads the coordinates back as the drawn matrix. The log
// prior is the inverse Wishart's density at the draw plus the log
// Jacobian of the coordinates' map.
func TestPriorDrawsWishartSampler(t *testing.T) {
	s := []float64{1.5, 0.4, 0.4, 0.9}
	in := data.Input{File: "w.json", JSON: map[string]*data.Array{"S": {Name: "S", Shape: []int{2, 2}, Values: s}}}
	src := `data S: real[2, 2]
param Sigma: cov_matrix[2] ~ InvWishart(5, S)
output Sig = Sigma
`
	m := compileSrc(t, "s.gpp", src, nil, in)
	ps, err := m.NewPriorSampler()
	if err != nil {
		t.Fatal(err)
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	rng, ref := rand.New(rand.NewPCG(21, 1)), rand.New(rand.NewPCG(21, 1))
	x, z := make([]float64, m.Dim), make([]float64, m.Dim)
	want, ls := make([]float64, 4), []float64{math.Sqrt(1.5), 0, 0.4 / math.Sqrt(1.5), 0}
	ls[3] = math.Sqrt(0.9 - ls[2]*ls[2])
	scr := make([]float64, 8)
	for d := range 50 {
		lp, err := ps.Draw(rng, x, z)
		if err != nil {
			t.Fatal(err)
		}
		dist.WishartRand(dist.WishartForm{Inverse: true}, want, ls, 2, 5, scr[:4], scr[4:], ref)
		_, outs, err := ev.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		for e, w := range want {
			if got := outs[0][e]; math.Abs(got-w) > wishartPriorTol*max(1, math.Abs(w)) {
				t.Fatalf("draw %d: Sigma %v, want the sampler's %v", d, outs[0], want)
			}
		}
		lx, mm := make([]float64, 4), make([]float64, 4)
		dist.CholCovValues(lx, x, 2)
		dens, _ := dist.WishartLogPDF(dist.WishartForm{Inverse: true}, lx, ls, 2, 5, mm)
		if wl := dens + dist.CovMatrixLogJac(x, 2); math.Abs(lp-wl) > 1e-9*max(1, math.Abs(wl)) {
			t.Fatalf("draw %d: log prior %.12g, want %.12g", d, lp, wl)
		}
		for e := range x {
			if z[e] != x[e] {
				t.Fatalf("draw %d: values %v, want the coordinates %v", d, z, x)
			}
		}
	}
}

// Wishart draws and the replicates at them repeat for a seed and differ
// for another.
func TestPriorDrawsWishartDeterministic(t *testing.T) {
	src := `param Sigma: cov_matrix[3] ~ InvWishart(6, I(3))
param L: cholesky_factor_cov[2] ~ WishartCholesky(3, I(2))
output y_rep ~ MvNormal(rep(0, 3), Sigma)
`
	m := compileSrc(t, "d.gpp", src, nil)
	a, ao := priorDraws(t, m, 50, 5)
	b, bo := priorDraws(t, m, 50, 5)
	c, _ := priorDraws(t, m, 50, 6)
	for i := range a {
		for k := range a[i] {
			if a[i][k] != b[i][k] {
				t.Fatalf("draw %d differs for the same seed", i)
			}
		}
		for k := range ao[i] {
			if ao[i][k] != bo[i][k] || math.IsNaN(ao[i][k]) {
				t.Fatalf("replicate %d: %v and %v", i, ao[i], bo[i])
			}
		}
	}
	if a[0][0] == c[0][0] {
		t.Error("another seed gives the same draw")
	}
}

// Arguments that are not valid at a draw are errors at the argument: a
// scale matrix that is not positive definite, a factor whose diagonal is
// not positive; the prior of a covariance matrix must be of the
// Wishart family.
func TestPriorDrawsWishartErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"param a: real ~ Normal(-5, 0.1)\nparam S: cov_matrix[2] ~ Wishart(3, diag([1, a]))\n",
			"e.gpp:2:37: prior draws: Wishart's argument `diag([1, a])` must be positive definite (its leading 2×2 minor is not) at a draw of the params it reads"},
		{"param a: real ~ Normal(-5, 0.1)\nparam L: cholesky_factor_cov[2] ~ WishartCholesky(3, diag([1, a]))\n",
			"e.gpp:2:54: prior draws: WishartCholesky's argument `diag([1, a])` must be a lower Cholesky factor, its diagonal > 0 and its entries finite (got "},
	} {
		m := compileSrc(t, "e.gpp", c.src, nil)
		ps, err := m.NewPriorSampler()
		if err != nil {
			t.Fatal(err)
		}
		_, err = ps.Draw(rand.New(rand.NewPCG(1, 1)), make([]float64, m.Dim), make([]float64, m.Dim))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
	// the suggested priors of a covariance matrix without one are drawn
	for _, src := range []string{"param S: cov_matrix[2] ~ InvWishart(4, I(2))\n", "const K = 3\nparam L: cholesky_factor_cov[K] ~ InvWishartCholesky(K + 2, I(K))\n"} {
		m := compileSrc(t, "e.gpp", src, nil)
		priorDraws(t, m, 10, 1)
	}
}
