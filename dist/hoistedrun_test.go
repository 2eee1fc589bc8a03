package dist

import (
	"math"
	"slices"
	"testing"
)

// EvalRun gives Eval's numbers bit for bit over the grid of
// TestHoistedKernels: every value against every per-element argument, for
// every set of hoisted arguments, with the elements it leaves to Eval done
// by Eval as the tape does; the hoisted arguments' partials summed in
// element order (RunArg.Sum) or kept per element (RunArg.D).
func TestHoistedRuns(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	locs := []float64{-1e300, -800, -3, -1e-300, 0, 0.5, 2, 709.5, 800, 1e12, nan, inf, -inf}
	scales := []float64{1e-300, 1e-3, 0.5, 1, 2, 2.5, 9.5, 10, 40, 999.5, 1000, 1e5, 1e200, 0, -1, -inf, nan, inf}
	xs := []float64{-800, -3, -1, -1e-300, 0, 0x1p-1060, 1e-300, 1e-3, 0.25, 0.5, 0.9, 1 - 0x1p-53, 1, 2.5, 3, 7, 12, 50,
		1e3, 1e12, 1e300, 1e9, -1e9, nan, inf, -inf}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	var runs []string
	for _, u := range Univariates {
		h, ok := u.Hoisted.(HoistedRun)
		if !ok {
			continue
		}
		runs = append(runs, u.Name)
		np := len(u.Params)
		grids := make([][]float64, np)
		for i, p := range u.Params {
			grids[i] = locs
			if p.Support == Positive {
				grids[i] = scales
			}
		}
		hoisted := func(i int) bool { return h.HoistArgs()&(1<<i) != 0 }
		// The elements: every value against every per-element argument.
		elems := [][]float64{{}}
		for i := range np {
			if hoisted(i) {
				continue
			}
			var next [][]float64
			for _, e := range elems {
				for _, v := range grids[i] {
					next = append(next, append(slices.Clone(e), v))
				}
			}
			elems = next
		}
		var x []float64
		cols := make([][]float64, np) // per-element arguments, by element
		for _, e := range elems {
			for _, v := range xs {
				x = append(x, v)
				k := 0
				for i := range np {
					if !hoisted(i) {
						cols[i] = append(cols[i], e[k])
						k++
					}
				}
			}
		}
		n := len(x)
		state := make([]float64, h.StateLen())
		p, dp := make([]float64, np), make([]float64, np)
		hv := make([]float64, np) // the hoisted arguments' values
		ran := 0
		var walk func(i int)
		walk = func(i int) {
			if i < np {
				if !hoisted(i) {
					walk(i + 1)
					return
				}
				for _, v := range grids[i] {
					hv[i] = v
					walk(i + 1)
				}
				return
			}
			for i := range p {
				p[i] = nan
				if hoisted(i) {
					p[i] = hv[i]
				}
			}
			h.Prepare(p, state)
			// Eval, element by element, as the tape's loop.
			arg := func(i, j int) float64 {
				if hoisted(i) {
					return hv[i]
				}
				return cols[i][j]
			}
			wantLP, wantDX := make([]float64, n), make([]float64, n)
			wantD := make([][]float64, np)
			wantSum, wantAcc := 0.0, make([]float64, np)
			for i := range wantD {
				wantD[i] = make([]float64, n)
			}
			for j := range n {
				for i := range p {
					p[i] = arg(i, j)
				}
				wantLP[j], wantDX[j] = h.Eval(x[j], p, state, dp)
				wantSum += wantLP[j]
				for i, d := range dp {
					wantD[i][j] = d
					wantAcc[i] += d
				}
			}
			for _, sum := range []bool{true, false} {
				lp, dx := make([]float64, n), make([]float64, n)
				d := make([][]float64, np)
				acc := make([]float64, np)
				for i := range d {
					d[i] = make([]float64, n)
				}
				ra := make([]RunArg, np)
				total, j := 0.0, 0
				for j < n {
					for i := range ra {
						switch {
						case hoisted(i) && sum:
							ra[i] = RunArg{V: hv[i : i+1], Sum: &acc[i]}
						case hoisted(i):
							ra[i] = RunArg{V: hv[i : i+1], D: d[i][j:]}
						default:
							ra[i] = RunArg{V: cols[i][j:], C: 1, D: d[i][j:]}
						}
					}
					var done int
					total, done = h.EvalRun(total, n-j, x[j:], 1, ra, state, lp[j:], dx[j:])
					ran += done
					checkRunSums(t, u.Name, h, ra, state, x[j:j+done], wantLP[j:j+done], wantD, j)
					if j += done; j == n {
						break
					}
					for i := range p {
						p[i] = arg(i, j)
					}
					lp[j], dx[j] = h.Eval(x[j], p, state, dp)
					total += lp[j]
					for i, v := range dp {
						if hoisted(i) && sum {
							acc[i] += v
						} else {
							d[i][j] = v
						}
					}
					j++
				}
				if !same(total, wantSum) {
					t.Errorf("%s %v (sum %v): run %v, Eval %v", u.Name, hv, sum, total, wantSum)
				}
				for j := range n {
					ok := same(lp[j], wantLP[j]) && same(dx[j], wantDX[j])
					for i := range np {
						ok = ok && (hoisted(i) && sum || same(d[i][j], wantD[i][j]))
					}
					if !ok {
						t.Errorf("%s(%g | element %d, %v): run %v %v, Eval %v %v", u.Name, x[j], j, hv, lp[j], dx[j], wantLP[j], wantDX[j])
					}
				}
				for i := range np {
					if hoisted(i) && sum && !same(acc[i], wantAcc[i]) {
						t.Errorf("%s %v: argument %d's summed partial %v, Eval's %v", u.Name, hv, i, acc[i], wantAcc[i])
					}
				}
			}
		}
		walk(0)
		if ran == 0 {
			t.Errorf("%s: EvalRun evaluated no element", u.Name)
		}
	}
	want := []string{"Normal", "StudentT", "LogNormal", "Gamma", "Cauchy", "Laplace", "HalfNormal", "HalfCauchy",
		"Exponential", "InvGamma", "Beta", "BetaProportion"}
	slices.Sort(runs)
	slices.Sort(want)
	if !slices.Equal(runs, want) {
		t.Errorf("families with runs %v, want %v", runs, want)
	}
}

// checkRunSums evaluates the run again from finite running sums and checks
// that EvalRun adds its elements' log densities and summed partials to
// them in element order (TestHoistedRuns' totals are NaN once an element
// Eval does is invalid, so they alone would not see it). The run starts
// at element j; x and wantLP are its elements'.
func checkRunSums(t *testing.T, name string, h HoistedRun, ra []RunArg, state, x, wantLP []float64, wantD [][]float64, j int) {
	t.Helper()
	const start = 0.5 // not 0, so a sum that is not read from its start shows
	rb := slices.Clone(ra)
	acc := make([]float64, len(ra))
	for i := range rb {
		if rb[i].Sum != nil {
			acc[i] = start
			rb[i].Sum = &acc[i]
		}
	}
	n := len(x)
	total, done := h.EvalRun(start, n, x, 1, rb, state, nil, nil)
	if done != n {
		t.Fatalf("%s: the run again did %d elements, first %d", name, done, n)
	}
	want := start
	for _, l := range wantLP {
		want += l
	}
	if math.Float64bits(total) != math.Float64bits(want) && !(math.IsNaN(total) && math.IsNaN(want)) {
		t.Errorf("%s, run from element %d: total %v, Eval's in order %v", name, j, total, want)
	}
	for i := range rb {
		if rb[i].Sum == nil {
			continue
		}
		w := start
		for k := range n {
			w += wantD[i][j+k]
		}
		if math.Float64bits(acc[i]) != math.Float64bits(w) && !(math.IsNaN(acc[i]) && math.IsNaN(w)) {
			t.Errorf("%s, run from element %d: argument %d's summed partial %v, Eval's in order %v", name, j, i, acc[i], w)
		}
	}
}
