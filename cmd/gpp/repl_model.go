package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// This file holds the session's model and data: statements typed at the
// prompt, :load, :data, :set, :unset, :check, :list, :undo and :save.

// replInput is one data file of the session.
type replInput struct {
	arg string // as typed: FILE or NAME=FILE
	in  data.Input
}

// sources returns the texts errors may quote: the model, the data files,
// and the input just typed (if any).
func (r *repl) sources(input string) sources {
	s := sources{replModel: []byte(r.src)}
	for k, v := range r.srcs {
		s[k] = v
	}
	if input != "" {
		s[replInputName] = []byte(input)
		s[""] = []byte(input)
	}
	return s
}

// checkText parses and checks a model source as the session's model.
func checkText(src string, sets setFlags) (*ast.File, *check.Info, error) {
	f, err := parser.ParseFile(replModel, []byte(src))
	if err != nil {
		return f, nil, err
	}
	info, err := check.Check(f, &check.Config{Overrides: sets})
	return f, info, err
}

// addStmts adds statements typed at the prompt to the model, if the model
// stays valid; otherwise it prints the errors and drops them. Errors in
// the new statements are positioned in the input (<input>:LINE:COL),
// errors elsewhere in the model (<repl>:LINE:COL).
func (r *repl) addStmts(input string, stmts []ast.Stmt) {
	f, err := parser.ParseFile(replModel, []byte(r.src))
	if err != nil { // cannot happen: the model is always valid
		r.printError(err, r.sources(input))
		return
	}
	all := &ast.File{Name: replModel, Stmts: append(f.Stmts[:len(f.Stmts):len(f.Stmts)], stmts...)}
	if _, err := check.Check(all, &check.Config{Overrides: r.sets}); err != nil {
		r.printError(err, r.sources(input))
		return
	}
	src := r.src + strings.TrimRight(input, "\n") + "\n"
	_, info, err := checkText(src, r.sets)
	if err != nil {
		r.printError(err, sources{replModel: []byte(src)})
		return
	}
	r.prev = append(r.prev, r.src)
	r.src, r.info = src, info
}

// load replaces the model with the model in a file. The data and the :set
// values stay (those naming nothing in the new model are dropped); the fit
// is forgotten.
func (r *repl) load(path string) {
	raw, err := pipeline.ReadModel(path)
	if err != nil {
		r.errorf("%v", err)
		return
	}
	f, err := parser.ParseFile(path, raw)
	if err != nil {
		r.printError(err, sources{path: raw})
		return
	}
	sets := r.keptSets(f)
	if _, err := check.Check(f, &check.Config{Overrides: sets}); err != nil {
		r.printError(err, sources{path: raw})
		return
	}
	src := string(raw)
	if src != "" && !strings.HasSuffix(src, "\n") {
		src += "\n"
	}
	_, info, err := checkText(src, sets)
	if err != nil {
		r.printError(err, sources{replModel: []byte(src)})
		return
	}
	r.noteDropped(sets)
	r.prev = append(r.prev, r.src)
	r.src, r.info, r.sets, r.fit = src, info, sets, nil
	fmt.Fprintf(r.out, "loaded %s: %s\n", path, describeModel(info))
}

// keptSets returns the :set values whose names the file declares.
func (r *repl) keptSets(f *ast.File) setFlags {
	info, _ := check.Check(f, nil)
	kept := setFlags{}
	for k, v := range r.sets {
		if info != nil && info.Lookup(k) != nil {
			kept[k] = v
		}
	}
	return kept
}

// noteDropped reports the :set values missing from kept.
func (r *repl) noteDropped(kept setFlags) {
	for _, k := range sortedKeys(r.sets) {
		if _, ok := kept[k]; !ok {
			errorf(r.err, "note: dropped :set %s=%s: the model has no %s", k, r.sets[k], k)
		}
	}
}

// describeModel lists a model's names by kind.
func describeModel(info *check.Info) string {
	var parts []string
	add := func(kind string, names []string) {
		if len(names) > 0 {
			parts = append(parts, kind+" "+strings.Join(names, ", "))
		}
	}
	var ps, ds, cs, outs []string
	for _, l := range info.Latents {
		ps = append(ps, l.Name)
	}
	for _, d := range info.Data {
		ds = append(ds, d.Name)
	}
	for _, c := range info.Consts {
		cs = append(cs, c.Name)
	}
	for _, o := range info.Outputs {
		outs = append(outs, o.Name)
	}
	add("params", ps)
	add("data", ds)
	add("consts", cs)
	add("outputs", outs)
	if len(parts) == 0 {
		return "an empty model"
	}
	return strings.Join(parts, "; ")
}

// addData reads data files and adds them to the session; a file (or a
// NAME=) given again replaces the earlier one. Without arguments it lists
// the data files.
func (r *repl) addData(args []string) {
	if len(args) == 0 {
		if len(r.data) == 0 {
			fmt.Fprintln(r.out, "no data: add files with :data [NAME=]FILE")
		}
		for _, d := range r.data {
			fmt.Fprintf(r.out, "%s: %s\n", d.arg, describeInput(d.in))
		}
		return
	}
	for _, arg := range args {
		ins, err := pipeline.ReadInputs([]string{arg}, r.srcs)
		if err != nil {
			r.printError(err, r.srcs)
			continue
		}
		in := replInput{arg: arg, in: ins[0]}
		replaced := false
		for i, d := range r.data {
			if d.in.Name == in.in.Name && (in.in.Name != "" || d.in.File == in.in.File) {
				r.data[i], replaced = in, true
				break
			}
		}
		if !replaced {
			r.data = append(r.data, in)
		}
		fmt.Fprintf(r.out, "data %s: %s\n", arg, describeInput(in.in))
	}
}

// describeInput says what a data file holds.
func describeInput(in data.Input) string {
	switch {
	case in.Table != nil && in.Name != "":
		return fmt.Sprintf("%s, a [%d, %d] table", in.Name, in.Table.Rows, len(in.Table.Columns))
	case in.Table != nil:
		var names []string
		for _, c := range in.Table.Columns {
			names = append(names, c.Name)
		}
		return fmt.Sprintf("%d row%s, column%s %s", in.Table.Rows, plural(in.Table.Rows), plural(len(names)), strings.Join(names, ", "))
	}
	var names []string
	for k := range in.JSON {
		names = append(names, k)
	}
	sort.Strings(names)
	if in.Name != "" {
		return fmt.Sprintf("%s, from keys %s", in.Name, strings.Join(names, ", "))
	}
	return "keys " + strings.Join(names, ", ")
}

// inputs returns the session's data inputs.
func (r *repl) inputs() []data.Input {
	out := make([]data.Input, len(r.data))
	for i, d := range r.data {
		out[i] = d.in
	}
	return out
}

// set adds :set values, each checked against the model: a value that makes
// it invalid is reported and dropped. Without arguments it lists them.
func (r *repl) set(args []string) {
	if len(args) == 0 {
		if len(r.sets) == 0 {
			fmt.Fprintln(r.out, "no :set values")
		}
		for _, k := range sortedKeys(r.sets) {
			fmt.Fprintf(r.out, "%s=%s\n", k, r.sets[k])
		}
		return
	}
	for _, arg := range args {
		trial := setFlags{}
		for k, v := range r.sets {
			trial[k] = v
		}
		name, _, _ := strings.Cut(arg, "=")
		delete(trial, name) // :set replaces a value; only the command line refuses two
		if err := trial.Set(arg); err != nil {
			r.errorf(":set: %v", err)
			continue
		}
		_, info, err := checkText(r.src, trial)
		if err != nil {
			r.printError(err, r.sources(""))
			continue
		}
		r.sets, r.info = trial, info
		if c := info.Const(name); c != nil {
			fmt.Fprintf(r.out, "%s = %s (default %s)\n", name, c.ValueString(), formatConst(c))
		} else {
			fmt.Fprintf(r.out, "%s = %s (scalar data)\n", name, trial[name])
		}
	}
}

func formatConst(c *check.Constant) string {
	d := *c
	d.Value = c.Default
	return d.ValueString()
}

// unset drops :set values.
func (r *repl) unset(args []string) {
	if len(args) == 0 {
		r.errorf(":unset takes the names to drop")
		return
	}
	trial := setFlags{}
	for k, v := range r.sets {
		trial[k] = v
	}
	for _, name := range args {
		if _, ok := trial[name]; !ok {
			r.errorf(":unset: %s has no :set value", name)
			continue
		}
		delete(trial, name)
	}
	_, info, err := checkText(r.src, trial)
	if err != nil {
		r.printError(err, r.sources(""))
		return
	}
	r.sets, r.info = trial, info
}

// check prints gpp check's summary of the model or its errors. When the
// data are loaded, or the model reads none, the model is also bound and
// compiled as :fit would, so that sizes and data values are checked too.
// Ctrl-C stops it and the session goes on.
func (r *repl) check() {
	ctx, stop := r.interruptible(func() {})
	defer stop()
	r.checkCtx(ctx)
}

// checkCtx is check, stopped when ctx is cancelled.
func (r *repl) checkCtx(ctx context.Context) {
	var l *pipeline.Loaded
	if len(r.data) > 0 || len(r.info.Data) == 0 {
		var err error
		if l, err = pipeline.ParseSource(replModel, []byte(r.src), r.sets); err != nil {
			r.printError(err, r.sources(""))
			return
		}
		if !bindAndStart(ctx, r.err, l, r.inputs(), r.sets, r.sources("")) {
			if ctx.Err() != nil {
				r.interrupted(":check stopped")
				return
			}
			r.failed = true
			return
		}
	}
	printSummary(r.out, replModel, r.info)
	if len(r.data) > 0 {
		var files []string
		for _, d := range r.data {
			files = append(files, d.arg)
		}
		fmt.Fprintln(r.out, boundLine(files, r.info, l.Data))
	}
}

// list prints the model with line numbers.
func (r *repl) list() {
	if r.src == "" {
		fmt.Fprintln(r.out, "the model is empty")
		return
	}
	lines := strings.Split(strings.TrimSuffix(r.src, "\n"), "\n")
	for i, l := range lines {
		fmt.Fprintf(r.out, "%3d  %s\n", i+1, l)
	}
}

// undo restores the model before the last statement or :load.
func (r *repl) undo() {
	if len(r.prev) == 0 {
		r.errorf("nothing to undo")
		return
	}
	src := r.prev[len(r.prev)-1]
	f, _ := parser.ParseFile(replModel, []byte(src))
	sets := r.keptSets(f)
	_, info, err := checkText(src, sets)
	if err != nil {
		r.printError(err, sources{replModel: []byte(src)})
		return
	}
	r.noteDropped(sets)
	r.prev = r.prev[:len(r.prev)-1]
	r.src, r.info, r.sets = src, info, sets
}

// inputFiles returns the session's data files, which no file it writes may
// replace (outputClash, saveClash).
func (r *repl) inputFiles() []inputFile {
	var out []inputFile
	for _, d := range r.data {
		out = append(out, inputFile{"the data file", d.in.File})
	}
	return out
}

// saveClash reports why :save must not write path: it is one of the
// session's inputs (sameFile), or it does not end in .gpp, so that a
// mistyped name cannot replace a data file or any other non-model file.
// The model file that was loaded may be saved over.
func (r *repl) saveClash(path string) error {
	for _, in := range r.inputFiles() {
		if sameFile(path, in.path) {
			return fmt.Errorf(":save %s: %s %s would be overwritten: save to another FILE.gpp", path, in.what, in.path)
		}
	}
	if !strings.EqualFold(filepath.Ext(path), ".gpp") {
		return fmt.Errorf(":save %s: a model file ends in .gpp: save to a FILE.gpp", path)
	}
	return nil
}

// save writes the model as canonical source (ast.Fprint), atomically: to a
// temporary file in the same directory, renamed into place. saveClash
// guards the session's inputs.
func (r *repl) save(path string) {
	if err := r.saveClash(path); err != nil {
		r.errorf("%v", err)
		return
	}
	f, err := parser.ParseFile(replModel, []byte(r.src))
	if err != nil {
		r.printError(err, r.sources(""))
		return
	}
	var buf bytes.Buffer
	if err := ast.Fprint(&buf, f); err != nil {
		r.errorf("cannot save: %v", err)
		return
	}
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	sw := &staged{dir: dir}
	if err := sw.write(name, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		r.errorf("%v", err)
		return
	}
	if err := sw.commit(); err != nil {
		r.errorf("%v", err)
		return
	}
	n := len(f.Stmts)
	fmt.Fprintf(r.out, "saved %s (%d statement%s)\n", path, n, plural(n))
}

// declaredNames returns the model's top-level names, for completion.
func (r *repl) declaredNames() []string {
	var out []string
	for _, s := range r.info.Symbols {
		if !s.Local {
			out = append(out, s.Name)
		}
	}
	return out
}

// latentNames returns the model's params, for completion.
func (r *repl) latentNames() []string {
	var out []string
	for _, l := range r.info.Latents {
		out = append(out, l.Name)
	}
	return out
}
