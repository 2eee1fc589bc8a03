package sgvb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gpplang/gpp/dist"
	"gonum.org/v1/gonum/mat"
)

// The curvature check of a mean-field fit. For a normal posterior of
// precision Λ, mean-field VI's variances are 1/Λ_ii while the marginal
// ones are Σ_ii = (Λ⁻¹)_ii, so element i's sd is too small by r_i =
// √(Σ_ii Λ_ii) ≥ 1, the square root of regression's variance inflation
// factor (the correction linear-response VB makes: Giordano, Broderick &
// Jordan 2018). MeanFieldCurvature takes Λ = −H, H the Hessian of the
// density of the unconstrained coordinates (Jacobian included, the fit's
// target) at q's mode there, by the Laplace fit's central differences:
// a normal factor's mean, log(shape/rate) for a gamma factor's log x.
// q's mean there, E log x = ψ(shape) − log rate, lies 1/(2·shape) or more
// below that, far from the posterior's mode for small shapes: on a
// gamma–Poisson model of 600 groups −H was not positive definite at it,
// and on a gamma frailty model it made r 1.6–1.7 times NUTS's ratio
// (docs/inference.md, The mean-field hint).

// Curvature is the curvature check of a mean-field fit, per unconstrained
// coordinate x_i (Unconstrained.Dim: a real latent's values, a positive
// one's logs, a bounded one's logits, an ordered one's x_0 and log
// increments, a simplex's K − 1 stick-breaking coordinates a row).
type Curvature struct {
	// Ratio[i] is r_i = √(Σ_ii Λ_ii): how many times the marginal sd of x_i
	// under N(·, Λ⁻¹) exceeds the conditional one that mean-field q reports.
	Ratio []float64
	// Partner[i] is the other coordinate whose correlation Corr[i] with x_i
	// under N(·, Λ⁻¹) is largest in size; −1 (Corr 0) when there is none.
	Partner []int
	Corr    []float64
	// Scale[i] is s_i = σ_i √Λ_ii: q's own sd of x_i (a normal's scale,
	// √ψ′(a) for a gamma factor's log z, √(ψ′(α) + ψ′(β)) for a beta
	// factor's logit z) against the conditional sd 1/√Λ_ii. A mean-field
	// q that has settled on a normal posterior has s_i = 1 (its optimum
	// is σ_i² = 1/Λ_ii); far from 1, q's scales have not settled, and
	// Ratio, which assumes they have, does not say how far q's sd is off.
	Scale []float64
	// Spread[i] is s̃_i = σ_i √κ_i, Scale's s_i with Λ_ii replaced by
	// the curvature of x_i across q's reach, κ_i = −(g_i(x + τσ_i e_i) −
	// g_i(x − τσ_i e_i))/(2τσ_i) at τ = SpreadTau (g the gradient, the
	// other coordinates at q's mode): the Gauss–Hermite value of
	// −E_q ∂²_ii log p, the reciprocal of a settled mean-field normal
	// factor's variance (Opper & Archambeau 2009). On a normal posterior
	// s̃_i = s_i; where x_i's density is far from normal within q's reach
	// (one-sided, censored), s̃_i, not s_i, says whether q has settled.
	// NaN where not finite or κ_i ≤ 0.
	Spread []float64

	// Flat is the direction along which the log density bends least at
	// q's mode, against q's spread along it (FlatDirection); nil where
	// its eigenvalues were not found, or not looked for (over FlatMaxDim
	// coordinates).
	Flat *FlatDirection

	// Partial, where −H at q's mode is not positive definite (with
	// ErrNotDefinite), is the check on the coordinates left once those
	// along which the log density bends the wrong way are left out
	// (leftOut), given them at q's mode; nil where no such set leaves a
	// positive definite block, or where the eigenvectors are not looked
	// for (over FlatMaxDim coordinates). Its Flat is this one's.
	Partial *Curvature
	// Left marks, in a Partial check, the coordinates left out: their
	// Ratio and Scale are NaN, their Partner −1, and no other
	// coordinate's Partner is one of them. nil in a full check.
	Left []bool
	// WrongWay is, in a Partial check, the number of directions along
	// which the log density at q's mode bends the wrong way (Λ's
	// eigenvalues at most 0), whose coordinates are Left.
	WrongWay int
	// Mode is q's mode on the unconstrained coordinates, where Λ was
	// taken (the delta method's point for a function of them, DeltaRatio).
	Mode []float64

	lambda, sigma *mat.SymDense // Λ = −H and Σ = Λ⁻¹
}

// FlatDirection is the unit eigenvector Vec of Λ = −H at q's mode with
// the smallest eigenvalue Lambda (the least curvature; ≤ 0 where −H is
// not positive definite), and q's variance along it, QVar = Σ v_i² σ_i².
type FlatDirection struct {
	Vec          []float64
	Lambda, QVar float64
}

// Bend returns Lambda·QVar: q's variance along the direction against the
// variance 1/Lambda that the curvature there implies. A settled q has
// about 1 along any direction of a normal posterior (a mean-field q that
// is too narrow, 1/r² for its ratio r); near 0 or below, the log density
// does not bend along it within q's reach: the posterior is flat there
// (IsFlat). Clearly below 0 it bends the wrong way (a funnel's scale at
// q's mode: seeds.gpp's sigma −0.39, sv.gpp's −1.1), which is no flat
// direction.
func (f *FlatDirection) Bend() float64 { return f.Lambda * f.QVar }

// IsFlat reports whether the direction is flat: |Bend| at most FlatBend.
func (f *FlatDirection) IsFlat() bool { return math.Abs(f.Bend()) <= FlatBend }

// FlatBend is the |Bend| at or below which a direction is flat: the
// curvature's sd along it at least 100 times q's. A mean-field q too
// narrow by its ratio r reads 1/r², 10⁻⁴ at r = 100, beyond any ratio the
// bundled examples and trials show (docs/inference.md, The mean-field
// hint; their least Bend is 0.024, survival.gpp's); a sum of parameters
// no datum or prior fixes reads 0 up to the central differences'
// rounding (a Bradley–Terry model's 20 abilities without a prior:
// −4.7·10⁻¹³).
const FlatBend = 1e-4

// FlatMaxDim is the most coordinates whose flat direction the curvature
// check looks for: Λ's eigenvectors cost about 12 times its Cholesky
// factor (1000 coordinates: 1.6 s against 0.12 s on the project's loaded
// 2-core machine), which would take the check past the 0–10 % of a fit
// it is held to; at 400, about 0.1 s.
const FlatMaxDim = 400

// flatDirection returns the FlatDirection of Λ = −H for q's sds sd, nil
// where Λ's eigenvalues are not found.
func flatDirection(L *mat.SymDense, sd []float64) *FlatDirection {
	var eig mat.EigenSym
	if !eig.Factorize(L, true) {
		return nil
	}
	vals := eig.Values(nil) // ascending
	var V mat.Dense
	eig.VectorsTo(&V)
	f := &FlatDirection{Vec: make([]float64, len(vals)), Lambda: vals[0]}
	for i := range f.Vec {
		f.Vec[i] = V.At(i, 0)
		f.QVar += f.Vec[i] * f.Vec[i] * sd[i] * sd[i]
	}
	return f
}

// ErrNotDefinite is MeanFieldCurvature's error where −H at q's mode is not
// positive definite (a funnel, or q far from a mode of p): the curvature
// there says nothing of the posterior's correlations.
var ErrNotDefinite = errors.New("sgvb: the Hessian of the log density at q's mode is not negative definite")

// MeanFieldCurvature returns the curvature check of a mean-field SGVB fit
// r on ud, the unconstrained density of the fit's latents (in r.Factors'
// order): 2·Dim gradients of ud and an O(Dim³) factorisation, no random
// draws. An error for a fit that is not mean-field SGVB (normal, log-normal,
// gamma, beta and Dirichlet factors only; coordModes),
// ErrNotDefinite where −H is not positive definite or not finite (with a
// Curvature that holds Flat alone, where Λ's eigenvalues were found), or
// ctx's error.
func (r *Result) MeanFieldCurvature(ctx context.Context, ud *Unconstrained) (*Curvature, error) {
	if r.Method != SGVB || len(r.Groups) > 0 {
		return nil, errors.New("sgvb: the curvature check is of a mean-field SGVB fit")
	}
	if ud.TargetDim() != r.Dim {
		return nil, fmt.Errorf("sgvb: the curvature check: %d coordinates of the density for a fit of %d", ud.TargetDim(), r.Dim)
	}
	u, sd, err := r.coordModes(ud)
	if err != nil {
		return nil, err
	}
	n := len(u)
	H, bad, err := centralHessian(ctx, ud, u)
	if err != nil {
		return nil, err
	}
	if bad >= 0 {
		return nil, ErrNotDefinite
	}
	var flat *FlatDirection
	if n <= FlatMaxDim { // Λ only where its eigenvectors are looked for
		L := mat.NewSymDense(n, nil)
		L.ScaleSym(-1, H)
		flat = flatDirection(L, sd)
	}
	c, err := curvatureOf(H)
	if err != nil {
		if flat != nil {
			L := mat.NewSymDense(n, nil)
			L.ScaleSym(-1, H)
			p := partialCurvature(L, sd, flat)
			if p != nil {
				p.Mode = u
			}
			return &Curvature{Flat: flat, Partial: p, Mode: u}, err
		}
		return nil, err
	}
	c.Flat, c.Mode = flat, u
	c.Scale = make([]float64, n)
	for i := range c.Scale {
		c.Scale[i] = sd[i] * math.Sqrt(c.lambda.At(i, i))
	}
	if c.Spread, err = spreadScales(ctx, ud, u, sd); err != nil {
		return nil, err
	}
	return c, nil
}

// SpreadTau is the Gauss–Hermite node, in q's sds, at which spreadScales
// takes the gradient either side of q's mode: ±√3, the three-point rule's
// (exact for a quartic log density).
const SpreadTau = 1.7320508075688772 // √3

// spreadScales returns Curvature.Spread for q's sds sd at the
// unconstrained mode u: 2·len(u) gradients of ud.
func spreadScales(ctx context.Context, ud *Unconstrained, u, sd []float64) ([]float64, error) {
	n := len(u)
	out := make([]float64, n)
	x := append([]float64(nil), u...)
	gp, gm := make([]float64, n), make([]float64, n)
	for i := range n {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = math.NaN()
		h := SpreadTau * sd[i]
		if !(h > 0) || math.IsInf(h, 0) {
			continue
		}
		x[i] = u[i] + h
		lp, _ := ud.LogDensity(x, gp)
		x[i] = u[i] - h
		lm, _ := ud.LogDensity(x, gm)
		x[i] = u[i]
		if !finite(lp) || !finite(lm) || !finite(gp[i]) || !finite(gm[i]) {
			continue
		}
		if k := -(gp[i] - gm[i]) / ((u[i] + h) - (u[i] - h)); k > 0 {
			out[i] = sd[i] * math.Sqrt(k)
		}
	}
	return out, nil
}

// partialCurvature returns the check of Λ = L (not positive definite) on
// the coordinates left once those along which it bends the wrong way are
// left out (leftOut), given those at q's mode (q's sds sd; flat is Λ's
// FlatDirection, the partial check's too): Λ with the
// left-out coordinates' rows and columns cut to a diagonal 1, whose
// ratios on the others are those of their block Λ_KK (GroupRatios'
// too). nil where no
// coordinates are left or their block is not positive definite either.
// On a normal posterior a ratio given some coordinates is at most the
// marginal one, so the check's too-small sds are too small at least by
// as much (a Schaefer production model's K: 11× given the process and
// observation noise sds, which bend the wrong way; NUTS 11×).
func partialCurvature(L *mat.SymDense, sd []float64, flat *FlatDirection) *Curvature {
	n, _ := L.Dims()
	left, wrong := leftOut(L)
	if left == nil {
		return nil
	}
	K := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			switch {
			case i == j && left[i]:
				K.SetSym(i, i, -1)
			case !left[i] && !left[j]:
				K.SetSym(i, j, -L.At(i, j))
			}
		}
	}
	c, err := curvatureOf(K)
	if err != nil {
		return nil
	}
	c.Flat, c.Left, c.WrongWay = flat, left, wrong
	c.Scale = make([]float64, n)
	for i := range n {
		if left[i] {
			c.Ratio[i], c.Scale[i], c.Partner[i], c.Corr[i] = math.NaN(), math.NaN(), -1, 0
			continue
		}
		c.Scale[i] = sd[i] * math.Sqrt(L.At(i, i))
		if p := c.Partner[i]; p >= 0 && left[p] { // correlation 0: none
			c.Partner[i], c.Corr[i] = -1, 0
		}
	}
	return c
}

// leftOut returns the coordinates to leave out of Λ = L for a positive
// definite block of the rest, and the number of Λ's eigenvalues at most
// 0: those that make up the eigenvectors of those eigenvalues (each
// coordinate of at least a third of its eigenvector's largest, as the
// flat warning names a direction's elements). nil where every coordinate
// would be left out or the eigenvalues are not found (whether the rest's
// block is positive definite is partialCurvature's curvatureOf to find).
func leftOut(L *mat.SymDense) ([]bool, int) {
	n, _ := L.Dims()
	var eig mat.EigenSym
	if !eig.Factorize(L, true) {
		return nil, 0
	}
	vals := eig.Values(nil) // ascending
	var V mat.Dense
	eig.VectorsTo(&V)
	left, wrong := make([]bool, n), 0
	for k, v := range vals {
		if v > 0 {
			break
		}
		wrong++
		big := 0.0
		for i := range n {
			big = math.Max(big, math.Abs(V.At(i, k)))
		}
		for i := range n {
			left[i] = left[i] || math.Abs(V.At(i, k)) >= big/3
		}
	}
	if !slices.Contains(left, false) {
		return nil, wrong
	}
	return left, wrong
}

// CurvatureOfPrecision returns the Curvature of a posterior whose
// precision at the mode is L (its sds' ratios, partners and
// GroupRatios), or ErrNotDefinite: for a caller, or a test, that holds
// the precision rather than a fit.
func CurvatureOfPrecision(L *mat.SymDense) (*Curvature, error) {
	n, _ := L.Dims()
	H := mat.NewSymDense(n, nil)
	H.ScaleSym(-1, L)
	return curvatureOf(H)
}

// curvatureOf returns the Curvature of the precision Λ = −H, or
// ErrNotDefinite where Λ or its inverse has no Cholesky factor.
func curvatureOf(H *mat.SymDense) (*Curvature, error) {
	n, _ := H.Dims()
	L := mat.NewSymDense(n, nil)
	L.ScaleSym(-1, H)
	var ch mat.Cholesky
	var S mat.SymDense
	if !ch.Factorize(L) || ch.InverseTo(&S) != nil {
		return nil, ErrNotDefinite
	}
	c := &Curvature{Ratio: make([]float64, n), Partner: make([]int, n), Corr: make([]float64, n), lambda: L, sigma: &S}
	for i := range n {
		v := S.At(i, i) * L.At(i, i)
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, ErrNotDefinite
		}
		c.Ratio[i] = math.Sqrt(v)
		c.Partner[i] = -1
		for j := range n {
			if j == i {
				continue
			}
			rho := S.At(i, j) / math.Sqrt(S.At(i, i)*S.At(j, j))
			if c.Partner[i] < 0 || math.Abs(rho) > math.Abs(c.Corr[i]) {
				c.Partner[i], c.Corr[i] = j, rho
			}
		}
	}
	return c, nil
}

// coordModes returns q's mode and sd of every coordinate u of ud (the
// density of a mean-field fit's latents, in r.Factors' order): a normal's
// or log-normal's location, log(a/rate) for a gamma factor's log b (the
// mode of a·log b − rate·b), log(α/β) for a beta factor's logit b (the
// mode of α·log b + β·log(1 − b)), and for a Dirichlet factor's simplex
// its K − 1 stick-breaking coordinates a row, y_j = logit(z_j) +
// log(K − j − 1) of stick j's share z_j of what is left: under
// Dirichlet(α) the z_j are independent Beta(α_j, Σ_{i>j} α_i), so q is
// mean-field in y too, y_j's mode log(α_j / Σ_{i>j} α_i) + log(K − j − 1)
// and its sd a beta factor's. An error for other factors.
func (r *Result) coordModes(ud *Unconstrained) (u, sd []float64, err error) {
	r.prepare()
	x, sdx := make([]float64, r.Dim), make([]float64, r.Dim)
	alpha := make([]float64, r.Dim) // a Dirichlet factor's α, NaN elsewhere
	val := r.cache.val
	for bi := range r.blocks {
		b := &r.blocks[bi]
		n, p := b.n, b.poff
		for i := range n {
			alpha[b.off+i] = math.NaN()
			switch b.fam {
			case FamilyNormal, FamilyLognormal:
				x[b.off+i] = val[p+i]
			case FamilyGamma, FamilyBeta:
				x[b.off+i] = math.Log(val[p+i] / val[p+n+i])
			case FamilyDirichlet:
				alpha[b.off+i] = val[p+i]
				continue
			default:
				return nil, nil, fmt.Errorf("sgvb: the curvature check is of mean-field factors, not %s's %v", b.name, b.fam)
			}
			_, sdx[b.off+i] = b.coordMoments(val, i)
		}
	}
	u, sd = make([]float64, ud.Dim()), make([]float64, ud.Dim())
	for si, s := range ud.segs {
		if s.kind != uSimplex {
			copy(u[s.uoff:s.uoff+s.n], x[s.xoff:s.xoff+s.n])
			copy(sd[s.uoff:s.uoff+s.n], sdx[s.xoff:s.xoff+s.n])
			continue
		}
		tail := make([]float64, s.k+1) // tail[j] = Σ_{i≥j} α_i of a row
		for row := range s.n / (s.k - 1) {
			a := alpha[s.xoff+row*s.k : s.xoff+(row+1)*s.k]
			for j := s.k - 1; j >= 0; j-- {
				tail[j] = tail[j+1] + a[j]
			}
			if !(tail[0] > 0) {
				return nil, nil, fmt.Errorf("sgvb: the curvature check: simplex %s's factor is not a Dirichlet", ud.factors[si].Name)
			}
			for j := range s.k - 1 {
				o := s.uoff + row*(s.k-1) + j
				u[o] = math.Log(a[j]/tail[j+1]) + math.Log(float64(s.k-j-1))
				sd[o] = math.Sqrt(dist.Trigamma(a[j]) + dist.Trigamma(tail[j+1]))
			}
		}
	}
	return u, sd, nil
}

// DeltaRatio is Ratio's reading of a function g of the coordinates by the
// delta method, for its gradient grad at Mode: √(gᵀΣg / Σ_i g_i²/Λ_ii),
// the sd of g under N(·, Λ⁻¹) against that under a mean-field q whose
// variances are 1/Λ_ii (Ratio[i] for g = x_i). In a Partial check the
// Left coordinates are held at q's mode, as Ratio's are. NaN where grad
// is not finite or g does not move with the coordinates kept.
func (c *Curvature) DeltaRatio(grad []float64) float64 {
	n := len(c.Ratio)
	if len(grad) != n || c.sigma == nil {
		return math.NaN()
	}
	var nz []int // the coordinates g moves with, kept: a sparse gradient's few
	for i, gi := range grad {
		if gi != 0 && (c.Left == nil || !c.Left[i]) {
			nz = append(nz, i)
		}
	}
	num, den := 0.0, 0.0
	for _, i := range nz {
		den += c.MeanFieldVar(grad, i)
		row := 0.0
		for _, j := range nz {
			row += c.sigma.At(i, j) * grad[j]
		}
		num += grad[i] * row
	}
	if !(den > 0) || !(num >= 0) || math.IsInf(num, 0) || math.IsInf(den, 0) {
		return math.NaN()
	}
	return math.Sqrt(num / den)
}

// MeanFieldVar returns g_i²/Λ_ii, coordinate i's term of a mean-field
// q's variance of g by the delta method (DeltaRatio's denominator), for
// g's gradient grad: 0 where g does not move with coordinate i or i is
// Left.
func (c *Curvature) MeanFieldVar(grad []float64, i int) float64 {
	if grad[i] == 0 || c.Left != nil && c.Left[i] {
		return 0
	}
	return grad[i] * grad[i] / c.lambda.At(i, i)
}

// GroupRatios returns, per coordinate, how many times its sd would still
// be too small under a q that is mean-field but for one joint normal
// factor over the coordinates where in is true: inside that group
// √(Σ_ii / ((Λ_GG)⁻¹)_ii), since on a normal posterior such a factor's
// optimum has the precision Λ_GG of the group's block (its other
// coordinates held by their own factors); outside it Ratio[i].
func (c *Curvature) GroupRatios(in []bool) []float64 {
	out := append([]float64(nil), c.Ratio...)
	var idx []int
	for i, ok := range in {
		if ok {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return out
	}
	G := mat.NewSymDense(len(idx), nil)
	for a, i := range idx {
		for b := a; b < len(idx); b++ {
			G.SetSym(a, b, c.lambda.At(i, idx[b]))
		}
	}
	var ch mat.Cholesky
	var inv mat.SymDense
	if !ch.Factorize(G) || ch.InverseTo(&inv) != nil { // a principal block of a positive definite Λ is one
		return out
	}
	for a, i := range idx {
		out[i] = math.Sqrt(c.sigma.At(i, i) / inv.At(a, a))
	}
	return out
}
