package autodiff

import "math"

// The stiff solver (ODERosW, gpp's ode_bdf): the Rosenbrock-W method
// ROS34PW2 of Rang and Angermann (2005), four stages, order 3 with an
// embedded solution of order 2 for the error estimate, L-stable and
// stiffly accurate. It is linearly implicit: each step solves four linear
// systems with the one matrix W = I/(γh) − J, J ≈ ∂f/∂y at the step's
// start, where an implicit method (CVODES's BDF, Stan's ode_bdf) solves a
// nonlinear system by Newton's method at each step. One-step, it restarts
// at each output time at no cost and keeps the landing of ode_rk45: a step
// is shortened to end on each output time, and no interpolation enters the
// values or their derivatives.
//
// A W-method keeps its order for any matrix in place of J (only its
// stability on stiff problems depends on J being close); this is what
// makes the sensitivities cheap. The coupled system z = (y, S), S' = J_y S
// + J_θ, has the Jacobian [[J_y, 0], [C, diag(J_y, …)]], C = ∂(J_y S +
// J_θ)/∂y: block lower triangular, its diagonal blocks J_y. The solver
// takes J_y at the step's start for every diagonal block, so one LU
// factorisation of the D×D matrix W serves y and each column of S, and
// solves the block system by substitution: y's block first, then S's
// with C u_y added on the right. C u_y is a forward difference of the
// coupled derivative along u_y (coupling), one more evaluation of f and
// its Jacobian per stage, and no second derivative of f: as an
// approximation of C (to about √ε, varying with the stage by as much) it
// keeps the order, and it keeps the stiff damping of S that dropping C
// loses (Robertson's problem with sensitivities took 2.2 times the steps
// without it). The eigenvalues of the coupled system are those of J_y,
// which the blocks hold exactly. For the same reason the time derivative
// ∂f/∂t of a Rosenbrock method is left out: for the system made
// autonomous (t' = 1) it is a column of the Jacobian that a W-method may
// approximate, by zero. The error control is the rk45's, the max norm over
// y and S against abs_tol + rel_tol·|z|, with the step changed by
// err^(−1/3).
//
// The method is written in the form of Hairer and Wanner (Solving ODEs II,
// IV.7), in the variables u_i = Σ_j γ_ij k_j, which needs no product of J
// with a vector: W u_i = F(t + α_i h, z + Σ_j a_ij u_j) + Σ_j (c_ij/h) u_j,
// z_new = z + Σ m_i u_i. The coefficients a, c and m are computed from the
// published α, Γ, b and b̂ (rosW).

// ROS34PW2's coefficients (Rang and Angermann, BIT Numerical Mathematics
// 45 (2005) 761–787; Γ's diagonal is γ): stage i is evaluated at
// z + Σ_j α_ij k_j, and the step's result is z + Σ b_i k_i, the embedded
// one z + Σ b̂_i k_i.
const rosGamma = 4.3586652150845900e-01

var (
	rosAlpha = [4][4]float64{
		{},
		{8.7173304301691801e-01},
		{8.4457060015369423e-01, -1.1299064236484185e-01},
		{0, 0, 1},
	}
	rosGammaM = [4][4]float64{
		{rosGamma},
		{-8.7173304301691801e-01, rosGamma},
		{-9.0338057013044082e-01, 5.4180672388095326e-02, rosGamma},
		{2.4212380706095346e-01, -1.2232505839045147e+00, 5.4526025533510214e-01, rosGamma},
	}
	rosB    = [4]float64{2.4212380706095346e-01, -1.2232505839045147e+00, 1.5452602553351020e+00, 4.3586652150845900e-01}
	rosBHat = [4]float64{3.7810903145819369e-01, -9.6042292212423178e-02, 0.5, 2.1793326075422950e-01}

	rosW = newRosTableau()
)

// rosTableau is the method in the variables u: stage i's point
// z + Σ_j a[i][j] u_j at t + c[i]·h, its right-hand side F_i +
// Σ_j cu[i][j]/h · u_j, the result z + Σ m_i u_i and the error estimate
// Σ e_i u_i.
type rosTableau struct {
	a, cu [4][4]float64
	c     [4]float64
	m, e  [4]float64
}

// newRosTableau transforms ROS34PW2's coefficients: with G = Γ⁻¹ (lower
// triangular), a = α G, cu_ij = −G_ij (j < i), m = b G, e = (b − b̂) G.
func newRosTableau() rosTableau {
	var g [4][4]float64 // Γ⁻¹ by forward substitution, column by column
	for j := range 4 {
		g[j][j] = 1 / rosGammaM[j][j]
		for i := j + 1; i < 4; i++ {
			s := 0.0
			for k := j; k < i; k++ {
				s += rosGammaM[i][k] * g[k][j]
			}
			g[i][j] = -s / rosGammaM[i][i]
		}
	}
	var w rosTableau
	for i := range 4 {
		for j := range i {
			w.c[i] += rosAlpha[i][j]
			w.cu[i][j] = -g[i][j]
			for k := j; k < i; k++ {
				w.a[i][j] += rosAlpha[i][k] * g[k][j]
			}
		}
		for k := i; k < 4; k++ {
			w.m[i] += rosB[k] * g[k][i]
			w.e[i] += (rosB[k] - rosBHat[k]) * g[k][i]
		}
	}
	return w
}

// stiffStep takes one ROS34PW2 step of size h from (t, r.z), whose
// derivative is in r.k[0] and J_y in r.jw, into r.znew. When the step is
// accurate enough (error ≤ 1) it also evaluates the derivative at the new
// point into r.k[6], with J_y in r.jy, for the next step. It returns the
// error's scaled max norm (NaN when W is singular), or the failure of an
// evaluation. r.k[1..4] hold the stages u, r.k[5] a stage's derivative.
func (r *odeRun) stiffStep(t, h float64) (float64, error) {
	d, np := r.spec.rhs.d, r.np
	lu := r.lu
	for i := range lu {
		lu[i] = -r.jw[i]
	}
	for i := range d {
		lu[i*d+i] += 1 / (rosGamma * h)
	}
	if _, zero := luFactor(lu, d, r.piv); zero != 0 {
		return math.NaN(), nil
	}
	z, y, pt, f := r.z, r.znew, r.tmp, r.k[5]
	for s := range 4 {
		u := r.k[1+s]
		if s == 0 {
			copy(u, r.k[0])
		} else {
			copy(pt, z)
			for j, a := range rosW.a[s][:s] {
				if a != 0 {
					axpy(a, r.k[1+j], pt)
				}
			}
			if err := r.rhs(t+rosW.c[s]*h, pt, f, false); err != nil {
				return 0, err
			}
			copy(u, f)
			for j, c := range rosW.cu[s][:s] {
				if c != 0 {
					axpy(c/h, r.k[1+j], u)
				}
			}
		}
		// W u = rhs, block by block: y [D], then S [D, P], each column
		// of S a block, with the coupling C u_y on its right.
		luSolve(lu, d, r.piv, u[:d], 1)
		if np > 0 {
			if err := r.coupling(t, u); err != nil {
				return 0, err
			}
			luSolve(lu, d, r.piv, u[d:], np)
		}
	}
	copy(y, z)
	for s, m := range rosW.m {
		axpy(m, r.k[1+s], y)
	}
	// The stages u already carry h: the error is Σ e_i u_i.
	worst := r.errNorm(1, rosW.e[:], r.k[1:5])
	if worst <= 1 {
		if err := r.rhs(t+h, y, r.k[6], true); err != nil {
			return 0, err
		}
	}
	return worst, nil
}

// axpy adds a·x to y.
func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}

// odeFDRel is the relative size of the finite-difference step of the
// coupling term: about the square root of the rounding unit.
const odeFDRel = 0x1p-26

// coupling adds to u's S part the coupling C u_y, C = ∂(J_y S + J_θ)/∂y
// at the step's start (t, r.z), by a forward difference of the coupled
// system's derivative along u_y (r.k[0] holds it at the start); it uses
// r.tmp and r.k[5].
func (r *odeRun) coupling(t float64, u []float64) error {
	d, z, pt, f := r.spec.rhs.d, r.z, r.tmp, r.k[5]
	un, yn := 0.0, 1.0
	for i, v := range u[:d] {
		un, yn = max(un, math.Abs(v)), max(yn, math.Abs(z[i]))
	}
	if un == 0 {
		return nil
	}
	sigma := odeFDRel * yn / un
	copy(pt, z)
	axpy(sigma, u[:d], pt[:d])
	if err := r.rhs(t, pt, f, false); err != nil {
		return err
	}
	f0 := r.k[0]
	for i := d; i < len(u); i++ {
		u[i] += (f[i] - f0[i]) / sigma
	}
	return nil
}
