package model

import (
	"math/rand/v2"
	"slices"

	"github.com/gpplang/gpp/lang/compile"
)

// OutputNames names the values of the model's outputs (its output
// statements) as draws.csv does ("y_rep.3"), in Outputs' order: output by
// output, each one's elements in column-major order.
func (m *Model) OutputNames() []string {
	var out []string
	for _, o := range m.l.Model.Outputs {
		for _, k := range compile.ColumnMajor(o.Shape) {
			out = append(out, compile.CSVName(o.Name, o.Shape, k))
		}
	}
	return out
}

// Outputs returns the values of the model's outputs at the unconstrained
// coordinates u (len Dim), in OutputNames' order, as gpp fit and gpp
// sample evaluate them at each draw for draws.csv: at the params' values
// Constrain(u), replicates (output y_rep ~ D(...)) drawn from rng (nil: a
// stream of seed 0). Where the log joint or an output is not finite, the
// values are returned as they are (NaN where an op failed) with the
// model's positioned error.
func (m *Model) Outputs(u []float64, rng *rand.Rand) ([]float64, error) {
	if err := checkLen("u", len(u), m.Dim()); err != nil {
		return nil, err
	}
	m.u.Coords(u, m.x)
	return m.outputsAt(m.x, rng)
}

// outputsAt is Outputs at the Target's coordinates x (len TargetDim), as
// gpp fit evaluates them at each draw of q.
func (m *Model) outputsAt(x []float64, rng *rand.Rand) ([]float64, error) {
	if rng == nil {
		rng = rand.New(rand.NewPCG(0, 0))
	}
	return m.outputsAtDraw(x, rng, rng) // a Predictor's left-out data from rng too
}

// outputsAtDraw is outputsAt with a Predictor's left-out data drawn from
// drawRng (nil: a stream of seed 0).
func (m *Model) outputsAtDraw(x []float64, rng, drawRng *rand.Rand) ([]float64, error) {
	if m.ev == nil {
		ev, err := m.l.Model.NewEvaluator()
		if err != nil {
			return nil, err
		}
		m.ev = ev
	}
	if rng == nil {
		rng = rand.New(rand.NewPCG(0, 0))
	}
	m.ev.SetRand(rng)
	if drawRng == nil {
		drawRng = rand.New(rand.NewPCG(0, 0))
	}
	m.ev.SetDrawRand(drawRng)
	_, outs, err := m.ev.Eval(x)
	if err == nil {
		err = m.ev.OutputErr()
	}
	var vals []float64
	for i, o := range m.l.Model.Outputs {
		for _, k := range compile.ColumnMajor(o.Shape) {
			vals = append(vals, outs[i][k])
		}
	}
	return slices.Clip(vals), err
}
