package dist

import "math"

// Data-hoisted kernels split off the work that depends on a count that is
// data: Stirling's terms and log k! of a Poisson count, the log binomial
// coefficient of a Binomial's count and trials. The tape prepares that
// state once per element when the program is finished (the data never
// change between evaluations), so an SGVB step does the work in the
// parameters alone. As with the Hoisted kernels, each EvalData repeats its
// Kernel's arithmetic in the same order with the state's values in place
// of the calls they replace, so it returns the Kernel's numbers bit for
// bit (TestDataHoistedKernels). A state whose kind is dataFallback (a NaN
// or a value outside the support, invalid data arguments) sends the
// element to the Kernel.

// Kinds of a count's data state (its first value).
const (
	dataFallback = iota // evaluate by the Kernel
	dataZero            // k = 0
	dataSmall           // 0 < k < stirlingMin (log k! from logFactSmall)
	dataLarge           // k ≥ stirlingMin (Loader's form)
)

// Poisson data state: [kind, stirlerr(k), ½(log 2π + log k)] for a large
// count, [kind, log k!] for a small one.
const poissonDataState = 3

// poissonData is Poisson's kernel with the work in the count hoisted.
type poissonData struct{}

func (poissonData) DataArgs() uint    { return 0 }
func (poissonData) DataStateLen() int { return poissonDataState }

func (poissonData) PrepareData(k float64, _, s []float64) {
	switch {
	case !isCount(k):
		s[0] = dataFallback
	case k == 0:
		s[0] = dataZero
	case k < stirlingMin:
		s[0], s[1] = dataSmall, logFactSmall[int(k)]
	default:
		s[0], s[1], s[2] = dataLarge, stirlerr(k), 0.5*(ln2Pi+logx(k))
	}
}

func (poissonData) EvalData(k float64, p, _, s, dp []float64) (float64, float64) {
	lam := p[0]
	if s[0] == dataFallback || !positive(lam) {
		return Poisson{lam}.eval(k, dp)
	}
	if dp != nil {
		dp[0] = (k - lam) / lam
	}
	return poissonDataLog(k, lam, s), 0
}

// poissonDataLog is the Poisson log mass of a count k whose state s is not
// dataFallback, at a valid rate λ.
func poissonDataLog(k, lam float64, s []float64) float64 {
	switch s[0] {
	case dataZero:
		return -lam
	case dataSmall:
		return k*logx(lam) - lam - s[1]
	}
	return -s[1] - bd0(k, lam) - s[2] // logPoissonRaw(k, λ)
}

// EvalDataRun implements DataRun with EvalData's arithmetic.
func (poissonData) EvalDataRun(sum float64, x []float64, xc int, p []float64, pc int, s, lp, dx, dp []float64) float64 {
	for j := range dx {
		k, lam := x[j*xc], p[j*pc]
		st := s[j*poissonDataState : j*poissonDataState+poissonDataState]
		var v, d float64
		if st[0] == dataFallback || !positive(lam) {
			v, d = Poisson{lam}.eval(k, dp[j:j+1])
		} else {
			dp[j] = (k - lam) / lam
			v = poissonDataLog(k, lam, st)
		}
		dx[j] = d
		sum += v
		if lp != nil {
			lp[j] = v
		}
	}
	return sum
}

// PoissonLog data state: Poisson's, and log k! for every count.
const poissonLogDataState = 4

// poissonLogData is PoissonLog's kernel with the work in the count hoisted.
type poissonLogData struct{}

func (poissonLogData) DataArgs() uint    { return 0 }
func (poissonLogData) DataStateLen() int { return poissonLogDataState }

func (poissonLogData) PrepareData(k float64, p, s []float64) {
	poissonData{}.PrepareData(k, p, s)
	switch s[0] {
	case dataSmall:
		s[3] = s[1]
	case dataLarge:
		s[3], _ = math.Lgamma(k + 1)
	default:
		s[3] = logFactSmall[0]
	}
}

func (poissonLogData) EvalData(k float64, p, _, s, dp []float64) (float64, float64) {
	eta := p[0]
	if s[0] == dataFallback || !finite(eta) {
		return PoissonLog{eta}.eval(k, dp)
	}
	lam := math.Exp(eta)
	if math.IsInf(lam, 1) {
		return outside(dp)
	}
	var lp float64
	if s[0] == dataLarge && eta > 0 {
		lp = -s[1] - bd0(k, lam) - s[2] // logPoissonRaw(k, λ)
	} else {
		lp = k*eta - lam - s[3]
	}
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	if dp != nil {
		dp[0] = k - lam
	}
	return lp, 0
}

// EvalDataRun implements DataRun with EvalData's arithmetic.
func (d poissonLogData) EvalDataRun(sum float64, x []float64, xc int, p []float64, pc int, s, lp, dx, dp []float64) float64 {
	for j := range dx {
		st := s[j*poissonLogDataState : j*poissonLogDataState+poissonLogDataState]
		v, dv := d.EvalData(x[j*xc], p[j*pc:j*pc+1], nil, st, dp[j:j+1])
		dx[j] = dv
		sum += v
		if lp != nil {
			lp[j] = v
		}
	}
	return sum
}

// Binomial data state, of the count k and the trials n: [kind, then for
// 0 < k < n with n ≥ stirlingMin (kind dataLarge) logBinomRaw's terms in
// k and n − k alone, stirlerr(n) − stirlerr(k) − stirlerr(n−k) and
// ½(log 2π + log k + log(n−k) − log n), and for every count log C(n, k)].
const binomialDataState = 4

func prepareBinomialData(k, n float64, s []float64) {
	if !isCount(n) || !isCount(k) || k > n {
		s[0] = dataFallback
		return
	}
	s[0], s[3] = dataSmall, lchoose(n, k)
	if k > 0 && k < n && n >= stirlingMin {
		x, y := k, n-k
		m := x + y // logBinomRaw's n
		s[0] = dataLarge
		s[1] = stirlerr(m) - stirlerr(x) - stirlerr(y)
		s[2] = 0.5 * (ln2Pi + logx(x) + logx(y) - logx(m))
	}
}

// binomialData is Binomial's kernel with the work in the count and the
// trials hoisted (both data: successes out of known trials).
type binomialData struct{}

func (binomialData) DataArgs() uint    { return 1 << 0 }
func (binomialData) DataStateLen() int { return binomialDataState }

func (binomialData) PrepareData(k float64, p, s []float64) { prepareBinomialData(k, p[0], s) }

func (binomialData) EvalData(k float64, p, _, s, dp []float64) (float64, float64) {
	n, pr := p[0], p[1]
	if s[0] == dataFallback || !(pr >= 0 && pr <= 1) {
		return Binomial{n, pr}.eval(k, dp)
	}
	lp, dlp := binomialDataLog(k, n, pr, s)
	if dp != nil {
		dp[0] = 0
		dp[1] = dlp
	}
	return lp, 0
}

// binomialDataLog is the Binomial log mass of k successes in n trials and
// its partial in pr, for a state s that is not dataFallback and a pr in
// [0, 1]: −Inf and 0 outside the support.
func binomialDataLog(k, n, pr float64, s []float64) (lp, dlp float64) {
	if (k > 0 && pr == 0) || (k < n && pr == 1) {
		return math.Inf(-1), 0
	}
	if s[0] == dataLarge {
		lp = s[1] - bd0(k, n*pr) - bd0(n-k, n*(1-pr)) - s[2] // logBinomRaw
		dlp = math.FMA(-n, pr, k) / (pr * (1 - pr))
	} else {
		lp = s[3]
		if k > 0 {
			lp += k * logx(pr)
			dlp += k / pr
		}
		if k < n {
			lp += (n - k) * math.Log1p(-pr)
			dlp -= (n - k) / (1 - pr)
		}
	}
	return lp, dlp
}

// EvalDataArgRun implements DataArgRun with EvalData's arithmetic.
func (binomialData) EvalDataArgRun(sum float64, x []float64, xc int, d []float64, dc int, p []float64, pc int, s, lp, dx, dp []float64) float64 {
	for j := range dx {
		k, n, pr := x[j*xc], d[j*dc], p[j*pc]
		st := s[j*binomialDataState : j*binomialDataState+binomialDataState]
		var v, dv float64
		if st[0] == dataFallback || !(pr >= 0 && pr <= 1) {
			var two [2]float64
			v, dv = Binomial{n, pr}.eval(k, two[:])
			dp[j] = two[1]
		} else {
			v, dp[j] = binomialDataLog(k, n, pr, st)
		}
		dx[j] = dv
		sum += v
		if lp != nil {
			lp[j] = v
		}
	}
	return sum
}

// binomialLogitData is BinomialLogit's kernel with the work in the count
// and the trials hoisted, Binomial's state.
type binomialLogitData struct{}

func (binomialLogitData) DataArgs() uint    { return 1 << 0 }
func (binomialLogitData) DataStateLen() int { return binomialDataState }

func (binomialLogitData) PrepareData(k float64, p, s []float64) { prepareBinomialData(k, p[0], s) }

func (binomialLogitData) EvalData(k float64, p, _, s, dp []float64) (float64, float64) {
	n, eta := p[0], p[1]
	if s[0] == dataFallback || math.IsNaN(eta) {
		return BinomialLogit{n, eta}.eval(k, dp)
	}
	pr, q := InvLogit(eta), InvLogit(-eta)
	var lp float64
	if s[0] == dataLarge && pr >= 0x1p-1022 && q >= 0x1p-1022 {
		lp = s[1] - bd0(k, n*pr) - bd0(n-k, n*q) - s[2] // logBinomRaw
	} else {
		lp = logitBinomialTerms(s[3], k, n, eta)
	}
	return binomialLogitEnd(lp, k, n, eta, pr, q, dp)
}

// EvalDataArgRun implements DataArgRun with EvalData's arithmetic.
func (b binomialLogitData) EvalDataArgRun(sum float64, x []float64, xc int, d []float64, dc int, p []float64, pc int, s, lp, dx, dp []float64) float64 {
	for j := range dx {
		st := s[j*binomialDataState : j*binomialDataState+binomialDataState]
		par := [2]float64{d[j*dc], p[j*pc]}
		var two [2]float64
		v, dv := b.EvalData(x[j*xc], par[:], nil, st, two[:])
		dx[j], dp[j] = dv, two[1]
		sum += v
		if lp != nil {
			lp[j] = v
		}
	}
	return sum
}

// NegBinomial data state: [kind, stirlerr(k), log k, log k!] for a count
// k > 0. NegBinomial's and NegBinomialLog's data kernels evaluate from
// their Hoisted state of the dispersion too (the tape uses them only where
// the dispersion is one value for every element); without one (hs nil)
// they are the Kernel.
const negBinomialDataState = 4

func prepareNegBinomialData(k float64, s []float64) {
	switch {
	case !isCount(k):
		s[0] = dataFallback
	case k == 0:
		s[0] = dataZero
	default:
		lg, _ := math.Lgamma(k + 1)
		s[0], s[1], s[2], s[3] = dataLarge, stirlerr(k), logx(k), lg
	}
}

// negBinomialData is NegBinomial's hoisted kernel with the work in the
// count hoisted too.
type negBinomialData struct{}

func (negBinomialData) DataArgs() uint                        { return 0 }
func (negBinomialData) DataStateLen() int                     { return negBinomialDataState }
func (negBinomialData) PrepareData(k float64, _, s []float64) { prepareNegBinomialData(k, s) }

func (negBinomialData) EvalData(k float64, p, hs, s, dp []float64) (float64, float64) {
	if hs == nil { // no hoisted state (a family copied without its Hoisted)
		return NegBinomial{p[0], p[1]}.eval(k, dp)
	}
	if s[0] == dataFallback {
		s = nil
	}
	return negBinomialHoistedEval(k, p, hs, s, dp)
}

// negBinomialLogData is NegBinomialLog's hoisted kernel with the work in
// the count hoisted too.
type negBinomialLogData struct{}

func (negBinomialLogData) DataArgs() uint                        { return 0 }
func (negBinomialLogData) DataStateLen() int                     { return negBinomialDataState }
func (negBinomialLogData) PrepareData(k float64, _, s []float64) { prepareNegBinomialData(k, s) }

func (negBinomialLogData) EvalData(k float64, p, hs, s, dp []float64) (float64, float64) {
	if hs == nil {
		return NegBinomialLog{p[0], p[1]}.eval(k, dp)
	}
	if s[0] == dataFallback {
		s = nil
	}
	return negBinomialLogHoistedEval(k, p, hs, s, dp)
}

// zeroInflatedNegBinomialData is ZeroInflatedNegBinomial's hoisted kernel
// with the work in the count hoisted too (NegBinomial's data state).
type zeroInflatedNegBinomialData struct{}

func (zeroInflatedNegBinomialData) DataArgs() uint    { return 0 }
func (zeroInflatedNegBinomialData) DataStateLen() int { return negBinomialDataState }
func (zeroInflatedNegBinomialData) PrepareData(k float64, _, s []float64) {
	prepareNegBinomialData(k, s)
}

func (zeroInflatedNegBinomialData) EvalData(k float64, p, hs, s, dp []float64) (float64, float64) {
	if hs == nil {
		return ZeroInflatedNegBinomial{p[0], p[1], p[2]}.eval(k, dp)
	}
	if s[0] == dataFallback {
		s = nil
	}
	return zeroInflatedNegBinomialHoistedEval(k, p, hs, s, dp)
}

// hurdleNegBinomialData is HurdleNegBinomial's hoisted kernel with the
// work in the count hoisted too (NegBinomial's data state).
type hurdleNegBinomialData struct{}

func (hurdleNegBinomialData) DataArgs() uint                        { return 0 }
func (hurdleNegBinomialData) DataStateLen() int                     { return negBinomialDataState }
func (hurdleNegBinomialData) PrepareData(k float64, _, s []float64) { prepareNegBinomialData(k, s) }

func (hurdleNegBinomialData) EvalData(k float64, p, hs, s, dp []float64) (float64, float64) {
	if hs == nil {
		return HurdleNegBinomial{p[0], p[1], p[2]}.eval(k, dp)
	}
	if s[0] == dataFallback {
		s = nil
	}
	return hurdleNegBinomialHoistedEval(k, p, hs, s, dp)
}
