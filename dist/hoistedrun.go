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
	if a[0].Sum != nil {
		s0 = *a[0].Sum
	}
	if a[1].Sum != nil {
		s1 = *a[1].Sum
	}
	return s0, s1
}

// putSums writes back the running sums runSums read.
func putSums(a []RunArg, s0, s1 float64) {
	if a[0].Sum != nil {
		*a[0].Sum = s0
	}
	if a[1].Sum != nil {
		*a[1].Sum = s1
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
		if d := z / sigma; m.D != nil {
			m.D[j] = d
		} else if m.Sum != nil {
			s0 += d
		}
		if d := (z*z - 1) / sigma; g.D != nil {
			g.D[j] = d
		} else if g.Sum != nil {
			s1 += d
		}
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
		if d := z / sigma; m.D != nil {
			m.D[j] = d
		} else if m.Sum != nil {
			s0 += d
		}
		if d := (z*z - 1) / sigma; g.D != nil {
			g.D[j] = d
		} else if g.Sum != nil {
			s1 += d
		}
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
	var s0, s1, s2 float64
	if v.Sum != nil {
		s0 = *v.Sum
	}
	if m.Sum != nil {
		s1 = *m.Sum
	}
	if g.Sum != nil {
		s2 = *g.Sum
	}
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
		if d := s[4] - 0.5*l1p + h*omw/nu; v.D != nil {
			v.D[j] = d
		} else if v.Sum != nil {
			s0 += d
		}
		if m.D != nil {
			m.D[j] = dmu
		} else if m.Sum != nil {
			s1 += dmu
		}
		if d := (2*h*omw - 1) / sigma; g.D != nil {
			g.D[j] = d
		} else if g.Sum != nil {
			s2 += d
		}
	}
	if v.Sum != nil {
		*v.Sum = s0
	}
	if m.Sum != nil {
		*m.Sum = s1
	}
	if g.Sum != nil {
		*g.Sum = s2
	}
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
		if d := lb - s[2] + lx; sh.D != nil {
			sh.D[j] = d
		} else if sh.Sum != nil {
			s0 += d
		}
		if d := al/b - xj; rt.D != nil {
			rt.D[j] = d
		} else if rt.Sum != nil {
			s1 += d
		}
	}
	putSums(a, s0, s1)
	return sum, j
}
