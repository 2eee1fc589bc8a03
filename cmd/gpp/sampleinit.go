package main

// gpp sample --init FIT: the chains start from draws of a fit's q instead
// of Stan's uniform(−2, 2) starts, as Stan's users start NUTS from ADVI or
// Pathfinder: a start in the posterior's bulk shortens the warm-up's way
// there, most where the posterior is far from 0 on the unconstrained scale.

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// initNeeds ends matchFit's messages for gpp sample --init.
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
	what := "q of the fit at " + filepath.Dir(path)
	if mix != nil {
		what = fmt.Sprintf("the mixture of %d restarts of the fit at %s", len(mix.Components), filepath.Dir(path))
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

// initValues is a start given as the params' values (--init FILE.json).
type initValues struct {
	file  string
	u     []float64 // the unconstrained point, at the given coordinates
	given []bool    // the coordinates of u that the file gives
	// latInit holds, per latent, the start a fit's factor takes from the
	// values (compile.Latent.Init: the values on the latent's support,
	// coordinates for a matrix or zero-sum latent); nil where not given.
	latInit [][]float64
	named   []string // the params given, in the model's order
}

// all reports whether the file gives every coordinate.
func (v *initValues) all() bool { return !slices.Contains(v.given, false) }

// describe says where the chains start, for the console and the report.
// A negative radius: the default start (gpp fit's).
func (v *initValues) describe(radius float64) string {
	if v.all() {
		return "the values in " + v.file
	}
	if radius < 0 {
		return fmt.Sprintf("the values in %s (%s; the other params at the default start)", v.file, strings.Join(v.named, ", "))
	}
	rest := fmt.Sprintf("uniform on (-%v, %v)", radius, radius)
	if radius == 0 {
		rest = "at 0"
	}
	return fmt.Sprintf("the values in %s (%s; the other params' coordinates %s)", v.file, strings.Join(v.named, ", "), rest)
}

// isFitJSON reports whether a JSON file that is not named fit.json is a
// gpp fit file rather than the params' values: gpp writes "format"
// ("gpp-fit/1") first in every fit.json, which a file of values cannot
// hold (a param named format aside), and a file that is not a JSON object
// of at least one key (read by data.ReadJSON with error err) is no file of
// values either, so the fit reader says what is wrong with it.
func isFitJSON(vals map[string]*data.Array, err error) bool {
	return err != nil || len(vals) == 0 || vals["format"] != nil
}

// readInit reads what --init names: a gpp fit (its directory or its
// fit.json) or a JSON file of the params' values; exactly one result is
// not nil unless there is an error.
func readInit(arg string, l *pipeline.Loaded, sets setFlags, srcs sources) (*initFit, *initValues, error) {
	if fi, err := os.Stat(arg); err != nil || fi.IsDir() || filepath.Base(arg) == fitFileName || !strings.EqualFold(filepath.Ext(arg), ".json") {
		f, err := readInitFit(arg, l, sets, srcs)
		return f, nil, err
	}
	src, err := os.ReadFile(arg)
	if err != nil {
		return nil, nil, fmt.Errorf("--init: %v", err)
	}
	srcs[arg] = src
	vals, err := data.ReadJSON(arg, bytes.NewReader(src))
	if isFitJSON(vals, err) {
		f, err := readFitAt(arg, arg, l, sets, srcs)
		return f, nil, err
	}
	v, err := readInitValues(arg, src, vals, l)
	return nil, v, err
}

// readInitValues maps the values read from file (data.ReadJSON of src)
// to the unconstrained coordinates of the model l's params. Each error is
// at its place in the file: a key that is not a param (data, or unknown:
// the params listed), at the key, a value of the wrong shape, an element that is not a
// finite number or lies outside its param's support or bounds.
func readInitValues(file string, src []byte, vals map[string]*data.Array, l *pipeline.Loaded) (*initValues, error) {
	m := l.Model
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: m}, pipeline.Latents(m))
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	var params []string
	for i, lat := range m.Latents {
		index[lat.Name] = i
		params = append(params, lat.Name)
	}
	keys := slices.SortedFunc(maps.Keys(vals), func(a, b string) int { // in the file's order
		pa, pb := vals[a].Pos, vals[b].Pos
		return cmp.Or(cmp.Compare(pa.Line, pb.Line), cmp.Compare(pa.Col, pb.Col))
	})
	var errs ast.ErrorList
	x := make([]float64, u.TargetDim())
	v := &initValues{file: file, u: make([]float64, u.Dim()), given: make([]bool, u.Dim()), latInit: make([][]float64, len(m.Latents))}
	for _, name := range keys {
		a := vals[name]
		i, ok := index[name]
		if !ok {
			what := "not a param of the model"
			if _, isData := l.Data[name]; isData || isDataName(l, name) {
				what = "data, not a param: an init file gives params' values"
			}
			at := a.Pos // the key's place: the only strings of a file of values are its keys
			if bytes.Contains(src, []byte(strconv.Quote(name))) {
				at = findPos(file, src, strconv.Quote(name))
			}
			errs = append(errs, &ast.Error{Pos: at, Msg: fmt.Sprintf("--init: %q is %s (the params: %s)", name, what, strings.Join(params, ", "))})
			continue
		}
		if err := a.Err(); err != nil {
			errs = append(errs, asPosErr(err, a.Pos))
			continue
		}
		lat := &m.Latents[i]
		shape := lat.Shape
		if lat.Value != nil {
			shape = lat.Value
		}
		if !slices.Equal(a.Shape, shape) {
			errs = append(errs, &ast.Error{Pos: a.Pos, Msg: fmt.Sprintf("--init: %q is %s: the param is %s", name, initShapeText(a.Shape), initShapeText(shape))})
			continue
		}
		if len(a.Missing) > 0 {
			k := a.Missing[0]
			errs = append(errs, &ast.Error{Pos: a.Locate(k), Msg: fmt.Sprintf("--init: %s is missing (NaN or null): an init is a finite number", compile.ElemName(name, shape, k))})
			continue
		}
		xx := x[lat.Offset : lat.Offset+lat.Size]
		if err := u.ValueCoords(i, a.Values, xx); err != nil {
			var ve *sgvb.ValueError
			if !errors.As(err, &ve) {
				errs = append(errs, &ast.Error{Pos: a.Pos, Msg: "--init: " + err.Error()})
				continue
			}
			errs = append(errs, &ast.Error{Pos: a.Locate(ve.Elem), Msg: fmt.Sprintf("--init: %s is %v, outside %s's support: want %s", compile.ElemName(name, shape, ve.Elem), ve.Value, name, ve.Want)})
			continue
		}
		v.latInit[i] = u.LatentInit(i, xx)
		off, n := u.LatentRange(i)
		for j := off; j < off+n; j++ {
			v.given[j] = true
		}
		v.named = append(v.named, name)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(v.named, func(a, b string) int { return cmp.Compare(index[a], index[b]) })
	full := make([]float64, u.Dim())
	u.UCoords(x, full)
	for j, g := range v.given {
		if g {
			v.u[j] = full[j]
		}
	}
	return v, nil
}

// isDataName reports whether name is a data declaration of the model.
func isDataName(l *pipeline.Loaded, name string) bool {
	for _, st := range l.File.Stmts {
		if dd, ok := st.(*ast.DataDecl); ok && dd.Name.Name == name {
			return true
		}
	}
	return false
}

// asPosErr returns err as a positioned error, at pos if it has none.
func asPosErr(err error, pos ast.Pos) *ast.Error {
	var pe *ast.Error
	if errors.As(err, &pe) {
		return &ast.Error{Pos: pe.Pos, Msg: "--init: " + pe.Msg}
	}
	return &ast.Error{Pos: pos, Msg: "--init: " + err.Error()}
}

// initShapeText describes a value's shape: "a number", "a vector of 3", "a 2×3 matrix".
func initShapeText(shape []int) string {
	switch len(shape) {
	case 0:
		return "a number"
	case 1:
		return fmt.Sprintf("a vector of %d", shape[0])
	}
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	return "a " + strings.Join(dims, "×") + " array"
}

// readInitFile reads gpp fit's --init file src: the params' values
// (returned) when it is a .json file that is not a gpp fit.json, else nil
// for a fit.json, read by the caller.
func readInitFile(path string, src []byte, l *pipeline.Loaded) (*initValues, error) {
	if filepath.Base(path) == fitFileName || !strings.EqualFold(filepath.Ext(path), ".json") {
		return nil, nil
	}
	vals, err := data.ReadJSON(path, bytes.NewReader(src))
	if isFitJSON(vals, err) {
		return nil, nil
	}
	return readInitValues(path, src, vals, l)
}

// setStart makes the values the start of a fit of m: each given param's
// factor starts with its location at the value (compile.Latent.Init, the
// start a constant prior's mean gives, which gpp fit --init path's
// locations also use), its spread at the default. For a normal factor on
// the unconstrained scale (a real, matrix or zero-sum param, and every
// param under --fullrank or a lognormal factor's log) that is Stan's
// ADVI: the mean at the init's coordinates; a gamma factor's mean is the
// value itself. It returns the function that puts m's starts back (the
// REPL's model outlives a :fit).
func (v *initValues) setStart(m *compile.Model) (restore func()) {
	old := make([][]float64, len(m.Latents))
	for i, init := range v.latInit {
		old[i] = m.Latents[i].Init
		if init != nil {
			m.Latents[i].Init = init
		}
	}
	return func() {
		for i := range old {
			m.Latents[i].Init = old[i]
		}
	}
}
