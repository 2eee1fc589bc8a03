package autodiff

import "github.com/gpplang/gpp/dist"

// The scalar special functions of the elementwise ops live in package dist,
// with gpp's other numerics; these names keep the op tables short.

func logx(x float64) float64     { return dist.Log(x) }
func digamma(x float64) float64  { return dist.Digamma(x) }
func trigamma(x float64) float64 { return dist.Trigamma(x) }
func log1mexp(x float64) float64 { return dist.Log1mexp(x) }
func softplus(x float64) float64 { return dist.Softplus(x) }
func invLogit(x float64) float64 { return dist.InvLogit(x) }
