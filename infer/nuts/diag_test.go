package nuts

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// refDraws makes the draws of testdata/posterior_ref.py's draws(): AR(1)
// chains with φ = 0.7 from a 32-bit LCG, chain c's innovations shifted by
// shift·c, rounded down to multiples of 0.05 (so there are ties).
func refDraws(chains, n int, shift float64) [][]float64 {
	return lcgAR1(chains, n, shift, func(y float64) float64 { return math.Floor(y*20) / 20 })
}

// lcgAR1 is refDraws with each draw y recorded as keep(y).
func lcgAR1(chains, n int, shift float64, keep func(float64) float64) [][]float64 {
	state := uint64(12345)
	out := make([][]float64, chains)
	for c := range out {
		y := 0.0
		out[c] = make([]float64, n)
		for i := range out[c] {
			state = (1664525*state + 1013904223) % (1 << 32)
			u := float64(state) / (1 << 32)
			y = 0.7*y + (u - 0.5) + shift*float64(c)
			out[c][i] = keep(y)
		}
	}
	return out
}

// TestDiagnosticsReference pins the diagnostics to the values of
// testdata/posterior_ref.py, an independent plain-Python transcription of
// the formulas (rank normalisation with ties, split chains with an odd
// length, Geyer's monotone sequence, type-7 quantiles) run with python3.
func TestDiagnosticsReference(t *testing.T) {
	for _, ref := range []struct{ shift, rhat, bulk, tail, mcse float64 }{
		{0, 1.1350508492530702, 28.822939418905417, 170.58653940434334, 0.068634898615442544},
		{0.1, 1.5613971664773807, 7.8453077330693617, 37.211414994627994, 0.18499297062802833},
	} {
		x := refDraws(4, 101, ref.shift)
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"Rhat", Rhat(x), ref.rhat},
			{"ESSBulk", ESSBulk(x), ref.bulk},
			{"ESSTail", ESSTail(x), ref.tail},
			{"MCSEMean", MCSEMean(x), ref.mcse},
		} {
			if math.Abs(c.got-c.want) > 1e-10*math.Abs(c.want) {
				t.Errorf("shift %g: %s = %.17g, reference %.17g", ref.shift, c.name, c.got, c.want)
			}
		}
	}
}

func TestDiagnosticsByHand(t *testing.T) {
	// Two chains 1,2,3 and 4,5,6: W = 1, B = 3·var(2, 5) = 13.5,
	// R̂ = √((13.5 + 2)/3).
	if got, want := rhatBasic([][]float64{{1, 2, 3}, {4, 5, 6}}), math.Sqrt(15.5/3); math.Abs(got-want) > 1e-15 {
		t.Errorf("rhatBasic %v, want %v", got, want)
	}
	// Ranks of 1, 2, 2, 3 are 1, 2.5, 2.5, 4; S + 1/4 = 4.25.
	z := zScale([][]float64{{1, 2}, {2, 3}})
	for k, r := range []float64{1, 2.5, 2.5, 4} {
		want := distuv.UnitNormal.Quantile((r - 0.375) / 4.25)
		if got := z[k/2][k%2]; math.Abs(got-want) > 1e-15 {
			t.Errorf("zScale rank %v: %v, want %v", r, got, want)
		}
	}
	// Split of an odd chain drops the middle draw.
	s := split([][]float64{{1, 2, 3, 4, 5}})
	if len(s) != 2 || s[0][0] != 1 || s[0][1] != 2 || s[1][0] != 4 || s[1][1] != 5 {
		t.Errorf("split %v", s)
	}
	// EBFMI of 1, 2, 3, 4: Σ diff² = 3, Σ (E − 2.5)² = 5.
	if got := EBFMI([]float64{1, 2, 3, 4}); math.Abs(got-0.6) > 1e-15 {
		t.Errorf("EBFMI %v, want 0.6", got)
	}
}

func gaussChains(rng *rand.Rand, chains, n int, f func(c int) (mu, sd float64)) [][]float64 {
	x := make([][]float64, chains)
	for c := range x {
		mu, sd := f(c)
		x[c] = make([]float64, n)
		for i := range x[c] {
			x[c][i] = mu + sd*rng.NormFloat64()
		}
	}
	return x
}

func TestDiagnosticsBehaviour(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const chains, n = 4, 1000
	S := float64(chains * n)

	iid := gaussChains(rng, chains, n, func(int) (float64, float64) { return 0, 1 })
	if r := Rhat(iid); !(r < 1.01) {
		t.Errorf("iid: Rhat %v", r)
	}
	for _, e := range []struct {
		name string
		v    float64
	}{{"ESSBulk", ESSBulk(iid)}, {"ESSTail", ESSTail(iid)}} {
		// The ESS estimate of S iid draws has a relative sd of a few %.
		if e.v < 0.85*S || e.v > 1.15*S {
			t.Errorf("iid: %s %v of %v draws", e.name, e.v, S)
		}
	}
	// MCSE of the mean of iid unit normals: 1/√S.
	if m := MCSEMean(iid); math.Abs(m*math.Sqrt(S)-1) > 0.1 {
		t.Errorf("iid: MCSEMean %v, want ≈ %v", m, 1/math.Sqrt(S))
	}

	shifted := gaussChains(rng, chains, n, func(c int) (float64, float64) { return float64(c), 1 })
	if r := Rhat(shifted); !(r > 1.3) {
		t.Errorf("shifted means: Rhat %v", r)
	}

	// One chain with three times the sd: the bulk R̂ barely sees it, the
	// folded one does.
	wide := gaussChains(rng, chains, n, func(c int) (float64, float64) {
		if c == 0 {
			return 0, 3
		}
		return 0, 1
	})
	bulk := rhatBasic(zScale(split(wide)))
	if r := Rhat(wide); !(bulk < 1.02 && r > 1.05) {
		t.Errorf("one wide chain: bulk R̂ %v, Rhat %v", bulk, r)
	}

	// AR(1), φ = 0.9: ESS = S(1 − φ)/(1 + φ).
	const phi = 0.9
	ar := make([][]float64, chains)
	const nar = 10000
	for c := range ar {
		ar[c] = make([]float64, nar)
		y := rng.NormFloat64() / math.Sqrt(1-phi*phi)
		for i := range ar[c] {
			y = phi*y + rng.NormFloat64()
			ar[c][i] = y
		}
	}
	want := float64(chains*nar) * (1 - phi) / (1 + phi)
	arESS := ESSBulk(ar)
	if math.Abs(arESS/want-1) > 0.15 {
		t.Errorf("AR(1) φ 0.9: ESSBulk %v, want ≈ %v", arESS, want)
	}
	// The plain ESS of the unsplit raw chains estimates the same.
	if e := ESS(ar); math.Abs(e/want-1) > 0.15 {
		t.Errorf("AR(1) φ 0.9: ESS %v, want ≈ %v", e, want)
	}
	// MCSE of the mean: the AR(1)'s sd/√ESS.
	sd := 1 / math.Sqrt(1-phi*phi)
	if m := MCSEMean(ar); math.Abs(m/(sd/math.Sqrt(want))-1) > 0.15 {
		t.Errorf("AR(1): MCSEMean %v, want ≈ %v", m, sd/math.Sqrt(want))
	}

	// Heavy tails: iid Cauchy draws. The rank-based ESS are near S; the
	// tail ESS is finite and near S too, while the raw draws' MCSE of the
	// mean means nothing (no mean exists), which is why ESSTail exists.
	cauchy := make([][]float64, chains)
	for c := range cauchy {
		cauchy[c] = make([]float64, n)
		for i := range cauchy[c] {
			cauchy[c][i] = math.Tan(math.Pi * (rng.Float64() - 0.5))
		}
	}
	if e := ESSTail(cauchy); e < 0.85*S || e > 1.15*S {
		t.Errorf("Cauchy: ESSTail %v of %v", e, S)
	}
	if e := ESSBulk(cauchy); e < 0.85*S || e > 1.15*S {
		t.Errorf("Cauchy: ESSBulk %v of %v", e, S)
	}
	// Heavy-tailed AR(1) (t₃ innovations, φ = 0.9): the tail ESS is the
	// ESS of quantile indicators, lower than S but positive.
	for c := range ar {
		y := 0.0
		for i := range ar[c] {
			chi2 := 0.0
			for k := 0; k < 3; k++ {
				g := rng.NormFloat64()
				chi2 += g * g
			}
			y = phi*y + rng.NormFloat64()/math.Sqrt(chi2/3)
			ar[c][i] = y
		}
	}
	et, eb := ESSTail(ar), ESSBulk(ar)
	t.Logf("t₃ AR(1): ESSTail %.0f, ESSBulk %.0f of %d", et, eb, chains*nar)
	t.Logf("iid: Rhat %.4f ESSBulk %.0f ESSTail %.0f of %v; shifted: Rhat %.3f; one wide chain: bulk %.4f, Rhat %.3f; AR(1): ESSBulk %.0f (theory %.0f); Cauchy: ESSTail %.0f",
		Rhat(iid), ESSBulk(iid), ESSTail(iid), S, Rhat(shifted), bulk, Rhat(wide), arESS, want, ESSTail(cauchy))
	if !(et > 0 && et < float64(chains*nar)/2) {
		t.Errorf("heavy-tailed AR(1): ESSTail %v", et)
	}

	// Energies: iid gives E-BFMI ≈ 2, a random walk ≈ 0.
	if e := EBFMI(iid[0]); math.Abs(e-2) > 0.2 {
		t.Errorf("iid energies: EBFMI %v, want ≈ 2", e)
	}
	if e := EBFMI(ar[0]); !(e < 0.3) {
		t.Errorf("AR(1) energies: EBFMI %v, want < 0.3", e)
	}
}

func TestDiagnosticsNaN(t *testing.T) {
	constant := [][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}}
	withNaN := [][]float64{{1, 2, math.NaN(), 4}, {1, 2, 3, 4}}
	withInf := [][]float64{{1, 2, math.Inf(1), 4}, {1, 2, 3, 4}}
	ragged := [][]float64{{1, 2, 3, 4}, {1, 2, 3}}
	for name, x := range map[string][][]float64{"constant": constant, "NaN": withNaN, "Inf": withInf, "ragged": ragged, "empty": nil, "one draw": {{1}, {2}}} {
		for fn, f := range map[string]func([][]float64) float64{"Rhat": Rhat, "ESSBulk": ESSBulk, "ESSTail": ESSTail, "MCSEMean": MCSEMean, "ESS": ESS} {
			if v := f(x); !math.IsNaN(v) {
				t.Errorf("%s of %s draws: %v, want NaN", fn, name, v)
			}
		}
	}
	for name, e := range map[string][]float64{"constant": {2, 2, 2}, "NaN": {1, math.NaN(), 2}, "short": {1}} {
		if v := EBFMI(e); !math.IsNaN(v) {
			t.Errorf("EBFMI of %s energies: %v, want NaN", name, v)
		}
	}
}

// TestDiagnoseEachConstant checks that chains each holding one value (a
// param the fixed_param sampler holds, NUTS chains frozen at their
// starts) have an R̂ of exactly +Inf where the values differ (NaN where
// all are one value), NaN ESS and MCSEs, but a MAD, while chains that vary
// within but not across (two modes, one chain in each, the median between
// them) keep the median's Monte Carlo error: its indicator is constant
// within each chain, not overall, so posterior gives a number, a large one.
func TestDiagnoseEachConstant(t *testing.T) {
	held := Diagnose([][]float64{{1, 1, 1, 1}, {3, 3, 3, 3}})
	if !math.IsInf(held.Rhat, 1) {
		t.Errorf("Rhat of chains each constant at 1 and 3: %v, want +Inf", held.Rhat)
	}
	for name, v := range map[string]float64{"ESSBulk": held.ESSBulk, "ESSTail": held.ESSTail,
		"MCSEMean": held.MCSEMean, "MCSESD": held.MCSESD, "MCSEQuantile[1]": held.MCSEQuantile[1]} {
		if !math.IsNaN(v) {
			t.Errorf("%s of chains each constant: %v, want NaN", name, v)
		}
	}
	if held.MAD != madScale { // median 2, every deviation 1
		t.Errorf("MAD of chains each constant: %v, want 1.4826", held.MAD)
	}
	// Rhat alone agrees; odd lengths (the middle draw dropped) and a chain
	// at the median (|x − median| not constant) too. All one value: NaN.
	for _, c := range []struct {
		name   string
		chains [][]float64
		inf    bool
	}{
		{"1 and 3", [][]float64{{1, 1, 1, 1}, {3, 3, 3, 3}}, true},
		{"odd length", [][]float64{{1, 1, 1}, {3, 3, 3}}, true},
		{"1, 2 and 3", [][]float64{{1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, true},
		{"all 2", [][]float64{{2, 2, 2, 2}, {2, 2, 2, 2}}, false},
		{"one draw each", [][]float64{{1}, {3}}, false},
		{"split chains each constant", [][]float64{{1, 1, 2, 2}, {3, 3, 3, 3}}, true},
		{"split chains each constant, odd length", [][]float64{{1, 1, 7, 2, 2}, {3, 3, 3, 3, 3}}, true},
	} {
		r, d := Rhat(c.chains), Diagnose(c.chains).Rhat
		if c.inf && !(math.IsInf(r, 1) && math.IsInf(d, 1)) || !c.inf && !(math.IsNaN(r) && math.IsNaN(d)) {
			t.Errorf("%s: Rhat %v, Diagnose's %v, want both %v", c.name, r, d, map[bool]string{true: "+Inf", false: "NaN"}[c.inf])
		}
	}
	// Mixed: one chain frozen, the other moving. The R̂ is the
	// rank-normalised one (posterior's, as Stan 2.26–2.32's, which give NaN
	// only when every chain holds the same value): finite, large, not NaN,
	// as are the ESS.
	rng := rand.New(rand.NewPCG(3, 4))
	mixed := [][]float64{make([]float64, 400), make([]float64, 400)}
	for i := range mixed[0] {
		mixed[0][i] = 0.5
		mixed[1][i] = rng.NormFloat64()
	}
	md := Diagnose(mixed)
	t.Logf("one chain frozen, one moving: Rhat %.3g, ESSBulk %.3g", md.Rhat, md.ESSBulk)
	if !(md.Rhat > 1.5 && !math.IsInf(md.Rhat, 0)) || md.Rhat != Rhat(mixed) {
		t.Errorf("one chain frozen, one moving: Rhat %v (Rhat %v), want the same finite number > 1.5", md.Rhat, Rhat(mixed))
	}
	if !(md.ESSBulk > 0) || !(md.MCSEMean > 0) {
		t.Errorf("one chain frozen, one moving: ESSBulk %v, MCSEMean %v, want numbers", md.ESSBulk, md.MCSEMean)
	}
	rng = rand.New(rand.NewPCG(1, 2))
	modes := [][]float64{make([]float64, 400), make([]float64, 400)}
	for c, ch := range modes {
		for i := range ch {
			ch[i] = rng.NormFloat64() + 20*float64(c)
		}
	}
	d := Diagnose(modes)
	if e := d.MCSEQuantile[1]; !(e > 1) || e != MCSEQuantile(modes, 0.5) {
		t.Errorf("two modes: the median's MCSE %v (MCSEQuantile %v), want the same number > 1", e, MCSEQuantile(modes, 0.5))
	}
}

// TestDiagnoseRoundingConstant: draws constant to rounding (sd at most
// 1e-13·max(1, |mean|)) have NaN ESS, R̂ and Monte Carlo errors, as a
// constant's: a 2×2 correlation matrix's Rho[1,1] = L·L' read 1 with sd
// 1.21e-16 and ESS 3912 in a trial's cafés model where Rho[0,0], exactly
// 1, read NaN. Draws a little wider (steps of 1e-9 at mean 1, 1e-11 at
// 0), and a param on a scale of 1e-12, are diagnosed.
func TestDiagnoseRoundingConstant(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draws := func(m, scale float64) [][]float64 {
		chains := make([][]float64, 4)
		for c := range chains {
			chains[c] = make([]float64, 1000)
			for i := range chains[c] {
				chains[c][i] = m + scale*float64(rng.IntN(41)-20) // −20 … 20 steps
			}
		}
		return chains
	}
	eps := math.Nextafter(1, 2) - 1
	for _, c := range []struct {
		name     string
		chains   [][]float64
		constant bool
	}{
		{"1 ± rounding", draws(1, eps/2), true},
		{"0 ± rounding (a sum to zero)", draws(0, 4*eps), true},
		{"1e6 ± 1e-10", draws(1e6, 1e-10), true},
		{"1 ± 1e-9", draws(1, 1e-9), false},
		{"0 ± 1e-11", draws(0, 1e-11), false},
		{"1e-12 ± 3e-14 (a tiny scale)", draws(1e-12, 3e-14), false},
	} {
		d := Diagnose(c.chains)
		one := map[string]float64{"Rhat": Rhat(c.chains), "ESSBulk": ESSBulk(c.chains), "ESSTail": ESSTail(c.chains),
			"MCSEMean": MCSEMean(c.chains), "MCSESD": MCSESD(c.chains), "MCSEQuantile": MCSEQuantile(c.chains, 0.5)}
		all := map[string]float64{"Rhat": d.Rhat, "ESSBulk": d.ESSBulk, "ESSTail": d.ESSTail,
			"MCSEMean": d.MCSEMean, "MCSESD": d.MCSESD, "MCSEQuantile": d.MCSEQuantile[1]}
		for name, v := range all {
			if c.constant != math.IsNaN(v) || c.constant != math.IsNaN(one[name]) {
				t.Errorf("%s: %s %v (alone %v), want NaN %v", c.name, name, v, one[name], c.constant)
			}
		}
		if math.IsNaN(d.MAD) {
			t.Errorf("%s: MAD NaN", c.name)
		}
		if roundingConstant(c.chains) != c.constant {
			t.Errorf("%s: roundingConstant %v", c.name, !c.constant)
		}
	}
}
