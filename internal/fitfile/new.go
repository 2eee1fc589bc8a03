package fitfile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"slices"

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

// ObservedHashes returns, by name, the hex SHA-256 of the bound value of
// each observed data in names (compile.Model.Observed), for fit.json's
// observed_sha256 and draws.csv's "#   observed_sha256 NAME = ..."
// lines. Each hash is over the value alone, canonically: the number of
// dimensions and each dimension's size, then the values in row-major
// order, each as its float64's 8 bytes big-endian, with every NaN (a
// missing cell) written as one NaN and -0 as 0; so a value read from CSV
// or JSON, written 1 or 1.0, hashes alike, and the name is the map's key
// (JSON writes the keys sorted). nil when names is empty or one of them
// is not bound.
func ObservedHashes(names []string, bound map[string]*data.Array) map[string]string {
	if len(names) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, name := range names {
		a := bound[name]
		if a == nil {
			return nil
		}
		h := sha256.New()
		var b [8]byte
		word := func(u uint64) {
			binary.BigEndian.PutUint64(b[:], u)
			h.Write(b[:])
		}
		word(uint64(len(a.Shape)))
		for _, n := range a.Shape {
			word(uint64(n))
		}
		for _, v := range a.Values {
			switch {
			case math.IsNaN(v):
				v = math.NaN()
			case v == 0:
				v = 0
			}
			word(math.Float64bits(v))
		}
		out[name] = hex.EncodeToString(h.Sum(nil))
	}
	return out
}

// CovariateHashes returns ObservedHashes of the data in bound that the
// model reads but does not observe (not in observed), for fit.json's
// covariate_sha256: gpp compare tells by them whether a name one fit
// observes and the other only reads has the same values in both.
func CovariateHashes(observed []string, bound map[string]*data.Array) map[string]string {
	var names []string
	for name := range bound {
		if !slices.Contains(observed, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return ObservedHashes(names, bound)
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
