package model

import (
	"fmt"
	"math/rand/v2"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
)

// FitDraws draws n times from q, the fit r of this model (from Fit), and
// returns the params' values of each draw as a row in ParamNames' order:
// the param columns of gpp fit's draws.csv rows after the mean row. They
// come from the stream gpp fit draws them from (sgvb.DrawStream of seed,
// which is the fit's Seed there), so that for a fit of one q (no
// --restarts, no --psis-resample) with gpp fit's settings and seed, row d
// is draws.csv's draw d bit for bit (draws.csv prints 6 significant
// digits); gpp fit's --output-draws is 1000. Matrix params come as their
// values, as in draws.csv (a cholesky_factor_corr[K] as its K×K factor).
// An r of another model or a negative n is an error.
func (m *Model) FitDraws(r *sgvb.Result, n int, seed uint64) ([][]float64, error) {
	return m.fitDraws("FitDraws", r, n, seed, nil)
}

// fitDraws is FitDraws for the method fn (named in errors), calling at (if
// not nil) with each draw's Target coordinates x after its row:
// FitSummary's outputs at each draw.
func (m *Model) fitDraws(fn string, r *sgvb.Result, n int, seed uint64, at func(x []float64)) ([][]float64, error) {
	if r == nil {
		return nil, fmt.Errorf("model: %s: the fit is nil", fn)
	}
	if err := m.checkFit(r); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("model: %s: %d draws; want n ≥ 0", fn, n)
	}
	draw := func(rng *rand.Rand, _ int, x []float64) { r.SampleCoords(rng, x) }
	return m.qDraws(r, r.Mean(), n, seed, draw, at), nil
}

// qDraws returns n rows of the params' values drawn as gpp fit draws its
// draws.csv rows: x, on the coordinates of r (a fit, or a mixture's first
// restart), starts at mean (q's means on the natural scale), then draw d
// is draw(rng, d, x), rng the stream sgvb.DrawStream of seed, and at (if
// not nil) is called with x after each row.
func (m *Model) qDraws(r *sgvb.Result, mean []float64, n int, seed uint64, draw func(rng *rand.Rand, d int, x []float64), at func(x []float64)) [][]float64 {
	x, z := make([]float64, r.Dim), make([]float64, r.Dim)
	r.Coords(x, mean) // as gpp fit's x before its draws
	rng := rand.New(rand.NewPCG(seed, sgvb.DrawStream))
	rows := make([][]float64, n)
	for d := range rows {
		draw(rng, d, x)
		r.Natural(z, x)
		rows[d] = m.appendValues(make([]float64, 0, m.NumParams()), z)
		if at != nil {
			at(x)
		}
	}
	return rows
}

// checkFit reports an r that is not a fit of this model: its coordinates
// or its factors' names are not the model's params'.
func (m *Model) checkFit(r *sgvb.Result) error {
	lats := m.l.Model.Latents
	bad := r.Dim != m.u.TargetDim() || len(r.Factors) != len(lats)
	for i := 0; !bad && i < len(lats); i++ {
		f := &r.Factors[i]
		bad = f.Name != lats[i].Name || f.Offset != lats[i].Offset || f.Size != lats[i].Size
	}
	if bad {
		return fmt.Errorf("model: the fit is not one of %s's params (%d coordinates in %d factors; the model's params have %d in %d)",
			m.Name(), r.Dim, len(r.Factors), m.u.TargetDim(), len(lats))
	}
	return nil
}

// SampleDraws returns the params' values at each draw of a NUTS run of
// this model (from Sample), as rows in ParamNames' order, chain by chain:
// the param columns of gpp sample's draws.csv, bit for bit (there printed
// with 6 significant digits), row c·n + i the i-th kept draw of chain c+1.
// An interrupted run gives n, the draws the shortest chain kept, of each
// chain, as gpp sample writes it. A result of another model is an error.
func (m *Model) SampleDraws(res *nuts.Result) ([][]float64, error) {
	return m.chainDraws("SampleDraws", res, func(ch *nuts.Chain) *nuts.Chain { return ch })
}

// SampleWarmupDraws returns the params' values at the warm-up iterations
// that a run with nuts.Settings.SaveWarmup kept (gpp sample
// --save-warmup), as SampleDraws does the draws: row c·n + i the i-th
// kept warm-up iteration of chain c+1, the rows draws.csv writes before
// chain c+1's draws. A run without SaveWarmup is an error.
func (m *Model) SampleWarmupDraws(res *nuts.Result) ([][]float64, error) {
	if res != nil {
		for c := range res.Chains {
			if res.Chains[c].Warm == nil {
				return nil, fmt.Errorf("model: SampleWarmupDraws: chain %d kept no warm-up iterations: sample with SaveWarmup", c+1)
			}
		}
	}
	return m.chainDraws("SampleWarmupDraws", res, func(ch *nuts.Chain) *nuts.Chain { return ch.Warm })
}

// chainDraws maps the draws that of picks from each chain of res to the
// params' values (SampleDraws); fn names the caller in errors.
func (m *Model) chainDraws(fn string, res *nuts.Result, of func(*nuts.Chain) *nuts.Chain) ([][]float64, error) {
	if res == nil {
		return nil, fmt.Errorf("model: %s: the result is nil", fn)
	}
	if res.Dim != m.Dim() {
		return nil, fmt.Errorf("model: %s: the draws have %d coordinates; %s has %d", fn, res.Dim, m.Name(), m.Dim())
	}
	chains := make([]*nuts.Chain, len(res.Chains))
	for c := range res.Chains {
		chains[c] = of(&res.Chains[c])
	}
	n := -1
	for c, ch := range chains {
		if len(ch.Draws) < len(ch.LogP)*res.Dim {
			return nil, fmt.Errorf("model: %s: chain %d has %d draws of %d coordinates in %d numbers", fn, c+1, len(ch.LogP), res.Dim, len(ch.Draws))
		}
		if n < 0 || len(ch.LogP) < n {
			n = len(ch.LogP)
		}
	}
	rows := make([][]float64, 0, max(n, 0)*len(res.Chains))
	for _, ch := range chains {
		for i := range n {
			v, err := m.Constrain(ch.Draws[i*res.Dim : (i+1)*res.Dim])
			if err != nil {
				return nil, err
			}
			rows = append(rows, v)
		}
	}
	return rows, nil
}
