package dist

import (
	"math"
	"math/rand/v2"
)

// Poisson is the Poisson distribution with rate Rate ≥ 0 on the counts
// 0, 1, 2, …; a non-integer or negative value has log mass −Inf. Rate 0
// (Stan's too) is the point mass at 0: log mass 0 at 0, −Inf above.
type Poisson struct {
	Rate float64
}

// LogProb returns the log mass at the count k.
func (d Poisson) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partial of LogProb(k) with respect to Rate into dst
// (allocated if nil) and returns it.
func (d Poisson) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 1)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw.
func (d Poisson) Rand(rng *rand.Rand) float64 { return samplePoisson(d.Rate, rng) }

// Mean returns Rate.
func (d Poisson) Mean() float64 { return d.Rate }

// Variance returns Rate.
func (d Poisson) Variance() float64 { return d.Rate }

func (d Poisson) eval(k float64, dp []float64) (lp, dx float64) {
	lam := d.Rate
	if !nonNegative(lam) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) || lam == 0 && k > 0 {
		return outside(dp)
	}
	if lam == 0 {
		// −λ at k = 0: its right derivative −1, which a rate 0 of data
		// multiplies by 0 and a param's scale of the rate keeps finite
		if dp != nil {
			dp[0] = -1
		}
		return 0, 0
	}
	if dp != nil {
		dp[0] = (k - lam) / lam // k/λ − 1 would cancel near the mode
	}
	if k >= stirlingMin {
		// k·log λ, λ and log k! nearly cancel for large k near λ.
		return logPoissonRaw(k, lam), 0
	}
	if k == 0 {
		// 0·log λ − λ − log 0! without the logarithm: the same number,
		// for the zeros that dominate sparse counts
		return -lam, 0
	}
	return k*logx(lam) - lam - logFactSmall[int(k)], 0
}

// logFactSmall holds log k! = math.Lgamma(k + 1) for the counts k below
// stirlingMin, which the Poisson kernels read instead of calling Lgamma
// per element (the same numbers: the table is Lgamma's own).
var logFactSmall = func() (t [stirlingMin]float64) {
	for k := range t {
		t[k], _ = math.Lgamma(float64(k) + 1)
	}
	return t
}()

// poissonInversionMax is the rate below which samplePoisson inverts the CDF
// by sequential search (expected cost 1 + rate steps).
const poissonInversionMax = 10

// samplePoisson draws from Poisson(lam). Small rates use inversion; larger
// ones the transformed rejection method with squeeze, PTRS (Hörmann 1993,
// "The transformed rejection method for generating Poisson random
// variables"), whose acceptance rate is above 0.9.
func samplePoisson(lam float64, rng *rand.Rand) float64 {
	if !positive(lam) {
		if lam == 0 {
			return 0
		}
		return math.NaN()
	}
	if lam < poissonInversionMax {
		u := rng.Float64()
		p := math.Exp(-lam)
		cdf := p
		k := 0.0
		for u > cdf && p > 0 {
			k++
			p *= lam / k
			cdf += p
		}
		return k
	}
	slam := math.Sqrt(lam)
	loglam := math.Log(lam)
	b := 0.931 + 2.53*slam
	a := -0.059 + 0.02483*b
	invAlpha := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := rng.Float64() - 0.5
		v := rng.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + lam + 0.43)
		if us >= 0.07 && v <= vr {
			return k
		}
		if k < 0 || (us < 0.013 && v > us) {
			continue
		}
		var lpk float64 // log mass at k
		if lam >= ptrsLoaderMin {
			lpk = logPoissonRaw(k, lam)
		} else {
			lg, _ := math.Lgamma(k + 1)
			lpk = -lam + k*loglam - lg
		}
		if math.Log(v*invAlpha/(a/(us*us)+b)) <= lpk {
			return k
		}
	}
}

// ptrsLoaderMin is the rate from which samplePoisson's acceptance test
// takes the log mass in Loader's form (logPoissonRaw). The direct
// −λ + k·log λ − log k! rounds terms of size λ·log λ: an error of about
// 1e-16·λ·log λ, 1e-9 at λ = 1e6 and several units from λ = 1e15 (the
// draws' variance came out 40–70% too large from λ = 1e16). Below it the
// direct form is kept, so that draws there are the same as before.
const ptrsLoaderMin = 1 << 20

// PoissonLog is the Poisson distribution with rate e^Eta (Stan's
// poisson_log), evaluated on the linear-predictor scale: the rate is never
// formed where it would overflow or underflow, so a log-linear model's
// density stays finite for any finite Eta whose mass is representable.
type PoissonLog struct {
	Eta float64
}

// LogProb returns the log mass at the count k.
func (d PoissonLog) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partial of LogProb(k) with respect to Eta into dst
// (allocated if nil) and returns it.
func (d PoissonLog) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 1)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw. A rate e^Eta that overflows is, like Poisson's
// infinite rate, an invalid parameter: the draw is NaN.
func (d PoissonLog) Rand(rng *rand.Rand) float64 { return samplePoisson(math.Exp(d.Eta), rng) }

// Mean returns e^Eta.
func (d PoissonLog) Mean() float64 { return math.Exp(d.Eta) }

// Variance returns e^Eta.
func (d PoissonLog) Variance() float64 { return math.Exp(d.Eta) }

// eval computes k·η − e^η − log k! and its partial k − e^η. The log of the
// rate is η itself, so an e^η that underflows (η < −745) costs nothing; one
// that overflows means a log mass below −MaxFloat64, which is −Inf.
func (d PoissonLog) eval(k float64, dp []float64) (lp, dx float64) {
	eta := d.Eta
	if !finite(eta) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) {
		return outside(dp)
	}
	lam := math.Exp(eta)
	if math.IsInf(lam, 1) {
		return outside(dp)
	}
	if k >= stirlingMin && eta > 0 {
		// k·η, λ and log k! nearly cancel for large k near λ > 1; with
		// η ≤ 0 the three terms have one sign.
		lp = logPoissonRaw(k, lam)
	} else {
		lg := 0.0
		if k < stirlingMin {
			lg = logFactSmall[int(k)]
		} else {
			lg, _ = math.Lgamma(k + 1)
		}
		lp = k*eta - lam - lg
	}
	if math.IsInf(lp, -1) { // k·η overflowed
		return outside(dp)
	}
	if dp != nil {
		dp[0] = k - lam
	}
	return lp, 0
}
