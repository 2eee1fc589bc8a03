// Package pipeline wires gpp's phases for one model: read the model file,
// parse, check, read and bind the data, compile, and adapt the compiled model
// to the SGVB engine. cmd/gpp (fit, check, diagnose, the REPL) and the
// end-to-end tests share it, so every entry point loads a model the same way.
package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/par"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
	"github.com/gpplang/gpp/lang/parser"
)

// Loaded is a model ready to fit.
type Loaded struct {
	Path    string
	Source  []byte
	File    *ast.File
	Info    *check.Info
	Data    map[string]*data.Array
	Model   *compile.Model
	Sources map[string][]byte // model and data file contents, for quoting errors
	// Warnings are about the data files of a successful Bind (data.Unused)
	// and the codes of its columns of labels (data.LevelOrderWarnings).
	Warnings []string
	// Order gives the order of the labels of columns of labels, by
	// declaration, that Bind codes them in (--levels; data.BindOrdered);
	// nil: sorted.
	Order map[string][]string
	// Notes say which missing data values are fitted as latents
	// (data.MissingNotes).
	Notes []string
	// Constant are the warnings of observed data with no spread
	// (data.ConstantObserved), also in Warnings.
	Constant []string
}

// Parse reads, parses and checks a model file.
func Parse(path string, sets map[string]string) (*Loaded, error) {
	src, err := ReadModel(path)
	if err != nil {
		return nil, err
	}
	return ParseSource(path, src, sets)
}

// ReadModel reads a model file. A data file given as the model (the
// arguments swapped) is refused by its extension before it is read, rather
// than parsed into a page of syntax errors.
func ReadModel(path string) ([]byte, error) {
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".csv" || ext == ".json" || ext == ".tsv" {
		return nil, fmt.Errorf("%s is a data file, not a model: the model comes first, as in gpp fit model.gpp data%s", path, ext)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read model: %w", err)
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, MaxModelSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read model: %w", err)
	}
	if len(src) > MaxModelSize {
		return nil, fmt.Errorf("%s is longer than a model can be (over %d MiB of text); is it the model?", path, MaxModelSize>>20)
	}
	return src, nil
}

// MaxModelSize bounds a model file. The largest generated models are a
// few hundred kilobytes; a log or a data file given as the model would be
// lexed whole before the parser gave up on it (89 MB took 3.3 GB and 12 s,
// and /dev/zero never ended).
const MaxModelSize = 16 << 20

// ParseSource parses and checks model source held in memory.
func ParseSource(path string, src []byte, sets map[string]string) (*Loaded, error) {
	l := &Loaded{Path: path, Source: src, Sources: map[string][]byte{path: src}}
	f, err := parser.ParseFile(path, src)
	if err != nil {
		return l, err
	}
	l.File = f
	info, err := check.Check(f, &check.Config{Overrides: sets})
	if err != nil {
		return l, err
	}
	l.Info = info
	return l, nil
}

// DataArg splits a data argument, FILE, NAME=FILE or NAME=FILE.csv:a,b,
// into the name ("" for a positional FILE) and the file.
func DataArg(arg string) (name, file string) {
	name, file, _ = SplitDataArg(arg)
	return name, file
}

// SplitDataArg splits a data argument into the name, the file and the
// columns selected (nil: every column). A selection follows the last ':'
// of NAME=FILE.csv:a,b,c, and only there: when the text before that ':'
// ends in .csv (or .tsv) and the text after it is not empty. A data file's name ends
// in .csv, .tsv, .json or .R, so a ':' elsewhere in a path (runs:3/wine.csv, C:\)
// is part of it. The names are checked against the header when the file
// is read (data.Table.Select).
//
// A path whose first directory holds '=' (x=y/wine.csv) reads as NAME=FILE;
// when that FILE does not exist and the whole argument is a file, the
// argument is that file, positional, as the user meant.
func SplitDataArg(arg string) (name, file string, cols []string) {
	file = arg
	if i := strings.IndexByte(arg, '='); i > 0 && !strings.ContainsAny(arg[:i], `/\.`) && !wholePath(arg, arg[i+1:]) {
		name, file = arg[:i], arg[i+1:]
	}
	i := strings.LastIndexByte(file, ':')
	if ext := strings.ToLower(filepath.Ext(file[:max(i, 0)])); i <= 0 || i == len(file)-1 || ext != ".csv" && ext != ".tsv" {
		return name, file, nil
	}
	return name, file[:i], strings.Split(file[i+1:], ",")
}

// wholePath reports whether arg is an existing file and file, the path
// that NAME=FILE would read, is not (SplitDataArg).
func wholePath(arg, file string) bool {
	if fi, err := os.Stat(arg); err != nil || fi.IsDir() {
		return false
	}
	if i := strings.LastIndexByte(file, ':'); i > 0 { // NAME=FILE.csv:a,b
		file = file[:i]
	}
	_, err := os.Stat(file)
	return errors.Is(err, fs.ErrNotExist)
}

// ReadInputs reads data arguments: FILE.csv, FILE.tsv (tab-separated),
// FILE.json, FILE.R, NAME=FILE.csv, or NAME=FILE.csv:a,b,c for the columns a, b and c of FILE.csv, in that
// order (a matrix of them, or a vector of one), or NAME=FILE.csv:-a for
// every column but a, in the file's order.
func ReadInputs(args []string, sources map[string][]byte) ([]data.Input, error) {
	return ReadInputsFor(args, sources, nil)
}

// ReadInputsFor is ReadInputs for the checked model of info, which then
// binds them: a positional CSV file keeps the values of only the columns
// that the model's declarations may read (data.ColumnsRead), and a
// NAME=FILE.csv:a,b those of the columns selected, so that reading a wide
// file costs the memory of the columns used. A nil info keeps all.
func ReadInputsFor(args []string, sources map[string][]byte, info *check.Info) ([]data.Input, error) {
	var inputs []data.Input
	for _, arg := range args {
		name, file, cols := SplitDataArg(arg)
		ext := strings.ToLower(filepath.Ext(file))
		if ext != ".csv" && ext != ".tsv" && ext != ".json" && ext != ".r" && ext != ".rdump" {
			// Checked before reading: /dev/zero would be read forever.
			return nil, fmt.Errorf("data file %s: expected a .csv, .tsv, .json or .R (R dump) file%s", file, extHint(ext))
		}
		if cols != nil && name == "" {
			return nil, fmt.Errorf("%s: a column selection binds one declaration: write NAME=%s", arg, arg)
		}
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("cannot read data: %w", err)
		}
		if sources != nil {
			sources[file] = src
		}
		in := data.Input{Name: name, File: file, Columns: cols}
		if ext == ".csv" || ext == ".tsv" {
			read := data.ParseCSV // src is kept in sources, not copied
			if ext == ".tsv" {
				read = data.ParseTSV
			}
			var keep func(string) bool // every column
			switch {
			case cols != nil:
				keep = func(c string) bool { return slices.Contains(cols, c) }
				if left, ok := data.ExcludedColumns(cols); ok {
					keep = func(c string) bool { return !slices.Contains(left, c) }
				}
			case info != nil && name == "":
				keep = data.ColumnsRead(info)
			}
			in.Table, err = read(file, src, keep)
			if err == nil && cols != nil {
				in.Table, err = in.Table.Select(cols, arg)
			}
			if _, ok := data.ExcludedColumns(cols); ok && err == nil {
				// the columns bound, which messages name and count
				in.Columns = nil
				for _, c := range in.Table.Columns {
					in.Columns = append(in.Columns, c.Name)
				}
			}
		} else if ext == ".json" {
			in.JSON, err = data.ReadJSON(file, bytes.NewReader(src))
		} else {
			in.JSON, err = data.ReadRDump(file, bytes.NewReader(src))
		}
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// extHint says what to do with a data file of extension ext that gpp
// does not read, when there is a common answer.
func extHint(ext string) string {
	switch ext {
	case ".rda", ".rdata", ".rds":
		return ` (R's binary format: write the data with dump(c("N", "y"), "data.R"), or as JSON with cmdstanr's write_stan_json(data, "data.json"))`
	case ".txt", ".dat":
		return " (gpp reads comma-separated files as .csv and tab-separated ones as .tsv: save it as one, or name it so)"
	case ".gpp":
		return " (a model: give one model, then its data files)"
	case ".xlsx", ".xls", ".ods":
		return " (a spreadsheet: save the sheet as CSV)"
	}
	return ""
}

// Load parses and checks the model, reads and binds its data and compiles
// it. The returned Loaded is partly filled on error, so that the caller can
// quote sources.
func Load(path string, dataArgs []string, sets map[string]string) (*Loaded, error) {
	return load(path, dataArgs, sets, (*Loaded).Bind)
}

// load parses and checks the model, reads its data and binds them with
// bind (Bind, or BindPredict).
func load(path string, dataArgs []string, sets map[string]string, bind func(*Loaded, []data.Input, map[string]string) error) (*Loaded, error) {
	l, err := Parse(path, sets)
	if err != nil {
		return l, err
	}
	inputs, err := ReadInputsFor(dataArgs, l.Sources, l.Info)
	if err != nil {
		return l, err
	}
	return l, bind(l, inputs, sets)
}

// LoadOrdered is Load with the order of the labels of columns of labels
// given by declaration (gpp's --levels; data.BindOrdered), kept in the
// Loaded's Order for binding again.
func LoadOrdered(path string, dataArgs []string, sets map[string]string, order map[string][]string) (*Loaded, error) {
	return load(path, dataArgs, sets, func(l *Loaded, inputs []data.Input, sets map[string]string) error {
		l.Order = order
		return l.Bind(inputs, sets)
	})
}

// LoadCoded is Load for data given to a saved run's model whose log
// density is evaluated at the run's draws (gpp logprob, gpp sensitivity):
// a column of labels is coded as the run coded it (levels, by
// declaration: the run's data.Coded; data.BindCoded, as LoadPredict
// binds), so that a data set holding a few of the labels gets the codes
// the draws' groups had; a size that the run bound from the largest value
// of numeric ids (sizes: the run's data.CodeSizes) is the run's, not
// made smaller by data holding a few of the groups; a matrix that the run
// bound from named CSV columns (columns: its data.MatrixColumns) binds
// the columns of those names in the run's order. With levels nil it is
// Load.
func LoadCoded(path string, dataArgs []string, sets map[string]string, levels map[string]data.Levels, sizes map[string]int, columns map[string][]string) (*Loaded, error) {
	return load(path, dataArgs, sets, func(l *Loaded, inputs []data.Input, sets map[string]string) error {
		return l.bindCoded(inputs, sets, levels, sizes, columns)
	})
}

// Bind binds data inputs and compiles the model.
func (l *Loaded) Bind(inputs []data.Input, sets map[string]string) error {
	return l.bindCoded(inputs, sets, nil, nil, nil)
}

// bindCoded binds data inputs, coding columns of labels as levels says
// when it is not nil (data.BindCoded, with the run's sizes) and else by
// their own labels (and matches a matrix's columns to the run's by name,
// columns), and compiles the model.
func (l *Loaded) bindCoded(inputs []data.Input, sets map[string]string, levels map[string]data.Levels, sizes map[string]int, columns map[string][]string) error {
	if l.Info == nil {
		return errors.New("pipeline: model not checked")
	}
	var bound map[string]*data.Array
	var err error
	if levels == nil {
		bound, err = data.BindOrdered(l.Info, inputs, sets, l.Order)
	} else {
		bound, err = data.BindFitted(l.Info, inputs, sets, nil, levels, sizes, columns)
	}
	if err != nil {
		return err
	}
	l.Data = bound
	l.Warnings = append(data.EmptyTables(l.Info, inputs, bound), data.Unused(l.Info, inputs)...)
	l.Warnings = append(l.Warnings, data.Underflows(bound)...)
	l.Warnings = append(l.Warnings, data.Huge(bound)...)
	if levels == nil { // a run's coding was warned of when it ran
		l.Warnings = append(l.Warnings, data.LevelOrderWarnings(l.File, l.Info, bound)...)
	}
	l.Notes = append(data.MissingNotes(l.Info, bound, nil), data.LeftOutNotes(l.Info, bound, nil, nil)...)
	l.Notes = append(l.Notes, data.LevelNotes(l.Info, bound, levels != nil)...)
	l.Notes = append(l.Notes, data.ColumnNotes(l.Info, bound)...)
	if levels == nil { // new data for a fit's predictions may well have a constant column
		notes, warns := data.DesignNotes(l.File, l.Info, bound)
		l.Notes, l.Warnings = append(l.Notes, notes...), append(l.Warnings, warns...)
	}
	m, err := compile.Compile(l.File, l.Info, bound)
	if err != nil {
		return err
	}
	if skip, not, undrawn := m.Skipped(), m.NotLeaves(), m.LeafUndrawn(); skip != nil || not != nil || undrawn != nil {
		// the missing cells that no statement reads fit no latent, those
		// that are no leaves after all are fitted, and leaves not drawn
		// are not: the notes say which do and which not
		fitted := data.WithoutMissingCells(bound, skip)
		l.Notes = append(data.MissingNotes(l.Info, fitted, not), data.LeftOutNotes(l.Info, bound, not, undrawn)...)
		l.Notes = append(l.Notes, data.SkippedNotes(l.Info, bound, skip)...)
		l.Notes = append(l.Notes, data.LevelNotes(l.Info, bound, levels != nil)...)
		l.Notes = append(l.Notes, data.ColumnNotes(l.Info, bound)...)
	}
	l.Notes = append(l.Notes, m.Notes...)
	l.Warnings = append(l.Warnings, data.GraphWarnings(l.File, l.Info, bound)...)
	l.Constant = data.ConstantObserved(l.File, l.Info, bound)
	l.Warnings = append(l.Warnings, l.Constant...)
	l.Model = m
	return nil
}

// LoadPredict parses and checks the model, reads and binds its data and
// compiles it in predict mode (compile.CompilePredict), for outputs at
// draws of a fitted q: data that only the log density reads may be absent
// (compile.PredictReads, data.BindOptional).
// The data left out that the model observes with ~ are drawn as opt
// chooses (compile.PredictOptions), with Notes saying which. A column of
// labels is coded as the fit coded it (levels, by declaration: the fit's
// data.Coded; data.BindCoded), and a size that the fit bound from the
// largest value of numeric ids is no smaller than the fit's (sizes: the
// fit's data.CodeSizes). A matrix that the fit bound from named CSV
// columns (columns: the fit's data.MatrixColumns) binds the new table's
// columns of those names in the fit's order (data.BindFitted).
func LoadPredict(path string, dataArgs []string, sets map[string]string, opt compile.PredictOptions, levels map[string]data.Levels, sizes map[string]int, columns map[string][]string) (*Loaded, error) {
	return load(path, dataArgs, sets, func(l *Loaded, inputs []data.Input, sets map[string]string) error {
		return l.BindPredict(inputs, sets, opt, levels, sizes, columns)
	})
}

// BindPredict binds data inputs and compiles the checked model in predict
// mode, as LoadPredict does: data that only the log density reads may be
// absent, those left out that a ~ observes are drawn as opt chooses, and
// a column of labels is coded as the fit coded it (levels), a size bound
// from numeric ids no smaller than the fit's (sizes), a matrix's columns
// matched by name to the fit's (columns).
func (l *Loaded) BindPredict(inputs []data.Input, sets map[string]string, opt compile.PredictOptions, levels map[string]data.Levels, sizes map[string]int, columns map[string][]string) error {
	if l.Info == nil {
		return errors.New("pipeline: model not checked")
	}
	optional := func(reads map[string]ast.Stmt) map[string]bool {
		out := map[string]bool{}
		for _, d := range l.Info.Data {
			// A size that --set gives is bound, so that the draw of data
			// left out has its shape.
			if _, set := sets[d.Name]; reads[d.Name] == nil && !(d.Implicit && set) {
				out[d.Name] = true
			}
		}
		return out
	}
	// What the outputs that read observed data need is optional at
	// first: the compiler leaves such an output out when the data leave
	// out what it observes (log_lik without y). The rest is then bound
	// again, strictly, if something kept needs what the data do not give.
	reads := compile.PredictReadsGiven(l.File, l.Info, nil)
	bound, err := data.BindFitted(l.Info, inputs, sets, optional(reads), levels, sizes, columns)
	if err != nil {
		return predictNeeds(err, l.Info, reads)
	}
	reads = compile.PredictReadsGiven(l.File, l.Info, bound)
	for name := range reads {
		if bound[name] == nil {
			if bound, err = data.BindFitted(l.Info, inputs, sets, optional(reads), levels, sizes, columns); err != nil {
				return predictNeeds(err, l.Info, reads)
			}
			break
		}
	}
	l.Data = bound
	l.Warnings = append(data.Unused(l.Info, inputs), data.Underflows(bound)...)
	m, err := compile.CompilePredictOptions(l.File, l.Info, bound, opt)
	if err != nil {
		return err
	}
	l.Model = m
	l.Notes = append(data.ColumnNotes(l.Info, bound), data.LevelNotes(l.Info, bound, true)...)
	l.Notes = append(l.Notes, m.Notes...)
	l.Warnings = append(l.Warnings, m.Warnings...)
	return nil
}

// predictNeeds adds to each error of binding predict's data that is
// positioned at a data declaration (no data for it, a size not bound) what
// needs it, as predict leaves most data out: "gpp predict reads it for
// output resid (m.gpp:12:8)".
func predictNeeds(err error, info *check.Info, reads map[string]ast.Stmt) error {
	list, ok := ast.Positioned(err)
	if !ok {
		return err
	}
	out := make(ast.ErrorList, len(list))
	for i, e := range list {
		out[i] = e
		for _, d := range info.Data {
			s := reads[d.Name]
			if s == nil || d.Pos != e.Pos {
				continue
			}
			what, fix := "", ""
			switch s := s.(type) {
			case *ast.OutputStmt:
				// an output of the fitted model, such as log_lik, that
				// the predictions do not need
				what, fix = "output "+s.Name.Name, fmt.Sprintf(": give it, or leave output %s out of the model given to predict", s.Name.Name)
			case *ast.ParamDecl:
				what = "the shape or bounds of param " + s.Name.Name
			}
			if what == "" {
				continue
			}
			msg := fmt.Sprintf("%s; gpp predict reads it for %s (%s)", e.Msg, what, s.Pos())
			if d.Implicit {
				msg += ": give it with --set " + d.Name + "=N"
			} else {
				msg += fix
			}
			out[i] = &ast.Error{Pos: e.Pos, Msg: msg}
		}
	}
	return out
}

// Target adapts a compiled model to the SGVB engine.
type Target struct{ M *compile.Model }

// LogJoint implements sgvb.Target.
func (t Target) LogJoint(x, grad []float64) (float64, error) { return t.M.LogJoint(x, grad) }

// LogJointValue implements sgvb.ValueTarget.
func (t Target) LogJointValue(x []float64) (float64, error) { return t.M.LogJointValue(x) }

// SetTeam lets the engine lend its idle workers to the log joint (see
// sgvb.Target).
func (t Target) SetTeam(tm par.Team) { t.M.SetTeam(tm) }

// SetStop implements sgvb.StopTarget: the fit's cancellation interrupts
// a running ODE solve.
func (t Target) SetStop(stop *atomic.Bool) { t.M.SetStop(stop) }

// Clone implements sgvb.Target.
func (t Target) Clone() sgvb.Target { return Target{t.M.Clone()} }

// BatchTarget adapts a compiled minibatch model (compile.Model.Minibatch)
// to the SGVB engine (sgvb.Settings.Minibatch).
type BatchTarget struct{ B *compile.Batch }

// LogJoint implements sgvb.Target.
func (t BatchTarget) LogJoint(x, grad []float64) (float64, error) { return t.B.LogJoint(x, grad) }

// LogJointValue implements sgvb.ValueTarget.
func (t BatchTarget) LogJointValue(x []float64) (float64, error) { return t.B.LogJointValue(x) }

// SetBatch implements sgvb.MinibatchTarget.
func (t BatchTarget) SetBatch(hi, lo uint64) { t.B.SetBatch(hi, lo) }

// BatchShare implements sgvb.BatchShare: a batch's share B/N of the rows.
func (t BatchTarget) BatchShare() float64 { return float64(t.B.B) / float64(t.B.N) }

// Clone implements sgvb.Target.
func (t BatchTarget) Clone() sgvb.Target { return BatchTarget{t.B.Clone()} }

// Latents describes the compiled model's latents to the engine.
func Latents(m *compile.Model) []sgvb.Latent {
	out := make([]sgvb.Latent, len(m.Latents))
	for i, l := range m.Latents {
		out[i] = sgvb.Latent{Name: l.Name, Offset: l.Offset, Size: l.Size, Shape: l.Shape, Support: l.Support, Init: l.Init, Loc: l.Loc, Scale: l.Scale, LocV: l.LocV, ScaleV: l.ScaleV}
	}
	return out
}
