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
	"github.com/gpplang/gpp/lang/compile"
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

// addStmts adds the statements of one input to the model, all of them or
// none: if the model with them does not check, or, with data loaded, does
// not bind to the data and compile where it did before (bindsWith), the
// errors are printed and nothing is added, as one input is one step of
// :undo. Errors in the new statements are positioned in the input
// (<input>:LINE:COL), errors elsewhere in the model (<repl>:LINE:COL).
func (r *repl) addStmts(input string, stmts []ast.Stmt) {
	f, err := parser.ParseFile(replModel, []byte(r.src))
	if err != nil { // cannot happen: the model is always valid
		r.printError(err, r.sources(input))
		return
	}
	all := &ast.File{Name: replModel, Stmts: append(f.Stmts[:len(f.Stmts):len(f.Stmts)], stmts...)}
	info, err := check.Check(all, &check.Config{Overrides: r.sets})
	atStart := false
	if err == nil && len(r.data) > 0 && r.holdsData(stmts) {
		// Only a failure the new statements bring counts: the model
		// before them is tried only when the new one fails.
		if atStart, err = r.bindsWith(all, info, r.sets); err != nil && !r.binds(r.src, r.sets) {
			atStart, err = false, nil
		}
	}
	if err != nil {
		r.printError(err, r.sources(input))
		if atStart {
			errorf(r.err, "%s", startNote)
		}
		r.noteNoneAdded(input, len(stmts))
		return
	}
	src := r.src + strings.TrimRight(input, "\n") + "\n"
	_, info, err = checkText(src, r.sets)
	if err != nil {
		r.printError(err, sources{replModel: []byte(src)})
		return
	}
	r.prev = append(r.prev, r.src)
	r.src, r.info = src, info
}

// noteNoneAdded says, after the errors of an input of n statements, that
// none of them was added: with two or more, the ones that had no error
// might otherwise be taken as added (y ~ Poisson(lambda); output z = zz
// would leave the likelihood out of the next :fit unsaid).
func (r *repl) noteNoneAdded(input string, n int) {
	if n < 2 {
		return
	}
	where := "on this line"
	if strings.Contains(strings.TrimSpace(input), "\n") {
		where = "in this input"
	}
	errorf(r.err, "note: nothing %s was added: the statements of an input are added together or not at all", where)
}

// stmtsBefore counts the statements of an input that does not parse, as
// far as they can be told: the whole ones before its first error and the
// one with it, or 0 when none is whole before it. Those are not added
// either.
func stmtsBefore(input string, err error) int {
	list, ok := ast.Positioned(err)
	if !ok || len(list) == 0 || !list[0].Pos.IsValid() {
		return 0
	}
	p := list[0].Pos
	end := 0 // the byte offset of the error
	for line := 1; line < p.Line; line++ {
		i := strings.IndexByte(input[end:], '\n')
		if i < 0 {
			return 0
		}
		end += i + 1
	}
	end = min(end+p.Col-1, len(input))
	// The longest prefix that ends at a ";" or a newline and parses.
	for i := end - 1; i > 0; i-- {
		if input[i] != ';' && input[i] != '\n' {
			continue
		}
		if stmts, err := parser.ParseStmts(replInputName, []byte(input[:i])); err == nil && len(stmts) > 0 {
			return len(stmts) + 1 // and the one with the error
		}
	}
	return 0
}

// bindsWith binds the session's data to the model f (checked as info, with
// the values sets), compiles it and tries its log density at a fit's start,
// as :check does, and returns the first error; atStart says it is the
// start's (startNote explains it).
func (r *repl) bindsWith(f *ast.File, info *check.Info, sets setFlags) (atStart bool, err error) {
	bound, err := data.Bind(info, r.inputs(), sets)
	if err != nil {
		return false, err
	}
	m, err := compile.Compile(f, info, bound)
	if err != nil {
		return false, err
	}
	err = startError(context.Background(), m)
	return err != nil, err
}

// binds reports whether the model src, with the values sets, binds to the
// session's data, compiles and has a start (bindsWith).
func (r *repl) binds(src string, sets setFlags) bool {
	f, info, err := checkText(src, sets)
	if err != nil {
		return false
	}
	_, err = r.bindsWith(f, info, sets)
	return err == nil
}

// holdsData reports whether the session's data (or its :set values) hold
// every data the statements declare. A data declaration that none holds
// yet waits for its :data; the statements are then checked by the checker
// only, and bound at :check or :fit.
func (r *repl) holdsData(stmts []ast.Stmt) bool {
	for _, s := range stmts {
		d, ok := s.(*ast.DataDecl)
		if !ok {
			continue
		}
		name := d.Name.Name
		_, held := r.sets[name]
		for _, in := range r.data {
			switch {
			case in.in.Name != "":
				held = held || in.in.Name == name
			case in.in.Table != nil:
				held = held || in.in.Table.Column(name) != nil
			default:
				_, ok := in.in.JSON[name]
				held = held || ok
			}
		}
		if !held {
			return false
		}
	}
	return true
}

// load replaces the model with the model in a file. The data and the :set
// values stay (a value or a NAME=FILE naming nothing in the new model is
// dropped); the fit is forgotten.
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
	r.data = r.keptData(info)
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
// NAME=) given again replaces the earlier one, whatever path names the
// file (y.csv and ./y.csv are one file). Without arguments it lists the
// data files, as :drop takes them.
func (r *repl) addData(args []string) {
	if len(args) == 0 {
		if len(r.data) == 0 {
			fmt.Fprintln(r.out, "no data: add files with :data [NAME=]FILE")
		}
		for _, d := range r.data {
			fmt.Fprintf(r.out, "%s: %s\n", quoteArg(d.arg), describeInput(d.in))
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
			if d.in.Name == in.in.Name && (in.in.Name != "" || sameFile(d.in.File, in.in.File)) {
				r.data[i], replaced = in, true
				break
			}
		}
		if !replaced {
			r.data = append(r.data, in)
		}
		fmt.Fprintf(r.out, "data %s: %s\n", quoteArg(arg), describeInput(in.in))
	}
}

// dropData runs :drop: it drops the data entries each argument names, as
// :data lists them (FILE or NAME=FILE), by the file (any path to it) or
// by the NAME of a NAME=FILE.
func (r *repl) dropData(args []string) {
	if len(args) == 0 {
		r.errorf(":drop takes the data files to drop, as :data lists them")
		return
	}
	for _, arg := range args {
		name, file := pipeline.DataArg(arg)
		kept := r.data[:0:0]
		var dropped []string
		for _, d := range r.data {
			match := arg == d.arg ||
				name == "" && (arg == d.in.Name || sameFile(file, d.in.File)) ||
				name != "" && name == d.in.Name && sameFile(file, d.in.File)
			if match {
				dropped = append(dropped, quoteArg(d.arg))
			} else {
				kept = append(kept, d)
			}
		}
		if len(dropped) == 0 {
			r.errorf(":drop: no data %s (:data lists them)", quoteArg(arg))
			continue
		}
		r.data = kept
		fmt.Fprintf(r.out, "dropped data %s\n", strings.Join(dropped, ", "))
	}
}

// keptData returns the data entries a model declared as info can use: a
// NAME=FILE whose NAME it does not declare is left out, as keptSets leaves
// out values, and noted.
func (r *repl) keptData(info *check.Info) []replInput {
	var kept []replInput
	for _, d := range r.data {
		if d.in.Name != "" && info.DataVar(d.in.Name) == nil {
			errorf(r.err, "note: dropped :data %s: the model has no data %s", quoteArg(d.arg), d.in.Name)
			continue
		}
		kept = append(kept, d)
	}
	return kept
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

// set adds :set values, each checked against the model (trySets): a value
// that makes it invalid is reported and dropped. Without arguments it
// lists them.
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
		if r.trySets(trial) {
			r.printSet(name)
		}
	}
}

// trySets makes sets the session's values if the model checks with them
// and, when the data are loaded or it reads none, also binds, compiles and
// has a start with them (bindsWith, as :check) if it did with the values
// before: a size past what a model can store (:set K=1e9) is refused as gpp
// fit --set refuses it. Otherwise it prints the errors and reports false.
func (r *repl) trySets(sets setFlags) bool {
	f, info, err := checkText(r.src, sets)
	if err != nil {
		r.printError(err, r.sources(""))
		return false
	}
	if len(r.data) > 0 || len(info.Data) == 0 {
		// As in addStmts, the old values are tried only when the new fail.
		if atStart, err := r.bindsWith(f, info, sets); err != nil && r.binds(r.src, r.sets) {
			r.printError(err, r.sources(""))
			if atStart {
				errorf(r.err, "%s", startNote)
			}
			return false
		}
	}
	r.sets, r.info = sets, info
	return true
}

// printSet prints the value :set gave name.
func (r *repl) printSet(name string) {
	if c := r.info.Const(name); c != nil {
		fmt.Fprintf(r.out, "%s = %s (default %s)\n", name, c.ValueString(), formatConst(c))
	} else {
		fmt.Fprintf(r.out, "%s = %s (scalar data)\n", name, r.sets[name])
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
