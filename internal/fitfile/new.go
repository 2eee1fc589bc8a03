package fitfile

import (
	"math"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/check"
)

// Bound is what fit.json records of the data a fit was bound to, which
// gpp predict and logprob code new data by: the cells of the fitted
// missing values, the codings of columns of labels, the int sizes bound
// from numeric ids and the CSV columns of each matrix.
type Bound struct {
	Missing []data.Missing
	Levels  map[string]data.Levels
	Sizes   map[string]int
	Columns map[string][]string
}

// BoundOf records the data bound to info's declarations, as gpp fit and
// model.SaveFit record it; notLeaves is compile.Model.NotLeaves, skipped
// compile.Model.Skipped (missing cells that no statement reads, which no
// latent holds: they are no fitted cells).
func BoundOf(info *check.Info, bound map[string]*data.Array, notLeaves map[string]bool, skipped map[string][]int) Bound {
	return Bound{Missing: data.MissingCells(info, data.WithoutMissingCells(bound, skipped), notLeaves), Levels: data.Coded(info, bound),
		Sizes: data.CodeSizes(info, bound), Columns: data.MatrixColumns(info, bound)}
}

// DataHashes returns the hex SHA-256 of the contents of each data
// argument's file (FILE, NAME=FILE or NAME=FILE:COLUMNS), read from srcs,
// which holds the files as the fit read them; nil if one is not there.
func DataHashes(args []string, srcs map[string][]byte) []string {
	out := make([]string, len(args))
	for i, a := range args {
		_, file, _ := pipeline.SplitDataArg(a)
		b, ok := srcs[file]
		if !ok {
			return nil
		}
		out[i] = ModelHash(b)
	}
	return out
}

// New describes the fit r for fit.json: the head and settings given, its
// method and outcome (eta the step size it used), the data b it was
// bound to, and its factors; its warnings are the engine's and it has
// no hints.
func New(h Head, s Settings, r *sgvb.Result, eta float64, b Bound) *File {
	ff := &File{Head: h, Settings: s, Method: r.Method.String(), Outcome: OutcomeOf(r, eta)}
	for _, m := range b.Missing {
		ff.Missing = append(ff.Missing, Missing{Latent: m.Latent, Data: m.Data, Cells: CellTexts(m.Cells)})
	}
	ff.Levels, ff.Sizes, ff.DataColumns = LevelsOf(b.Levels), b.Sizes, b.Columns
	ff.Factors, ff.Groups = FactorsOf(r), GroupsOf(r)
	return ff
}

// SetMixture makes ff, from New with restart 0 of m, the fit of the
// mixture m of restarts: the mixture's outcome (iterations the most of
// any restart, converged if all did, bad steps and rollbacks summed) and
// each restart's own, with its seed and factors, in place of the
// factors. eta is the step size of a restart that records none.
// Settings.Jitter and InitRadius are the caller's to set.
func (ff *File) SetMixture(m *sgvb.Mixture, eta float64) {
	ff.Factors, ff.Groups = nil, nil
	ff.Settings.Restarts = len(m.Components)
	ff.ELBO, ff.ELBOSE, ff.ParetoK, ff.ParetoReading = Float(m.ELBO), Float(m.ELBOSE), Float(m.ParetoK), m.ParetoReading
	ff.ParetoKDraws, ff.ParetoRelESS = m.ParetoKDraws, Float(m.ParetoRelESS)
	ff.Iterations, ff.Converged, ff.Interrupted, ff.BadSteps, ff.Rollbacks, ff.AveragedIterates = 0, true, m.Interrupted, 0, 0, 0
	ff.PathfinderIterate, ff.PathfinderIterates = nil, nil // each path's own, in its restart's entry
	ff.Seconds, ff.Warnings = Float(math.Round(m.Seconds*1000)/1000), append([]string{}, m.Warnings...)
	for i, rc := range m.Components {
		ff.Iterations = max(ff.Iterations, rc.Iterations)
		ff.Converged = ff.Converged && rc.Converged
		ff.BadSteps += rc.BadSteps
		ff.Rollbacks += rc.Rollbacks
		e := rc.StepSize
		if e == 0 {
			e = eta
		}
		ff.Restarts = append(ff.Restarts, Restart{Seed: m.Seeds[i], Outcome: OutcomeOf(rc, e), Factors: FactorsOf(rc), Groups: GroupsOf(rc)})
	}
}
