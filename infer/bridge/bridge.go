package bridge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/nuts"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Chain is one chain's posterior draws, as nuts.Chain holds them.
type Chain struct {
	Draws []float64 // N×dim, row-major: positions on unconstrained coordinates
	LogP  []float64 // log p̃ at each draw (nuts's lp__)
}

// Method is the bridge's proposal: how the posterior is bridged to a normal.
type Method int

// The methods, bridgesampling's method = "normal" and "warp3".
const (
	// Normal bridges the posterior to the normal fitted to the first
	// halves, which matches its first two moments.
	Normal Method = iota
	// Warp3 bridges the posterior, standardised by that normal's mean and
	// Cholesky factor and warped to symmetry, to the standard normal,
	// which matches its first three moments (Meng & Schilling 2002).
	Warp3
)

// String is bridgesampling's name of the method.
func (m Method) String() string {
	switch m {
	case Normal:
		return "normal"
	case Warp3:
		return "warp3"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Settings tune Estimate; zero values take the defaults in brackets.
type Settings struct {
	Method        Method  // the proposal [Normal]
	Seed          uint64  // the proposal draws' PCG seed
	ProposalDraws int     // N2 [N1, the number of posterior draws in the bridge]
	Tol           float64 // relative change of Ẑ that ends the iteration [1e-10]
	MaxIter       int     // [1000]
}

// Defaults of Settings.
const (
	DefaultTol     = 1e-10
	DefaultMaxIter = 1000
)

// MinHalf is the fewest draws a chain's half may hold: the bulk ESS of the
// posterior half splits each chain's half again and needs 3 draws a piece.
const MinHalf = 6

// Result is a bridge sampling estimate of the log evidence.
type Result struct {
	LogZ        float64 // log Ẑ
	SE          float64 // √re², Frühwirth-Schnatter's relative error of Ẑ ≈ the standard error of log Ẑ
	Iterations  int     // fixed-point iterations to convergence
	N1, N2      int     // posterior draws in the bridge (the second halves) and proposal draws
	N1eff       float64 // the posterior draws' effective sample size (median over coordinates of the bulk ESS)
	ZeroDensity int     // proposal draws with p̃ = 0 (log p̃ = −Inf)
	Evals       int     // calls of the log density function: N2 and one check (Warp3: N1 + 2·N2 and one)
}

// BayesFactor returns log(Z_a / Z_b) for two estimates and its standard
// error, the two independent SEs combined.
func BayesFactor(a, b Result) (logBF, se float64) {
	return a.LogZ - b.LogZ, math.Hypot(a.SE, b.SE)
}

// proposalStream is the PCG stream of the proposal draws ("BRIDGE").
const proposalStream = 0x425249444745

// checkTol is the relative disagreement between a chain's LogP and the log
// density function at the same draw beyond which Estimate refuses: they
// must be the same function.
const checkTol = 1e-8

// Estimate returns the bridge sampling estimate of log ∫ p̃ from the chains'
// draws on R^dim (every chain the same length, at least 2·MinHalf draws)
// and logp, log p̃ at a point (called once per proposal draw, and once at a
// posterior draw to check that it agrees with LogP; Warp3 also at every
// posterior and proposal draw's reflection; never concurrently; its
// argument is a buffer reused from call to call).
// It returns ctx.Err() when ctx is cancelled.
func Estimate(ctx context.Context, chains []Chain, dim int, logp func(x []float64) (float64, error), s Settings) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := checkInput(chains, dim, logp, s); err != nil {
		return Result{}, err
	}
	nc := len(chains[0].LogP)
	nfit := nc / 2
	niter := nc - nfit
	n1 := len(chains) * niter
	n2 := s.ProposalDraws
	if n2 == 0 {
		n2 = n1
	}
	tol := s.Tol
	if tol == 0 {
		tol = DefaultTol
	}
	maxIter := s.MaxIter
	if maxIter == 0 {
		maxIter = DefaultMaxIter
	}

	g, err := fitNormal(chains, dim, nfit)
	if err != nil {
		return Result{}, err
	}
	warp := s.Method == Warp3

	// One posterior draw through logp: the two must be the same density.
	x0 := chains[0].Draws[nfit*dim : (nfit+1)*dim]
	lp0, err := logp(append([]float64(nil), x0...))
	if err != nil {
		return Result{}, fmt.Errorf("bridge: the log density at chain 1 draw %d: %v", nfit+1, err)
	}
	if want := chains[0].LogP[nfit]; !(math.Abs(lp0-want) <= checkTol*math.Max(1, math.Abs(want))) {
		return Result{}, fmt.Errorf("bridge: at chain 1 draw %d the log density function gives %g but LogP holds %g: they must be the same density, constants and Jacobian included", nfit+1, lp0, want)
	}

	// The posterior half: l1 = log p̃ − log g, kept chain by chain. Warp3's
	// l1 = log p̃_w(η) − log φ(η) at η = L⁻¹(θ − μ) is
	// log ½(p̃(θ) + p̃(2μ − θ)) − log g(θ), since |L|φ(η) = g(θ).
	x := make([]float64, dim)
	l1 := make([]float64, 0, n1)
	for c, ch := range chains {
		for i := nfit; i < nc; i++ {
			th := ch.Draws[i*dim : (i+1)*dim]
			lp := ch.LogP[i]
			if warp {
				if len(l1)%64 == 0 {
					if err := ctx.Err(); err != nil {
						return Result{}, err
					}
				}
				g.reflect(x, th)
				lpr, err := density(logp, x, point{chain: c + 1, draw: i + 1, reflected: true})
				if err != nil {
					return Result{}, err
				}
				lp = dist.LogAddExp(lp, lpr) - math.Ln2
			}
			l1 = append(l1, lp-g.logDensity(th))
		}
	}
	n1eff, err := bulkESS(chains, dim, nfit)
	if err != nil {
		return Result{}, err
	}

	// The proposal half: N2 draws x = μ + Lz from g, l2 = log p̃ − log g;
	// Warp3's η = z, l2 = log ½(p̃(x) + p̃(2μ − x)) − log g(x).
	rng := rand.New(rand.NewPCG(s.Seed, proposalStream))
	l2 := make([]float64, n2)
	xr := make([]float64, dim)
	z := make([]float64, dim)
	zero := 0
	for j := range l2 {
		if j%64 == 0 {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
		}
		for k := range z {
			z[k] = rng.NormFloat64()
		}
		lg := g.draw(x, z)
		lp, err := density(logp, x, point{draw: j + 1})
		if err != nil {
			return Result{}, err
		}
		if warp {
			g.reflect(xr, x)
			lpr, err := density(logp, xr, point{draw: j + 1, reflected: true})
			if err != nil {
				return Result{}, err
			}
			lp = dist.LogAddExp(lp, lpr) - math.Ln2
		}
		if math.IsInf(lp, -1) {
			zero++
		}
		l2[j] = lp - lg
	}
	if zero == n2 {
		return Result{}, fmt.Errorf("bridge: the density is zero at all %d proposal draws: the %v proposal misses the posterior", n2, s.Method)
	}
	evals := n2 + 1
	if warp {
		evals += n1 + n2
	}

	logZ, iters, err := iterate(ctx, l1, l2, n1eff, tol, maxIter)
	if err != nil {
		return Result{}, err
	}
	re2 := relErr2(l1, l2, logZ, n1eff, len(chains))
	return Result{
		LogZ:        logZ,
		SE:          math.Sqrt(re2),
		Iterations:  iters,
		N1:          n1,
		N2:          n2,
		N1eff:       n1eff,
		ZeroDensity: zero,
		Evals:       evals,
	}, nil
}

// checkInput reports the first thing wrong with Estimate's arguments.
func checkInput(chains []Chain, dim int, logp func([]float64) (float64, error), s Settings) error {
	switch {
	case dim <= 0:
		return fmt.Errorf("bridge: the dimension is %d: there is nothing to integrate", dim)
	case logp == nil:
		return errors.New("bridge: no log density function")
	case len(chains) == 0:
		return errors.New("bridge: no chains")
	case s.Method != Normal && s.Method != Warp3:
		return fmt.Errorf("bridge: unknown %v", s.Method)
	case s.ProposalDraws < 0:
		return fmt.Errorf("bridge: ProposalDraws is %d, must be ≥ 0", s.ProposalDraws)
	case s.MaxIter < 0:
		return fmt.Errorf("bridge: MaxIter is %d, must be ≥ 0", s.MaxIter)
	case !(s.Tol >= 0) || math.IsInf(s.Tol, 1):
		return fmt.Errorf("bridge: Tol is %v, must be finite and ≥ 0", s.Tol)
	}
	n := len(chains[0].LogP)
	for c, ch := range chains {
		if len(ch.LogP) != n {
			return fmt.Errorf("bridge: chain %d has %d draws, chain 1 has %d: the chains must be of the same length", c+1, len(ch.LogP), n)
		}
		if len(ch.Draws) != n*dim {
			return fmt.Errorf("bridge: chain %d has %d values of Draws for %d log densities of dimension %d (want %d)", c+1, len(ch.Draws), n, dim, n*dim)
		}
		for i, lp := range ch.LogP {
			if math.IsNaN(lp) || math.IsInf(lp, 0) {
				return fmt.Errorf("bridge: chain %d draw %d: the log density is %v", c+1, i+1, lp)
			}
		}
		for i, v := range ch.Draws {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("bridge: chain %d draw %d coordinate %d is %v", c+1, i/dim+1, i%dim+1, v)
			}
		}
	}
	if n/2 < MinHalf {
		return fmt.Errorf("bridge: the chains have %d draws, need at least %d (two halves of %d)", n, 2*MinHalf, MinHalf)
	}
	return nil
}

// normal is the proposal N(mean, L Lᵀ).
type normal struct {
	dim  int
	mean []float64
	chol []float64 // L, dim×dim row-major, lower triangular
	c    float64   // −(dim/2) log 2π − log det L
	buf  []float64
}

// fitNormal fits the normal to the first nfit draws of each chain: their
// mean and sample covariance.
func fitNormal(chains []Chain, dim, nfit int) (*normal, error) {
	n := len(chains) * nfit
	data := mat.NewDense(n, dim, nil)
	r := 0
	for _, ch := range chains {
		for i := 0; i < nfit; i++ {
			data.SetRow(r, ch.Draws[i*dim:(i+1)*dim])
			r++
		}
	}
	mean := make([]float64, dim)
	for k := range mean {
		mean[k] = mat.Sum(data.ColView(k)) / float64(n)
	}
	for i := 0; i < n; i++ {
		row := data.RawRowView(i)
		for k := range row {
			row[k] -= mean[k]
		}
	}
	var cov mat.SymDense
	cov.SymOuterK(1/float64(n-1), data.T())
	var ch mat.Cholesky
	if !ch.Factorize(&cov) {
		return nil, fmt.Errorf("bridge: the covariance of the %d draws of the first halves is not positive definite (dimension %d): a coordinate is constant or determined by others, or there are too few draws", n, dim)
	}
	var l mat.TriDense
	ch.LTo(&l)
	g := &normal{dim: dim, mean: mean, chol: make([]float64, dim*dim), buf: make([]float64, dim)}
	logDet := 0.0
	for i := 0; i < dim; i++ {
		for j := 0; j <= i; j++ {
			g.chol[i*dim+j] = l.At(i, j)
		}
		logDet += math.Log(g.chol[i*dim+i])
	}
	g.c = -0.5*float64(dim)*math.Log(2*math.Pi) - logDet
	return g, nil
}

// logDensity is log g(x).
func (g *normal) logDensity(x []float64) float64 {
	// Solve L u = x − mean by forward substitution.
	u := g.buf
	ss := 0.0
	for i := 0; i < g.dim; i++ {
		v := x[i] - g.mean[i]
		row := g.chol[i*g.dim : i*g.dim+i]
		for j, lij := range row {
			v -= lij * u[j]
		}
		u[i] = v / g.chol[i*g.dim+i]
		ss += u[i] * u[i]
	}
	return g.c - 0.5*ss
}

// draw sets x = mean + L z, a draw from g for z standard normal, and
// returns log g(x).
func (g *normal) draw(x, z []float64) float64 {
	ss := 0.0
	for i := 0; i < g.dim; i++ {
		v := g.mean[i]
		for j, lij := range g.chol[i*g.dim : i*g.dim+i+1] {
			v += lij * z[j]
		}
		x[i] = v
		ss += z[i] * z[i]
	}
	return g.c - 0.5*ss
}

// reflect sets dst = 2·mean − x, the reflection of x through g's mean:
// μ − Lη for x = μ + Lη.
func (g *normal) reflect(dst, x []float64) {
	for i, m := range g.mean {
		dst[i] = 2*m - x[i]
	}
}

// point names where the log density was evaluated, for its errors: a
// posterior draw (chain > 0) or a proposal draw, or its reflection.
type point struct {
	chain, draw int
	reflected   bool
}

func (p point) String() string {
	s := fmt.Sprintf("proposal draw %d", p.draw)
	if p.chain > 0 {
		s = fmt.Sprintf("chain %d draw %d", p.chain, p.draw)
	}
	if p.reflected {
		s = "the reflection of " + s
	}
	return s
}

// density is logp(x), an error where it fails, is NaN or +Inf; −Inf
// (p̃ = 0) is a legitimate value.
func density(logp func([]float64) (float64, error), x []float64, at point) (float64, error) {
	lp, err := logp(x)
	switch {
	case err != nil:
		return 0, fmt.Errorf("bridge: the log density at %v: %v", at, err)
	case math.IsNaN(lp) || math.IsInf(lp, 1):
		return 0, fmt.Errorf("bridge: the log density at %v (%v) is %v", at, x, lp)
	}
	return lp, nil
}

// bulkESS is the median over coordinates of the bulk ESS of the chains'
// second halves (from draw nfit on).
func bulkESS(chains []Chain, dim, nfit int) (float64, error) {
	nc := len(chains[0].LogP)
	col := make([][]float64, len(chains))
	ess := make([]float64, dim)
	for k := 0; k < dim; k++ {
		for c, ch := range chains {
			col[c] = make([]float64, 0, nc-nfit)
			for i := nfit; i < nc; i++ {
				col[c] = append(col[c], ch.Draws[i*dim+k])
			}
		}
		ess[k] = nuts.ESSBulk(col)
		if math.IsNaN(ess[k]) {
			return 0, fmt.Errorf("bridge: coordinate %d is constant in the second halves of the chains: no effective sample size", k+1)
		}
	}
	return median(ess), nil
}

// median is R's median: the mean of the middle two of an even count.
func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// logMeanExp is log mean(e^x).
func logMeanExp(x []float64) float64 {
	return floats.LogSumExp(x) - math.Log(float64(len(x)))
}

// iterate runs Meng & Wong's fixed point for r = Z e^−lstar in log space
// and returns log Ẑ and the number of iterations.
func iterate(ctx context.Context, l1, l2 []float64, n1eff, tol float64, maxIter int) (float64, int, error) {
	lstar := median(l1)
	n2 := float64(len(l2))
	ls1 := math.Log(n1eff / (n1eff + n2))
	ls2 := math.Log(n2 / (n1eff + n2))
	num := make([]float64, len(l2))
	den := make([]float64, len(l1))
	lr := 0.0 // log r, r0 = 1
	for it := 1; it <= maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		b := ls2 + lr
		for j, l := range l2 {
			num[j] = (l - lstar) - dist.LogAddExp(ls1+l-lstar, b)
		}
		for i, l := range l1 {
			den[i] = -dist.LogAddExp(ls1+l-lstar, b)
		}
		next := logMeanExp(num) - logMeanExp(den)
		if math.IsNaN(next) || math.IsInf(next, 0) {
			return 0, 0, fmt.Errorf("bridge: the iteration's estimate became %v at iteration %d", next, it)
		}
		change := math.Abs(math.Expm1(lr - next)) // |r_new − r| / r_new
		lr = next
		if change < tol {
			return lr + lstar, it, nil
		}
	}
	return 0, 0, fmt.Errorf("bridge: the iteration did not converge to a relative tolerance of %g in %d iterations", tol, maxIter)
}

// relErr2 is Frühwirth-Schnatter's approximate relative mean-squared error
// of Ẑ = e^logZ: f1 = p/(s1 p + s2 g) at the proposal draws, f2 =
// g/(s1 p + s2 g) at the posterior draws (p = p̃/Ẑ), the latter's
// autocorrelation factor from the ESS of its nchains series split in halves.
func relErr2(l1, l2 []float64, logZ, n1eff float64, nchains int) float64 {
	n1, n2 := float64(len(l1)), float64(len(l2))
	ls1 := math.Log(n1eff / (n1eff + n2))
	ls2 := math.Log(n2 / (n1eff + n2))
	// With a = log(p/g): log f1 = −log(s1 + s2 e^−a), log f2 = −log(s1 e^a + s2).
	f1 := make([]float64, len(l2))
	for j, l := range l2 {
		f1[j] = -dist.LogAddExp(ls1, ls2+logZ-l)
	}
	f2 := make([]float64, len(l1))
	for i, l := range l1 {
		f2[i] = -dist.LogAddExp(ls1+l-logZ, ls2)
	}
	// relVar leaves f/max f in place, as essSplit takes it (the ESS is scale free).
	re2 := relVar(f1) / n2
	if v2 := relVar(f2); v2 > 0 {
		rho := 1.0 // when the ESS is undefined: f2 constant but for an odd chain's dropped middle value
		if e := essSplit(f2, nchains); e > 0 {
			rho = n1 / e
		}
		re2 += rho * v2 / n1
	}
	return re2
}

// relVar is V(f)/E(f)², the sample variance over the squared mean, of
// f = e^lf, computed in place on f/max f: where lf is beyond exp's range at
// every draw (p/g far from Ẑ everywhere), f itself would be 0 at every
// draw, and its ratio 0/0.
func relVar(lf []float64) float64 {
	mx := floats.Max(lf)
	for i, v := range lf {
		lf[i] = math.Exp(v - mx)
	}
	m, v := stat.MeanVariance(lf, nil)
	return v / (m * m)
}

// essSplit is nuts.ESS of the nchains equal series of f, each split in
// halves (the middle value of an odd length dropped): posterior's ess_mean.
func essSplit(f []float64, nchains int) float64 {
	n := len(f) / nchains
	h := n / 2
	parts := make([][]float64, 0, 2*nchains)
	for c := 0; c < nchains; c++ {
		ch := f[c*n : (c+1)*n]
		parts = append(parts, ch[:h], ch[n-h:])
	}
	return nuts.ESS(parts)
}
