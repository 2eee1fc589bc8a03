package model

import (
	"fmt"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/compile"
)

// Predictor compiles m's model again on the new data of opts as gpp
// predict compiles it (pipeline.BindPredict), for its outputs at draws
// of a fit of m: data that only the log density reads (the observed y of
// y ~ Normal(mu, sigma)) may be left out, and a left-out y that a ~
// observes is then drawn at each draw from its ~, after the outputs
// (OutputNames names it); a column of labels is coded as m's data coded
// it, a size bound from numeric ids is no smaller than m's, and a matrix
// bound from named CSV columns binds the new file's columns of those
// names in m's order. Its params are m's, so that a fit or a NUTS run of
// m (Fit, Sample) is one of the Predictor: FitOutputs and SampleOutputs
// give the predictions.
// New data that change a param's shape (a group m's data did not have)
// are an error at the declaration. A Predictor has no log density: its
// LogDensity, Fit, Sample and Resample are errors. Errors are positioned
// as gpp predict's. For a fit that gpp fit saved, LoadFit and
// Fit.Predictor code the new data as fit.json records instead.
func (m *Model) Predictor(opts ...Option) (*Model, error) {
	fit := m.l
	return m.predictor(m.sets, coding{data.Coded(fit.Info, fit.Data), data.CodeSizes(fit.Info, fit.Data), data.MatrixColumns(fit.Info, fit.Data)}, opts)
}

// coding is how a fit coded its data, which its Predictor codes new data
// by: the columns of labels, the sizes bound from numeric ids and the CSV
// columns of matrices (pipeline.LoadPredict's).
type coding struct {
	levels  map[string]data.Levels
	sizes   map[string]int
	columns map[string][]string
}

// predictor is Predictor with the --set consts inherited from sets, and
// new data coded as cd says: m's data's, or a saved fit's (Fit.Predictor).
func (m *Model) predictor(sets map[string]string, cd coding, opts []Option) (p *Model, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("%s: internal error in gpp: %v", m.Name(), r)
		}
	}()
	if m.predict {
		return nil, fmt.Errorf("model: Predictor: %s is a Predictor already: call Predictor on the fitted model", m.Name())
	}
	var c config
	for _, o := range opts {
		o(&c)
	}
	for _, k := range m.l.Info.Consts { // the fitted model's --set consts, as gpp predict inherits them
		if v, ok := sets[k.Name]; ok {
			if _, given := c.sets[k.Name]; !given {
				Set(k.Name, v)(&c)
			}
		}
	}
	l, inputs, err := c.parse(m.l.Path, m.l.Source)
	if err != nil {
		return nil, err
	}
	if err := l.BindPredict(inputs, c.sets, compile.PredictOptions{}, cd.levels, cd.sizes, cd.columns); err != nil {
		return nil, err
	}
	p, err = newModel(l)
	if err != nil {
		return nil, err
	}
	p.predict, p.sets = true, c.sets
	for i, lat := range l.Model.Latents {
		if i >= len(m.params) || lat.Name != m.params[i].Name || p.params[i].Dim != m.params[i].Dim {
			return nil, fmt.Errorf("%s: param %s has %d coordinates on the new data, %d on the fitted model's: its shape depends on the data, which must give the fit's", lat.Pos, lat.Name, p.params[i].Dim, paramDim(m, lat.Name))
		}
	}
	return p, nil
}

// paramDim is the number of coordinates of m's param name (0: none).
func paramDim(m *Model, name string) int {
	for _, p := range m.params {
		if p.Name == name {
			return p.Dim
		}
	}
	return 0
}

// noDensity is the error of a method that needs the log density, called
// on a Predictor.
func (m *Model) noDensity(fn string) error {
	if !m.predict {
		return nil
	}
	return fmt.Errorf("model: %s: %s is a Predictor, compiled without its log density: call it on the fitted model", fn, m.Name())
}

// FitOutputs returns the outputs at n draws of q, the fit r of this model
// (or, for a Predictor, of the model it was made from), as rows in
// OutputNames' order: gpp fit's draws.csv output columns (for a
// Predictor, gpp predict's on its data, with the left-out data drawn), bit
// for bit (printed there to 6 significant digits). The draws are
// FitDraws(r, n, seed)'s, the outputs' replicates drawn from OutputStream
// of seed and left-out data from sgvb.LeftOutStream, as the commands draw
// them; gpp fit's seed is its --seed (FitSettings().Seed, 1), and gpp
// predict's the fit's by default. An output that fails at a draw is NaN
// there, as in draws.csv.
func (m *Model) FitOutputs(r *sgvb.Result, n int, seed uint64) ([][]float64, error) {
	outs, at := m.outputsOf(seed)
	if at == nil {
		at = func([]float64) { *outs = append(*outs, []float64{}) }
	}
	if _, err := m.fitDraws("FitOutputs", r, n, seed, at); err != nil {
		return nil, err
	}
	return *outs, nil
}
