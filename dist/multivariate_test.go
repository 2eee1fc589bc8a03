package dist

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
)

// Tolerances of the multivariate tests.
const (
	mvPartialTol = 1e-6  // analytic vs finite difference, relative to max(1, |partial|)
	mvGonumTol   = 1e-12 // log density vs gonum's distmv
	mvRowsTol    = 1e-10 // MvNormalRows vs the sum over rows of MvNormal
)

// randSPD returns a random d×d symmetric positive definite matrix A·A' + I/2.
func randSPD(d int, rng *rand.Rand) []float64 {
	a := make([]float64, d*d)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	s := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			var v float64
			for k := 0; k < d; k++ {
				v += a[i*d+k] * a[j*d+k]
			}
			s[i*d+j] = v / float64(d)
		}
		s[i*d+i] += 0.5
	}
	return s
}

func randVec(d int, rng *rand.Rand, scale float64) []float64 {
	v := make([]float64, d)
	for i := range v {
		v[i] = scale * rng.NormFloat64()
	}
	return v
}

// checkSymGrad compares a gradient with respect to a symmetric matrix with
// finite differences along symmetric perturbations E_ij + E_ji (E_ii on the
// diagonal), which change f by g_ij + g_ji (g_ii).
func checkSymGrad(t *testing.T, what string, g, sigma []float64, d int, f func(s []float64) float64) {
	t.Helper()
	s := append([]float64(nil), sigma...)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			h := func(e float64) float64 {
				copy(s, sigma)
				s[i*d+j] += e
				if i != j {
					s[j*d+i] += e
				}
				return f(s)
			}
			want := fd.Derivative(h, 0, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			got := g[i*d+j]
			if i != j {
				got += g[j*d+i]
			}
			if e := math.Abs(got-want) / math.Max(1, math.Abs(got)); !(e <= mvPartialTol) {
				t.Errorf("%s: ∂/∂Σ[%d,%d] (symmetric) = %.10g, finite difference %.10g", what, i, j, got, want)
			}
			if g[i*d+j] != g[j*d+i] {
				t.Errorf("%s: gradient not symmetric at [%d,%d]", what, i, j)
			}
		}
	}
}

func checkVecGrad(t *testing.T, what string, g, x []float64, f func([]float64) float64) {
	t.Helper()
	want := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	for i := range g {
		if e := math.Abs(g[i]-want[i]) / math.Max(1, math.Abs(g[i])); !(e <= mvPartialTol) {
			t.Errorf("%s[%d] = %.10g, finite difference %.10g", what, i, g[i], want[i])
		}
	}
}

func TestMvNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, d := range []int{1, 2, 5} {
		for range 3 {
			sigma := randSPD(d, rng)
			mu := randVec(d, rng, 2)
			x := randVec(d, rng, 2)
			w := NewMvWork(d)
			m := MvNormal{mu, sigma}
			dx, dmu, dsigma := make([]float64, d), make([]float64, d), make([]float64, d*d)
			lp, err := m.Grad(dx, dmu, dsigma, x, w)
			if err != nil {
				t.Fatal(err)
			}
			ref, ok := distmv.NewNormal(mu, mat.NewSymDense(d, append([]float64(nil), sigma...)), nil)
			if !ok {
				t.Fatal("gonum rejects the covariance")
			}
			if want := ref.LogProb(x); math.Abs(lp-want) > mvGonumTol*math.Max(1, math.Abs(want)) {
				t.Errorf("d=%d: LogProb %.17g, gonum %.17g", d, lp, want)
			}
			if lp2, _ := m.LogProb(x, w); lp2 != lp {
				t.Errorf("d=%d: LogProb %v differs from Grad %v", d, lp2, lp)
			}
			logp := func(m MvNormal, x []float64) float64 {
				v, err := m.LogProb(x, nil)
				if err != nil {
					return math.NaN()
				}
				return v
			}
			checkVecGrad(t, "MvNormal dx", dx, x, func(x []float64) float64 { return logp(m, x) })
			checkVecGrad(t, "MvNormal dmu", dmu, mu, func(mu []float64) float64 { return logp(MvNormal{mu, sigma}, x) })
			checkSymGrad(t, "MvNormal", dsigma, sigma, d, func(s []float64) float64 { return logp(MvNormal{mu, s}, x) })
		}
	}
}

// TestMvNormalReadsLowerTriangle: the upper triangle of Sigma is ignored.
func TestMvNormalReadsLowerTriangle(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	sigma := randSPD(3, rng)
	mu, x := randVec(3, rng, 1), randVec(3, rng, 1)
	want, _ := MvNormal{mu, sigma}.LogProb(x, nil)
	s := append([]float64(nil), sigma...)
	s[1], s[2], s[5] = 99, math.NaN(), -4 // upper triangle
	if got, err := (MvNormal{mu, s}).LogProb(x, nil); err != nil || got != want {
		t.Errorf("upper triangle changed the result: %v, %v (want %v)", got, err, want)
	}
}

func TestMvNormalNotPositiveDefinite(t *testing.T) {
	w := NewMvWork(2)
	dx, dmu, ds := make([]float64, 2), make([]float64, 2), make([]float64, 4)
	for _, sigma := range [][]float64{{1, 2, 2, 1}, {0, 0, 0, 1}, {1, 0, math.NaN(), 1}, {math.Inf(1), 0, 0, 1}} {
		lp, err := MvNormal{[]float64{0, 0}, sigma}.Grad(dx, dmu, ds, []float64{1, 1}, w)
		if !errors.Is(err, ErrNotPositiveDefinite) || !math.IsNaN(lp) {
			t.Errorf("Sigma %v: (%v, %v), want NaN and ErrNotPositiveDefinite", sigma, lp, err)
		}
		for _, v := range append(append(dx, dmu...), ds...) {
			if !math.IsNaN(v) {
				t.Errorf("Sigma %v: partials not NaN", sigma)
				break
			}
		}
		lp, err = MvNormalRows{[]float64{0, 0}, sigma}.LogProb(NewRowStats([]float64{1, 2, 3, 4}, 2), w)
		if !errors.Is(err, ErrNotPositiveDefinite) || !math.IsNaN(lp) {
			t.Errorf("MvNormalRows, Sigma %v: (%v, %v)", sigma, lp, err)
		}
	}
}

func TestMvNormalRand(t *testing.T) {
	const d, n = 3, 40000
	rng := rand.New(rand.NewPCG(25, 26))
	sigma := randSPD(d, rng)
	mu := randVec(d, rng, 2)
	m := MvNormal{mu, sigma}
	w := NewMvWork(d)
	xs := make([][]float64, d)
	prods := make([][]float64, d*d)
	for i := range xs {
		xs[i] = make([]float64, n)
	}
	for i := range prods {
		prods[i] = make([]float64, n)
	}
	x := make([]float64, d)
	for k := range n {
		if _, err := m.Rand(x, w, rng); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < d; i++ {
			xs[i][k] = x[i]
			for j := 0; j < d; j++ {
				prods[i*d+j][k] = (x[i] - mu[i]) * (x[j] - mu[j])
			}
		}
	}
	for i := 0; i < d; i++ {
		checkMean(t, "MvNormal mean", xs[i], mu[i])
		for j := 0; j < d; j++ {
			checkMean(t, "MvNormal covariance", prods[i*d+j], sigma[i*d+j])
		}
	}
}

func TestMvNormalRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	for _, c := range []struct{ d, n int }{{1, 5}, {3, 1}, {4, 30}, {6, 200}} {
		d, n := c.d, c.n
		sigma := randSPD(d, rng)
		mu := randVec(d, rng, 1)
		y := make([]float64, n*d)
		for i := range y {
			y[i] = 100 + 3*rng.NormFloat64() // a large mean tests the centring
		}
		stats := NewRowStats(y, d)
		w := NewMvWork(d)
		dmu, dsigma := make([]float64, d), make([]float64, d*d)
		lp, err := MvNormalRows{mu, sigma}.Grad(dmu, dsigma, stats, w)
		if err != nil {
			t.Fatal(err)
		}
		// Against the sum over rows of MvNormal.
		var want float64
		wmu, wsig := make([]float64, d), make([]float64, d*d)
		rmu, rsig := make([]float64, d), make([]float64, d*d)
		for i := 0; i < n; i++ {
			v, err := MvNormal{mu, sigma}.Grad(nil, rmu, rsig, y[i*d:(i+1)*d], w)
			if err != nil {
				t.Fatal(err)
			}
			want += v
			for j := range rmu {
				wmu[j] += rmu[j]
			}
			for j := range rsig {
				wsig[j] += rsig[j]
			}
		}
		if math.Abs(lp-want) > mvRowsTol*math.Abs(want) {
			t.Errorf("d=%d n=%d: log density %.15g, sum over rows %.15g", d, n, lp, want)
		}
		for j := range wmu {
			if math.Abs(dmu[j]-wmu[j]) > mvRowsTol*math.Max(1, math.Abs(wmu[j])) {
				t.Errorf("d=%d n=%d: dmu[%d] = %v, sum over rows %v", d, n, j, dmu[j], wmu[j])
			}
		}
		for j := range wsig {
			if math.Abs(dsigma[j]-wsig[j]) > mvRowsTol*math.Max(1, math.Abs(wsig[j])) {
				t.Errorf("d=%d n=%d: dsigma[%d] = %v, sum over rows %v", d, n, j, dsigma[j], wsig[j])
			}
		}
		logp := func(mu, s []float64) float64 {
			v, err := MvNormalRows{mu, s}.LogProb(stats, nil)
			if err != nil {
				return math.NaN()
			}
			return v
		}
		if d <= 4 {
			checkVecGrad(t, "MvNormalRows dmu", dmu, mu, func(m []float64) float64 { return logp(m, sigma) })
			checkSymGrad(t, "MvNormalRows", dsigma, sigma, d, func(s []float64) float64 { return logp(mu, s) })
		}
		// The raw sums give the same statistics.
		sum, outer := make([]float64, d), make([]float64, d*d)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				sum[j] += y[i*d+j]
				for k := 0; k < d; k++ {
					outer[j*d+k] += y[i*d+j] * y[i*d+k]
				}
			}
		}
		var s2 RowStats
		s2.SetSums(n, sum, outer)
		lp2, _ := MvNormalRows{mu, sigma}.LogProb(&s2, w)
		if math.Abs(lp2-lp) > 1e-8*math.Abs(lp) { // the raw sums lose digits to the mean of 100
			t.Errorf("d=%d n=%d: from raw sums %.15g, from rows %.15g", d, n, lp2, lp)
		}
	}
	// No rows: log density 0, partials 0.
	s := NewRowStats(nil, 2)
	dmu, dsig := make([]float64, 2), make([]float64, 4)
	if lp, err := (MvNormalRows{[]float64{1, 2}, []float64{1, 0, 0, 1}}).Grad(dmu, dsig, s, nil); lp != 0 || err != nil {
		t.Errorf("no rows: %v, %v", lp, err)
	}
}

func TestMvAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	for _, d := range []int{3, 40} {
		sigma := randSPD(d, rng)
		mu, x := randVec(d, rng, 1), randVec(d, rng, 1)
		y := make([]float64, 10*d)
		for i := range y {
			y[i] = rng.NormFloat64()
		}
		stats := NewRowStats(y, d)
		w := NewMvWork(d)
		dx, dmu, ds := make([]float64, d), make([]float64, d), make([]float64, d*d)
		var sink float64
		if n := testing.AllocsPerRun(10, func() {
			v, _ := MvNormal{mu, sigma}.Grad(dx, dmu, ds, x, w)
			sink += v
		}); n != 0 {
			t.Errorf("d=%d: MvNormal.Grad makes %v allocations", d, n)
		}
		if n := testing.AllocsPerRun(10, func() {
			v, _ := MvNormalRows{mu, sigma}.Grad(dmu, ds, stats, w)
			sink += v
		}); n != 0 {
			t.Errorf("d=%d: MvNormalRows.Grad makes %v allocations", d, n)
		}
		_ = sink
	}
}

func TestMvPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"work dim":  func() { MvNormal{[]float64{0, 0}, []float64{1, 0, 0, 1}}.LogProb([]float64{0, 0}, NewMvWork(3)) },
		"x length":  func() { MvNormal{[]float64{0, 0}, []float64{1, 0, 0, 1}}.LogProb([]float64{0}, nil) },
		"sigma len": func() { MvNormal{[]float64{0, 0}, []float64{1, 0, 0}}.LogProb([]float64{0, 0}, nil) },
		"dst len":   func() { MvNormal{[]float64{0}, []float64{1}}.Grad(make([]float64, 2), nil, nil, []float64{0}, nil) },
		"rows":      func() { NewRowStats([]float64{1, 2, 3}, 2) },
		"dirichlet": func() { Dirichlet{[]float64{1, 1}}.LogProb([]float64{1}) },
	} {
		func() {
			defer func() {
				if r := recover(); r != errDim && r != errLength {
					t.Errorf("%s: recovered %v", name, r)
				}
			}()
			f()
		}()
	}
}

func TestDirichlet(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, k := range []int{2, 3, 6} {
		for range 3 {
			alpha := make([]float64, k)
			for i := range alpha {
				alpha[i] = 0.2 + 4*rng.Float64()
			}
			d := Dirichlet{alpha}
			x := d.Rand(nil, rng)
			for i := range x { // keep away from 0 for the finite differences
				x[i] = 0.05 + x[i]
			}
			var s float64
			for _, v := range x {
				s += v
			}
			for i := range x {
				x[i] /= s
			}
			dx, da := make([]float64, k), make([]float64, k)
			lp := d.Grad(dx, da, x)
			if want := distmv.NewDirichlet(alpha, nil).LogProb(x); math.Abs(lp-want) > mvGonumTol*math.Max(1, math.Abs(want)) {
				t.Errorf("K=%d: LogProb %.17g, gonum %.17g", k, lp, want)
			}
			checkVecGrad(t, "Dirichlet dalpha", da, alpha, func(a []float64) float64 { return Dirichlet{a}.LogProb(x) })
			checkVecGrad(t, "Dirichlet dx", dx, x, func(x []float64) float64 { return d.eval(nil, nil, x, false, false) })
			logx := make([]float64, k)
			for i, v := range x {
				logx[i] = math.Log(v)
			}
			dl, da2 := make([]float64, k), make([]float64, k)
			lp2 := d.GradLog(dl, da2, logx)
			if math.Abs(lp2-lp) > 1e-13*math.Max(1, math.Abs(lp)) {
				t.Errorf("K=%d: GradLog %v, Grad %v", k, lp2, lp)
			}
			for i := range dl {
				if math.Abs(dl[i]-x[i]*dx[i]) > 1e-13*math.Max(1, math.Abs(dl[i])) || math.Abs(da2[i]-da[i]) > 1e-13*math.Max(1, math.Abs(da[i])) {
					t.Errorf("K=%d: GradLog partials differ from Grad at %d", k, i)
				}
			}
		}
	}
	// Log space keeps underflowed components: α = (0.01, 0.01, 5).
	d := Dirichlet{[]float64{0.01, 0.01, 5}}
	logx := []float64{-800, -1200, 0}
	if lp := d.GradLog(nil, nil, logx); math.IsInf(lp, 0) || math.IsNaN(lp) {
		t.Errorf("GradLog with underflowing components = %v", lp)
	}
	// Conventions.
	if lp := d.LogProb([]float64{0.5, 0.4, 0.2}); !math.IsInf(lp, -1) {
		t.Errorf("off the simplex: %v", lp)
	}
	if lp := d.LogProb([]float64{0, 0.5, 0.5}); !math.IsInf(lp, -1) {
		t.Errorf("on the boundary: %v", lp)
	}
	if lp := (Dirichlet{[]float64{1, -1}}).LogProb([]float64{0.5, 0.5}); !math.IsNaN(lp) {
		t.Errorf("invalid alpha: %v", lp)
	}
	// Rand: mean α_i/α₀ and variance α_i(α₀−α_i)/(α₀²(α₀+1)).
	alpha := []float64{0.3, 2, 5}
	const n = 40000
	comp := [][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
	x := make([]float64, 3)
	for j := range n {
		Dirichlet{alpha}.Rand(x, rng)
		for i := range x {
			comp[i][j] = x[i]
		}
	}
	a0 := 7.3
	mean := Dirichlet{alpha}.Mean(nil)
	for i, a := range alpha {
		if math.Abs(mean[i]-a/a0) > 1e-15 {
			t.Errorf("Mean[%d] = %v", i, mean[i])
		}
		checkMean(t, "Dirichlet mean", comp[i], a/a0)
		checkVariance(t, "Dirichlet variance", comp[i], a*(a0-a)/(a0*a0*(a0+1)))
	}
}

func TestMultivariateRegistry(t *testing.T) {
	for _, name := range []string{"MvNormal", "MvNormalRows", "Dirichlet"} {
		m, ok := LookupMultivariate(name)
		if !ok || m.Name != name || m.Doc == "" || len(m.Params) == 0 {
			t.Errorf("LookupMultivariate(%q) = %v, %v", name, m, ok)
		}
	}
	if m, _ := LookupMultivariate("Dirichlet"); m.Support != Simplex || m.Params[0].Support != Positive {
		t.Errorf("Dirichlet descriptor %+v", m)
	}
	if _, ok := LookupMultivariate("Wishart"); ok {
		t.Error("found Wishart")
	}
}
