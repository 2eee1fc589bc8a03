package dist

import (
	"fmt"
	"math"
)

// Generalized hypergeometric functions pFq(a; b; z) = Σₖ Πᵢ(aᵢ)ₖ / Πⱼ(bⱼ)ₖ
// zᵏ/k! by their power series, with partials in every argument from the
// series differentiated term by term: ∂/∂aᵢ of a term is the term times
// Σ_{j<k} 1/(aᵢ + j), ∂/∂bⱼ minus the same in bⱼ, ∂/∂z the term times
// k/z. A sum that cancels (the sum of the terms' magnitudes more than
// hypCancel times the value's), that has not converged after hypMaxTerms
// terms or overflows is NaN, explained by HypWhy: a positioned error
// rather than a value with lost digits.

// MaxPFQ is the largest number of upper or of lower parameters of pFq.
const MaxPFQ = 8

const (
	hypMaxTerms = 200000
	hypEps      = 0x1p-56
	// hypCancel bounds Σ|term| / |sum|: at most 1e4, so that the rounding
	// of the terms costs at most 4 of the value's 16 digits.
	hypCancel = 1e4
)

// hypStatus says why a series gave no value.
type hypStatus int

const (
	hypOK       hypStatus = iota
	hypPoleB              // a lower parameter is an integer ≤ 0
	hypDomainZ            // |z| ≥ 1 where p = q + 1, or any z ≠ 0 where p > q + 1
	hypSlow               // not converged after hypMaxTerms terms
	hypCancels            // the terms cancel: digits lost
	hypOverflow           // a term or the sum overflows
	hypNaN                // an argument is NaN or infinite
)

// nonPosInt reports whether x is an integer ≤ 0, and which (−x).
func nonPosInt(x float64) (int, bool) {
	if x <= 0 && x == math.Trunc(x) && x > -1e9 {
		return int(-x), true
	}
	return 0, false
}

// pfq sums the series of pFq(a; b; z), its partial in z and, when da and
// db are not nil (len(a) and len(b)), its partials in a and b. An upper
// parameter that is an integer −m ≤ 0 ends the series after the term k =
// m (a polynomial); the partial in it still has terms past m, those of the
// series with its zero factor left out, summed as well.
func pfq(a, b []float64, z float64, da, db []float64) (f, dz float64, st hypStatus) {
	p, q := len(a), len(b)
	if math.IsNaN(z) || math.IsInf(z, 0) {
		return math.NaN(), math.NaN(), hypNaN
	}
	// the first zero factor of the upper parameters: i0 at term m+1
	i0, m, tie := -1, 0, false
	for i, ai := range a {
		if math.IsNaN(ai) || math.IsInf(ai, 0) {
			return math.NaN(), math.NaN(), hypNaN
		}
		if mi, ok := nonPosInt(ai); ok {
			switch {
			case i0 < 0 || mi < m:
				i0, m, tie = i, mi, false
			case mi == m:
				tie = true
			}
		}
	}
	poleAfter := false // a lower parameter's zero factor past the end: the ending partial is infinite
	for _, bj := range b {
		if math.IsNaN(bj) || math.IsInf(bj, 0) {
			return math.NaN(), math.NaN(), hypNaN
		}
		if mj, ok := nonPosInt(bj); ok {
			if i0 < 0 || mj < m {
				return math.NaN(), math.NaN(), hypPoleB // (bⱼ)ₖ is 0 before the series ends
			}
			poleAfter = true
		}
	}
	for i := range da {
		da[i] = 0
	}
	for j := range db {
		db[j] = 0
	}
	if z == 0 {
		r := 1.0
		for _, ai := range a {
			r *= ai
		}
		for _, bj := range b {
			r /= bj
		}
		return 1, r, hypOK
	}
	// Converges for every z where p ≤ q, for |z| < 1 where p = q + 1; a
	// polynomial's value for any z, but its partial in the ending
	// parameter is a series again, NaN where that diverges.
	diverges := p == q+1 && !(math.Abs(z) < 1) || p > q+1
	if diverges && i0 < 0 {
		return math.NaN(), math.NaN(), hypDomainZ
	}
	var sa, sb [MaxPFQ]float64 // Σ_{j<k} 1/(aᵢ + j), Σ_{j<k} 1/(bⱼ + j)
	t, sum, abs := 1.0, 1.0, 1.0
	u, uabs := 0.0, 0.0 // the term with i0's zero factor left out, past m
	grad := da != nil
	for k := 1; ; k++ {
		if k > hypMaxTerms {
			return math.NaN(), math.NaN(), hypSlow
		}
		j := float64(k - 1)
		r := z / float64(k) // the ratio of term k to term k − 1
		rEnd := r           // the same without i0's zero factor (k = m + 1)
		for i, ai := range a {
			if i == i0 && k-1 == m {
				continue
			}
			r *= ai + j
			rEnd *= ai + j
		}
		for _, bj := range b {
			r /= bj + j
			rEnd /= bj + j
		}
		if grad {
			for i, ai := range a {
				if !(i == i0 && k-1 >= m) {
					sa[i] += 1 / (ai + j)
				}
			}
			for jj, bj := range b {
				sb[jj] += 1 / (bj + j)
			}
		}
		if i0 >= 0 && k-1 == m { // the value's series ends at term m
			r = 0
			if !grad || tie {
				break
			}
			if diverges || poleAfter {
				da[i0] = math.NaN()
				break
			}
			u = t * rEnd
		} else if t == 0 {
			u *= r
		}
		rr := ratioBound(a, b, z, j)
		if t != 0 {
			t *= r
			if math.IsInf(t, 0) || math.IsNaN(t) {
				return math.NaN(), math.NaN(), hypOverflow
			}
			sum += t
			abs += math.Abs(t)
			fk := float64(k)
			dz += fk * t / z
			if grad {
				for i := range a {
					da[i] += t * sa[i]
				}
				for jj := range b {
					db[jj] -= t * sb[jj]
				}
			}
			if t == 0 { // term m + 1 of the ending partial
				if u == 0 {
					break
				}
				da[i0] += u
				uabs += math.Abs(u)
				continue
			}
			// each term of the partials is this one times at most
			// k/|z| + Σ|s|, the tail at most |t| rr/(1 − rr) with rr
			// a bound on every later ratio
			w := fk / math.Abs(z)
			if grad {
				for i := range a {
					w += math.Abs(sa[i])
				}
				for jj := range b {
					w += math.Abs(sb[jj])
				}
			}
			if rr < 1 && math.Abs(t)*(1+w) <= hypEps*(1-rr)*abs {
				break
			}
			continue
		}
		// past the end of a polynomial: the series of the ending partial
		if math.IsInf(u, 0) || math.IsNaN(u) {
			return math.NaN(), math.NaN(), hypOverflow
		}
		da[i0] += u
		uabs += math.Abs(u)
		if rr < 1 && math.Abs(u) <= hypEps*(1-rr)*uabs || u == 0 {
			break
		}
	}
	if math.IsInf(sum, 0) || math.IsInf(abs, 0) {
		return math.NaN(), math.NaN(), hypOverflow
	}
	if abs > hypCancel*math.Abs(sum) {
		return math.NaN(), math.NaN(), hypCancels
	}
	return sum, dz, hypOK
}

// ratioBound bounds |ratio of term j' + 1 to term j'| for every j' ≥ j,
// so that the tail past a term is at most the term times rr/(1 − rr). The
// ratio is |z| Π|aᵢ + j'| / (Π|bᵢ + j'| (j' + 1)). Once every lower
// parameter plus j is positive, each |aᵢ + j'| / (bᵢ + j') (the last upper
// parameter of p = q + 1 over j' + 1) falls while aᵢ + j' < 0 and then
// moves monotonically towards 1, so it is at most the larger of 1 and its
// value at j; an unpaired 1/(bᵢ + j') or 1/(j' + 1) only falls. Before
// that (+Inf) a lower parameter's factor may still pass near 0. The
// current ratio alone is no bound: ₁F₁(1e-20; 1; 100) = 2.7e21 has a
// first term of 1e-18, and the ratios grow after it.
func ratioBound(a, b []float64, z, j float64) float64 {
	p, q := len(a), len(b)
	if p > q+1 {
		return math.Inf(1)
	}
	for _, bi := range b {
		if !(bi+j > 0) {
			return math.Inf(1)
		}
	}
	r := math.Abs(z)
	for i, ai := range a {
		d := j + 1 // the last upper parameter of p = q + 1 pairs with k
		if i < q {
			d = b[i] + j
		}
		r *= max(1, math.Abs(ai+j)/d)
	}
	for _, bi := range b[min(p, q):] {
		r /= bi + j
	}
	if p <= q {
		r /= j + 1
	}
	return r
}

// HypergeometricPFQ returns pFq(a; b; z) for p = len(a), q = len(b) ≤
// MaxPFQ by its series: any z where p ≤ q, |z| < 1 where p = q + 1, any z
// where an upper parameter is an integer ≤ 0 (a polynomial); NaN elsewhere,
// at a lower parameter that is an integer ≤ 0 (a pole) and where the
// series cancels or converges too slowly to keep its digits (HypWhy says
// which).
func HypergeometricPFQ(a, b []float64, z float64) float64 {
	f, _, _ := pfqAny(a, b, z, nil, nil)
	return f
}

// HypergeometricPFQGrad returns pFq(a; b; z) and its partial in z, and
// stores the partials in a and b in da and db (of len(a) and len(b)).
func HypergeometricPFQGrad(a, b []float64, z float64, da, db []float64) (f, dz float64) {
	f, dz, _ = pfqAny(a, b, z, da, db)
	return f, dz
}

// pfqAny is pfq with the transformations that keep a series' terms of
// one sign: ₂F₁ by hyp2F1 (Pfaff's for z < 0), and ₁F₁ of z < 0 by
// Kummer's, e^z ₁F₁(b − a; b; −z), whose terms for b > a > 0 are all
// positive where the direct series cancels (₁F₁(0.5; 1.5; −20) has terms
// of 1e7 summing to 0.2).
func pfqAny(a, b []float64, z float64, da, db []float64) (f, dz float64, st hypStatus) {
	switch {
	case len(a) == 2 && len(b) == 1:
		var d [3]float64
		f, dz, st = hyp2F1(a[0], a[1], b[0], z, d[:], da != nil)
		if da != nil {
			da[0], da[1], db[0] = d[0], d[1], d[2]
		}
		return f, dz, st
	case len(a) == 1 && len(b) == 1 && z < 0:
		if _, poly := nonPosInt(a[0]); poly {
			break // a polynomial: its own series ends
		}
		up := [1]float64{b[0] - a[0]}
		var dg, dgb [1]float64
		dap, dbp := dg[:], dgb[:]
		if da == nil {
			dap, dbp = nil, nil
		}
		g, gw, st := pfq(up[:], b, -z, dap, dbp)
		if st != hypOK {
			return g, gw, st
		}
		e := math.Exp(z)
		if da != nil {
			da[0] = -e * dg[0]
			db[0] = e * (dg[0] + dgb[0])
		}
		return e * g, e * (g - gw), hypOK
	}
	return pfq(a, b, z, da, db)
}

// Hypergeometric2F1 returns Gauss's ₂F₁(a, b; c; z) for real z < 1, z = 1
// where c − a − b > 0 (Gauss's theorem) and any z where a or b is an
// integer ≤ 0: the series for 0 ≤ z ≤ 0.999, the series in 1 − z above
// (hyp2F1Reflect), for z < 0 Pfaff's transformation (1 − z)^(−a)
// ₂F₁(a, c − b; c; z/(z − 1)), whose argument is in [0, 1). NaN where c is
// an integer ≤ 0 and where the series cannot keep its digits (Hyp2F1Why).
func Hypergeometric2F1(a, b, c, z float64) float64 {
	var d [3]float64
	f, _, _ := hyp2F1(a, b, c, z, d[:], false)
	return f
}

// hyp2F1 returns ₂F₁(a, b; c; z), its partial in z and, when grad, its
// partials in a, b and c in d.
func hyp2F1(a, b, c, z float64, d []float64, grad bool) (f, dz float64, st hypStatus) {
	var da [2]float64
	var db [1]float64
	dap, dbp := da[:], db[:]
	if !grad {
		dap, dbp = nil, nil
	}
	if z >= 0 {
		_, pa := nonPosInt(a)
		_, pb := nonPosInt(b)
		_, pc := nonPosInt(c)
		poly := pa || pb
		switch {
		case z == 1 && !poly && !pc:
			return hyp2F1Gauss(a, b, c, d, grad)
		case z > hypNearOne && !poly && !pc && c-a-b != math.Round(c-a-b):
			if f, dz, st := hyp2F1Reflect(a, b, c, z, d, grad); st == hypOK {
				return f, dz, st
			}
		}
		up := [2]float64{a, b}
		lo := [1]float64{c}
		f, dz, st = pfq(up[:], lo[:], z, dap, dbp)
		if grad {
			d[0], d[1], d[2] = da[0], da[1], db[0]
		}
		return f, dz, st
	}
	// Pfaff: F = (1 − z)^(−a) G(a, c − b; c; w), w = z/(z − 1)
	w := z / (z - 1)
	up := [2]float64{a, c - b}
	lo := [1]float64{c}
	g, gw, st := pfq(up[:], lo[:], w, dap, dbp)
	if st != hypOK {
		return g, gw, st
	}
	l1z := math.Log1p(-z)
	s := math.Exp(-a * l1z)
	f = s * g
	dz = a*f/(1-z) - s*gw/((z-1)*(z-1))
	if grad {
		d[0] = -l1z*f + s*da[0]
		d[1] = -s * da[1]
		d[2] = s * (da[1] + db[0])
	}
	if math.IsInf(f, 0) {
		return math.NaN(), math.NaN(), hypOverflow
	}
	return f, dz, hypOK
}

// hypNearOne is the z above which ₂F₁ comes from the series in 1 − z
// (hyp2F1Reflect): the series in z needs about 37/(1 − z) terms, 4e5 at
// 1 − z = 1e-4, past hypMaxTerms; below it the series in z is kept.
const hypNearOne = 0.999

// hypReflectCancel bounds the cancellation of hyp2F1Reflect's two terms,
// (|first| + |second|)/|sum|: near an integer c − a − b = n they grow like
// w^n/|c − a − b − n| with opposite signs. Past it (and at an integer) the
// series in z is summed as before, an error where it cannot converge.
const hypReflectCancel = 100

// hyp2F1Gauss returns ₂F₁(a, b; c; 1) by Gauss's theorem, Γ(c)Γ(c−a−b) /
// (Γ(c−a)Γ(c−b)) for c − a − b > 0, where the series converges (Stan's
// hypergeometric_2F1 at z = 1); the partials are the value times digamma
// differences, ψ(c−a) − ψ(s) in a, ψ(c−b) − ψ(s) in b and ψ(c) + ψ(s) −
// ψ(c−a) − ψ(c−b) in c, s = c − a − b. The z partial, ab/c·₂F₁(a+1, b+1;
// c+1; 1), is finite for s > 1 and +Inf (in the value's sign) below.
// Where s ≤ 0 the series diverges: NaN, hypDomainZ.
func hyp2F1Gauss(a, b, c float64, d []float64, grad bool) (f, dz float64, st hypStatus) {
	s := c - a - b
	if !(s > 0) {
		return math.NaN(), math.NaN(), hypDomainZ
	}
	f, g := gammaRatio(c, s, c-a, c-b)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return math.NaN(), math.NaN(), hypOverflow
	}
	if grad {
		// g[i] = ∂f/∂(argument i) of Γ(x0)Γ(x1)/(Γ(x2)Γ(x3))
		d[0] = -g[1] - g[2]
		d[1] = -g[1] - g[3]
		d[2] = g[0] + g[1] + g[2] + g[3]
	}
	switch {
	case s > 1: // Γ(c+1)Γ(s−1)/(Γ(c−a)Γ(c−b)), by Gauss again
		fz, _ := gammaRatio(c+1, s-1, c-a, c-b)
		dz = a * b / c * fz
	case a*b*f == 0:
		dz = 0
	default:
		dz = math.Copysign(math.Inf(1), a*b/c*f)
	}
	return f, dz, hypOK
}

// gammaRatio returns Γ(x0)Γ(x1)/(Γ(x2)Γ(x3)) for x0, x1 not integers ≤ 0,
// from log-gammas and their signs, and its partials in the four arguments:
// the value times ψ(x0), ψ(x1), −ψ(x2), −ψ(x3). A denominator argument that
// is an integer −n ≤ 0 makes the value 0 and its partial in that argument
// the rest times (1/Γ)'(−n) = (−1)^n n!.
func gammaRatio(x0, x1, x2, x3 float64) (float64, [4]float64) {
	var g [4]float64
	n2, p2 := nonPosInt(x2)
	n3, p3 := nonPosInt(x3)
	l0, s0 := math.Lgamma(x0)
	l1, s1 := math.Lgamma(x1)
	switch {
	case p2 && p3:
		return 0, g
	case p2 || p3:
		n, other := n2, x3
		i := 2
		if p3 {
			n, other, i = n3, x2, 3
		}
		lo, so := math.Lgamma(other)
		lf, _ := math.Lgamma(float64(n) + 1)
		v := float64(s0*s1*so) * math.Exp(l0+l1-lo+lf)
		if n%2 == 1 {
			v = -v
		}
		g[i] = v
		return 0, g
	}
	l2, s2 := math.Lgamma(x2)
	l3, s3 := math.Lgamma(x3)
	f := float64(s0*s1*s2*s3) * math.Exp(l0+l1-l2-l3)
	g = [4]float64{f * Digamma(x0), f * Digamma(x1), -f * Digamma(x2), -f * Digamma(x3)}
	return f, g
}

// hyp2F1Reflect returns ₂F₁(a, b; c; z) for z near 1 by the connection
// formula in w = 1 − z (Abramowitz & Stegun 15.3.6), for s = c − a − b
// not an integer:
//
//	₂F₁(a, b; c; z) = A·₂F₁(a, b; 1−s; w) + B·w^s·₂F₁(c−a, c−b; 1+s; w),
//	A = Γ(c)Γ(s)/(Γ(c−a)Γ(c−b)),  B = Γ(c)Γ(−s)/(Γ(a)Γ(b)),
//
// both series in w < 1e-3 converging in a few terms; the partials by the
// product rule from gammaRatio's and the two series'. hypCancels where the
// two terms cancel more than hypReflectCancel.
func hyp2F1Reflect(a, b, c, z float64, d []float64, grad bool) (f, dz float64, st hypStatus) {
	w := 1 - z
	s := c - a - b
	A, gA := gammaRatio(c, s, c-a, c-b)
	B, gB := gammaRatio(c, -s, a, b)
	var d1, d2 [3]float64
	f1, f1w, st1 := hyp2F1(a, b, 1-s, w, d1[:], grad)
	f2, f2w, st2 := hyp2F1(c-a, c-b, 1+s, w, d2[:], grad)
	if st1 != hypOK {
		return math.NaN(), math.NaN(), st1
	}
	if st2 != hypOK {
		return math.NaN(), math.NaN(), st2
	}
	lw := math.Log(w)
	ws := math.Exp(s * lw)
	f = A*f1 + B*ws*f2
	dz = -(A*f1w + B*(s*ws/w*f2+ws*f2w))
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return math.NaN(), math.NaN(), hypOverflow
	}
	if !(math.Abs(A*f1)+math.Abs(B*ws*f2) <= hypReflectCancel*math.Abs(f)) {
		return math.NaN(), math.NaN(), hypCancels
	}
	if grad {
		// ∂/∂a, ∂/∂b, ∂/∂c of A, B, 1 − s = a + b − c + 1, 1 + s and w^s
		dA := [3]float64{-gA[1] - gA[2], -gA[1] - gA[3], gA[0] + gA[1] + gA[2] + gA[3]}
		dB := [3]float64{gB[1] + gB[2], gB[1] + gB[3], gB[0] - gB[1]}
		df1 := [3]float64{d1[0] + d1[2], d1[1] + d1[2], -d1[2]}
		df2 := [3]float64{-d2[0] - d2[2], -d2[1] - d2[2], d2[0] + d2[1] + d2[2]}
		dws := [3]float64{-lw * ws, -lw * ws, lw * ws}
		for i := range 3 {
			d[i] = dA[i]*f1 + A*df1[i] + dB[i]*ws*f2 + B*dws[i]*f2 + B*ws*df2[i]
		}
	}
	return f, dz, hypOK
}

// hypWhy words a status for an error message.
func hypWhy(st hypStatus, name string) string {
	switch st {
	case hypPoleB:
		return "a lower parameter (" + name + ") is an integer <= 0, a pole"
	case hypDomainZ:
		return "the series diverges at this z"
	case hypSlow:
		return fmt.Sprintf("the series has not converged after %d terms (|z| too close to 1)", hypMaxTerms)
	case hypCancels:
		return "the series' terms cancel, losing more than 4 digits"
	case hypOverflow:
		return "the series overflows"
	case hypNaN:
		return "an argument is not finite"
	}
	return ""
}

// Hyp2F1Fn is ₂F₁(a, b; c; z) as a family of z with parameters a, b and
// c, as IncBetaFn is I_x(a, b): a model's hypergeometric_2F1(a, b, c, z),
// whose four arguments broadcast as a density's do. Its kernel returns the
// value, not a log; Why explains a NaN.
var Hyp2F1Fn = Univariate{
	Name:     "hypergeometric_2F1",
	Params:   []Param{{Name: "a", Support: Real}, {Name: "b", Support: Real}, {Name: "c", Support: Real}},
	Support:  Real,
	Doc:      "₂F₁(a, b; c; z), the value of hypergeometric_2F1(a, b, c, z)",
	Kernel:   hyp2F1Kernel,
	Quantity: "value",
	Why:      hyp2F1Why,
}

func hyp2F1Kernel(z float64, p, dp []float64) (float64, float64) {
	f, dz, _ := hyp2F1(p[0], p[1], p[2], z, dp, dp != nil)
	return f, dz
}

func hyp2F1Why(z float64, p []float64) string {
	var d [3]float64
	_, _, st := hyp2F1(p[0], p[1], p[2], z, d[:], true)
	if st == hypDomainZ {
		return "z must be < 1, or 1 where c - a - b > 0 (Gauss's theorem); past 1 lies ₂F₁'s branch cut"
	}
	return hypWhy(st, "c")
}

// PFQFn returns pFq(a; b; z) as a family of z whose parameters are the p
// elements of a and then the q of b (p, q ≤ MaxPFQ): a model's
// hypergeometric_pFq(a, b, z) and hypergeometric_3F2(a, b, z). With p = 2
// and q = 1 it is Hyp2F1Fn's kernel, Pfaff's transformation included.
func PFQFn(name string, p, q int) Univariate {
	if p > MaxPFQ || q > MaxPFQ {
		panic("dist: pFq with more than MaxPFQ parameters")
	}
	params := make([]Param, p+q)
	for i := range params {
		params[i] = Param{Name: fmt.Sprintf("a[%d]", i), Support: Real}
		if i >= p {
			params[i].Name = fmt.Sprintf("b[%d]", i-p)
		}
	}
	return Univariate{
		Name: name, Params: params, Support: Real, Quantity: "value",
		Doc: fmt.Sprintf("%dF%d(a; b; z), the value of %s(a, b, z)", p, q, name),
		Kernel: func(z float64, par, dp []float64) (float64, float64) {
			if p == 2 && q == 1 {
				return hyp2F1Kernel(z, par, dp)
			}
			if dp == nil {
				f, dz, _ := pfqAny(par[:p], par[p:], z, nil, nil)
				return f, dz
			}
			f, dz, _ := pfqAny(par[:p], par[p:], z, dp[:p], dp[p:p+q])
			return f, dz
		},
		Why: func(z float64, par []float64) string {
			if p == 2 && q == 1 {
				return hyp2F1Why(z, par)
			}
			var da, db [MaxPFQ]float64
			_, _, st := pfqAny(par[:p], par[p:], z, da[:p], db[:q])
			if st == hypDomainZ {
				if p > q+1 {
					return fmt.Sprintf("with p = %d > q + 1 = %d the series diverges for z != 0 unless an a is an integer <= 0", p, q+1)
				}
				return "|z| must be < 1 where p = q + 1"
			}
			return hypWhy(st, "b")
		},
	}
}
