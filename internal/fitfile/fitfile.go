// Package fitfile reads and writes fit.json, the fit that gpp fit saves
// in its --out directory (format gpp-fit/1), for cmd/gpp (gpp predict,
// --init, --against, logprob) and the Go API (model.LoadFit): the file's
// types, its checks with errors positioned in the file, the factors
// turned into an sgvb.Result for a model, and the match of a model's
// params to a fit's factors.
package fitfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
)

// FileName is the fit file's name in an output directory.
const FileName = "fit.json"

// Format names the layout of fit.json.
const Format = "gpp-fit/1"

// Float is a float64 that survives JSON: NaN is written as null and
// the infinities as the strings "inf" and "-inf".
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	return f.appendJSON(nil), nil
}

// appendJSON appends f's JSON text (MarshalJSON's) to b.
func (f Float) appendJSON(b []byte) []byte {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return append(b, "null"...)
	case math.IsInf(v, 1):
		return append(b, `"inf"`...)
	case math.IsInf(v, -1):
		return append(b, `"-inf"`...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// badNumber is Float's error: encoding/json gives a json.Unmarshaler's
// error no offset, so JSONError places it at the value's text.
type badNumber struct{ text string }

func (e *badNumber) Error() string { return "expected a number, got " + e.text }

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null", `"nan"`, `"NaN"`:
		*f = Float(math.NaN())
		return nil
	case `"inf"`, `"+inf"`, `"Infinity"`:
		*f = Float(math.Inf(1))
		return nil
	case `"-inf"`, `"-Infinity"`:
		*f = Float(math.Inf(-1))
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return &badNumber{string(b)}
	}
	*f = Float(v)
	return nil
}

// Head opens fit.json and evidence.json: the file's format, the gpp
// that wrote it, and the model, data and --set values fitted.
type Head struct {
	Format      string   `json:"format"`
	GppVersion  string   `json:"gpp_version"`
	Model       string   `json:"model"`
	ModelSHA256 string   `json:"model_sha256"`
	Data        []string `json:"data"`
	// DataSHA256 holds the sha256 of each data file's contents, in the
	// order of Data: gpp compare tells the same data read by other paths.
	DataSHA256 []string `json:"data_sha256,omitempty"`
	// ObservedSHA256 holds, by name, the sha256 of the values of each
	// data the model observes (compile.Model.Observed: its ~ and target
	// += score them), as bound (ObservedHashes): gpp compare tells fits
	// of the same observations by them, whatever covariate files they
	// read. Older files lack it.
	ObservedSHA256 map[string]string `json:"observed_sha256,omitempty"`
	// CovariateSHA256 holds, as ObservedSHA256, the hashes of the other
	// data the model reads (CovariateHashes): a name one fit observes and
	// another reads as a covariate (y - mu ~ D reads mu's x as observed)
	// is the same observation when the values agree. Older files lack it.
	CovariateSHA256 map[string]string `json:"covariate_sha256,omitempty"`
	Sets            map[string]string `json:"sets,omitempty"`
}

// File is the content of fit.json.
type File struct {
	Head
	Settings Settings `json:"settings"`
	Method   string   `json:"method"`
	Outcome
	// Hints are the hints the run printed (after "gpp: hint: "), in order;
	// the outcome's warnings are every warning it printed.
	Hints   []string `json:"hints"`
	Factors []Factor `json:"factors,omitempty"`
	// Groups are the joint full-rank factors (--fullrank a+b, all).
	Groups []Group `json:"groups,omitempty"`
	// Restarts holds the fits of a mixture of restarts (--restarts > 1),
	// in place of Factors; the outcome above is then the mixture's.
	Restarts []Restart `json:"restarts,omitempty"`
	// Missing says which data cell each fitted missing value is.
	Missing []Missing `json:"missing,omitempty"`
	// Levels records how each column of labels in the data was coded,
	// by data declaration: gpp predict codes new data so.
	Levels map[string]Levels `json:"levels,omitempty"`
	// Sizes records each int data size that no input gave and that the
	// largest value of the numeric ids it bounds bound (S of
	// int<lower=0, upper=S-1> subj, data.CodeSizes): gpp predict binds
	// it so, where new data holding a few groups would bind a smaller S.
	Sizes map[string]int `json:"sizes,omitempty"`
	// DataColumns records, by matrix data declaration, the CSV columns it
	// was bound from, in order (X=train.csv:-y): gpp predict binds a new
	// file's columns by these names, not by position. Older fits lack it.
	DataColumns map[string][]string `json:"data_columns,omitempty"`
	// Labels holds, by variable, the labels that named the elements of its
	// axes sized by a column of labels (null for an axis named by number;
	// savedAxes): gpp summary of draws.csv names them so.
	Labels map[string][][]string `json:"labels,omitempty"`
	// Resample is what --psis-resample did to the output draws (omitted
	// without it); the factors above are still q's.
	Resample *Resample `json:"psis_resample,omitempty"`
	// MeanFieldSDRatio is, per param, the largest factor by which the
	// curvature check of a mean-field fit finds its elements' sds too
	// small, √(Σ_ii Λ_ii) (docs/inference.md, The mean-field hint);
	// omitted where the check did not run.
	MeanFieldSDRatio map[string]Float `json:"meanfield_sd_ratio,omitempty"`
	// MeanFieldSDRatioOutputs is the same, per output, of its elements
	// that are functions of the params, by the delta method (its
	// gradient at q's mode); omitted where none was read.
	MeanFieldSDRatioOutputs map[string]Float `json:"meanfield_sd_ratio_outputs,omitempty"`
	// MeanFieldSDUnchecked names the elements (as the summary names them)
	// whose sds a partial curvature check could not judge: the log
	// density bends the wrong way along them at q's mode (a funnel's
	// scale), so the check left them out; the summary marks them ?, and
	// a param all of whose elements are here has a null
	// meanfield_sd_ratio. Omitted where none is.
	MeanFieldSDUnchecked []string `json:"meanfield_sd_unchecked,omitempty"`
	// Files lists the files written with this fit.json in its directory,
	// fit.json included: the directory holds exactly these of this run
	// while fit.json is there (staged.commit); the next run written there
	// removes those it does not write again (staleInDir).
	Files []string `json:"files,omitempty"`
	// FileSHA256 holds the sha256 of each file that Files lists but
	// fit.json: a reader checks that a file is this run's.
	FileSHA256 map[string]string `json:"files_sha256,omitempty"`
}

// FirstFactors returns the fit's factors, or its first restart's in a
// mixture (the restarts share their params): what a command matches the
// model's params against.
func (f *File) FirstFactors() []Factor {
	if len(f.Restarts) > 0 {
		return f.Restarts[0].Factors
	}
	return f.Factors
}

// Resample records an importance resampling of the output draws
// (--psis-resample): the draws of q weighted, their Pareto k̂ and ESS,
// the distinct candidates among the draws, the candidates with a
// non-finite log joint, and whether the draws were resampled (false: the
// weights were unusable, q's draws kept; see usable).
type Resample struct {
	Candidates int   `json:"candidates"`
	ParetoK    Float `json:"pareto_k"`
	ESS        Float `json:"ess"`
	Distinct   int   `json:"distinct"`
	Bad        int   `json:"bad_candidates"`
	Resampled  bool  `json:"resampled"`
}

// Levels is, in fit.json, the coding of a column of labels: label
// Labels[k] is the int First+k (data.Levels). The column is the data
// file's, for the reader.
type Levels struct {
	Column string   `json:"column"`
	First  int      `json:"first"`
	Labels []string `json:"labels"`
}

// LevelsOf converts codings for fit.json.
func LevelsOf(levels map[string]data.Levels) map[string]Levels {
	if len(levels) == 0 {
		return nil
	}
	out := map[string]Levels{}
	for k, lv := range levels {
		out[k] = Levels{Column: lv.Column, First: lv.First, Labels: lv.Labels}
	}
	return out
}

// DataLevels converts a fit file's codings for data.BindCoded.
func DataLevels(levels map[string]Levels) map[string]data.Levels {
	out := map[string]data.Levels{}
	for k, lv := range levels {
		out[k] = data.Levels{Column: lv.Column, First: lv.First, Labels: lv.Labels}
	}
	return out
}

// Missing is, in fit.json, the latent of the missing values of a data
// declaration and the cell (file:line:column) of each element in order.
type Missing struct {
	Latent string   `json:"latent"`
	Data   string   `json:"data"`
	Cells  []string `json:"cells"`
}

// CellTexts writes cell positions as file:line:column.
func CellTexts(cells []ast.Pos) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = c.String()
	}
	return out
}

// Outcome is how a fit ended, in fit.json (its fields inline).
type Outcome struct {
	ELBO   Float `json:"elbo"` // null for MAP, which has LogJoint
	ELBOSE Float `json:"elbo_se"`
	// LogJoint is the log joint at a MAP estimate (omitted for SGVB).
	LogJoint   *Float `json:"log_joint,omitempty"`
	Iterations int    `json:"iterations"`
	Converged  bool   `json:"converged"`
	// Collapsed: the final ELBO estimate lies orders of magnitude below
	// the last evaluation's (sgvb.Result.Collapsed), so converged says only
	// that the evaluations settled; omitted when false.
	Collapsed     bool   `json:"final_elbo_collapsed,omitempty"`
	Interrupted   bool   `json:"interrupted"`
	ParetoK       Float  `json:"pareto_k"`
	ParetoReading string `json:"pareto_reading"`
	// ParetoRelESS is the relative effective sample size ESS/S of the
	// weights p/q over the same draws as pareto_k, the smaller of the raw
	// and the Pareto-smoothed weights' (sgvb.ParetoDiagnostics), which the
	// reading reads with k̂: above 0.7 with a relative ESS of at least
	// 1/(1 + 0.2²) ≈ 0.962 the tail is negligible (sgvb.TailNegligible);
	// null where none was computed.
	ParetoRelESS Float `json:"pareto_rel_ess"`
	// ParetoKDraws is the number of draws pareto_k is from: 1000, or
	// 10 000 where those gave a k̂ near 0.7 (sgvb.KBandLow–KBandHigh);
	// 0 where none was computed (MAP, an interrupted fit).
	ParetoKDraws int   `json:"pareto_k_draws"`
	StepSize     Float `json:"step_size"`
	BadSteps     int   `json:"bad_steps"`
	Rollbacks    int   `json:"rollbacks"` // returns to the best q after a divergence or a drift
	// AveragedIterates is the number of iterates whose mean is q (the
	// engine's iterate average); 0: q is the last iterate (a mixture:
	// see each restart).
	AveragedIterates int `json:"averaged_iterates"`
	// PathfinderIterate is the iterate of the L-BFGS path whose normal is
	// q (--family pathfinder; omitted otherwise), of PathfinderIterates.
	PathfinderIterate  *int     `json:"pathfinder_iterate,omitempty"`
	PathfinderIterates *int     `json:"pathfinder_iterates,omitempty"`
	Seconds            Float    `json:"seconds"`
	Warnings           []string `json:"warnings"`
}

// OutcomeOf describes how r ended, with η the step size used.
func OutcomeOf(r *sgvb.Result, eta float64) Outcome {
	o := Outcome{
		ELBO: Float(r.ELBO), ELBOSE: Float(r.ELBOSE), Iterations: r.Iterations,
		Converged: r.Converged, Collapsed: r.Collapsed, Interrupted: r.Interrupted, ParetoK: Float(r.ParetoK),
		ParetoReading: r.ParetoReading, ParetoRelESS: Float(r.ParetoRelESS), ParetoKDraws: r.ParetoKDraws, StepSize: Float(eta), BadSteps: r.BadSteps, Rollbacks: r.Rollbacks,
		AveragedIterates: r.Averaged,
		Seconds:          Float(math.Round(r.Seconds*1000) / 1000), Warnings: append([]string{}, r.Warnings...),
	}
	if r.Method == sgvb.MAP { // the result's ELBO is the log joint at the estimate
		lj := o.ELBO
		o.LogJoint, o.ELBO, o.ELBOSE = &lj, Float(math.NaN()), Float(math.NaN())
	}
	if pf := r.Pathfinder; pf != nil && pf.Scored > 0 {
		it, its := pf.Iterate, pf.Iterates
		o.PathfinderIterate, o.PathfinderIterates = &it, &its
	}
	return o
}

// Restart is one restart of a mixture in fit.json.
type Restart struct {
	Seed uint64 `json:"seed"`
	Outcome
	Factors []Factor `json:"factors"`
	Groups  []Group  `json:"groups,omitempty"`
}

// Group is a joint full-rank factor (--fullrank a+b): a multivariate
// normal over the coordinates of the params names, in that order, each
// param's elements in turn (the values of a real param, the logs of a
// positive one), with the params of a fullrank factor: mean, L[1] … L[n].
// Each member's entry in factors is its marginal (family fullrank). With
// Rank (--rank) it is a low-rank factor, params mean, d, B[1] … B[Rank],
// and so are its members' marginals (family lowrank). With Band
// (--band) it is the banded factor of one param, params mean, band[0] …
// band[Band] (the diagonals of its precision's Cholesky factor L), and
// its member's factor is the same (family banded); of more than one (an
// arrowhead: the first the chain, the others global) the params go on
// with arrow[0] … (the globals' rows of L), the chain's factor is banded
// with its marginal sds and no band, each global's the full-rank factor
// of its marginal.
type Group struct {
	Names  []string    `json:"names"`
	Rank   int         `json:"rank,omitempty"`
	Band   int         `json:"band,omitempty"`
	Params ParamValues `json:"params"`
}

// Settings records the command line's fit settings.
type Settings struct {
	Family       string   `json:"family"`
	Optimizer    string   `json:"optimizer"`
	StepSize     Float    `json:"step_size"` // 0: the optimizer's default
	Seed         uint64   `json:"seed"`
	Iter         int      `json:"iter"`
	DrawsPerStep int      `json:"draws"`
	GammaGrad    string   `json:"gamma_grad"`
	GammaParam   string   `json:"gamma_param"`
	Estimator    string   `json:"estimator"`
	Tol          Float    `json:"tol"`
	LastIterate  bool     `json:"last_iterate"`
	EvalEvery    int      `json:"eval_every"`
	Workers      int      `json:"workers"`
	OutputDraws  int      `json:"output_draws"`
	Restarts     int      `json:"restarts,omitempty"`    // omitted for one fit
	Jitter       *float64 `json:"jitter,omitempty"`      // --jitter; omitted for one fit
	InitRadius   float64  `json:"init_radius,omitempty"` // --init-radius; omitted without it
	Init         string   `json:"init,omitempty"`
	FullRank     string   `json:"fullrank,omitempty"` // --fullrank as given; omitted without it
	Rank         int      `json:"rank,omitempty"`     // --rank; omitted for full rank
	Band         int      `json:"band,omitempty"`     // --band; omitted without it
	PSISResample bool     `json:"psis_resample,omitempty"`
	// Minibatch is --minibatch as given (N=B), omitted for a full-data
	// fit: the steps saw B rows each; the final ELBO, k̂ and draws all.
	Minibatch string `json:"minibatch,omitempty"`
	// Anneal is --anneal of a minibatch fit (the step-size halvings), -1
	// for none; omitted for a full-data fit.
	Anneal int `json:"anneal,omitempty"`
}

// Factor is one fitted factor: its parameters by name, each row-major
// over the latent's elements.
type Factor struct {
	Name    string      `json:"name"`
	Family  string      `json:"family"`
	Support string      `json:"support"`
	Shape   []int       `json:"shape"`
	Params  ParamValues `json:"params"`
	// Bounds: the params describe b on the support, and the latent (a
	// bounded param) is loc + scale·b.
	Bounds *Bounds `json:"bounds,omitempty"`
	// Parts: an ordered param's factor (family and support "ordered",
	// params {}) is made of two, each with its own params: parts[0] the
	// normal factor of x[0] (shape [1], support real) and parts[1] the
	// factor of the increments x[k] − x[k−1] (shape [K − 1], support
	// positive; absent when K is 1). The param is their running sum. A
	// positive_ordered param's (family "ordered", support
	// "positive_ordered") has one part, the positive factor of x[0] and
	// the increments (shape [K]). Of an ordered[G, K] param, parts[0] is
	// the G rows' x[g, 0] (shape [G]) and parts[1] their increments, row
	// by row (shape [G·(K − 1)]); of a positive_ordered[G, K] one, the one
	// part is each row's, row by row (shape [G·K]).
	Parts []Factor `json:"parts,omitempty"`
}

// Bounds records a bounded param's map from its factor's support:
// {"loc": L, "scale": S}, or for a param with a bound per element
// (real<lower=c>[M] with c data) arrays of the locs and scales of its
// elements, row-major, {"loc": [...], "scale": [...]} (LocV, ScaleV).
type Bounds struct {
	Loc, Scale   float64
	LocV, ScaleV []float64
}

// MarshalJSON writes the bounds' numbers, or arrays per element.
func (b Bounds) MarshalJSON() ([]byte, error) {
	if b.ScaleV != nil {
		return json.Marshal(struct {
			Loc   []Float `json:"loc"`
			Scale []Float `json:"scale"`
		}{floats(b.LocV), floats(b.ScaleV)})
	}
	return json.Marshal(struct {
		Loc   float64 `json:"loc"`
		Scale float64 `json:"scale"`
	}{b.Loc, b.Scale})
}

// UnmarshalJSON reads the bounds' numbers, or arrays per element.
func (b *Bounds) UnmarshalJSON(data []byte) error {
	var raw struct{ Loc, Scale json.RawMessage }
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*b = Bounds{}
	if t := bytes.TrimSpace(raw.Scale); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(raw.Loc, &b.LocV); err != nil {
			return err
		}
		return json.Unmarshal(raw.Scale, &b.ScaleV)
	}
	if err := json.Unmarshal(raw.Loc, &b.Loc); err != nil {
		return err
	}
	return json.Unmarshal(raw.Scale, &b.Scale)
}

// ParamValues holds a factor's parameters in the order of
// Family.ParamNames; it is written as a JSON object in that order.
type ParamValues struct {
	Names  []string
	Values [][]Float
}

// MarshalJSON implements json.Marshaler.
func (p ParamValues) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range p.Names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		b.Write(k)
		b.WriteByte(':')
		b.WriteByte('[')
		for j, v := range p.Values[i] { // as json.Marshal writes them, without an allocation a number
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(v.appendJSON(b.AvailableBuffer()))
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *ParamValues) UnmarshalJSON(b []byte) error {
	var m map[string][]Float
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	p.Names, p.Values = nil, nil
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p.Names = append(p.Names, k)
		p.Values = append(p.Values, m[k])
	}
	return nil
}

// Get returns the values of the parameter name.
func (p *ParamValues) Get(name string) ([]Float, bool) {
	for i, n := range p.Names {
		if n == name {
			return p.Values[i], true
		}
	}
	return nil, false
}

// floats converts v for fit.json.
func floats(v []float64) []Float {
	out := make([]Float, len(v))
	for i, x := range v {
		out[i] = Float(x)
	}
	return out
}

// ModelHash returns the hex sha256 of a model's source.
func ModelHash(src []byte) string {
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:])
}

// FactorsOf lists a fit's factors for fit.json.
func FactorsOf(r *sgvb.Result) []Factor { return ToFactors(r.Factors) }

// GroupsOf lists a fit's joint full-rank factors for fit.json.
func GroupsOf(r *sgvb.Result) []Group {
	var out []Group
	for _, g := range r.Groups {
		pv := ParamValues{Names: groupParamNames(g.Rank, g.Band, len(g.Params[0]), max(len(g.Params)-g.Band-2, 0))}
		for _, p := range g.Params {
			pv.Values = append(pv.Values, floats(p))
		}
		out = append(out, Group{Names: append([]string{}, g.Names...), Rank: g.Rank, Band: g.Band, Params: pv})
	}
	return out
}

// groupParamNames returns the parameter names of a group of size elements
// and rank (0: full rank) or bandwidth band (0: not banded) with glob
// global elements after its chain (an arrowhead).
func groupParamNames(rank, band, size, glob int) []string {
	if band > 0 {
		return sgvb.BandedParamNames(band, glob)
	}
	if rank > 0 {
		return sgvb.LowRankParamNames(rank)
	}
	return sgvb.FamilyFullRank.ParamNames(size)
}

// paramNames returns the parameter names a fit file's factor of family
// fam and size elements must have: a low-rank factor's rank is the number
// of its parameters B[k] (fitted, at most its size).
func paramNames(fam sgvb.Family, size int, pv ParamValues) []string {
	if fam == sgvb.FamilyBanded {
		k := 0
		for _, n := range pv.Names {
			if strings.HasPrefix(n, "band[") {
				k++
			}
		}
		return sgvb.BandedParamNames(max(k-1, 1), 0)
	}
	if fam != sgvb.FamilyLowRank {
		return fam.ParamNames(size)
	}
	r := 0
	for _, n := range pv.Names {
		if strings.HasPrefix(n, "B[") {
			r++
		}
	}
	return sgvb.LowRankParamNames(max(r, 1))
}

// ToFactors lists factors (or an ordered factor's parts) for fit.json.
func ToFactors(fs []sgvb.Factor) []Factor {
	var out []Factor
	for _, f := range fs {
		pv := ParamValues{Names: f.ParamNames()}
		for _, p := range f.Params {
			pv.Values = append(pv.Values, floats(p))
		}
		shape := f.Shape
		if shape == nil {
			shape = []int{}
		}
		ff := Factor{Name: f.Name, Family: f.Family.String(), Support: f.Support.String(), Shape: shape, Params: pv}
		if f.Scale != 0 || f.ScaleV != nil {
			ff.Bounds = &Bounds{Loc: f.Loc, Scale: f.Scale, LocV: f.LocV, ScaleV: f.ScaleV}
		}
		ff.Parts = ToFactors(f.Parts)
		out = append(out, ff)
	}
	return out
}

// Write writes fit.json, indented, with each array of numbers on
// one line.
func Write(w io.Writer, ff *File) error {
	b, err := json.MarshalIndent(ff, "", "  ")
	if err != nil {
		return err
	}
	b = append(compactNumberArrays(b), '\n')
	_, err = w.Write(b)
	return err
}

// compactNumberArrays puts each array of json.MarshalIndent's output
// whose elements are all numbers (Float's null, "inf" and "-inf"
// among them) on one line, as "[1, 2.5, null]"; strings are copied as
// they are, so a name or a warning that holds brackets is left alone.
// One pass over b: the dense covariance of a Laplace or Pathfinder q at
// 1000 coordinates makes a fit.json of tens of MB, which a regular
// expression took seconds to rewrite.
func compactNumberArrays(b []byte) []byte {
	out := make([]byte, 0, len(b)/2)
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			j := jsonStringEnd(b, i)
			out = append(out, b[i:j]...)
			i = j
		case '[':
			if j, ok := numberArrayEnd(b, i); ok {
				out = appendNumberArray(out, b[i:j])
				i = j
				continue
			}
			out = append(out, '[')
			i++
		default:
			out = append(out, b[i])
			i++
		}
	}
	return out
}

// jsonStringEnd returns the index just past the string that opens at
// b[i] (a '"'), escapes included.
func jsonStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// numberArrayEnd reports whether the array that opens at b[i] holds one or
// more elements, each a number, null, "inf" or "-inf", and returns the
// index just past its ']'.
func numberArrayEnd(b []byte, i int) (int, bool) {
	j := i + 1
	for {
		j = skipJSONSpace(b, j)
		k := numberTokenEnd(b, j)
		if k == j {
			return 0, false
		}
		j = skipJSONSpace(b, k)
		if j == len(b) {
			return 0, false
		}
		switch b[j] {
		case ',':
			j++
		case ']':
			return j + 1, true
		default:
			return 0, false
		}
	}
}

// numberTokenEnd returns the index just past the number, null, "inf" or
// "-inf" at b[j], or j if there is none.
func numberTokenEnd(b []byte, j int) int {
	for _, lit := range [...]string{"null", `"inf"`, `"-inf"`} {
		if bytes.HasPrefix(b[j:], []byte(lit)) {
			return j + len(lit)
		}
	}
	k := j
	if k < len(b) && b[k] == '-' {
		k++
	}
	if k == len(b) || b[k] < '0' || b[k] > '9' {
		return j
	}
	for k < len(b) && (b[k] >= '0' && b[k] <= '9' || b[k] == '.' || b[k] == 'e' || b[k] == 'E' || b[k] == '+' || b[k] == '-') {
		k++
	}
	return k
}

func skipJSONSpace(b []byte, j int) int {
	for j < len(b) && (b[j] == ' ' || b[j] == '\n' || b[j] == '\t' || b[j] == '\r') {
		j++
	}
	return j
}

// appendNumberArray appends the array a (from '[' to ']', as
// numberArrayEnd found it) to out on one line, its elements joined by ", ".
func appendNumberArray(out, a []byte) []byte {
	out = append(out, '[')
	j := 1
	for first := true; ; first = false {
		j = skipJSONSpace(a, j)
		k := numberTokenEnd(a, j)
		if !first {
			out = append(out, ", "...)
		}
		out = append(out, a[j:k]...)
		j = skipJSONSpace(a, k)
		if a[j] == ']' {
			return append(out, ']')
		}
		j++ // the ','
	}
}

// FormatNum formats a number for the CSV files: 6 significant digits as
// CmdStan writes by default, and NaN, inf, -inf as Stan CSV spells them.
func FormatNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	if s, ok := FormatWhole(v); ok {
		return s
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// FormatWhole writes a whole number in an int's range (at most 2^53 in
// magnitude) with all its digits (a size N = 1234567, an int output, a
// count's quantile), where 6 significant digits would print 1.23457e+06;
// -0 is 0.
func FormatWhole(v float64) (string, bool) {
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return "", false
	}
	if v == 0 {
		v = 0 // -0
	}
	return strconv.FormatFloat(v, 'f', -1, 64), true
}
