package sgvb

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestParetoDiagnostics: the relative ESS of equal weights is 1, of one
// weight carrying all 1/S; it is never above the raw weights' or the
// smoothed ones', and reweighting the draws by the raw weights moves the
// mean of any function by at most cv·sd, cv from the relative ESS (the
// bound NegligibleCV reads).
func TestParetoDiagnostics(t *testing.T) {
	const S = 1000
	lw := make([]float64, S)
	if k, r := ParetoDiagnostics(lw); !math.IsInf(k, -1) || math.Abs(r-1) > 1e-12 {
		t.Errorf("equal weights: k̂ %v, relative ESS %v, want -Inf and 1", k, r)
	}
	for i := range lw {
		lw[i] = -50
	}
	lw[7] = 0
	if _, r := ParetoDiagnostics(lw); math.Abs(r*S-1) > 1e-12 {
		t.Errorf("one weight: relative ESS %v, want 1/%d", r, S)
	}
	lw[3], lw[5] = math.NaN(), math.Inf(-1) // not counted
	if _, r := ParetoDiagnostics(lw); math.Abs(r*(S-2)-1) > 1e-12 {
		t.Errorf("one weight of %d finite: relative ESS %v", S-2, r)
	}
	if _, r := ParetoDiagnostics([]float64{math.NaN(), math.Inf(1)}); !math.IsNaN(r) {
		t.Errorf("no finite weight: relative ESS %v, want NaN", r)
	}
	for i := range lw {
		lw[i] = 0
	}
	lw[11] = math.Inf(1) // q's density underflowed at one draw: it carries all the weight
	if k, r := ParetoDiagnostics(lw); math.Abs(r*S-1) > 1e-12 || TailNegligible(math.Max(k, 0.8), r) {
		t.Errorf("one infinite weight among equal ones: k̂ %v, relative ESS %v, want 1/%d", k, r, S)
	}

	rng := rand.New(rand.NewPCG(5, 6))
	h := make([]float64, S)
	for _, spread := range []float64{0.05, 0.5, 2} {
		for i := range lw {
			x := rng.NormFloat64()
			lw[i] = spread*x + 0.3*spread*x*x // a right tail
		}
		k, r := ParetoDiagnostics(lw)
		lws, _ := PSIS(lw)
		mx := math.Inf(-1)
		for _, v := range lw {
			mx = math.Max(mx, v)
		}
		w := make([]float64, S)
		s, s2, t2 := 0.0, 0.0, 0.0
		for i, v := range lw {
			w[i] = math.Exp(v - mx)
			s += w[i]
			s2 += w[i] * w[i]
			t2 += math.Exp(2 * lws[i])
		}
		if raw, sm := s*s/s2/S, 1/(S*t2); math.Abs(r-math.Min(raw, sm)) > 1e-12 {
			t.Errorf("spread %g: relative ESS %v, want the smaller of raw %v and smoothed %v", spread, r, raw, sm)
		}
		cv := WeightsCV(r)
		for range 200 {
			a, b := rng.NormFloat64(), rng.NormFloat64()
			mean, m2, iw := 0.0, 0.0, 0.0
			for i := range h {
				h[i] = a*float64(i%7) + b*lw[i] + rng.NormFloat64()
				mean += h[i] / S
				m2 += h[i] * h[i] / S
				iw += w[i] / s * h[i]
			}
			sd := math.Sqrt(m2 - mean*mean)
			if d := math.Abs(iw - mean); d > cv*sd*(1+1e-9) {
				t.Fatalf("spread %g (k̂ %.2f, cv %.3g): reweighting moved a mean by %.4g sd", spread, k, cv, d/sd)
			}
		}
	}
}

// TestTailNegligible: one Pareto tail of shape 0.9, 1 + δ·P with P
// Pareto, has the same k̂ at every scale δ (the tail fit is
// scale-free), so k̂ alone cannot tell an accurate q whose ratios p/q
// grow without bound far out from a poor one. At δ = 10⁻³ the weights
// vary by a few percent and the reading is NegligibleReading, with no
// warning and no alarm; at δ = 1 the draws are dominated by a few and it
// stays "unreliable", with the warning. Then the threshold's edges.
func TestTailNegligible(t *testing.T) {
	const S = 1000
	tail := func(delta float64) []float64 {
		lw := make([]float64, S)
		for i := range lw {
			u := (float64((i*389)%S) + 0.5) / S // every quantile once, shuffled
			lw[i] = math.Log1p(delta * (math.Pow(1-u, -0.9) - 1))
		}
		return lw
	}
	kSmall, rSmall := ParetoDiagnostics(tail(1e-3))
	kBig, rBig := ParetoDiagnostics(tail(1))
	t.Logf("δ 1e-3: k̂ %.4f, relative ESS %.5f (cv %.3g); δ 1: k̂ %.4f, relative ESS %.4f (cv %.3g)",
		kSmall, rSmall, WeightsCV(rSmall), kBig, rBig, WeightsCV(rBig))
	if !(kSmall > 0.7) || math.Abs(kSmall-kBig) > 1e-6 {
		t.Fatalf("k̂ %v at δ 1e-3 and %v at δ 1: want one k̂ above 0.7", kSmall, kBig)
	}
	if !TailNegligible(kSmall, rSmall) || ParetoAlarm(kSmall, rSmall) || TailReading(kSmall, rSmall, 1000) != NegligibleReading ||
		ParetoWarning(kSmall, rSmall, "q") != "" {
		t.Errorf("δ 1e-3 (relative ESS %v): negligible %v, alarm %v, reading %q, warning %q", rSmall,
			TailNegligible(kSmall, rSmall), ParetoAlarm(kSmall, rSmall), TailReading(kSmall, rSmall, 1000), ParetoWarning(kSmall, rSmall, "q"))
	}
	if TailNegligible(kBig, rBig) || !ParetoAlarm(kBig, rBig) || TailReading(kBig, rBig, 1000) != "unreliable" ||
		ParetoWarning(kBig, rBig, "q") == "" {
		t.Errorf("δ 1 (relative ESS %v): negligible %v, alarm %v, reading %q", rBig,
			TailNegligible(kBig, rBig), ParetoAlarm(kBig, rBig), TailReading(kBig, rBig, 1000))
	}

	ess := func(cv float64) float64 { return 1 / (1 + cv*cv) }
	for _, c := range []struct {
		k, r              float64
		negligible, alarm bool
		reading           string
	}{
		{0.71, ess(0.19), true, false, NegligibleReading},
		{3.7, ess(0.05), true, false, NegligibleReading},
		{0.71, ess(0.21), false, true, "unreliable"},
		{3.7, ess(3), false, true, "unreliable"},
		{0.66, 1, false, false, "ok"},                 // not above 0.7: no alarm to soften (ESS 1000 ≥ the 871 k̂ 0.66 needs)
		{0.7, 1, false, false, "unreliable"},          // ESS 1000 < the 2155 k̂ 0.7 needs (ESSBelowMin); no alarm
		{0.3, ess(5), false, false, "good"},           // k̂ alone decides below 0.7
		{1.2, math.NaN(), false, true, "unreliable"},  // no ESS: the alarm stands
		{1.2, 0, false, true, "unreliable"},           // a zero value
		{math.NaN(), math.NaN(), false, false, "n/a"}, // no k̂
		{math.Inf(-1), 1, false, false, "good"},       // a flat tail
		{math.NaN(), ess(0.01), false, false, "n/a"},  // no k̂, whatever the weights
		{0.9, 1 + 1e-9, false, true, "unreliable"},    // not a relative ESS
		{0.9, ess(0.999 * NegligibleCV), true, false, NegligibleReading},
		{0.9, ess(1.001 * NegligibleCV), false, true, "unreliable"},
		{0.5, 1e-3, false, false, "unreliable"}, // one draw's weight (Degenerate); no alarm
	} {
		if n, a, rd := TailNegligible(c.k, c.r), ParetoAlarm(c.k, c.r), TailReading(c.k, c.r, 1000); n != c.negligible || a != c.alarm || rd != c.reading {
			t.Errorf("k̂ %v, relative ESS %v: negligible %v, alarm %v, reading %q; want %v, %v, %q", c.k, c.r, n, a, rd, c.negligible, c.alarm, c.reading)
		}
		if w := ParetoWarning(c.k, c.r, "q"); (w != "") != c.alarm {
			t.Errorf("k̂ %v, relative ESS %v: warning %q", c.k, c.r, w)
		}
		// a reading of unreliable without k̂'s alarm gets the weights' warning
		if w := WeightsWarning(c.k, c.r, 1000, "q"); (w != "") != (c.reading == "unreliable" && !c.alarm) {
			t.Errorf("k̂ %v, relative ESS %v: weights warning %q", c.k, c.r, w)
		}
	}
}

// TestFormatK: a k̂ that its digits would round onto the 0.5 or 0.7 its
// reading compares it with gets the digits that keep it off; others are
// formatted as asked. ParetoWarning uses it.
func TestFormatK(t *testing.T) {
	for _, c := range []struct {
		k      float64
		format byte
		prec   int
		want   string
	}{
		{0.7004, 'f', 2, "0.7004"},
		{0.70004, 'f', 2, "0.70004"},
		{0.6996, 'f', 2, "0.6996"},
		{0.7, 'f', 2, "0.70"},
		{0.7004, 'g', 3, "0.7004"},
		{0.5002, 'g', 3, "0.5002"},
		{0.4999, 'g', 3, "0.4999"},
		{0.7123, 'g', 3, "0.712"},
		{1.304, 'f', 2, "1.30"},
		{0.674, 'g', 3, "0.674"},
		{0.66, 'f', 0, "0.66"}, // "1" and "0.7" would read as above 0.7
		{0.46, 'f', 0, "0"},
		{0.5, 'f', 0, "0.5"},
		{0.96, 'f', 0, "1"},
	} {
		if got := FormatK(c.k, c.format, c.prec); got != c.want {
			t.Errorf("FormatK(%v, %c, %d) = %q, want %q", c.k, c.format, c.prec, got, c.want)
		}
	}
	if w := ParetoWarning(0.7004, 0.5, "q"); !strings.HasPrefix(w, "Pareto k̂ = 0.7004 > 0.7: ") {
		t.Errorf("ParetoWarning(0.7004) = %q", w)
	}
}

// TestPSISMinDraws: k̂ is estimated from PSISMinDraws finite weights, not
// from one fewer (a tail of 4), however many non-finite weights come with
// them; PSIS and PSISLOO's points agree with ParetoK.
func TestPSISMinDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, S := range []int{PSISMinDraws - 1, PSISMinDraws} {
		lw := make([]float64, S, S+5)
		for s := range lw {
			lw[s] = rng.NormFloat64()
		}
		for range 5 {
			lw = append(lw, math.Inf(-1))
		}
		k := ParetoK(lw)
		_, kp := PSIS(lw)
		lo := PSISLOO(lw, [][]float64{make([]float64, len(lw))})
		if got := !math.IsNaN(k); got != (S >= PSISMinDraws) || math.Float64bits(k) != math.Float64bits(kp) || math.Float64bits(k) != math.Float64bits(lo.Points[0].K) {
			t.Errorf("%d finite weights: ParetoK %v, PSIS %v, PSISLOO %v; want NaN below %d", S, k, kp, lo.Points[0].K, PSISMinDraws)
		}
		if want := b2n(S < PSISMinDraws); lo.NoK() != want {
			t.Errorf("%d finite weights: NoK %d, want %d", S, lo.NoK(), want)
		}
	}
}

// b2n is 1 for true, 0 for false.
func b2n(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFlatDirection: Λ with a null direction (a + b unfixed) reads flat
// along (1, 1)/√2, with q's variance along it; one with a weak but real
// curvature there against q's spread, or that bends the wrong way (a
// funnel's), does not.
func TestFlatDirection(t *testing.T) {
	L := mat.NewSymDense(2, []float64{1, -1, -1, 1}) // y ~ Normal(a − b, 1)
	f := flatDirection(L, []float64{0.5, 0.5})
	if f == nil || !f.IsFlat() || math.Abs(math.Abs(f.Vec[0])-math.Sqrt(0.5)) > 1e-12 || f.Vec[0]*f.Vec[1] <= 0 || math.Abs(f.QVar-0.25) > 1e-12 {
		t.Fatalf("a − b: %+v, want flat along the sum, q's variance 0.25", f)
	}
	for _, c := range []struct {
		name string
		L    []float64
		sd   float64
	}{
		// a, b ~ Normal(0, 10): the mean-field sd 1/√Λ_ii is about 10
		// times too small along the sum, Bend Λ_min·σ² = 0.01/1.01
		{"a prior", []float64{1.01, -1, -1, 1.01}, 1 / math.Sqrt(1.01)},
		{"a funnel", []float64{1, 0, 0, -0.5}, 0.5},
	} {
		f := flatDirection(mat.NewSymDense(2, c.L), []float64{c.sd, c.sd})
		if f == nil {
			t.Errorf("%s: no eigenvalues", c.name)
		} else if f.IsFlat() {
			t.Errorf("%s: %+v (bend %v), want not flat", c.name, f, f.Bend())
		}
	}
}
