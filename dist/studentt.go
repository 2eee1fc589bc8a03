package dist

import (
	"math"
	"math/rand/v2"
)

// StudentT is Student's t distribution with Nu > 0 degrees of freedom,
// location Mu and scale Sigma > 0.
type StudentT struct {
	Nu, Mu, Sigma float64
}

// LogProb returns the log density at x.
func (d StudentT) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Nu, Mu, Sigma)
// into dst (allocated if nil) and returns it.
func (d StudentT) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d StudentT) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw: Mu + Sigma·z/√(χ²_ν/ν), with χ²_ν = 2·Gamma(ν/2).
func (d StudentT) Rand(rng *rand.Rand) float64 {
	z := rng.NormFloat64()
	lg := SampleGammaLog(0.5*d.Nu, rng)
	return d.Mu + d.Sigma*z*math.Exp(-0.5*(math.Ln2+lg-math.Log(d.Nu)))
}

// Mean returns Mu for Nu > 1 and NaN otherwise.
func (d StudentT) Mean() float64 {
	if d.Nu > 1 {
		return d.Mu
	}
	return math.NaN()
}

// Variance returns Sigma²·Nu/(Nu−2) for Nu > 2, +Inf for 1 < Nu ≤ 2 and NaN
// otherwise.
func (d StudentT) Variance() float64 {
	switch {
	case d.Nu > 2:
		return d.Sigma * d.Sigma * d.Nu / (d.Nu - 2)
	case d.Nu > 1:
		return math.Inf(1)
	}
	return math.NaN()
}

func (d StudentT) eval(x float64, dp []float64) (lp, dx float64) {
	nu := d.Nu
	if !positive(nu) || !finite(d.Mu) || !positive(d.Sigma) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	z := (x - d.Mu) / d.Sigma
	q := z * z / nu
	w := 1 / (1 + q)
	omw := q * w // 1 − w, without cancelling for small q
	if !(q < 1) {
		omw = 1 - w // which stays finite when z² overflows
	}
	var l1p float64
	if math.Abs(z) > 1e8 {
		l1p = 2*logx(math.Abs(z)) - logx(nu) + math.Log1p(1/q)
	} else {
		l1p = math.Log1p(q)
	}
	h := 0.5 * (nu + 1)
	lp = studentTConst(nu)
	lp -= logx(d.Sigma) + h*l1p
	dmu := 2 * h * z * w / (nu * d.Sigma)
	if dp != nil {
		// ψ(h) − ψ(ν/2) ≈ 1/ν cancels against 1/ν for large ν.
		dp[0] = 0.5*(digammaDiff(0.5*nu, 0.5)-1/nu) - 0.5*l1p + h*omw/nu
		dp[1] = dmu
		dp[2] = (2*h*omw - 1) / d.Sigma
	}
	return lp, -dmu
}

// studentTConst is the Student t log density's constant in ν,
// log Γ((ν+1)/2) − log Γ(ν/2) − ½ log νπ.
func studentTConst(nu float64) float64 {
	if nu < 2*stirlingMin {
		lg1, _ := math.Lgamma(0.5 * (nu + 1))
		lg2, _ := math.Lgamma(0.5 * nu)
		return lg1 - lg2 - 0.5*logx(nu*math.Pi)
	}
	// log Γ(h) − log Γ(ν/2), each of order ν·log ν, cancel to about
	// ½·log(ν/2).
	return lgammaHalfDiff(0.5*nu) - lnSqrt2Pi
}
