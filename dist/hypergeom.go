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

// Hypergeometric2F1 returns Gauss's ₂F₁(a, b; c; z) for real z < 1 (and
// any z where a or b is an integer ≤ 0): the series for 0 ≤ z < 1, for z
// < 0 Pfaff's transformation (1 − z)^(−a) ₂F₁(a, c − b; c; z/(z − 1)),
// whose argument is in [0, 1). NaN where c is an integer ≤ 0 and where
// the series cannot keep its digits (Hyp2F1Why).
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
		return "z must be < 1 (the series and Pfaff's transformation converge there; past 1 lies ₂F₁'s branch cut)"
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
