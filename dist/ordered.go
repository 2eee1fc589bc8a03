package dist

import "math"

// PositiveOrderedValues maps the coordinates u of a positive_ordered[K]
// latent to its strictly increasing positive values x (x may be u): x_0 =
// exp(u_0) and x_k = x_{k−1} + exp(u_k), every u_k the log of a positive
// part. x_0 has the least normal float added, as a positive latent has, so
// that it stays > 0 where exp(u_0) underflows (unchanged above 1e-292);
// the increments are kept strictly increasing as OrderedValues keeps them.
func PositiveOrderedValues(x, u []float64) {
	if len(u) == 0 {
		return
	}
	x[0] = math.Exp(u[0]) + 0x1p-1022
	for k := 1; k < len(x); k++ {
		s := x[k-1] + math.Exp(u[k])
		if s <= x[k-1] {
			s = math.Nextafter(x[k-1], math.Inf(1))
		}
		x[k] = s
	}
}

// Ordinal regression: OrderedLogistic and OrderedProbit. An outcome y in
// 0..K is the bin of a latent y* = eta + e between the increasing
// cutpoints c_0 < … < c_{K−1}, with c_{−1} = −∞ and c_K = +∞:
//
//	P(y = k) = F(c_k − eta) − F(c_{k−1} − eta)
//
// with F the logistic CDF σ (OrderedLogistic; Stan's ordered_logistic,
// whose categories are 1..K+1) or the standard normal CDF Φ
// (OrderedProbit). Both are computed in log space, so that an eta 40 or
// more from the cutpoints keeps its digits.

// OrderedValues maps the coordinates u of an ordered[K] latent to its
// strictly increasing values x (x may be u): x_0 = u_0 and x_k = x_{k−1} +
// exp(u_k), u_k the log of the increment d_k. A sum that rounds onto
// x_{k−1} (an increment below half an ulp of it) is kept the float above
// it, as Inside keeps a value inside its interval.
func OrderedValues(x, u []float64) {
	for k, v := range u {
		if k == 0 {
			x[0] = v
			continue
		}
		s := x[k-1] + math.Exp(v)
		if s <= x[k-1] {
			s = math.Nextafter(x[k-1], math.Inf(1))
		}
		x[k] = s
	}
}

// OrderedLogProb returns log P(y = k) for category k (0..len(c)), eta and
// the cutpoints c (strictly increasing; not checked), with probit choosing
// Φ over σ, and its partial in eta. When dc is not nil, the partials in
// the cutpoints the category touches are written there: dc[k−1] (its lower
// one, when k > 0) and dc[k] (its upper one, when k < len(c)); the other
// elements of dc are left alone (the partials in them are 0).
//
// Logistic, with u = eta − c_{k−1} > v = eta − c_k and δ = c_k − c_{k−1}:
//
//	σ(u) − σ(v) = σ(u)·σ(−v)·(1 − e^(−δ))
//	log P = log σ(u) + log σ(−v) + log1mexp(δ)
//
// each term stable for any eta (log σ(x) = −softplus(−x)) and the last
// depending on the cutpoints alone, so there is no cancellation between
// two probabilities near 1 or near 0. The end categories are log σ(−v)
// (k = 0) and log σ(u) (k = K).
//
// Probit: P = Φ(B) − Φ(A) with A = c_{k−1} − eta < B = c_k − eta is
// written with the survival function Q in the tail that holds most of the
// interval, Q(A) − Q(B) when A + B ≥ 0 and Q(−B) − Q(−A) otherwise, as
// Q(lo) − Q(hi) with lo < hi, and log P = log Q(lo) + log1mexp(log Q(lo) −
// log Q(hi)), the log tails from NormalLogSurvival's method.
func OrderedLogProb(k int, eta float64, c []float64, probit bool, dc []float64) (lp, deta float64) {
	K := len(c)
	if probit {
		return orderedProbit(k, eta, c, dc)
	}
	switch {
	case K == 0:
		return 0, 0
	case k == 0: // log σ(c_0 − eta)
		v := eta - c[0]
		s := InvLogit(v)
		if dc != nil {
			dc[0] = s
		}
		return -Softplus(v), -s
	case k == K: // log σ(eta − c_{K−1})
		u := eta - c[K-1]
		s := InvLogit(-u)
		if dc != nil {
			dc[K-1] = -s
		}
		return -Softplus(-u), s
	}
	u, v := eta-c[k-1], eta-c[k]
	delta := c[k] - c[k-1]
	lp = -Softplus(-u) - Softplus(v) + Log1mexp(delta)
	su, sv := InvLogit(-u), InvLogit(v) // σ(−u), σ(v)
	if dc != nil {
		r := 1 / math.Expm1(delta)
		dc[k-1] = -su - r
		dc[k] = sv + r
	}
	return lp, su - sv
}

// orderedProbit is OrderedLogProb with Φ.
func orderedProbit(k int, eta float64, c []float64, dc []float64) (lp, deta float64) {
	K := len(c)
	if K == 0 {
		return 0, 0
	}
	// log Q(x) = log P(Z > x) and the hazard h(x) = φ(x)/Q(x), which is
	// ∂/∂x of −log Q(x).
	switch {
	case k == 0: // Φ(c_0 − eta) = Q(eta − c_0)
		lq, h := normalTail(eta - c[0])
		if dc != nil {
			dc[0] = h
		}
		return lq, -h
	case k == K: // 1 − Φ(c_{K−1} − eta) = Q(c_{K−1} − eta)
		lq, h := normalTail(c[K-1] - eta)
		if dc != nil {
			dc[K-1] = -h
		}
		return lq, h
	}
	a, b := c[k-1]-eta, c[k]-eta // P = Φ(b) − Φ(a)
	// In the tail the interval lies in: Q(a) − Q(b) for a ≥ 0 (both in
	// the upper tail), Q(−b) − Q(−a) otherwise (mostly the lower one).
	lo, hi, sgn := a, b, 1.0
	if a+b < 0 {
		lo, hi, sgn = -b, -a, -1
	}
	lqLo, hLo := normalTail(lo) // the larger tail probability
	lqHi, hHi := normalTail(hi)
	lp = lqLo + Log1mexp(lqLo-lqHi)
	// ∂P/∂lo = −φ(lo) = −h·Q, ∂P/∂hi = φ(hi); in log space divide by P.
	gLo := -math.Exp(math.Log(hLo) + lqLo - lp)
	gHi := math.Exp(math.Log(hHi) + lqHi - lp)
	// a and b in terms of lo and hi: sgn 1: a = lo, b = hi; sgn −1: a =
	// −hi, b = −lo.
	var ga, gb float64
	if sgn > 0 {
		ga, gb = gLo, gHi
	} else {
		ga, gb = -gHi, -gLo
	}
	if dc != nil {
		dc[k-1] = ga
		dc[k] = gb
	}
	return lp, -ga - gb
}

// Ordered matrices. An ordered[G, K] latent is G independent rows, each
// an ordered[K] vector. Its coordinates put the G first elements before
// the increments, (x_{0,0}, …, x_{G−1,0}, then row 0's K − 1 log
// increments, row 1's, …), so that the firsts (a normal factor's) and the
// increments (a gamma factor's) are two contiguous parts, as an
// ordered[K] latent's are; its values are row-major. A
// positive_ordered[G, K] latent's coordinates are all logs, one part, and
// row-major as its values.

// OrderedRowIndex returns the row and column of the value that coordinate
// j of an ordered[G, K] latent (positive_ordered when positive) belongs
// to: the first element of its row or one of its increments.
func OrderedRowIndex(j, g, k int, positive bool) (row, col int) {
	if positive || g <= 1 || k <= 1 {
		return j / k, j % k
	}
	if j < g {
		return j, 0
	}
	j -= g
	return j / (k - 1), 1 + j%(k-1)
}

// OrderedRowsValues maps the coordinates u of an ordered[G, K] latent
// (positive_ordered[G, K] when positive) to its values x, row-major (x may
// be u): OrderedValues (PositiveOrderedValues) of each row. g ≤ 1 is a
// vector.
func OrderedRowsValues(x, u []float64, g int, positive bool) {
	if g <= 1 {
		if positive {
			PositiveOrderedValues(x, u)
		} else {
			OrderedValues(x, u)
		}
		return
	}
	k := len(u) / g
	switch {
	case positive:
		copy(x, u)
	case &x[0] == &u[0]:
		orderedUnshuffle(x, g, k) // O(G²K) moves, in place
	default: // each row's first, then its increments: O(GK)
		for r := range g {
			x[r*k] = u[r]
			copy(x[r*k+1:(r+1)*k], u[g+r*(k-1):g+(r+1)*(k-1)])
		}
	}
	for r := range g {
		row := x[r*k : (r+1)*k]
		if positive {
			PositiveOrderedValues(row, row)
		} else {
			OrderedValues(row, row)
		}
	}
}

// OrderedRowsCoords is the inverse of OrderedRowsValues: the coordinates
// u of the values x (u may be x), each row's first element (its log, when
// positive) and the logs of its increments.
func OrderedRowsCoords(u, x []float64, g int, positive bool) {
	k := len(x)
	if g > 1 {
		k = len(x) / g
	}
	copy(u, x)
	for r := range max(g, 1) {
		prev := 0.0
		for c := range k {
			i := r*k + c
			v := u[i]
			if c == 0 && !positive {
				prev = v
				continue
			}
			u[i], prev = math.Log(v-prev), v
		}
	}
	if g > 1 && !positive {
		orderedShuffle(u, g, k)
	}
}

// orderedUnshuffle reorders the coordinates of an ordered[G, K] latent,
// firsts then the rows' increments, to row-major rows (first, increments)
// in place: from the last row down, rotating its first element from the
// firsts to just before its increments.
func orderedUnshuffle(x []float64, g, k int) {
	for r := g - 1; r >= 1; r-- {
		// x[:r*k+1]... holds firsts 0..r, then the increments of rows 0..r−1
		seg := x[r : r*k+1]
		f := seg[0]
		copy(seg, seg[1:])
		seg[len(seg)-1] = f
	}
}

// orderedShuffle is the inverse of orderedUnshuffle.
func orderedShuffle(x []float64, g, k int) {
	for r := 1; r < g; r++ {
		seg := x[r : r*k+1]
		f := seg[len(seg)-1]
		copy(seg[1:], seg[:len(seg)-1])
		seg[0] = f
	}
}
