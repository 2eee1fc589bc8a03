package dist

import "math"

// Runs of a Hoisted kernel: in a regression (y ~ Normal(a + b * x, s))
// the tape's per-element loop, one interface call and the set-up of the
// argument slices per observation, costs more than the kernel. EvalRun
// evaluates a run of elements in one call with Eval's arithmetic in Eval's
// order, so every number is Eval's bit for bit (TestHoistedRuns).

// RunArg is one argument of a run (HoistedRun.EvalRun): element j reads
// V[j*C]. Its partial goes to D[j], or, where Sum is set, is added to *Sum
// in the order of the elements (a broadcast argument whose partials the
// caller would only sum); with neither it is not kept.
type RunArg struct {
	V   []float64
	C   int
	D   []float64
	Sum *float64
}

// HoistedRun is a Hoisted kernel that evaluates a run of elements in one
// call.
type HoistedRun interface {
	Hoisted
	// EvalRun evaluates elements j = 0, 1, …, n−1 of a run from the
	// hoisted state s and adds their log densities to sum, in order:
	// element j has value x[j*xc] and arguments a (one RunArg each); its
	// log density goes to lp[j] and its value partial to dx[j] unless lp
	// or dx is nil. Every number is Eval's, bit for bit. It stops before
	// the first element that is not the common case (an invalid argument,
	// a value outside the support), which it leaves to Eval, and returns
	// the sum and the number of elements done.
	EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int)
}

// runSums reads the running sums of the arguments that sum their partials.
func runSums(a []RunArg) (s0, s1 float64) {
	return runSum(&a[0]), runSum(&a[1])
}

// putSums writes back the running sums runSums read.
func putSums(a []RunArg, s0, s1 float64) {
	putSum(&a[0], s0)
	putSum(&a[1], s1)
}

// put keeps partial d of element j as r asks (RunArg): in D[j], or added
// to acc, r's running sum, which it returns. It is small enough to be
// inlined, so the runs make no call per element for it.
func (r *RunArg) put(j int, d, acc float64) float64 {
	if r.D != nil {
		r.D[j] = d
	} else if r.Sum != nil {
		acc += d
	}
	return acc
}

// runSum reads the running sum of an argument that sums its partials.
func runSum(r *RunArg) float64 {
	if r.Sum != nil {
		return *r.Sum
	}
	return 0
}

// putSum writes back the running sum runSum read.
func putSum(r *RunArg, acc float64) {
	if r.Sum != nil {
		*r.Sum = acc
	}
}

// EvalRun implements HoistedRun with Eval's arithmetic.
func (normalHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] == 0 {
		return sum, 0
	}
	ls := s[1]
	m, g := &a[0], &a[1]
	s0, s1 := runSums(a)
	j := 0
	for ; j < n; j++ {
		xj, mu, sigma := x[j*xc], m.V[j*m.C], g.V[j*g.C]
		if !finite(mu) || !finite(xj) { // Eval's invalid or outside
			break
		}
		z := (xj - mu) / sigma
		l := -0.5*z*z - ls - lnSqrt2Pi
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = -z / sigma
		}
		s0 = m.put(j, z/sigma, s0)
		s1 = g.put(j, (z*z-1)/sigma, s1)
	}
	putSums(a, s0, s1)
	return sum, j
}

// EvalRun implements HoistedRun with Eval's arithmetic.
func (logNormalHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] == 0 {
		return sum, 0
	}
	ls := s[1]
	m, g := &a[0], &a[1]
	s0, s1 := runSums(a)
	j := 0
	for ; j < n; j++ {
		xj, mu, sigma := x[j*xc], m.V[j*m.C], g.V[j*g.C]
		if !finite(mu) || !(xj > 0) || !finite(xj) { // Eval's invalid or outside
			break
		}
		y := logx(xj)
		z := (y - mu) / sigma
		l := -y - ls - lnSqrt2Pi - 0.5*z*z
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = -(1 + z/sigma) / xj
		}
		s0 = m.put(j, z/sigma, s0)
		s1 = g.put(j, (z*z-1)/sigma, s1)
	}
	putSums(a, s0, s1)
	return sum, j
}

// EvalRun implements HoistedRun with Eval's arithmetic.
func (studentTHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] == 0 {
		return sum, 0
	}
	v, m, g := &a[0], &a[1], &a[2]
	s0, s1, s2 := runSum(v), runSum(m), runSum(g)
	j := 0
	for ; j < n; j++ {
		xj, nu, mu, sigma := x[j*xc], v.V[j*v.C], m.V[j*m.C], g.V[j*g.C]
		if !finite(mu) || !finite(xj) { // Eval's invalid or outside
			break
		}
		z := (xj - mu) / sigma
		q := z * z / nu
		w := 1 / (1 + q)
		omw := q * w
		if !(q < 1) {
			omw = 1 - w
		}
		var l1p float64
		if math.Abs(z) > 1e8 {
			l1p = 2*logx(math.Abs(z)) - s[3] + math.Log1p(1/q)
		} else {
			l1p = math.Log1p(q)
		}
		h := 0.5 * (nu + 1)
		l := s[1]
		l -= s[2] + h*l1p
		dmu := 2 * h * z * w / (nu * sigma)
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = -dmu
		}
		s0 = v.put(j, s[4]-0.5*l1p+h*omw/nu, s0)
		s1 = m.put(j, dmu, s1)
		s2 = g.put(j, (2*h*omw-1)/sigma, s2)
	}
	putSum(v, s0)
	putSum(m, s1)
	putSum(g, s2)
	return sum, j
}

// EvalRun implements HoistedRun with Eval's arithmetic, for a shape below
// gammaLoaderShape (Loader's form is left to Eval).
func (gammaHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] != 1 {
		return sum, 0
	}
	sh, rt := &a[0], &a[1]
	s0, s1 := runSums(a)
	j := 0
	for ; j < n; j++ {
		xj, al, b := x[j*xc], sh.V[j*sh.C], rt.V[j*rt.C]
		if !positive(b) || !(xj > 0) || math.IsInf(xj, 1) { // Eval's invalid or outside
			break
		}
		lx, lb := logx(xj), logx(b)
		l := al*lb - s[1] + (al-1)*lx - b*xj
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = (al-1)/xj - b
		}
		s0 = sh.put(j, lb-s[2]+lx, s0)
		s1 = rt.put(j, al/b-xj, s1)
	}
	putSums(a, s0, s1)
	return sum, j
}

// EvalRun implements HoistedRun with Eval's arithmetic.
func (cauchyHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] == 0 {
		return sum, 0
	}
	m, g := &a[0], &a[1]
	s0, s1 := runSums(a)
	j := 0
	for ; j < n; j++ {
		xj, mu, sigma := x[j*xc], m.V[j*m.C], g.V[j*g.C]
		if !finite(mu) || !finite(xj) { // Eval's invalid or outside
			break
		}
		l, dz, ds := cauchyCoreLog((xj-mu)/sigma, sigma, s[1])
		l -= lnPi
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = dz
		}
		s0 = m.put(j, -dz, s0)
		s1 = g.put(j, ds, s1)
	}
	putSums(a, s0, s1)
	return sum, j
}

// EvalRun implements HoistedRun with Eval's arithmetic.
func (laplaceHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] == 0 {
		return sum, 0
	}
	ls := s[1]
	m, g := &a[0], &a[1]
	s0, s1 := runSums(a)
	j := 0
	for ; j < n; j++ {
		xj, mu, sigma := x[j*xc], m.V[j*m.C], g.V[j*g.C]
		if !finite(mu) || !finite(xj) { // Eval's invalid or outside
			break
		}
		r := xj - mu
		var sign float64
		switch {
		case r > 0:
			sign = 1
		case r < 0:
			sign = -1
		}
		az := math.Abs(r) / sigma
		l := -math.Ln2 - ls - az
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = -sign / sigma
		}
		s0 = m.put(j, sign/sigma, s0)
		s1 = g.put(j, (az-1)/sigma, s1)
	}
	putSums(a, s0, s1)
	return sum, j
}

// EvalRun implements HoistedRun with Eval's arithmetic.
func (halfNormalHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] == 0 {
		return sum, 0
	}
	ls := s[1]
	g := &a[0]
	s0 := runSum(g)
	j := 0
	for ; j < n; j++ {
		xj, sigma := x[j*xc], g.V[j*g.C]
		if !(xj >= 0) || math.IsInf(xj, 1) { // Eval's invalid or outside
			break
		}
		z := xj / sigma
		l := math.Ln2 - lnSqrt2Pi - ls - 0.5*z*z
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = -z / sigma
		}
		s0 = g.put(j, (z*z-1)/sigma, s0)
	}
	putSum(g, s0)
	return sum, j
}

// EvalRun implements HoistedRun with Eval's arithmetic.
func (halfCauchyHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] == 0 {
		return sum, 0
	}
	g := &a[0]
	s0 := runSum(g)
	j := 0
	for ; j < n; j++ {
		xj, sigma := x[j*xc], g.V[j*g.C]
		if !(xj >= 0) || math.IsInf(xj, 1) { // Eval's invalid or outside
			break
		}
		l, dz, ds := cauchyCoreLog(xj/sigma, sigma, s[1])
		l = l + math.Ln2 - lnPi
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = dz
		}
		s0 = g.put(j, ds, s0)
	}
	putSum(g, s0)
	return sum, j
}

// EvalRun implements HoistedRun with Eval's arithmetic.
func (exponentialHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] == 0 {
		return sum, 0
	}
	lr := s[1]
	r := &a[0]
	s0 := runSum(r)
	j := 0
	for ; j < n; j++ {
		xj, rate := x[j*xc], r.V[j*r.C]
		if !(xj >= 0) || math.IsInf(xj, 1) { // Eval's invalid or outside
			break
		}
		l := lr - rate*xj
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = -rate
		}
		s0 = r.put(j, 1/rate-xj, s0)
	}
	putSum(r, s0)
	return sum, j
}

// EvalRun implements HoistedRun with Eval's arithmetic, for a shape below
// gammaLoaderShape (Loader's form is left to Eval).
func (invGammaHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] != 1 {
		return sum, 0
	}
	sh, sa := &a[0], &a[1]
	s0, s1 := runSums(a)
	j := 0
	for ; j < n; j++ {
		xj, al, sc := x[j*xc], sh.V[j*sh.C], sa.V[j*sa.C]
		if !positive(sc) || !(xj > 0) || math.IsInf(xj, 1) { // Eval's invalid or outside
			break
		}
		lx := logx(xj)
		ls := logx(sc)
		l := al*ls - s[1] - (al+1)*lx - sc/xj
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = (sc/xj - (al + 1)) / xj
		}
		s0 = sh.put(j, ls-s[2]-lx, s0)
		s1 = sa.put(j, al/sc-1/xj, s1)
	}
	putSums(a, s0, s1)
	return sum, j
}

// EvalRun implements HoistedRun with Eval's arithmetic.
func (betaHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] == 0 {
		return sum, 0
	}
	ga, gb := &a[0], &a[1]
	s0, s1 := runSums(a)
	j := 0
	for ; j < n; j++ {
		xj, al, b := x[j*xc], ga.V[j*ga.C], gb.V[j*gb.C]
		if !(xj > 0 && xj < 1) { // Eval's invalid or outside
			break
		}
		lx, l1x := logx(xj), math.Log1p(-xj)
		l := betaHoistedLog(al, b, xj, lx, l1x, s)
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = (al-1)/xj - (b-1)/(1-xj)
		}
		s0 = ga.put(j, lx+s[2], s0)
		s1 = gb.put(j, l1x+s[3], s1)
	}
	putSums(a, s0, s1)
	return sum, j
}

// EvalRun implements HoistedRun with Eval's arithmetic.
func (betaPropHoisted) EvalRun(sum float64, n int, x []float64, xc int, a []RunArg, s, lp, dx []float64) (float64, int) {
	if s[0] == 0 {
		return sum, 0
	}
	m, k := &a[0], &a[1]
	s0, s1 := runSums(a)
	var dp [2]float64 // the partials, taken unless neither argument keeps them
	need := m.D != nil || m.Sum != nil || k.D != nil || k.Sum != nil
	j := 0
	for ; j < n; j++ {
		xj, mu, kappa := x[j*xc], m.V[j*m.C], k.V[j*k.C]
		if !(mu > 0 && mu < 1) || !(xj > 0 && xj < 1) { // Eval's invalid or outside
			break
		}
		al, b := mu*kappa, (1-mu)*kappa
		if al == 0 || b == 0 {
			break
		}
		l, ok := 0.0, false
		if al > 2 && b > 2 {
			l, ok = betaPropLoader(al, b, xj, kappa-2, s[2], s[3], s[4])
		}
		if !ok {
			l = betaPropPlain(al, b, xj, kappa, s[5], s[6], s[7])
		}
		if need {
			betaPropPartials(xj, mu, kappa, al, b, s[1], dp[:])
		}
		sum += l
		if lp != nil {
			lp[j] = l
		}
		if dx != nil {
			dx[j] = (al-1)/xj - (b-1)/(1-xj)
		}
		s0 = m.put(j, dp[0], s0)
		s1 = k.put(j, dp[1], s1)
	}
	putSums(a, s0, s1)
	return sum, j
}
