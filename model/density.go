package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// DensityOption chooses which log density LogDensity computes.
type DensityOption func(*densityConfig)

type densityConfig struct{ noJacobian bool }

// withJacobian and withoutJacobian are Jacobian's options, made once so
// that passing one allocates nothing.
var (
	withJacobian    DensityOption = func(c *densityConfig) { c.noJacobian = false }
	withoutJacobian DensityOption = func(c *densityConfig) { c.noJacobian = true }
)

// Jacobian chooses whether the log density includes the log-Jacobian of
// the transform from u to the params' values, BridgeStan's jacobian
// switch. true (the default) is the density of u, what NUTS, Laplace and
// Pathfinder move on; false is the log joint at the params' values Constrain(u),
// what MAP maximises.
func Jacobian(on bool) DensityOption {
	if on {
		return withJacobian
	}
	return withoutJacobian
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
	if err := m.noDensity("LogDensity"); err != nil {
		return math.NaN(), err
	}
	if err := checkLen("u", len(u), m.Dim()); err != nil {
		return math.NaN(), err
	}
	var lp float64
	var err error
	if m.densityOpts(opts).noJacobian {
		lp, err = m.u.LogJointValue(u)
	} else {
		lp, err = m.u.LogDensityValue(u)
	}
	return lp, finiteErr(lp, err)
}

// LogDensityGradient returns LogDensity at u and writes its gradient in
// u into grad (both len Dim), by reverse-mode autodiff.
func (m *Model) LogDensityGradient(u, grad []float64, opts ...DensityOption) (float64, error) {
	if err := m.noDensity("LogDensityGradient"); err != nil {
		return math.NaN(), err
	}
	if err := checkLen("u", len(u), m.Dim()); err != nil {
		return math.NaN(), err
	}
	if err := checkLen("grad", len(grad), m.Dim()); err != nil {
		return math.NaN(), err
	}
	lp, err := m.u.Density(u, grad, !m.densityOpts(opts).noJacobian)
	return lp, finiteErr(lp, err)
}

// densityOpts applies opts to the model's own densityConfig, which a call
// of an option's func cannot leave on the stack: a local one would be
// allocated at every LogDensity call.
func (m *Model) densityOpts(opts []DensityOption) densityConfig {
	m.dopts = densityConfig{}
	for _, o := range opts {
		o(&m.dopts)
	}
	return m.dopts
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
// param_unconstrain, the inverse of Constrain (sgvb's ValueCoords, the
// matrix params' included). A value outside its param's support or bounds
// is an *ast.Error at "Unconstrain" naming the element as Inits' error
// does, 0-based: "Unconstrain: sigma[1] is -1, outside sigma's support:
// want a positive value".
func (m *Model) Unconstrain(theta []float64) ([]float64, error) {
	if err := checkLen("theta", len(theta), m.NumParams()); err != nil {
		return nil, err
	}
	at := 0
	for i, lat := range m.l.Model.Latents {
		p := &m.params[i]
		// the param's values, row-major
		v := m.value[:p.Size]
		cm := compile.ColumnMajor(p.Shape)
		for j, k := range cm {
			v[k] = theta[at+j]
		}
		x := m.x[lat.Offset : lat.Offset+lat.Size]
		if err := m.u.ValueCoords(i, v, x); err != nil {
			var ve *sgvb.ValueError
			if !errors.As(err, &ve) {
				return nil, fmt.Errorf("model: Unconstrain: %w", err)
			}
			// as Inits' error of the same value, at the method's name
			return nil, ast.Errorf(ast.Pos{File: "Unconstrain"}, "%s is %v, outside %s's support: want %s", compile.ElemName(p.Name, p.Shape, ve.Elem), ve.Value, p.Name, ve.Want)
		}
		at += p.Size
	}
	u := make([]float64, m.Dim())
	m.u.UCoords(m.x, u)
	return u, nil
}
