package pipeline

import (
	"context"
	"errors"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// FitRestarts fits rs.N independent q's to the posterior of m with the
// Target t (Target{M: m}, or one that wraps it) and returns their mixture
// (sgvb.FitRestarts over m's latents): gpp fit --restarts and the Go API's
// Model.FitRestarts, so that both fit the same mixture.
func FitRestarts(ctx context.Context, m *compile.Model, t sgvb.Target, s sgvb.Settings, rs sgvb.Restarts) (*sgvb.Mixture, error) {
	return sgvb.FitRestarts(ctx, t, Latents(m), s, rs)
}

// LaplacePos positions an *sgvb.LaplaceError of a fit of m at its param's
// declaration, as gpp fit reports it; other errors are returned as they
// are.
func LaplacePos(err error, m *compile.Model) error {
	var le *sgvb.LaplaceError
	if !errors.As(err, &le) {
		return err
	}
	for _, l := range m.Latents {
		if l.Name == le.Latent {
			return &ast.Error{Pos: l.Pos, Msg: le.Error()}
		}
	}
	return err
}
