package nuts

import (
	"math"
	"math/bits"
	"slices"
	"sort"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/stat/distuv"
)

// The diagnostics follow Vehtari, Gelman, Simpson, Carpenter & Bürkner
// (2021), "Rank-normalization, folding, and localization: an improved R̂",
// as the R package posterior computes them: split chains (the middle draw of
// an odd length dropped), rank normalisation z = Φ⁻¹((r − 3/8)/(S + 1/4))
// with average ranks for ties, and autocorrelations from the chains' pooled
// variance truncated by Geyer's initial positive sequence made monotone,
// with posterior's "antithetic" adjustment (the first negative pair's even
// term kept, τ̂ at least 1/log10(S)).

// Diagnostics are one quantity's MCMC diagnostics, as Rhat, ESSBulk,
// ESSTail, MCSEMean, MCSESD, MCSEQuantile (at DiagnoseProbs) and MAD give
// them: posterior's default convergence and MCSE measures.
type Diagnostics struct {
	Rhat, ESSBulk, ESSTail, MCSEMean float64
	MCSESD                           float64
	MCSEQuantile                     [3]float64 // at DiagnoseProbs
	MAD                              float64
}

// DiagnoseProbs are the probabilities of Diagnose's MCSEQuantile: the
// quantiles gpp sample's summary reports (posterior's default_mcse_measures).
var DiagnoseProbs = [3]float64{0.05, 0.5, 0.95}

// Diagnose returns all of Diagnostics of the chains, the same numbers bit
// for bit as the functions one by one, computed together: one sort of all
// the draws (the median, the quantiles, the MAD and, for chains of even
// length, the ranks), one rank normalisation (the bulk R̂ and the bulk
// ESS) instead of two, and the 5 % and 95 % indicators' ESS shared by
// ESSTail and MCSEQuantile. gpp sample calls it for each column.
func Diagnose(chains [][]float64) Diagnostics {
	all := flatten(chains)
	sorted := slices.Clone(all)
	sort.Float64s(sorted)
	x := goodSplit(chains)
	if x == nil {
		nan := math.NaN()
		return Diagnostics{heldRhat(chains), nan, nan, nan, nan, [3]float64{nan, nan, nan}, madSorted(sorted)}
	}
	var zx [][]float64
	if len(chains[0])%2 == 0 { // the split chains hold every draw
		zx = zScaleSorted(x, sorted)
	} else {
		zx = zScale(x)
	}
	d := Diagnostics{
		Rhat:     rhat(chains, zx, Quantile(sorted, 0.5)),
		ESSBulk:  ess(zx),
		MCSEMean: mcseMean(x, all),
		MCSESD:   mcseSD(chains, all),
		MAD:      madSorted(sorted),
	}
	tail := [2]float64{math.NaN(), math.NaN()}
	for i, p := range DiagnoseProbs {
		e := essQuantile(x, sorted, p)
		d.MCSEQuantile[i] = mcseQuantile(sorted, p, e)
		for j, q := range tailProbs {
			if p == q {
				tail[j] = e
			}
		}
	}
	for j, q := range tailProbs {
		if math.IsNaN(tail[j]) {
			tail[j] = essQuantile(x, sorted, q) // not among DiagnoseProbs
		}
	}
	d.ESSTail = math.Min(tail[0], tail[1]) // essTail's
	return d
}

// Rhat is the rank-normalised split-R̂: the larger of the bulk R̂ (of the
// rank-normalised draws) and the tail R̂ (of the rank-normalised |x − median|).
// It is +Inf for chains each holding one value, not all the same
// (heldRhat), and NaN for too short, non-finite or constant draws (to
// rounding: roundingConstant).
func Rhat(chains [][]float64) float64 {
	x := goodSplit(chains)
	if x == nil {
		return heldRhat(chains)
	}
	return rhat(chains, zScale(x), median(chains))
}

// heldRhat is R̂ where goodSplit refuses the chains: +Inf when each chain
// holds one value but not all the same one (EachConstant): NUTS chains
// frozen where they started, every transition rejected. Their
// within-chain variance is 0 and the between-chain variance is not, so
// B/W is infinite, as posterior's rhat (and ArviZ's, and Stan's up to
// 2.32) divides it; rhatBasic's rounding would give about 1e15. NaN
// otherwise: too short, ragged, non-finite or constant draws. Stan 2.33+
// gives NaN once any split chain is constant; gpp follows posterior here,
// so that frozen chains raise the R̂ warning.
func heldRhat(chains [][]float64) float64 {
	if x := split(chains); x == nil || badDraws(x) || !EachConstant(chains) {
		return math.NaN()
	}
	return math.Inf(1)
}

// rhat is Rhat of the chains whose split chains have the rank-normalised
// draws zx, med the median of all draws.
func rhat(chains, zx [][]float64, med float64) float64 {
	bulk := rhatBasic(zx)
	f := make([][]float64, len(chains))
	for c, ch := range chains {
		f[c] = make([]float64, len(ch))
		for i, v := range ch {
			f[c][i] = math.Abs(v - med)
		}
	}
	fx := split(f)
	if badDraws(fx) { // |x − median| constant (x two-valued and symmetric): the bulk R̂ alone, where posterior gives NA
		return bulk
	}
	return math.Max(bulk, rhatBasic(zScale(fx)))
}

// ESSBulk is the effective sample size of the rank-normalised split chains.
func ESSBulk(chains [][]float64) float64 {
	x := goodSplit(chains)
	if x == nil {
		return math.NaN()
	}
	return ess(zScale(x))
}

// ESSTail is the smaller of the effective sample sizes of the indicators
// I(x ≤ q) of the 5 % and 95 % quantiles q, split: as posterior, q is R's
// type-7 quantile of all the draws (an odd chain's middle draw included).
func ESSTail(chains [][]float64) float64 {
	x := goodSplit(chains)
	if x == nil {
		return math.NaN()
	}
	all := flatten(chains)
	sort.Float64s(all)
	return essTail(x, all)
}

// essTail is ESSTail of the split chains x, all every draw, sorted: NaN
// when either indicator is constant.
func essTail(x [][]float64, all []float64) float64 {
	return math.Min(essQuantile(x, all, tailProbs[0]), essQuantile(x, all, tailProbs[1]))
}

// tailProbs are the quantiles whose indicators' ESS ESSTail takes the
// smaller of (posterior's ess_tail). Diagnose reuses the ESS computed for
// MCSEQuantile where DiagnoseProbs hold them.
var tailProbs = [2]float64{0.05, 0.95}

// ESS is the plain effective sample size of the chains as given, neither
// split nor rank-normalised: Stan's before 2.30, and the one the loo
// package's relative_eff divides by the number of draws for PSIS-LOO.
// NaN for ragged, too short, constant or non-finite chains.
func ESS(chains [][]float64) float64 {
	if len(chains) == 0 || len(chains[0]) == 0 {
		return math.NaN()
	}
	for _, c := range chains {
		if len(c) != len(chains[0]) {
			return math.NaN()
		}
	}
	if badDraws(chains) {
		return math.NaN()
	}
	return ess(chains)
}

// MCSEMean is the Monte Carlo standard error of the mean: the sd of all
// draws over the square root of the ESS of the raw (not rank-normalised)
// split chains.
func MCSEMean(chains [][]float64) float64 {
	x := goodSplit(chains)
	if x == nil {
		return math.NaN()
	}
	return mcseMean(x, flatten(chains))
}

// mcseMean is MCSEMean of the split chains x, all the draws in chain
// order.
func mcseMean(x [][]float64, all []float64) float64 {
	_, v := meanVar(all)
	return math.Sqrt(v) / math.Sqrt(ess(x))
}

// EBFMI is the energy Bayesian fraction of missing information of one
// chain's energy__: Σ(E_n − E_{n−1})² / Σ(E_n − Ē)² (Betancourt 2016; Stan
// warns below 0.3). NaN for fewer than 2 draws, non-finite or constant
// energies.
func EBFMI(energy []float64) float64 {
	n := len(energy)
	if n < 2 {
		return math.NaN()
	}
	m := 0.0
	for _, e := range energy {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return math.NaN()
		}
		m += e
	}
	m /= float64(n)
	num, den := 0.0, 0.0
	for i, e := range energy {
		if i > 0 {
			d := e - energy[i-1]
			num += d * d
		}
		den += (e - m) * (e - m)
	}
	if den == 0 {
		return math.NaN()
	}
	return num / den
}

// split returns the chains cut in halves, the middle draw of an odd length
// dropped; nil when the chains are empty or of different lengths.
func split(chains [][]float64) [][]float64 {
	if len(chains) == 0 {
		return nil
	}
	n := len(chains[0])
	for _, ch := range chains {
		if len(ch) != n {
			return nil
		}
	}
	h := n / 2
	if h < 1 {
		return nil
	}
	out := make([][]float64, 0, 2*len(chains))
	for _, ch := range chains {
		out = append(out, ch[:h], ch[n-h:])
	}
	return out
}

// goodSplit is split of the chains, nil also when they have a non-finite
// draw or are constant (badDraws), to rounding (roundingConstant), or each
// chain is constant (EachConstant): the chains every diagnostic but
// heldRhat's needs.
func goodSplit(chains [][]float64) [][]float64 {
	x := split(chains)
	if x == nil || badDraws(x) || EachConstant(chains) || roundingConstant(x) {
		return nil
	}
	return x
}

// RoundingTol is the sd, relative to max(1, |mean|), at or below which
// draws are constant to rounding (roundingConstant): the noise of a
// correlation matrix's diagonal is about 1e-16, a sum-to-zero vector's sum
// some 1e-14, and 1e-13 leaves a param on a scale of 1e-12 (whose floor
// max(1, |mean|) is 1) its ESS and R̂.
const RoundingTol = 1e-13

// roundingConstant reports whether the draws of the chains x, all finite,
// vary by rounding alone: their sd at most RoundingTol·max(1, |mean|), as
// a correlation matrix's diagonal L·L' (1 within 1e-16) or the sum of a
// sum-to-zero vector. Their ESS, R̂ and Monte Carlo errors are NaN, as a
// constant's are: ranks of rounding noise would read as mixing.
func roundingConstant(x [][]float64) bool {
	n, m := 0, 0.0
	for _, ch := range x {
		for _, v := range ch {
			m += v
		}
		n += len(ch)
	}
	if n < 2 {
		return false
	}
	m /= float64(n)
	v := 0.0
	for _, ch := range x {
		for _, a := range ch {
			v += (a - m) * (a - m)
		}
	}
	return RoundingSD(math.Sqrt(v/float64(n-1)), m)
}

// RoundingSD reports whether sd is 0 to rounding for draws of mean m: at
// most RoundingTol·max(1, |m|) (false for NaN).
func RoundingSD(sd, m float64) bool {
	return sd <= RoundingTol*math.Max(1, math.Abs(m))
}

// badDraws says whether x has a non-finite value or is constant (as
// posterior's should_return_NA).
func badDraws(x [][]float64) bool {
	first := x[0][0]
	constant := true
	for _, ch := range x {
		for _, v := range ch {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return true
			}
			if v != first {
				constant = false
			}
		}
	}
	return constant
}

// EachConstant says whether every chain holds one value: a param the
// fixed_param sampler holds, a chain's step size, or NUTS chains frozen
// at their starts. Such chains have no Monte Carlo error to measure (ESS
// and MCSEs NaN, as Stan 2.33+'s); their R̂ is +Inf where the chains' values
// differ (heldRhat), which a caller whose sampler holds a column by
// design replaces by NaN.
func EachConstant(chains [][]float64) bool {
	for _, ch := range chains {
		for _, v := range ch {
			if v != ch[0] {
				return false
			}
		}
	}
	return true
}

func flatten(x [][]float64) []float64 {
	var all []float64
	for _, ch := range x {
		all = append(all, ch...)
	}
	return all
}

func median(chains [][]float64) float64 {
	all := flatten(chains)
	sort.Float64s(all)
	return Quantile(all, 0.5)
}

// zScale rank-normalises x over all chains: ranks r (ties averaged) mapped
// to Φ⁻¹((r − 3/8)/(S + 1/4)), Blom's normal scores.
func zScale(x [][]float64) [][]float64 {
	s := flatten(x)
	slices.Sort(s)
	return zScaleSorted(x, s)
}

// zScaleSorted is zScale with s the draws of x, sorted: the normal score
// of each run of ties once, then each draw's by a binary search for the
// first of its run (no sort of (value, chain, index) records).
func zScaleSorted(x [][]float64, s []float64) [][]float64 {
	S := float64(len(s))
	z := make([]float64, len(s)) // at the first index of each run of ties
	std := distuv.UnitNormal
	for a := 0; a < len(s); {
		b := a
		for b+1 < len(s) && s[b+1] == s[a] {
			b++
		}
		r := float64(a+b)/2 + 1 // the average 1-based rank of the ties
		z[a] = std.Quantile((r - 3.0/8) / (S + 0.25))
		a = b + 1
	}
	out := make([][]float64, len(x))
	for c, ch := range x {
		out[c] = make([]float64, len(ch))
		for i, v := range ch {
			out[c][i] = z[sort.SearchFloat64s(s, v)]
		}
	}
	return out
}

// meanVar is the mean and the sample variance of x.
func meanVar(x []float64) (m, v float64) {
	m = meanOf(x)
	for _, a := range x {
		v += (a - m) * (a - m)
	}
	return m, v / float64(len(x)-1)
}

// meanOf is the mean of x.
func meanOf(x []float64) float64 {
	m := 0.0
	for _, a := range x {
		m += a
	}
	return m / float64(len(x))
}

// rhatBasic is the classic potential scale reduction of the chains x.
func rhatBasic(x [][]float64) float64 {
	n := float64(len(x[0]))
	if n < 2 {
		return math.NaN()
	}
	means := make([]float64, len(x))
	w := 0.0
	for c, ch := range x {
		m, v := meanVar(ch)
		means[c] = m
		w += v
	}
	w /= float64(len(x))
	_, vm := meanVar(means)
	if len(x) == 1 {
		vm = 0
	}
	b := n * vm
	return math.Sqrt((b/w + n - 1) / n)
}

// ess is the effective sample size of the chains x (posterior's .ess):
// autocorrelations ρ̂_t = 1 − (W − mean_c acov_c(t)) / var⁺ with acov the
// biased autocovariance of each chain, summed over Geyer's initial positive
// sequence made monotone. The autocovariances come from acov: the first
// lags summed directly, the rest, when the sequence runs that far, by FFT.
func ess(x [][]float64) float64 { return essLags(x, directLags(len(x[0]))) }

// essLags is ess with the lags below direct summed directly, the others
// by FFT (tests compare all of one kind with all of the other).
func essLags(x [][]float64, direct int) float64 {
	m := len(x)
	n := len(x[0])
	if n < 3 {
		return math.NaN()
	}
	nf := float64(n)
	ac := newAutocov(x, direct)
	meanVarW := ac.at(0) * nf / (nf - 1)
	varPlus := meanVarW * (nf - 1) / nf
	if m > 1 {
		_, vm := meanVar(ac.means)
		varPlus += vm
	}
	rho := make([]float64, n)
	rho[0] = 1
	even, odd := 1.0, 1-(meanVarW-ac.at(1))/varPlus
	rho[1] = odd
	t := 0
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even = 1 - (meanVarW-ac.at(t))/varPlus
		odd = 1 - (meanVarW-ac.at(t+1))/varPlus
		if even+odd >= 0 {
			rho[t] = even
			rho[t+1] = odd
		}
	}
	maxT := t
	if even > 0 {
		rho[maxT] = even
	}
	// Initial monotone sequence.
	for t = 0; t <= maxT-4; {
		t += 2
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	S := float64(m * n)
	tau := -1.0
	for i := 0; i < max(maxT, 1); i++ { // R's rho[1:max_t] is rho[1] when max_t is 0
		tau += 2 * rho[i]
	}
	tau += rho[maxT]
	tau = math.Max(tau, 1/math.Log10(S))
	return S / tau
}

// autocov gives the mean over chains of the biased lag-t autocovariance
// (1/n) Σ_i y_i y_{i+t} of the centred chains y, as posterior's
// autocovariance() (which takes it from an FFT). Geyer's sequence reads
// lags in increasing order and mostly stops after a few, so the lags
// below direct are summed directly, O(n) each; a lag from direct on takes
// every lag of every chain from one FFT each, O(n log n), so that a
// slowly mixing chain (τ in the hundreds) costs O(n log n), not O(n²).
// Both are the same sums to rounding (TestAutocovFFT).
type autocov struct {
	centred [][]float64
	means   []float64
	n       int
	direct  int       // lags below it are summed directly
	fft     []float64 // every lag by FFT, once a lag ≥ direct was asked
}

func newAutocov(x [][]float64, direct int) *autocov {
	n := len(x[0])
	a := &autocov{centred: make([][]float64, len(x)), means: make([]float64, len(x)), n: n, direct: direct}
	for c, ch := range x {
		mu, _ := meanVar(ch)
		a.means[c] = mu
		a.centred[c] = make([]float64, n)
		for i, v := range ch {
			a.centred[c][i] = v - mu
		}
	}
	return a
}

// directLags is how many lags autocov sums directly for chains of n
// draws: about what one FFT of 2n points costs (BenchmarkAutocov: an FFT
// of 8 chains costs 40–110 lags of direct sums for n from 500 to 50 000).
func directLags(n int) int { return 4 * bits.Len(uint(2*n)) }

// at returns the autocovariance at lag t (0 ≤ t < n).
func (a *autocov) at(t int) float64 {
	if t < a.direct {
		return acovDirect(a.centred, t)
	}
	if a.fft == nil {
		a.fft = acovFFT(a.centred)
	}
	return a.fft[t]
}

// acovDirect is the mean over the centred chains y of (1/n) Σ_i y_i y_{i+t}.
func acovDirect(y [][]float64, t int) float64 {
	n := len(y[0])
	nf := float64(n)
	s := 0.0
	for _, ch := range y {
		a := 0.0
		for i := 0; i+t < n; i++ {
			a += ch[i] * ch[i+t]
		}
		s += a / nf
	}
	return s / float64(len(y))
}

// acovFFT is acovDirect at every lag t < n, each chain's sums from one
// real FFT of the chain padded with zeros to a length L ≥ 2n − 1 (so
// that the circular correlation is the linear one), L's factors 2, 3 and
// 5: the inverse transform of |Y|² is L times the sums.
func acovFFT(y [][]float64) []float64 {
	n := len(y[0])
	nf := float64(n)
	l := fftSize(2*n - 1)
	f := fourier.NewFFT(l)
	buf := make([]float64, l)
	coef := make([]complex128, l/2+1)
	sums := make([]float64, l)
	out := make([]float64, n)
	for _, ch := range y {
		copy(buf, ch)
		clear(buf[n:])
		f.Coefficients(coef, buf)
		for k, c := range coef {
			coef[k] = complex(real(c)*real(c)+imag(c)*imag(c), 0)
		}
		f.Sequence(sums, coef)
		for t := range out {
			out[t] += sums[t] / float64(l) / nf
		}
	}
	for t := range out {
		out[t] /= float64(len(y))
	}
	return out
}

// fftSize is the smallest 2^a·3^b·5^c ≥ n (n ≥ 1), a length the FFT
// handles fast.
func fftSize(n int) int {
	best := math.MaxInt
	for p5 := 1; p5 < best; p5 *= 5 {
		for p35 := p5; p35 < best; p35 *= 3 {
			p := p35
			for p < n {
				p *= 2
			}
			best = min(best, p)
		}
	}
	return best
}
