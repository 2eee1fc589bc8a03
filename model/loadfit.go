package model

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/lang/ast"
)

// Fit is a fit of a model that gpp fit saved (fit.json), read by
// LoadFit: fit once with the command line, predict later in a service.
type Fit struct {
	// Q is the fitted q, on the model's coordinates: give it to the
	// model's FitDraws, FitSummary and FitOutputs, and to FitOutputs of
	// the Fit's Predictor.
	Q *sgvb.Result
	// Seed is the fit's --seed, gpp predict's seed unless told another.
	Seed uint64

	m    *Model
	sets map[string]string // the fit's --set values
	cd   coding            // fit.json's
}

// loadFitNeeds ends LoadFit's messages of a param missing on either side.
var loadFitNeeds = [2]string{"LoadFit takes every param's q from the fit", "LoadFit needs the fitted model's params"}

// LoadFit reads the fit that gpp fit saved at path (its --out directory,
// or its fit.json) and checks that it is a fit of m, as gpp predict
// checks one: each param of m is a factor of the fit of the same name,
// type, bounds and shape, and each factor a param of m (an error at the
// param's declaration or at the factor in fit.json). A fit of restarts
// (--restarts N, --family pathfinder) is refused: FitOutputs draws from
// one q. So is a fit whose ELBO overflowed. A missing or corrupt file is
// an error positioned in it (file:line:col), as the command line's.
//
// The fit's source file is not compared: m's params must mean what the
// fitted model's meant. m compiled on other data than the fit's is
// fine as long as the params' shapes are the fit's; the Fit's Predictor
// codes new data as the fit coded its own (the labels, sizes and matrix
// columns fit.json records), as gpp predict does, whatever m's data.
func (m *Model) LoadFit(path string) (*Fit, error) {
	if m.predict {
		return nil, fmt.Errorf("model: LoadFit: %s is a Predictor: call LoadFit on the fitted model", m.Name())
	}
	file, err := fitFilePath(path)
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("model: LoadFit: %w", err)
	}
	ff, err := fitfile.Read(file, src)
	if err != nil {
		return nil, err
	}
	if err := fitfile.Overflowed(file, src, ff, "LoadFit", "not to predict from: its q approximates no posterior; refit the model (see the fit's warning)"); err != nil {
		return nil, err
	}
	if n := len(ff.Restarts); n > 0 {
		return nil, &ast.Error{Pos: fitfile.FindPos(file, src, `"restarts"`),
			Msg: fmt.Sprintf("LoadFit: the fit is a mixture of %d restarts (gpp fit --restarts %d), which LoadFit does not read: gpp predict predicts from it; fit one q (--restarts 1) for the Go API", n, n)}
	}
	if err := fitfile.Match(ff.Factors, file, src, ff.Sets, m.sets, m.Name(), m.l.Model, loadFitNeeds, nil); err != nil {
		return nil, err
	}
	q, _ := fitfile.InitResult(ff, ff.Factors, ff.Groups, m.l.Model) // Match leaves nothing to warn of
	return &Fit{Q: q, Seed: ff.Settings.Seed, m: m, sets: ff.Sets,
		cd: coding{fitfile.DataLevels(ff.Levels), ff.Sizes, ff.DataColumns}}, nil
}

// fitFilePath is the fit.json that path names: path itself, or the one
// in the directory path.
func fitFilePath(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("model: LoadFit: %w", err)
	}
	if !fi.IsDir() {
		return path, nil
	}
	file := filepath.Join(path, fitfile.FileName)
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("model: LoadFit: %s has no %s: give gpp fit's output directory (its --out) or its %s", path, fitfile.FileName, fitfile.FileName)
	}
	return file, nil
}

// Predictor is the Predictor of the fitted model on the new data of
// opts, with the new data coded as the fit coded its own (gpp predict's
// coding: fit.json's labels, sizes bound from numeric ids and matrix
// columns) and the fit's --set consts inherited, as gpp predict does;
// FitOutputs(f.Q, n, f.Seed) of it is gpp predict's draws.csv output
// columns with --output-draws n.
func (f *Fit) Predictor(opts ...Option) (*Model, error) {
	return f.m.predictor(f.sets, f.cd, opts)
}
