package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
)

// saveOutputDraws is the output_draws SaveFit records: gpp fit's default
// --output-draws, which gpp predict then draws unless told otherwise.
const saveOutputDraws = 1000

// SaveFit writes r, a fit of m from Fit with the settings s, as the
// fit.json that gpp fit writes (format gpp-fit/1), so that gpp predict,
// gpp fit --init, gpp logprob and LoadFit read it as one of gpp fit's:
// fit in a program, predict later from the command line. path is a
// directory (DIR/fit.json is written; a directory not there is made) or
// a file whose name ends in .json. The file is written whole or not at
// all (a temporary file renamed over it), and replaces a fit.json there,
// but not gpp fit's outputs: a directory whose fit.json lists other files
// (draws.csv, ...) is refused, as they would be left beside a fit they are
// not of.
//
// It records the model's name (as Load or Compile had it) and the SHA-256
// of its source, the data files of DataFiles and the SHA-256 of each as
// it was read, the --set values of Set, s (zeros as the engine's
// defaults fill them), r's method, ELBO, outcome and factors, and the data's
// codings (labels, sizes, matrix columns) that gpp predict codes new data
// by. Data given by DataValues has no file: it is not named or hashed. The
// seed recorded, s.Seed, is the one gpp predict and LoadFit's Fit.Seed
// draw with; output_draws is gpp fit's default, 1000.
//
// A nil r, a fit of another model (other params or coordinates), one
// whose settings say another method than r's, and a failed fit (its ELBO
// overflowed) are errors, as is a Predictor's m. A fit of restarts is
// SaveMixture's.
func (m *Model) SaveFit(path string, r *sgvb.Result, s sgvb.Settings) error {
	if err := m.saveable("SaveFit"); err != nil {
		return err
	}
	switch {
	case r == nil:
		return errors.New("model: SaveFit: no fit to save (r is nil)")
	case r.Method != s.Method:
		return fmt.Errorf("model: SaveFit: the fit is %s and the settings say %s: give the settings the fit was made with", r.Method, s.Method)
	}
	if err := m.checkFit(r); err != nil {
		return fmt.Errorf("model: SaveFit: %s", strings.TrimPrefix(err.Error(), "model: "))
	}
	if sgvb.Overflows(r.ELBO, r.ELBOSE) {
		return errors.New("model: SaveFit: the fit failed (its ELBO overflows): its q approximates no posterior; refit the model")
	}
	ff := fitfile.New(m.fitHead(), settingsRecord(s), r, r.StepSize, fitfile.BoundOf(m.l.Info, m.l.Data, m.l.Model.NotLeaves(), m.l.Model.Skipped()))
	return m.writeFit("SaveFit", path, ff)
}

// SaveMixture writes mix, a mixture of m's restarts from FitRestarts with
// the settings s and rs, as SaveFit writes one fit (see there): the
// fit.json of gpp fit --restarts N, which gpp predict draws from and gpp
// fit --init --restarts N warm-starts each restart from (LoadFit reads
// one q only).
func (m *Model) SaveMixture(path string, mix *sgvb.Mixture, s sgvb.Settings, rs sgvb.Restarts) error {
	if err := m.saveable("SaveMixture"); err != nil {
		return err
	}
	if mix == nil || len(mix.Components) == 0 {
		return errors.New("model: SaveMixture: no mixture to save (mix is nil or has no restarts)")
	}
	if err := m.checkMixture("SaveMixture", mix); err != nil {
		return err
	}
	for _, c := range mix.Components {
		if c.Method != s.Method {
			return fmt.Errorf("model: SaveMixture: the restarts are %s and the settings say %s: give the settings the fit was made with", c.Method, s.Method)
		}
	}
	if sgvb.Overflows(mix.ELBO, mix.ELBOSE) {
		return errors.New("model: SaveMixture: the fit failed (its ELBO overflows): its q approximates no posterior; refit the model")
	}
	r := mix.Components[0]
	ff := fitfile.New(m.fitHead(), settingsRecord(s), r, r.StepSize, fitfile.BoundOf(m.l.Info, m.l.Data, m.l.Model.NotLeaves(), m.l.Model.Skipped()))
	ff.SetMixture(mix, r.StepSize)
	jitter := rs.Jitter
	switch {
	case jitter == 0:
		jitter = sgvb.DefaultJitter
	case jitter < 0:
		jitter = 0 // gpp fit's --jitter 0: s's starts
	}
	ff.Settings.Jitter, ff.Settings.InitRadius = &jitter, rs.Radius
	return m.writeFit("SaveMixture", path, ff)
}

// saveable refuses a Predictor, which is not fitted.
func (m *Model) saveable(fn string) error {
	if m.predict {
		return fmt.Errorf("model: %s: %s is a Predictor: save the fit of the fitted model", fn, m.Name())
	}
	return nil
}

// fitHead is fit.json's head for a fit of m.
func (m *Model) fitHead() fitfile.Head {
	h := fitfile.Head{Format: fitfile.Format, GppVersion: apiVersion(), Model: m.l.Path,
		ModelSHA256: fitfile.ModelHash(m.l.Source), Data: append([]string{}, m.files...), DataSHA256: fitfile.DataHashes(m.files, m.l.Sources),
		ObservedSHA256: fitfile.ObservedHashes(m.l.Model.Observed(), m.l.Data), CovariateSHA256: fitfile.CovariateHashes(m.l.Model.Observed(), m.l.Data)}
	if len(m.sets) > 0 {
		h.Sets = m.sets
	}
	return h
}

// apiVersion is fit.json's gpp_version for a fit the Go API saved: the
// gpp module's version in the program's build, and the API.
func apiVersion() string {
	v := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range append([]*debug.Module{&info.Main}, info.Deps...) {
			if d != nil && d.Path == "github.com/gpplang/gpp" && d.Version != "" {
				v = d.Version
			}
		}
	}
	return v + " (Go API, model.SaveFit)"
}

// settingsRecord is fit.json's record of s, spelled as gpp fit's flags
// (its --family, --gamma-grad, ...), with the engine's defaults for zeros.
func settingsRecord(s sgvb.Settings) fitfile.Settings {
	d := s.WithDefaults()
	fam := "gamma"
	switch {
	case s.Method != sgvb.SGVB:
		fam = s.Method.String()
	case s.Family != sgvb.FamilyAuto:
		fam = s.Family.String()
	}
	est := s.Estimator
	if est == sgvb.EstimatorAuto {
		est = sgvb.STLCV
	}
	tol := d.Tol
	if tol < 0 {
		tol = 0 // gpp fit's --tol 0: all the iterations
	}
	out := fitfile.Settings{
		Family: fam, Optimizer: s.Optimizer.String(), StepSize: fitfile.Float(s.StepSize), Seed: s.Seed,
		Iter: d.MaxIter, DrawsPerStep: d.DrawsPerStep, GammaGrad: gammaGradName(d.Gamma), GammaParam: d.GammaParam.String(),
		Estimator: est.String(), Tol: fitfile.Float(tol), LastIterate: s.LastIterate, EvalEvery: d.EvalEvery,
		Workers: s.Workers, OutputDraws: saveOutputDraws, FullRank: fullRankRecord(s), Rank: s.Rank, Band: s.Band,
	}
	if s.InitPath {
		out.Init = "path"
	}
	if s.Minibatch != nil {
		out.Anneal = max(d.Anneal, -1)
	}
	return out
}

// gammaGradName is gpp fit's --gamma-grad for g.
func gammaGradName(g dist.GammaGradient) string {
	switch g := g.(type) {
	case dist.Paper:
		if g.Rule == dist.PaperKnowles {
			return "paper-knowles"
		}
		return "paper"
	case dist.Implicit:
		return "implicit"
	}
	return fmt.Sprintf("%T", g)
}

// fullRankRecord is gpp fit's --fullrank for s: the latents of family
// full-rank, and each group's names joined by +.
func fullRankRecord(s sgvb.Settings) string {
	var parts []string
	for name, f := range s.Families {
		if f == sgvb.FamilyFullRank {
			parts = append(parts, name)
		}
	}
	slices.Sort(parts)
	for _, g := range s.FullRankGroups {
		parts = append(parts, strings.Join(g, "+"))
	}
	return strings.Join(parts, ",")
}

// writeFit checks that ff reads back as a fit of m, as LoadFit and gpp
// predict read it, and writes it at path (saveFitFile) whole or not at
// all.
func (m *Model) writeFit(fn, path string, ff *fitfile.File) error {
	ff.Hints = []string{}
	ff.Files = []string{fitfile.FileName}
	var b bytes.Buffer
	if err := fitfile.Write(&b, ff); err != nil {
		return fmt.Errorf("model: %s: %w", fn, err)
	}
	back, err := fitfile.Read(fitfile.FileName, b.Bytes())
	if err == nil {
		for _, fs := range factorLists(back) {
			if err = fitfile.Match(fs, fitfile.FileName, b.Bytes(), back.Sets, m.sets, m.Name(), m.l.Model, loadFitNeeds, nil); err != nil {
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("model: %s: the fit would not read back (nothing written): %w", fn, err)
	}
	file, err := saveFitFile(fn, path)
	if err != nil {
		return err
	}
	if err := writeWhole(file, b.Bytes()); err != nil {
		return fmt.Errorf("model: %s: %w", fn, err)
	}
	return nil
}

// factorLists lists ff's factors: its own, or each restart's.
func factorLists(ff *fitfile.File) [][]fitfile.Factor {
	if len(ff.Restarts) == 0 {
		return [][]fitfile.Factor{ff.Factors}
	}
	var out [][]fitfile.Factor
	for _, r := range ff.Restarts {
		out = append(out, r.Factors)
	}
	return out
}

// saveFitFile is the fit.json that SaveFit writes for path: path/fit.json
// for a directory (made if not there), or path, a .json file. A
// fit.json there that lists other files of a gpp run is refused.
func saveFitFile(fn, path string) (string, error) {
	fi, err := os.Stat(path)
	isJSON := strings.EqualFold(filepath.Ext(path), ".json")
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("model: %s: %w", fn, err)
	case err == nil && fi.IsDir():
		path = filepath.Join(path, fitfile.FileName)
	case err == nil && !isJSON:
		return "", fmt.Errorf("model: %s: %s is a file and not a .json: give a directory or a path ending in .json", fn, path)
	case err != nil && !isJSON:
		if err := os.MkdirAll(path, 0o777); err != nil {
			return "", fmt.Errorf("model: %s: %w", fn, err)
		}
		path = filepath.Join(path, fitfile.FileName)
	}
	if others := runFilesBeside(path); len(others) > 0 {
		return "", fmt.Errorf("model: %s: %s is gpp fit's, with %s beside it, which a saved fit would leave stale: give another directory",
			fn, path, strings.Join(others, ", "))
	}
	return path, nil
}

// runFilesBeside returns the files other than itself that the fit.json
// at path lists as its run's (gpp fit's outputs), if there is one.
func runFilesBeside(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var head struct {
		Format string   `json:"format"`
		Files  []string `json:"files"`
	}
	if json.Unmarshal(b, &head) != nil || head.Format != fitfile.Format {
		return nil
	}
	var others []string
	for _, f := range head.Files {
		if f == filepath.Base(path) {
			continue
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), f)); err == nil {
			others = append(others, f)
		}
	}
	return others
}

// writeWhole writes b to file through a temporary file in its directory
// renamed over it: a reader sees the old file or the new one, never a
// part.
func writeWhole(file string, b []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(b); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644) // CreateTemp's is 0600
	}
	if err == nil {
		err = os.Rename(tmp, file)
	}
	return err
}
