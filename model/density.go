package model

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/compile"
)

// DensityOption chooses which log density LogDensity computes.
type DensityOption func(*densityConfig)

type densityConfig struct{ noJacobian bool }

// Jacobian chooses whether the log density includes the log-Jacobian of
// the transform from u to the params' values, BridgeStan's jacobian
// switch. true (the default) is the density of u, what NUTS, Laplace and
// Pathfinder move on; false is the log joint at the params' values Constrain(u),
// what MAP maximises.
func Jacobian(on bool) DensityOption {
	return func(c *densityConfig) { c.noJacobian = !on }
}

// LogDensity returns the model's log density at the unconstrained
// coordinates u (len Dim): log p(θ(u), y) + log |dθ/du| (without the
// last term under Jacobian(false)). Constants are included (BridgeStan's
// propto=false): every distribution's normalising terms, and the constant
// log-Jacobian log |U − L| of a bounded param real<lower=L, upper=U>,
// which gpp keeps in both modes so that the ELBO is the param's own; so
// is the Jacobian of a matrix param's transform (cholesky_factor_corr,
// cov_matrix, ...), which gpp's log joint holds, MAP's objective too.
// Terms gpp cannot know to be normalised (target +=, user densities) are
// as written. A non-finite density returns the model's positioned error,
// the statement that produced it, as gpp fit reports it.
func (m *Model) LogDensity(u []float64, opts ...DensityOption) (float64, error) {
	if err := checkLen("u", len(u), m.Dim()); err != nil {
		return math.NaN(), err
	}
	var lp float64
	var err error
	if densityOpts(opts).noJacobian {
		lp, err = m.u.LogJointValue(u)
	} else {
		lp, err = m.u.LogDensityValue(u)
	}
	return lp, finiteErr(lp, err)
}

// LogDensityGradient returns LogDensity at u and writes its gradient in
// u into grad (both len Dim), by reverse-mode autodiff.
func (m *Model) LogDensityGradient(u, grad []float64, opts ...DensityOption) (float64, error) {
	if err := checkLen("u", len(u), m.Dim()); err != nil {
		return math.NaN(), err
	}
	if err := checkLen("grad", len(grad), m.Dim()); err != nil {
		return math.NaN(), err
	}
	var lp float64
	var err error
	if densityOpts(opts).noJacobian {
		lp, err = m.u.LogJoint(u, grad)
	} else {
		lp, err = m.u.LogDensity(u, grad)
	}
	return lp, finiteErr(lp, err)
}

func densityOpts(opts []DensityOption) densityConfig {
	var c densityConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// finiteErr is the error of a log density lp: the model's, else one
// saying lp is not finite.
func finiteErr(lp float64, err error) error {
	if err != nil {
		return err
	}
	if math.IsNaN(lp) || math.IsInf(lp, 0) {
		return fmt.Errorf("model: the log density is %v", lp)
	}
	return nil
}

// Constrain returns the params' values at the unconstrained coordinates u
// (len Dim), in ParamNames' order: BridgeStan's param_constrain. Each lies
// in its param's support and bounds.
func (m *Model) Constrain(u []float64) ([]float64, error) {
	if err := checkLen("u", len(u), m.Dim()); err != nil {
		return nil, err
	}
	m.u.Coords(u, m.x)
	m.u.Values(m.z, m.x)
	return m.appendValues(make([]float64, 0, m.NumParams()), m.z), nil
}

// appendValues appends to dst the params' values, in ParamNames' order,
// from z, the Target's values (natural scale): each param's elements
// column-major, a matrix param's K×K value made from its coordinates by
// the dist functions gpp fit's and gpp sample's draws.csv use.
func (m *Model) appendValues(dst, z []float64) []float64 {
	for i, lat := range m.l.Model.Latents {
		p := &m.params[i]
		v := z[lat.Offset : lat.Offset+lat.Size]
		if lat.Value != nil { // a matrix param's value from its coordinates
			val := m.value[:p.Size]
			if lat.Support == dist.SumToZeroMatrix {
				dist.SumToZeroMatrixValues(val, v, p.Shape[0], p.Shape[1])
			} else {
				dist.MatrixValues(lat.Support, val, m.fac[:p.Size], v, p.Shape[0])
			}
			v = val
		}
		for _, k := range compile.ColumnMajor(p.Shape) {
			dst = append(dst, v[k])
		}
	}
	return dst
}

// Unconstrain returns the unconstrained coordinates (len Dim) of the
// params' values theta, given in ParamNames' order: BridgeStan's
// param_unconstrain, the inverse of Constrain. A value outside its
// param's support or bounds is an error naming the element. The matrix
// params cholesky_factor_corr, corr_matrix, cholesky_factor_cov and
// cov_matrix have no inverse here yet: they are an error.
func (m *Model) Unconstrain(theta []float64) ([]float64, error) {
	if err := checkLen("theta", len(theta), m.NumParams()); err != nil {
		return nil, err
	}
	at := 0
	for i, lat := range m.l.Model.Latents {
		p := &m.params[i]
		// the param's values, row-major
		v := m.value[:p.Size]
		for j, k := range colMajor(p.Shape) {
			v[k] = theta[at+j]
		}
		x := m.x[lat.Offset : lat.Offset+lat.Size]
		if err := m.coords(p, i, v, x, theta[at:at+p.Size], at); err != nil {
			return nil, err
		}
		at += p.Size
	}
	u := make([]float64, m.Dim())
	m.u.UCoords(m.x, u)
	return u, nil
}

// coords writes the Target coordinates x of param i's values v
// (row-major); the errors name element names[at+j] of theta's block.
func (m *Model) coords(p *Param, i int, v, x, block []float64, at int) error {
	lat := m.l.Model.Latents[i]
	bad := func(j int, want string) error {
		return fmt.Errorf("model: %s is %v, outside %s's support: want %s", m.names[at+j], block[j], p.Name, want)
	}
	// column-major position of row-major element k, for messages
	cm := make(map[int]int, len(v))
	for j, k := range colMajor(p.Shape) {
		cm[k] = j
	}
	for k, val := range v {
		if math.IsNaN(val) || math.IsInf(val, 0) {
			return bad(cm[k], "a finite number")
		}
	}
	switch lat.Support {
	case dist.Real:
		copy(x, v)
	case dist.Positive, dist.Unit:
		for k, val := range v {
			b := val
			if loc, scale := lat.AffineAt(k); scale != 0 {
				b = (val - loc) / scale
			}
			switch {
			case lat.Support == dist.Positive && !(b > 0):
				return bad(cm[k], boundText(lat.AffineAt(k)))
			case lat.Support == dist.Unit && !(b > 0 && b < 1):
				if _, scale := lat.AffineAt(k); scale == 0 {
					return bad(cm[k], "a value in (0, 1)")
				}
				return bad(cm[k], unitText(lat.AffineAt(k)))
			case lat.Support == dist.Positive:
				x[k] = math.Log(b)
			default:
				x[k] = math.Log(b) - math.Log1p(-b)
			}
		}
	case dist.Simplex:
		kk := p.Shape[len(p.Shape)-1]
		for r := 0; r < len(v); r += kk {
			sum := 0.0
			for k := r; k < r+kk; k++ {
				if !(v[k] > 0) {
					return bad(cm[k], "positive simplex components")
				}
				sum += v[k]
				x[k] = math.Log(v[k])
			}
			if math.Abs(sum-1) > simplexTol {
				return bad(cm[r], fmt.Sprintf("components that sum to 1 (the row's sum to %v)", sum))
			}
		}
	case dist.Ordered, dist.PositiveOrdered:
		prev := 0.0
		for k, val := range v {
			switch {
			case k == 0 && lat.Support == dist.Ordered:
				x[0] = val
			case !(val > prev):
				return bad(cm[k], "values that increase (from 0 for a positive_ordered one)")
			default:
				x[k] = math.Log(val - prev)
			}
			prev = val
		}
	case dist.SumToZero:
		dist.SumToZeroCoords(x, v)
	case dist.SumToZeroMatrix:
		dist.SumToZeroMatrixCoords(x, v, m.fac[:len(v)], p.Shape[0], p.Shape[1])
	default:
		return fmt.Errorf("model: Unconstrain: param %s is a %v, whose inverse transform gpp does not have", p.Name, lat.Support)
	}
	return nil
}

// simplexTol is how far from 1 Unconstrain lets a simplex row's sum be.
const simplexTol = 1e-8

// boundText describes the values loc + scale·b, b > 0.
func boundText(loc, scale float64) string {
	switch {
	case scale == 0:
		return "a positive value"
	case scale > 0:
		return fmt.Sprintf("a value above %v", loc)
	}
	return fmt.Sprintf("a value below %v", loc)
}

// unitText describes the values loc + scale·b, 0 < b < 1.
func unitText(loc, scale float64) string {
	return fmt.Sprintf("a value between %v and %v", min(loc, loc+scale), max(loc, loc+scale))
}
