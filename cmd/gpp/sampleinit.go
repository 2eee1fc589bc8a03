package main

// gpp sample --init FIT: the chains start from draws of a fit's q instead
// of Stan's uniform(−2, 2) starts, as Stan's users start NUTS from ADVI or
// Pathfinder: a start in the posterior's bulk shortens the warm-up's way
// there, most where the posterior is far from 0 on the unconstrained scale.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// initNeeds ends fitfile.Match's messages for gpp sample --init.
var initNeeds = [2]string{"--init starts the chains from a fit of this model, param by param", "--init starts the chains from a fit of this model, param by param"}

// initFit is the q the chains start from: chain c from draw c of q, drawn
// as the fit drew its output draws (its seed, sgvb.DrawStream), so that chain
// c starts at draw c of the fit's draws.csv (after its row of q's mean).
// For a mixture of restarts (mix not nil) draw c is of restart c mod R, as
// the fit drew its draws, so that chains cycle through the restarts: the
// modes they found, which Stan's users start chains from on purpose to
// see whether the chains leave them and agree (draws from the mixture's
// weights, equal, could put every chain in one restart).
type initFit struct {
	res  *sgvb.Result
	mix  *sgvb.Mixture
	seed uint64
	what string // "q of the fit at DIR", "q of fit 2" (the REPL's)
}

// component returns the restart that draw c (chain c+1's start) is of,
// or -1 for one q.
func (f *initFit) component(c int) int {
	if f.mix == nil {
		return -1
	}
	return c % len(f.mix.Components)
}

// starts returns the start of chain c: draw c of q mapped to u's
// unconstrained coordinates. A draw where the log density or its gradient
// is not finite is an error: the fit is of this model, so its draws
// should be points the model can be evaluated at.
func (f *initFit) starts(u *sgvb.Unconstrained) func(c int, dst []float64) error {
	rng := rand.New(rand.NewPCG(f.seed, sgvb.DrawStream))
	x := make([]float64, u.TargetDim())
	var drawn [][]float64 // the draws so far, chain by chain
	return func(c int, dst []float64) error {
		for len(drawn) <= c {
			q := f.res
			if r := f.component(len(drawn)); r >= 0 {
				q = f.mix.Components[r]
			}
			q.SampleCoords(rng, x)
			z := make([]float64, u.Dim())
			u.UCoords(x, z)
			drawn = append(drawn, z)
		}
		copy(dst, drawn[c])
		grad := make([]float64, u.Dim())
		lp, err := u.LogDensity(dst, grad)
		ok := err == nil && !math.IsNaN(lp) && !math.IsInf(lp, 0)
		for _, g := range grad {
			ok = ok && !math.IsNaN(g) && !math.IsInf(g, 0)
		}
		if ok {
			return nil
		}
		if err != nil {
			return fmt.Errorf("draw %d of %s has no finite log density (%v): start from another fit, or without --init", c+1, f.what, err)
		}
		return fmt.Errorf("draw %d of %s has no finite log density or gradient: start from another fit, or without --init", c+1, f.what)
	}
}

// readInitFit reads the fit that --init names (its output directory or
// its fit.json) and checks that it is a fit of the model l, as gpp predict
// and --against check one; the file read is added to srcs.
func readInitFit(arg string, l *pipeline.Loaded, sets setFlags, srcs sources) (*initFit, error) {
	path := arg
	fi, err := os.Stat(arg)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("--init %s: no such file or directory (give gpp fit's output directory or its %s)", arg, fitFileName)
	case err != nil:
		return nil, fmt.Errorf("--init: %v", err)
	case fi.IsDir():
		path = filepath.Join(arg, fitFileName)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("--init %s: %s has no %s: give the output directory of a gpp fit (a sample's or prior draws' has none)", arg, arg, fitFileName)
		}
	case filepath.Base(arg) != fitFileName:
		return nil, fmt.Errorf("--init %s: give gpp fit's output directory or its %s, or a .json file of the params' values", arg, fitFileName)
	}
	return readFitAt(arg, path, l, sets, srcs)
}

// readFitAt reads the fit.json at path for --init arg (readInitFit).
func readFitAt(arg, path string, l *pipeline.Loaded, sets setFlags, srcs sources) (*initFit, error) {
	ff, src, err := readUsedFit(path, srcs, "--init", initAdvice)
	if err != nil {
		return nil, err
	}
	res, mix, err := fitQ(ff, path, src, sets, l.Path, l.Model, initNeeds)
	if err != nil {
		return nil, err
	}
	at := "at " + filepath.Dir(path)
	if filepath.Base(path) != fitFileName { // a fit.json renamed
		at = "in " + path
	}
	what := "q of the fit " + at
	if mix != nil {
		what = fmt.Sprintf("the mixture of %d restarts of the fit %s", len(mix.Components), at)
	}
	return &initFit{res: res, mix: mix, seed: ff.Settings.Seed, what: what}, nil
}

// Stan's init files: --init FILE.json of the params' values.
//
// CmdStan's init= takes a JSON file of param values by name, as
// write_stan_json writes them (numbers, arrays, arrays of rows for
// matrices); params it does not name start as without it. gpp sample
// --init FILE.json starts every chain at those values (Stan gives every
// chain the same inits unless told otherwise), drawing the params it does
// not name as without --init (each coordinate uniform on (−R, R),
// --init-radius R, from the chain's own stream); gpp fit --init FILE.json
// starts q's locations there. A gpp fit.json under another name is told
// apart by its "format" key (isFitJSON).

// initValues is a start given as the params' values (--init FILE.json):
// pipeline's Start, which the model package's Inits share, and its file.
type initValues struct {
	*pipeline.Start
	file string
}

// describe says where the chains start, for the console and the report.
// A negative radius: the default start (gpp fit's).
func (v *initValues) describe(radius float64) string {
	if v.All() {
		return "the values in " + v.file
	}
	if radius < 0 {
		return fmt.Sprintf("the values in %s (%s; the other params at the default start)", v.file, strings.Join(v.Named, ", "))
	}
	rest := fmt.Sprintf("uniform on (-%v, %v)", radius, radius)
	if radius == 0 {
		rest = "at 0"
	}
	return fmt.Sprintf("the values in %s (%s; the other params' coordinates %s)", v.file, strings.Join(v.Named, ", "), rest)
}

// isFitJSON reports whether src, a JSON file that is not named fit.json,
// is a gpp fit file rather than the params' values, given what
// data.ReadJSON read from it (vals, err): gpp writes "format" ("gpp-fit/1")
// in every fit.json, first, a string, which a file of values cannot hold
// there (a param named format has a number or an array). A file that is
// not a JSON object of at least one key is no file of values either, so
// the fit reader says what is wrong with it; a file of values with a
// syntax error (its first key not "format" with a string) is left to
// data.ReadJSON's error.
func isFitJSON(src []byte, vals map[string]*data.Array, err error) bool {
	if err == nil {
		return len(vals) == 0 || vals["format"] != nil && formatIsString(src)
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return true
	}
	t, err := dec.Token()
	key, ok := t.(string)
	if err != nil || !ok {
		return true
	}
	if key != "format" {
		return false
	}
	v, err := dec.Token()
	_, str := v.(string)
	return err == nil && str
}

// formatIsString reports whether the JSON object src has a key "format"
// whose value is a string, as gpp's fit.json has: a param's value is a
// number or an array.
func formatIsString(src []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(src, &top) != nil {
		return false
	}
	v := bytes.TrimSpace(top["format"])
	return len(v) > 0 && v[0] == '"'
}

// mayHoldValues reports whether --init path may be a file of the params'
// values: a .json file not named fit.json (isFitJSON tells the rest apart).
func mayHoldValues(path string) bool {
	return filepath.Base(path) != fitFileName && strings.EqualFold(filepath.Ext(path), ".json")
}

// readInit reads what --init names: a gpp fit (its directory or its
// fit.json) or a JSON file of the params' values; exactly one result is
// not nil unless there is an error.
func readInit(arg string, l *pipeline.Loaded, sets setFlags, srcs sources) (*initFit, *initValues, error) {
	if fi, err := os.Stat(arg); err != nil || fi.IsDir() || !mayHoldValues(arg) {
		f, err := readInitFit(arg, l, sets, srcs)
		return f, nil, err
	}
	src, err := os.ReadFile(arg)
	if err != nil {
		return nil, nil, fmt.Errorf("--init: %v", err)
	}
	srcs[arg] = src
	v, err := readInitFile(arg, src, l)
	if v != nil || err != nil {
		return nil, v, err
	}
	f, err := readFitAt(arg, arg, l, sets, srcs)
	return f, nil, err
}

// readInitValues maps the values read from file (data.ReadJSON of src)
// to the unconstrained coordinates of the model l's params
// (pipeline.Loaded.InitValues). Each error is at its place in the file: a
// key that is not a param (data, or unknown: the params listed), at the
// key, a value of the wrong shape, an element that is not a finite number
// or lies outside its param's support or bounds.
func readInitValues(file string, src []byte, vals map[string]*data.Array, l *pipeline.Loaded) (*initValues, error) {
	s, err := l.InitValues(vals, "--init: ", jsonKeyPos(file, src, vals))
	if err != nil {
		return nil, err
	}
	return &initValues{Start: s, file: file}, nil
}

// jsonKeyPos returns where a key of a JSON file of values (src, read as
// vals) stands, for errors about the name: the key itself (the only
// strings of such a file are its keys), else, when it is written with
// escapes, its value.
func jsonKeyPos(file string, src []byte, vals map[string]*data.Array) func(name string) ast.Pos {
	return func(name string) ast.Pos {
		if q := strconv.Quote(name); bytes.Contains(src, []byte(q)) {
			return fitfile.FindPos(file, src, q)
		}
		return vals[name].Pos
	}
}

// readInitFile reads the --init file src at path: the params' values
// (returned) when it is a .json file that is not a gpp fit.json, else nil
// for a fit.json, which the caller reads.
func readInitFile(path string, src []byte, l *pipeline.Loaded) (*initValues, error) {
	if !mayHoldValues(path) {
		return nil, nil
	}
	vals, err := data.ReadJSON(path, bytes.NewReader(src))
	switch {
	case isFitJSON(src, vals, err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return readInitValues(path, src, vals, l)
}

// setStart makes the values the start of a fit of m
// (pipeline.Start.SetInit) and returns the function that puts m's starts
// back (the REPL's model outlives a :fit).
func (v *initValues) setStart(m *compile.Model) (restore func()) { return v.SetInit(m) }
