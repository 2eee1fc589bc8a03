package sgvb

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestPSISWeights: the smoothed weights sum to 1, keep the raw weights'
// order, change only the M largest, and never exceed the largest raw
// weight; non-finite log weights get weight 0.
func TestPSISWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const S = 1000
	lw := make([]float64, S)
	for i := range lw {
		lw[i] = math.Log(rng.ExpFloat64()) + 0.6*rng.ExpFloat64() // a heavy right tail
	}
	lw[7], lw[8] = math.NaN(), math.Inf(-1)
	lws, k := PSIS(lw)
	if !(k > 0 && k < 1) {
		t.Fatalf("k̂ %g, want in (0, 1) for this tail", k)
	}
	if s := math.Exp(logSumExp(lws)); math.Abs(s-1) > 1e-12 {
		t.Errorf("weights sum to %.15g", s)
	}
	if !math.IsInf(lws[7], -1) || !math.IsInf(lws[8], -1) {
		t.Errorf("non-finite log weights got %g, %g", lws[7], lws[8])
	}
	finite := []int{}
	for i, v := range lw {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			finite = append(finite, i)
		}
	}
	slices.SortFunc(finite, func(a, b int) int { return cmpFloat(lw[a], lw[b]) })
	M := int(math.Ceil(math.Min(0.2*float64(len(finite)), 3*math.Sqrt(float64(len(finite))))))
	shift := lws[finite[0]] - lw[finite[0]] // the normalisation, from an untouched weight
	mx := lw[finite[len(finite)-1]]
	changed := 0
	for r, i := range finite {
		raw := lw[i] + shift
		if r < len(finite)-M && math.Abs(lws[i]-raw) > 1e-12 {
			t.Errorf("weight of rank %d changed: %g → %g", r, raw, lws[i])
		}
		if lws[i]-shift > mx+1e-12 {
			t.Errorf("weight of rank %d above the largest raw weight", r)
		}
		if r > 0 && lws[i] < lws[finite[r-1]]-1e-12 {
			t.Errorf("smoothing reordered ranks %d and %d", r-1, r)
		}
		if math.Abs(lws[i]-raw) > 1e-12 {
			changed++
		}
	}
	if changed == 0 {
		t.Errorf("no tail weight was smoothed")
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestPSISLOONormal: y_i ~ Normal(mu, 1), mu ~ Normal(0, 10), n = 20, whose
// exact LOO predictive densities are Normal(y_i | m_−i, 1 + v_−i). From 4000
// draws of the exact posterior, of a q twice as wide and of a q shifted by
// one posterior sd, the importance-corrected elpd_loo is within 0.3 of the
// exact −30.17 (measured: 0.02, 0.02 and 0.13 off), with p_loo about 1 and
// every k̂ below 0.7; taking the wide q's draws as if they were the
// posterior's (logRatio 0) gives −33.94.
func TestPSISLOONormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, tau2 = 20, 100.0
	y := make([]float64, n)
	for i := range y {
		y[i] = 1.5 + rng.NormFloat64()
	}
	post := func(skip int) (m, v float64) {
		prec, s := 1/tau2, 0.0
		for i, yi := range y {
			if i != skip {
				prec++
				s += yi
			}
		}
		return s / prec, 1 / prec
	}
	exact := 0.0
	for i, yi := range y {
		m, v := post(i)
		exact += normLogPDF(yi, m, math.Sqrt(1+v))
	}
	m, v := post(-1)
	sd := math.Sqrt(v)
	logJoint := func(mu float64) float64 {
		lp := normLogPDF(mu, 0, math.Sqrt(tau2))
		for _, yi := range y {
			lp += normLogPDF(yi, mu, 1)
		}
		return lp
	}
	run := func(qm, qsd float64, corrected bool) *LOO {
		const S = 4000
		r := rand.New(rand.NewPCG(5, 6))
		lr := make([]float64, S)
		ll := make([][]float64, n)
		for i := range ll {
			ll[i] = make([]float64, S)
		}
		for s := range S {
			mu := qm + qsd*r.NormFloat64()
			if corrected {
				lr[s] = logJoint(mu) - normLogPDF(mu, qm, qsd)
			}
			for i, yi := range y {
				ll[i][s] = normLogPDF(yi, mu, 1)
			}
		}
		return PSISLOO(lr, ll)
	}
	for _, c := range []struct {
		name string
		m, s float64
	}{{"exact q", m, sd}, {"wide q", m, 2 * sd}, {"shifted q", m + sd, sd}} {
		l := run(c.m, c.s, true)
		t.Logf("%s: elpd_loo %.4f ± %.3f, p_loo %.3f, max k̂ %.2f; exact %.4f", c.name, l.ELPD, l.SE, l.P, maxK(l), exact)
		if math.Abs(l.ELPD-exact) > 0.3 || l.BadK() > 0 {
			t.Errorf("%s: elpd_loo %.4f (k̂ > 0.7 for %d), exact %.4f", c.name, l.ELPD, l.BadK(), exact)
		}
		if l.P < 0.5 || l.P > 1.5 { // one parameter
			t.Errorf("%s: p_loo %.3f, want about 1", c.name, l.P)
		}
	}
	l := run(m, 2*sd, false)
	t.Logf("wide q, uncorrected: elpd_loo %.4f", l.ELPD)
	if math.Abs(l.ELPD-exact) < 1 {
		t.Errorf("uncorrected wide q: elpd_loo %.4f, exact %.4f: the test cannot tell the correction", l.ELPD, exact)
	}
}

func maxK(l *LOO) float64 {
	k := math.Inf(-1)
	for _, p := range l.Points {
		k = math.Max(k, p.K)
	}
	return k
}

func normLogPDF(x, m, s float64) float64 {
	z := (x - m) / s
	return -0.5*z*z - math.Log(s) - 0.5*math.Log(2*math.Pi)
}

// looBenchInput is n observations' log likelihoods at S draws of a normal
// mean's posterior (y_i ~ Normal(mu, 1)) with log ratios p/q of a q 1.3
// times as wide, seeded.
func looBenchInput(n, S int) (lr []float64, ll [][]float64) {
	r := rand.New(rand.NewPCG(7, 8))
	y := make([]float64, n)
	for i := range y {
		y[i] = 0.5 + r.NormFloat64()
	}
	sd := 1 / math.Sqrt(float64(n))
	mu := make([]float64, S)
	lr = make([]float64, S)
	for s := range S {
		mu[s] = 0.5 + 1.3*sd*r.NormFloat64()
		lr[s] = normLogPDF(mu[s], 0.5, sd) - normLogPDF(mu[s], 0.5, 1.3*sd)
	}
	ll = make([][]float64, n)
	for i := range ll {
		ll[i] = make([]float64, S)
		for s := range S {
			ll[i][s] = normLogPDF(y[i], mu[s], 1)
		}
	}
	return lr, ll
}

// BenchmarkPSISLOO: n = 10⁴ observations, S = 1000 draws.
func BenchmarkPSISLOO(b *testing.B) {
	lr, ll := looBenchInput(10000, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		PSISLOO(lr, ll)
	}
}

// refPSISLOO is PSISLOO as it was before its observations were shared
// among goroutines: one observation after another, through PSIS.
func refPSISLOO(logRatio []float64, logLik [][]float64) *LOO {
	S := len(logRatio)
	full, qk := PSIS(logRatio)
	out := &LOO{QK: qk, Points: make([]LOOPoint, len(logLik))}
	lr := make([]float64, S)
	tmp := make([]float64, S)
	for i, ll := range logLik {
		for s := range S {
			lr[s] = logRatio[s] - ll[s]
		}
		lws, k := PSIS(lr)
		for s := range S {
			tmp[s] = lws[s] + ll[s]
			if math.IsNaN(tmp[s]) {
				tmp[s] = math.Inf(-1)
			}
		}
		elpd := logSumExp(tmp)
		for s := range S {
			tmp[s] = full[s] + ll[s]
			if math.IsNaN(tmp[s]) {
				tmp[s] = math.Inf(-1)
			}
		}
		lpd := logSumExp(tmp)
		out.Points[i] = LOOPoint{ELPD: elpd, P: lpd - elpd, K: k}
		out.ELPD += elpd
		out.P += lpd - elpd
	}
	n := float64(len(logLik))
	if n > 1 {
		mean := out.ELPD / n
		v := 0.0
		for _, p := range out.Points {
			v += (p.ELPD - mean) * (p.ELPD - mean)
		}
		out.SE = math.Sqrt(n * v / (n - 1))
	}
	return out
}

// sameBits reports whether a and b are the same float64, bit for bit.
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// TestPSISLOOParallel: PSISLOO on 1 to 7 goroutines gives the serial
// result bit for bit, observation by observation and in total, on draws
// with ties, non-finite log likelihoods, observations with fewer than 10
// finite weights (k̂ NaN) and a flat tail (k̂ −Inf), with a count of
// observations that leaves the last chunk short.
func TestPSISLOOParallel(t *testing.T) {
	const n, S = 7*looChunk + 5, 400
	lr, ll := looBenchInput(n, S)
	r := rand.New(rand.NewPCG(9, 10))
	for i := range ll {
		switch i % 11 {
		case 3:
			ll[i][r.IntN(S)] = math.Inf(-1)
			ll[i][r.IntN(S)] = math.NaN()
		case 5:
			for s := range S {
				ll[i][s] = math.Round(ll[i][s]*4) / 4 // ties
			}
		case 7:
			for s := 5; s < S; s++ {
				ll[i][s] = math.Inf(1) // 5 finite weights: k̂ NaN
			}
		case 9:
			for s := range S {
				ll[i][s] = lr[s] - 1 // all weights equal: a flat tail
			}
		}
	}
	want := refPSISLOO(lr, ll)
	nanK, flatK := 0, 0
	for _, p := range want.Points {
		switch {
		case math.IsNaN(p.K):
			nanK++
		case math.IsInf(p.K, -1):
			flatK++
		}
	}
	if nanK == 0 || flatK == 0 {
		t.Fatalf("the input has %d observations with k̂ NaN and %d with a flat tail, want some of each", nanK, flatK)
	}
	for _, w := range []int{1, 2, 3, 4, 7} {
		got := psisLOO(lr, ll, nil, w)
		if !sameBits(got.ELPD, want.ELPD) || !sameBits(got.SE, want.SE) || !sameBits(got.P, want.P) || !sameBits(got.QK, want.QK) {
			t.Errorf("%d workers: elpd %v ± %v, p %v, k̂ %v; serial %v ± %v, p %v, k̂ %v",
				w, got.ELPD, got.SE, got.P, got.QK, want.ELPD, want.SE, want.P, want.QK)
		}
		for i, p := range got.Points {
			q := want.Points[i]
			if !sameBits(p.ELPD, q.ELPD) || !sameBits(p.P, q.P) || !sameBits(p.K, q.K) {
				t.Errorf("%d workers: observation %d: %+v, serial %+v", w, i, p, q)
				break
			}
		}
	}
	if got := PSISLOO(lr, ll); !sameBits(got.ELPD, want.ELPD) {
		t.Errorf("PSISLOO: elpd %v, serial %v", got.ELPD, want.ELPD)
	}
}

// TestFitTailOrder: the tail fit picks and orders the largest weights as a
// stable sort of all the indices does (equal weights by index), the order
// PSIS's smoothed weights are assigned in, with ties across the tail's
// threshold.
func TestFitTailOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	lw := make([]float64, 500)
	for i := range lw {
		lw[i] = math.Round(r.NormFloat64()*3) / 3 // many ties
	}
	lw[10], lw[20] = math.NaN(), math.Inf(1)
	tail, ok := fitTail(lw, nil, 1)
	if !ok {
		t.Fatal("no tail fitted")
	}
	var want []int
	for i, v := range lw {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			want = append(want, i)
		}
	}
	sort.SliceStable(want, func(a, b int) bool { return lw[want[a]] < lw[want[b]] })
	if tail.S != len(want) || !slices.Equal(tail.tail, want[len(want)-tail.M:]) {
		t.Errorf("tail order differs from a stable sort's")
	}
}

// TestPSISLOOMCMC: LOO from posterior draws is PSISLOO with log ratios 0
// when every relative efficiency is 1, and a relative efficiency r
// lengthens the smoothed tail to ⌈min(S/5, 3√(S/r))⌉ as the loo package's
// does; for a light tail every observation's elpd is then close to plain
// importance sampling's log(S / Σ_s 1/p(y_i | θ_s)).
func TestPSISLOOMCMC(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const S, n = 2000, 5
	ll := make([][]float64, n)
	for i := range ll {
		ll[i] = make([]float64, S)
		for s := range ll[i] {
			ll[i][s] = -1 - 0.2*rng.NormFloat64()
		}
	}
	ones := []float64{1, 1, 1, 1, 1}
	a, b := PSISLOOMCMC(ll, ones), PSISLOO(make([]float64, S), ll)
	if a.ELPD != b.ELPD || a.P != b.P || a.Points[2] != b.Points[2] {
		t.Errorf("reff 1: elpd %v p %v, PSISLOO with ratios 0: %v %v", a.ELPD, a.P, b.ELPD, b.P)
	}
	for _, r := range []float64{1, 0.25, 0.01} {
		tl, ok := fitTail(ll[0], nil, r)
		if want := int(math.Ceil(math.Min(0.2*S, 3*math.Sqrt(S/r)))); !ok || tl.M != want {
			t.Errorf("reff %v: tail of %d, want %d", r, tl.M, want)
		}
	}
	lo := PSISLOOMCMC(ll, []float64{0.3, 0.3, 0.3, 0.3, 0.3})
	for i, p := range lo.Points {
		inv := make([]float64, S)
		for s := range inv {
			inv[s] = -ll[i][s]
		}
		is := math.Log(S) - logSumExp(inv)
		if !(p.K < 0.5) || math.Abs(p.ELPD-is) > 1e-3 {
			t.Errorf("observation %d: elpd %v k̂ %v, plain IS %v", i, p.ELPD, p.K, is)
		}
	}
	if !math.IsInf(lo.QK, -1) {
		t.Errorf("QK %v, want -Inf (equal weights)", lo.QK)
	}
}

// TestLOOLogWeights: an observation's weights are those its elpd_loo sums
// over: log Σ_s w_s·p(y_i | θ_s) is PSISLOO's elpd_i, for draws of q
// (logRatio) and of the posterior (nil, with a relative efficiency).
func TestLOOLogWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const S, n = 200, 3
	lr := make([]float64, S)
	ll := make([][]float64, n)
	for s := range lr {
		lr[s] = 0.3 * rng.NormFloat64()
	}
	for i := range ll {
		ll[i] = make([]float64, S)
		for s := range ll[i] {
			ll[i][s] = -1 - rng.ExpFloat64()
		}
	}
	reff := []float64{0.5, 1, 2}
	for _, c := range []struct {
		lr   []float64
		reff []float64
		lo   *LOO
	}{{lr, nil, PSISLOO(lr, ll)}, {nil, reff, PSISLOOMCMC(ll, reff)}} {
		for i := range ll {
			r := 1.0
			if c.reff != nil {
				r = c.reff[i]
			}
			lw := LOOLogWeights(c.lr, ll[i], r)
			sum := 0.0
			for s := range lw {
				sum += math.Exp(lw[s] + ll[i][s])
			}
			if got, want := math.Log(sum), c.lo.Points[i].ELPD; math.Abs(got-want) > 1e-12 {
				t.Errorf("observation %d: log Σ w·p = %v, elpd_i %v", i, got, want)
			}
		}
	}
}
