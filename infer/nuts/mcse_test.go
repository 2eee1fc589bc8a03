package nuts

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// refDrawsUnrounded makes testdata/posterior_ref.py's draws(rounded=False):
// refDraws's chains without the rounding, so without ties.
func refDrawsUnrounded(chains, n int, shift float64) [][]float64 {
	return lcgAR1(chains, n, shift, func(y float64) float64 { return y })
}

// TestMCSEReference pins MCSESD, MCSEQuantile and MAD to the values of
// testdata/posterior_ref.py (run with python3), an independent
// transcription of posterior's mcse_sd and mcse_quantile and R's mad, on
// the chains of TestDiagnosticsReference (odd length, ties) and the same
// chains unrounded.
func TestMCSEReference(t *testing.T) {
	for _, ref := range []struct {
		rounded                     bool
		shift, sd, q5, q50, q95, md float64
	}{
		{true, 0, 0.017459312938315402, 0.099999999999999978, 0.050000000000000003, 0.024999999999999967, 0.44477999999999995},
		{true, 0.1, 0.049559075073454459, 0.10000000000000001, 0.19999999999999998, 0.15000000000000002, 0.51890999999999998},
		{false, 0, 0.01774061348582982, 0.10002036290986882, 0.062937928588174763, 0.021932665069032853, 0.40935746422916253},
		{false, 0.1, 0.050549525977498261, 0.086477915283723186, 0.20460251204852636, 0.14708303551518398, 0.52054271159995358},
	} {
		x := refDraws(4, 101, ref.shift)
		if !ref.rounded {
			x = refDrawsUnrounded(4, 101, ref.shift)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"MCSESD", MCSESD(x), ref.sd},
			{"MCSEQuantile(0.05)", MCSEQuantile(x, 0.05), ref.q5},
			{"MCSEQuantile(0.5)", MCSEQuantile(x, 0.5), ref.q50},
			{"MCSEQuantile(0.95)", MCSEQuantile(x, 0.95), ref.q95},
			{"MAD", MAD(x), ref.md},
		} {
			if math.Abs(c.got-c.want) > 1e-10*math.Abs(c.want) {
				t.Errorf("rounded %v, shift %g: %s = %.17g, reference %.17g", ref.rounded, ref.shift, c.name, c.got, c.want)
			}
		}
	}
}

// Relative tolerances of TestMCSEAsymptotics, about 3 sds of the
// estimators' own noise (the ESS and the 4th moment for the sd; the
// spacing of some 60 order statistics for a quantile) in the mean of
// mcseReps replicates of 4 × 5000 draws. One replicate's ratios to the
// asymptotic values have sds of 0.016–0.027 (sd) and 0.08–0.15
// (quantiles), measured over 30 seeds.
const (
	mcseReps        = 16
	mcseSDTol       = 0.03
	mcseQuantileTol = 0.12
)

// TestMCSEAsymptotics: for iid normal draws MCSESD is about sd/√(2n) and
// MCSEQuantile about √(p(1−p)/n)/φ(z_p), the asymptotic sd of a sample
// quantile; for AR(1) chains with φ = 0.6 both grow by √τ, the integrated
// autocorrelation time of the quantity they use: (1 + φ²)/(1 − φ²) for the
// squared draws (√τ = 1.46), 1 + 2Σ_t ρ_I(t) for the indicator
// I(x ≤ z_p), where ρ_I(t) = (Φ₂(z_p, z_p; φ^t) − p²)/(p(1 − p)) by
// Plackett's identity ∂Φ₂/∂r = φ₂. The ratios to these values are
// averaged over mcseReps replicates.
func TestMCSEAsymptotics(t *testing.T) {
	const chains, n = 4, 5000
	N := float64(chains * n)
	std := distuv.UnitNormal
	probs := []float64{0.05, 0.5, 0.95}
	for _, phi := range []float64{0, 0.6} {
		rng := rand.New(rand.NewPCG(11, uint64(phi*10)))
		tauSD := (1 + phi*phi) / (1 - phi*phi)
		wantQ := make([]float64, len(probs))
		for k, p := range probs {
			z := std.Quantile(p)
			tau := 1.0
			for lag := 1; phi > 0 && math.Pow(phi, float64(lag)) > 1e-12; lag++ {
				tau += 2 * (bvnEqual(z, math.Pow(phi, float64(lag))) - p*p) / (p * (1 - p))
			}
			wantQ[k] = math.Sqrt(tau*p*(1-p)/N) / std.Prob(z)
		}
		sdRatio, qRatio := 0.0, make([]float64, len(probs))
		for range mcseReps {
			x := make([][]float64, chains)
			innov := math.Sqrt(1 - phi*phi) // unit marginal variance
			for c := range x {
				x[c] = make([]float64, n)
				y := rng.NormFloat64()
				for i := range x[c] {
					x[c][i] = y
					y = phi*y + innov*rng.NormFloat64()
				}
			}
			sdRatio += MCSESD(x) / math.Sqrt(tauSD/(2*N)) / mcseReps
			for k, p := range probs {
				qRatio[k] += MCSEQuantile(x, p) / wantQ[k] / mcseReps
			}
		}
		if math.Abs(sdRatio-1) > mcseSDTol {
			t.Errorf("φ = %g: MCSESD is %.4f times the asymptotic sd/√(2n/τ)", phi, sdRatio)
		}
		for k, p := range probs {
			if math.Abs(qRatio[k]-1) > mcseQuantileTol {
				t.Errorf("φ = %g: MCSEQuantile(%g) is %.4f times the asymptotic %.5g", phi, p, qRatio[k], wantQ[k])
			}
		}
	}
}

// bvnEqual is Φ₂(h, h; r), the standard bivariate normal cdf with
// correlation r at (h, h): Φ(h)² + ∫₀^r φ₂(h, h; s) ds (Plackett), the
// integral by Simpson's rule.
func bvnEqual(h, r float64) float64 {
	const steps = 2000
	f := func(s float64) float64 {
		return math.Exp(-h*h/(1+s)) / (2 * math.Pi * math.Sqrt(1-s*s))
	}
	dh := r / steps
	sum := f(0) + f(r)
	for i := 1; i < steps; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(float64(i)*dh)
	}
	p := distuv.UnitNormal.CDF(h)
	return p*p + sum*dh/3
}

// TestMCSEHeavyTails: for iid Student-t draws (ν = 5, kurtosis 9) the sd's
// Monte Carlo error is about twice the normal one, √((κ − 1)/(4n)) σ
// against σ/√(2n); MCSESD sees it, averaged over replicates (one
// replicate's 4th moment is noisy, t₅'s 8th moment being infinite).
func TestMCSEHeavyTails(t *testing.T) {
	const reps, chains, n = 40, 4, 1000
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 5, Src: rand.New(rand.NewPCG(5, 6))}
	sigma := math.Sqrt(5.0 / 3)
	normal := sigma / math.Sqrt(2*chains*n)
	sum := 0.0
	for range reps {
		x := make([][]float64, chains)
		for c := range x {
			x[c] = make([]float64, n)
			for i := range x[c] {
				x[c][i] = st.Rand()
			}
		}
		sum += MCSESD(x)
	}
	if ratio := sum / reps / normal; !(ratio > 1.5 && ratio < 2.2) {
		t.Errorf("MCSESD of t₅ draws is %.3g times the normal formula's, want about 2", ratio)
	}
}

// TestMCSENaN: as the other diagnostics, NaN where posterior gives NA.
func TestMCSENaN(t *testing.T) {
	for name, x := range map[string][][]float64{
		"constant":    {{1, 1, 1, 1}, {1, 1, 1, 1}},
		"NaN":         {{1, 2, math.NaN(), 4}, {1, 2, 3, 4}},
		"Inf":         {{1, 2, math.Inf(1), 4}, {1, 2, 3, 4}},
		"ragged":      {{1, 2, 3, 4}, {1, 2, 3}},
		"too short":   {{1}, {2}},
		"symmetric ±": {{-1, 1, -1, 1}, {1, -1, 1, -1}},
	} {
		if v := MCSESD(x); !math.IsNaN(v) {
			t.Errorf("%s: MCSESD %v, want NaN", name, v)
		}
		if name != "symmetric ±" {
			if v := MCSEQuantile(x, 0.5); !math.IsNaN(v) {
				t.Errorf("%s: MCSEQuantile %v, want NaN", name, v)
			}
		}
	}
	if v := MAD([][]float64{{1, math.NaN()}}); !math.IsNaN(v) {
		t.Errorf("MAD with a NaN draw %v, want NaN", v)
	}
	// By hand: draws 1..5 have median 3 and deviations 2,1,0,1,2, median 1.
	if v := MAD([][]float64{{1, 2, 3, 4, 5}}); v != 1.4826 {
		t.Errorf("MAD(1..5) %v, want 1.4826", v)
	}
}
