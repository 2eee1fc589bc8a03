package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// OutputStream is the PCG stream, with the run's seed, from which gpp fit
// and gpp sample draw the outputs' replicates at each draw
// (sgvb.OutputStream): Summary and FitSummary draw them from it so that
// their output rows are the commands'.
const OutputStream = sgvb.OutputStream

// SummarySettings choose a summary's quantiles and HDI, gpp summary's
// --percentiles and --hdi (CmdStanPy's percentiles=, ArviZ's hdi_prob=).
// A nil *SummarySettings, or zero fields, are gpp's defaults.
type SummarySettings struct {
	// Probs are the quantiles' probabilities, each in [0, 1] (nil: 0.05,
	// 0.5 and 0.95, the columns q5, q50 and q95 of summary.csv).
	Probs []float64
	// HDIProb in (0, 1) adds each row's highest-density interval of that
	// probability (nuts.HDI; ArviZ's default 0.94); 0: none.
	HDIProb float64
}

// Summary is a summary of draws, gpp sample's summary.csv as a value.
type Summary struct {
	Probs   []float64    // the quantiles' probabilities
	HDIProb float64      // the HDI's probability, 0 if none
	Rows    []SummaryRow // a row per param element, then per output element
}

// SummaryRow summarises one column of draws.csv, over all the chains: the
// numbers of gpp sample's summary.csv row of the same name (there printed
// to 6 significant digits); the MCMC diagnostics are nuts.Diagnose's.
type SummaryRow struct {
	// Name is summary.csv's name of the element: the language's 0-based
	// indices, "beta[1]", or where a data column's labels size an axis,
	// the label, "a[AITKIN]", as gpp fit and gpp sample print it.
	Name string
	// Column is draws.csv's column of the element, CmdStan's 1-based
	// "beta.2": ParamNames' (or OutputNames') name, the key to join the
	// row with FitDraws' or SampleDraws' columns.
	Column    string
	Output    bool      // an output's element, not a param's
	Mean, SD  float64   // of the draws that are not NaN
	Quantiles []float64 // at Summary.Probs (R's type 7)
	HDI       [2]float64
	// MCSEMean, ESSBulk, ESSTail and Rhat are the rank-normalised split
	// R̂, the ESS and the mean's Monte Carlo error; NaN for a column
	// constant within every chain, but R̂ +Inf where those values differ
	// (NUTS chains frozen at their starts) unless FixedParam holds them;
	// R̂ NaN for a fit's independent draws, which are not chains, and
	// across the restarts for a mixture's (MixtureSummary).
	MCSEMean, ESSBulk, ESSTail, Rhat float64
	MCSESD                           float64
	MCSEQuantile                     [3]float64 // at nuts.DiagnoseProbs: 5, 50 and 95 %
	MAD                              float64
}

// Summary summarises a NUTS run of this model (from Sample, whose
// nuts.Settings.Seed is seed), as gpp sample's summary.csv does: a row per
// param element (SampleDraws' columns) and per output element (Outputs at
// each draw, replicates drawn from OutputStream of seed), all chains
// pooled for the mean, sd, quantiles and HDI, chain by chain for the
// diagnostics. s nil is gpp sample's default columns.
func (m *Model) Summary(res *nuts.Result, seed uint64, s *SummarySettings) (*Summary, error) {
	sum, err := newSummary(s)
	if err != nil {
		return nil, err
	}
	rows, err := m.chainDraws("Summary", res, func(ch *nuts.Chain) *nuts.Chain { return ch })
	if err != nil {
		return nil, err
	}
	chains := len(res.Chains)
	n := 0
	if chains > 0 {
		n = len(rows) / chains
	}
	var outs [][]float64
	if len(m.l.Model.Outputs) > 0 {
		outs = m.sampleOutputs(res, chains, n, seed)
	}
	return m.summarise(sum, rows, outs, chains, true, res.FixedParam, nil)
}

// FitSummary summarises n draws from q, the fit r of this model, as gpp
// fit's summary.csv does (its mean, sd and quantiles) and gpp summary of
// its draws.csv (the MCMC columns, there of draws rounded to 6 digits):
// the rows of FitDraws(r, n, seed) and the outputs at each (replicates
// drawn from OutputStream of seed), gpp fit's seed and --output-draws
// (1000). The draws are independent draws of q, not chains: R̂ is NaN,
// the ESS and Monte Carlo errors those of one chain.
func (m *Model) FitSummary(r *sgvb.Result, n int, seed uint64, s *SummarySettings) (*Summary, error) {
	sum, err := newSummary(s)
	if err != nil {
		return nil, err
	}
	outs, at := m.outputsOf(seed)
	rows, err := m.fitDraws("FitSummary", r, n, seed, at)
	if err != nil {
		return nil, err
	}
	return m.summarise(sum, rows, *outs, 1, false, false, nil)
}

// newSummary is an empty Summary of s's quantiles and HDI, checked before
// any draw is made.
func newSummary(s *SummarySettings) (*Summary, error) {
	sum := &Summary{Probs: []float64{0.05, 0.5, 0.95}}
	if s != nil && s.Probs != nil {
		sum.Probs = slices.Clone(s.Probs)
	}
	for _, p := range sum.Probs {
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("model: Summary: probability %v outside [0, 1]", p)
		}
	}
	if s != nil && s.HDIProb != 0 {
		if !(s.HDIProb > 0 && s.HDIProb < 1) {
			return nil, fmt.Errorf("model: Summary: HDIProb %v outside (0, 1)", s.HDIProb)
		}
		sum.HDIProb = s.HDIProb
	}
	return sum, nil
}

// summarise adds to sum the rows of the columns of rows (params) and outs
// (outputs, a row per row of rows), chains of equal length one after
// another; R̂ only for mcmc's chains, NaN for a column the fixed_param
// sampler held (fixed) at one value per chain, or, for the draws of a
// mixture (restarts not nil: row d from restart restarts[d] of R),
// sgvb.RestartRhat's across the restarts.
func (m *Model) summarise(sum *Summary, rows, outs [][]float64, chains int, mcmc, fixed bool, restarts *drawRestarts) (*Summary, error) {
	if chains == 0 || len(rows)%chains != 0 {
		return nil, errors.New("model: Summary: no chains of equal length to summarise")
	}
	col := make([]float64, len(rows))
	add := func(name, column string, output bool, j int, of [][]float64) {
		for d, r := range of {
			col[d] = r[j]
		}
		row := summariseColumn(name, column, output, col, chains, mcmc, fixed, sum)
		if restarts != nil {
			row.Rhat = sgvb.RestartRhat(col, restarts.comp, restarts.R)
		}
		sum.Rows = append(sum.Rows, row)
	}
	params, outputs := m.summaryNames()
	for j, column := range m.names {
		add(params[j], column, false, j, rows)
	}
	for j, column := range m.OutputNames() {
		add(outputs[j], column, true, j, outs)
	}
	return sum, nil
}

// summaryNames returns summary.csv's names of the params' elements and of
// the outputs', in ParamNames' and OutputNames' order: 0-based, by label
// on an axis a data column's labels size, as cmd/gpp names them.
func (m *Model) summaryNames() (params, outputs []string) {
	sizes := data.SizeLabels(m.l.Info, m.l.Data)
	names := func(dst []string, name string, output bool, shape []int) []string {
		axes := pipeline.LabelledAxes(m.l.Info, sizes, name, output, shape)
		for _, k := range compile.ColumnMajor(shape) {
			dst = append(dst, pipeline.LabelledName(name, shape, axes, k))
		}
		return dst
	}
	for _, p := range m.params {
		params = names(params, p.Name, false, p.Shape)
	}
	for _, o := range m.l.Model.Outputs {
		outputs = names(outputs, o.Name, true, o.Shape)
	}
	return params, outputs
}

// summariseColumn summarises one column, its chains one after another.
func summariseColumn(name, column string, output bool, col []float64, chains int, mcmc, fixed bool, sum *Summary) SummaryRow {
	r := SummaryRow{Name: name, Column: column, Output: output, HDI: [2]float64{math.NaN(), math.NaN()}}
	v, _ := nuts.SortedFinite(col)
	r.Mean, r.SD = nuts.MeanSD(v)
	r.Quantiles = make([]float64, len(sum.Probs))
	for i, p := range sum.Probs {
		r.Quantiles[i] = nuts.Quantile(v, p)
	}
	if sum.HDIProb != 0 {
		r.HDI[0], r.HDI[1] = nuts.HDI([][]float64{v}, sum.HDIProb) // of the draws that are not NaN, as the CLI's
	}
	n := len(col) / chains
	byChain := make([][]float64, chains)
	for c := range byChain {
		byChain[c] = col[c*n : (c+1)*n]
	}
	dg := nuts.Diagnose(byChain) // NaN where nothing varies within a chain, R̂ +Inf where the chains' values differ
	r.MCSEMean, r.ESSBulk, r.ESSTail, r.Rhat = dg.MCSEMean, dg.ESSBulk, dg.ESSTail, dg.Rhat
	r.MCSESD, r.MCSEQuantile, r.MAD = dg.MCSESD, dg.MCSEQuantile, dg.MAD
	if !mcmc || fixed && nuts.EachConstant(byChain) { // not chains; held by the fixed_param sampler, as gpp sample's
		r.Rhat = math.NaN()
	}
	return r
}

// SampleOutputs returns the outputs at each draw of a NUTS run of this
// model (from Sample; for a Predictor, of the model it was made from), as
// rows in OutputNames' order, chain by chain as SampleDraws' rows: gpp
// sample's draws.csv output columns (for a Predictor, gpp predict's from
// the sample, with the left-out data drawn), bit for bit, the replicates
// drawn from OutputStream of seed (gpp sample's --seed,
// SampleSettings().Seed) and left-out data from sgvb.LeftOutStream. An
// output that fails at a draw is NaN there, as in draws.csv.
func (m *Model) SampleOutputs(res *nuts.Result, seed uint64) ([][]float64, error) {
	rows, err := m.chainDraws("SampleOutputs", res, func(ch *nuts.Chain) *nuts.Chain { return ch })
	if err != nil {
		return nil, err
	}
	chains, n := len(res.Chains), 0
	if chains > 0 {
		n = len(rows) / chains
	}
	return m.sampleOutputs(res, chains, n, seed), nil
}

// sampleOutputs evaluates the outputs at the first n draws of each of the
// chains of res, as gpp sample and gpp predict do.
func (m *Model) sampleOutputs(res *nuts.Result, chains, n int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, OutputStream))
	drawRng := rand.New(rand.NewPCG(seed, sgvb.LeftOutStream))
	outs := make([][]float64, 0, chains*n)
	for c := range chains {
		for i := range n {
			m.u.Coords(res.Chains[c].Draws[i*res.Dim:(i+1)*res.Dim], m.x)
			y, _ := m.outputsAtDraw(m.x, rng, drawRng) // NaN where it failed, as draws.csv
			outs = append(outs, y)
		}
	}
	return outs
}
