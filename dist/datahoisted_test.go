package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Every family's data-hoisted kernel returns its Kernel's value and
// partials bit for bit, from a state prepared from the value and the
// arguments in DataArgs alone (the others NaN), over counts on both sides
// of the table and Loader boundaries (9, 10), zero, large counts (10⁶,
// 10¹⁵) and values outside the support, and arguments valid and not.
func TestDataHoistedKernels(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	xs := []float64{0, 1, 2, 8, 9, 10, 11, 12, 16, 20, 50, 999, 1e6, 1e6 + 1, 1e15, 2.5, -1, 1e300, nan, inf, -inf}
	grids := map[Support][]float64{
		Positive: {1e-300, 1e-3, 0.5, 3, 9.5, 10, 16, 1e3, 1e6, 1e200, 0, -1, nan, inf},
		// Poisson's rate: 0 is valid, the point mass at 0
		NonNegative: {0, 1e-300, 1e-3, 0.5, 3, 9.5, 10, 16, 1e3, 1e6, 1e200, -1e-300, -1, nan, inf},
		Real:        {-800, -40, -3, 0, 2, 2.77, 13.8, 40, 709.5, 800, nan, inf, -inf},
		Unit:        {1e-300, 1e-3, 0.25, 0.5, 0.9, 1 - 0x1p-53, 0, 1, -0.5, 2, nan},
		Count:       {0, 1, 5, 9, 10, 11, 16, 20, 1e6, 1e15, 2.5, -1, nan, inf},
	}
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	var families, argRuns []string
	for _, u := range Univariates {
		if LogScale(u).DataHoisted != nil {
			t.Errorf("LogScale(%s) keeps the natural scale's data-hoisted kernel", u.Name)
		}
		dh := u.DataHoisted
		if dh == nil {
			continue
		}
		families = append(families, u.Name)
		np := len(u.Params)
		p, junk, hjunk := make([]float64, np), make([]float64, np), make([]float64, np)
		dp1, dp2 := make([]float64, np), make([]float64, np)
		ds := make([]float64, dh.DataStateLen())
		var hs []float64
		if u.Hoisted != nil {
			hs = make([]float64, u.Hoisted.StateLen())
		}
		var walk func(i int)
		walk = func(i int) {
			if i < np {
				g, ok := grids[u.Params[i].Support]
				if !ok {
					t.Fatalf("%s: no grid for argument %d", u.Name, i)
				}
				for _, v := range g {
					p[i] = v
					walk(i + 1)
				}
				return
			}
			for i := range junk { // prepare from the data arguments alone
				junk[i], hjunk[i] = nan, nan
				if dh.DataArgs()&(1<<i) != 0 {
					junk[i] = p[i]
				}
				if u.Hoisted != nil && u.Hoisted.HoistArgs()&(1<<i) != 0 {
					hjunk[i] = p[i]
				}
			}
			if u.Hoisted != nil {
				u.Hoisted.Prepare(hjunk, hs)
			}
			for _, x := range xs {
				dh.PrepareData(x, junk, ds)
				lp1, dx1 := u.Kernel(x, p, dp1)
				lp2, dx2 := dh.EvalData(x, p, hs, ds, dp2)
				ok := same(lp1, lp2) && same(dx1, dx2)
				for k := range dp1 {
					ok = ok && same(dp1[k], dp2[k])
				}
				if !ok {
					t.Errorf("%s(%g | %v): kernel %v %v %v, data-hoisted %v %v %v", u.Name, x, p, lp1, dx1, dp1, lp2, dx2, dp2)
				}
				lp3, dx3 := dh.EvalData(x, p, hs, ds, nil)
				if !same(lp1, lp3) || !same(dx1, dx3) {
					t.Errorf("%s(%g | %v) without partials: %v %v, want %v %v", u.Name, x, p, lp3, dx3, lp1, dx1)
				}
				if hs != nil { // without the hoisted state: the Kernel's numbers
					lp4, dx4 := dh.EvalData(x, p, nil, ds, dp2)
					if !same(lp1, lp4) || !same(dx1, dx4) || !same(dp1[len(dp1)-1], dp2[len(dp2)-1]) {
						t.Errorf("%s(%g | %v) without hoisted state: %v %v, want %v %v", u.Name, x, p, lp4, dx4, lp1, dx1)
					}
				}
			}
		}
		walk(0)
		if run, ok := dh.(DataRun); ok {
			checkDataRun(t, u, run, grids[u.Params[0].Support], xs)
		}
		if run, ok := dh.(DataArgRun); ok {
			argRuns = append(argRuns, u.Name)
			checkDataArgRun(t, u, run, grids[u.Params[0].Support], grids[u.Params[1].Support], xs)
		}
	}
	want := []string{"Poisson", "PoissonLog", "Binomial", "BinomialLogit", "NegBinomial", "NegBinomialLog", "ZeroInflatedNegBinomial", "HurdleNegBinomial"}
	if want := []string{"Binomial", "BinomialLogit"}; !slices.Equal(argRuns, want) {
		t.Errorf("families with a DataArgRun %v, want %v", argRuns, want)
	}
	if !slices.Equal(families, want) {
		t.Errorf("families with data-hoisted kernels %v, want %v", families, want)
	}
}

// checkDataRun compares a DataRun's runs with the Kernel element by
// element: every value against every argument of the grid (a run with
// an argument per element), and each value against one argument (pc 0)
// and one value against every argument (xc 0); the sum in element order.
func checkDataRun(t *testing.T, u *Univariate, run DataRun, args, xs []float64) {
	t.Helper()
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	sl := run.DataStateLen()
	check := func(x []float64, xc int, p []float64, pc, n int) {
		s := make([]float64, n*sl)
		for j := range n {
			run.PrepareData(x[j*xc], nil, s[j*sl:j*sl+sl])
		}
		lp, dx, dp := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range dx {
			dx[i], dp[i] = 7, 7 // overwritten
		}
		sum := run.EvalDataRun(0.5, x, xc, p, pc, s, lp, dx, dp)
		want, d := 0.5, []float64{0}
		for j := range n {
			l, dxj := u.Kernel(x[j*xc], p[j*pc:j*pc+1], d)
			want += l
			if !same(l, lp[j]) || !same(dxj, dx[j]) || !same(d[0], dp[j]) {
				t.Errorf("%s run (%g | %g): %v %v %v, kernel %v %v %v", u.Name, x[j*xc], p[j*pc], lp[j], dx[j], dp[j], l, dxj, d[0])
			}
		}
		if !same(sum, want) {
			t.Errorf("%s run: sum %v, want %v", u.Name, sum, want)
		}
		if s2 := run.EvalDataRun(0.5, x, xc, p, pc, s, nil, dx, dp); !same(s2, sum) {
			t.Errorf("%s run without log densities: sum %v, want %v", u.Name, s2, sum)
		}
	}
	var x, p []float64
	for _, xv := range xs {
		for _, pv := range args {
			x, p = append(x, xv), append(p, pv)
		}
	}
	check(x, 1, p, 1, len(x))
	for _, pv := range args {
		check(xs, 1, []float64{pv}, 0, len(xs))
	}
	for _, xv := range xs {
		check([]float64{xv}, 0, args, 1, len(args))
	}
}

// checkDataArgRun is checkDataRun for a DataArgRun: every value against
// every pair of data argument and argument (a run with both per element),
// each value against one pair (dc, pc 0), and one value and data argument
// against every argument (xc, dc 0).
func checkDataArgRun(t *testing.T, u *Univariate, run DataArgRun, data, args, xs []float64) {
	t.Helper()
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	sl := run.DataStateLen()
	check := func(x []float64, xc int, d []float64, dc int, p []float64, pc, n int) {
		s := make([]float64, n*sl)
		for j := range n {
			run.PrepareData(x[j*xc], []float64{d[j*dc], math.NaN()}, s[j*sl:j*sl+sl])
		}
		lp, dx, dp := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range dx {
			dx[i], dp[i] = 7, 7 // overwritten
		}
		sum := run.EvalDataArgRun(0.5, x, xc, d, dc, p, pc, s, lp, dx, dp)
		want, g := 0.5, []float64{0, 0}
		for j := range n {
			l, dxj := u.Kernel(x[j*xc], []float64{d[j*dc], p[j*pc]}, g)
			want += l
			if !same(l, lp[j]) || !same(dxj, dx[j]) || !same(g[1], dp[j]) {
				t.Errorf("%s run (%g | %g, %g): %v %v %v, kernel %v %v %v", u.Name, x[j*xc], d[j*dc], p[j*pc], lp[j], dx[j], dp[j], l, dxj, g[1])
			}
		}
		if !same(sum, want) {
			t.Errorf("%s run: sum %v, want %v", u.Name, sum, want)
		}
		if s2 := run.EvalDataArgRun(0.5, x, xc, d, dc, p, pc, s, nil, dx, dp); !same(s2, sum) {
			t.Errorf("%s run without log densities: sum %v, want %v", u.Name, s2, sum)
		}
	}
	var x, d, p []float64
	for _, xv := range xs {
		for _, dv := range data {
			for _, pv := range args {
				x, d, p = append(x, xv), append(d, dv), append(p, pv)
			}
		}
	}
	check(x, 1, d, 1, p, 1, len(x))
	for _, dv := range data {
		for _, pv := range args {
			check(xs, 1, []float64{dv}, 0, []float64{pv}, 0, len(xs))
		}
	}
	for _, xv := range xs {
		for _, dv := range data {
			check([]float64{xv}, 0, []float64{dv}, 0, args, 1, len(args))
		}
	}
	if len(x) == 0 {
		t.Errorf("%s: no run checked", u.Name)
	}
}

// The data states hold the work they are meant to: a count's state is not
// a copy of the count (whose kernel would then recompute log k!). Poisson
// at k = 16: stirlerr(16) and ½ log(2π·16); at k = 3: log 3! = log 6.
func TestDataHoistedState(t *testing.T) {
	s := make([]float64, poissonDataState)
	poissonData{}.PrepareData(16, nil, s)
	if s[0] != dataLarge || s[1] != stirlerr(16) || s[2] != 0.5*(ln2Pi+math.Log(16)) {
		t.Errorf("Poisson state of 16 = %v", s)
	}
	poissonData{}.PrepareData(3, nil, s)
	if s[0] != dataSmall || math.Abs(s[1]-math.Log(6)) > 1e-15 {
		t.Errorf("Poisson state of 3 = %v", s)
	}
	b := make([]float64, binomialDataState)
	prepareBinomialData(4, 20, b) // log C(20, 4) = log 4845
	if b[0] != dataLarge || math.Abs(b[3]-math.Log(4845)) > 1e-13 {
		t.Errorf("Binomial state of 4 of 20 = %v", b)
	}
}

// BenchmarkDataHoistedKernel times the data-hoisted kernels against the
// Kernel per call (no tape) over counts like PMF's digits (0–16, half of
// them 0), with a mean per count; NegBinomial's dispersion is one value,
// prepared once, and its kernel path is the Hoisted one.
func BenchmarkDataHoistedKernel(b *testing.B) {
	const n = 4096
	rng := rand.New(rand.NewPCG(7, 8))
	ks := make([]float64, n)
	for j := range ks {
		if rng.IntN(2) == 1 {
			ks[j] = float64(1 + rng.IntN(16))
		}
	}
	for _, c := range []struct {
		family string
		param  func(k float64) []float64
	}{
		{"Poisson", func(float64) []float64 { return []float64{0.05 + 15*rng.Float64()} }},
		{"PoissonLog", func(float64) []float64 { return []float64{-2 + 4.5*rng.Float64()} }},
		{"NegBinomial", func(float64) []float64 { return []float64{0.05 + 15*rng.Float64(), 4} }},
		{"Binomial", func(k float64) []float64 { return []float64{k + float64(rng.IntN(20)), 0.05 + 0.9*rng.Float64()} }},
	} {
		u, _ := LookupUnivariate(c.family)
		dh := u.DataHoisted
		np, sl := len(u.Params), dh.DataStateLen()
		ps, ds := make([]float64, n*np), make([]float64, n*sl)
		for j, k := range ks {
			copy(ps[j*np:], c.param(k))
			dh.PrepareData(k, ps[j*np:j*np+np], ds[j*sl:j*sl+sl])
		}
		var hs []float64
		if u.Hoisted != nil {
			hs = make([]float64, u.Hoisted.StateLen())
			u.Hoisted.Prepare(ps[:np], hs)
		}
		dp := make([]float64, np)
		for _, hoist := range []bool{true, false} {
			name := c.family + "/data-hoisted"
			if !hoist {
				name = c.family + "/kernel"
			}
			b.Run(name, func(b *testing.B) {
				sum := 0.0
				for b.Loop() {
					for j, k := range ks {
						p := ps[j*np : j*np+np]
						var lp float64
						switch {
						case hoist:
							lp, _ = dh.EvalData(k, p, hs, ds[j*sl:j*sl+sl], dp)
						case hs != nil:
							lp, _ = u.Hoisted.Eval(k, p, hs, dp)
						default:
							lp, _ = u.Kernel(k, p, dp)
						}
						sum += lp
					}
				}
				if math.IsNaN(sum) {
					b.Fatal("NaN log mass")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
			})
		}
	}
}
