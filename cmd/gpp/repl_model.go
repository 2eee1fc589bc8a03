package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
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

// replState is what a step of the session changes and :undo restores:
// the model, its data, the values set and the fit. A step makes a new
// state and never changes one in place (its data slice and sets map are
// its own), so that the states kept for :undo stay as they were.
type replState struct {
	src  string      // the session's model source, every statement ending in a newline
	info *check.Info // src checked with sets
	data []replInput // data files, in the order given
	sets setFlags    // :set values
	fit  *replFit    // the last fit, or nil
	// sample is the last :sample when it came after the last :fit (a :fit
	// sets it to nil): queries and :show answer from its draws.
	sample *replSample
}

// replStep is one step that :undo takes back: the state before it, and
// the input or :command line that made it. fitDropped and sampleDropped
// say that the fit or sample of the state before it was let go
// (trimSteps).
type replStep struct {
	before                    replState
	what                      string
	fitDropped, sampleDropped bool
}

// The bounds of :undo's history (trimSteps): a session of any length
// keeps at most replMaxSteps steps, the fits of the last replFitSteps only
// (with the session's own), and data files of its earlier states up to
// repl.undoData bytes.
const (
	replMaxSteps = 100
	replFitSteps = 10
	replUndoData = 256_000_000
)

// commit makes next the session's state, in one step of :undo.
func (r *repl) commit(next replState) {
	r.steps = append(r.steps, replStep{before: r.replState, what: r.input})
	r.replState = next
	r.trimSteps()
}

// trimSteps bounds the memory that :undo's history holds: each step keeps
// the state before it, whose data tables and fit may be large. It forgets
// the oldest steps past replMaxSteps, and past those whose data files (the
// ones the session's state no longer has) come to more than r.undoData
// bytes, keeping the last step whatever its size; and it lets go of the
// fits of steps more than replFitSteps back, unless the session or a
// later step still has them.
func (r *repl) trimSteps() {
	drop := max(len(r.steps)-replMaxSteps, 0)
	held := map[int]bool{} // data reads the session's state has
	for _, d := range r.data {
		held[d.read] = true
	}
	size := 0
	for i := len(r.steps) - 1; i >= drop; i-- {
		for _, d := range r.steps[i].before.data {
			if !held[d.read] {
				held[d.read] = true
				size += len(d.src)
			}
		}
		if size > r.undoData && i < len(r.steps)-1 {
			drop = i + 1
			break
		}
	}
	if drop > 0 {
		r.forgotten += drop
		r.steps = slices.Delete(r.steps, 0, drop)
	}
	kept := map[*replFit]bool{r.fit: true}
	keptSample := map[*replSample]bool{r.sample: true}
	for i := len(r.steps) - 1; i >= 0; i-- {
		s := &r.steps[i]
		switch { // a sample's draws are let go as a fit is
		case s.before.sample == nil:
		case i >= len(r.steps)-replFitSteps || keptSample[s.before.sample]:
			keptSample[s.before.sample] = true
		default:
			s.before.sample, s.sampleDropped = nil, true
		}
		switch {
		case s.before.fit == nil:
		case i >= len(r.steps)-replFitSteps || kept[s.before.fit]:
			kept[s.before.fit] = true
		default:
			s.before.fit, s.fitDropped = nil, true
		}
	}
}

// replInput is one data file of the session.
type replInput struct {
	arg  string // as typed: FILE or NAME=FILE
	in   data.Input
	src  []byte // the file's contents, for quoting errors
	read int    // which read of a data file this was (fitOf tells two reads apart)
}

// sources returns the texts errors may quote: the model, the data files,
// and the input just typed (if any).
func (s *replState) sources(input string) sources {
	out := sources{replModel: []byte(s.src)}
	for _, d := range s.data {
		out[d.in.File] = d.src
	}
	if input != "" {
		out[replInputName] = []byte(input)
		out[""] = []byte(input)
	}
	return out
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
// not bind to the data and compile where it did before (stepError), the
// errors are printed and nothing is added, as one input is one step of
// :undo. Errors in the new statements are positioned in the input
// (<input>:LINE:COL), errors elsewhere in the model (<repl>:LINE:COL).
func (r *repl) addStmts(input string, stmts []ast.Stmt) {
	f, err := parser.ParseFile(replModel, []byte(r.src))
	if err != nil { // cannot happen: the model is always valid
		r.printError(err, r.sources(input))
		return
	}
	old := redefinition(f, stmts)
	if old >= 0 {
		r.replaceStmt(input, f, stmts[0], old)
		return
	}
	all := &ast.File{Name: replModel, Stmts: append(f.Stmts[:len(f.Stmts):len(f.Stmts)], stmts...)}
	info, err := check.Check(all, &check.Config{Overrides: r.sets})
	atStart := false
	if err == nil && len(r.data) > 0 {
		atStart, err = r.stepError(all, info, r.data, r.sets)
	}
	if err != nil {
		r.refuse(err, atStart, r.sources(input))
		if !errors.Is(err, errStepStopped) {
			r.noteNoneAdded(input, len(stmts))
		}
		if old == -2 {
			errorf(r.err, "note: a declaration typed again replaces the old one only when that has its lines to itself: :del %s takes out the statements of its line, to type them again", declName(stmts[0]))
		}
		return
	}
	src := r.src + strings.TrimRight(input, "\n") + "\n"
	_, info, err = checkText(src, r.sets)
	if err != nil {
		r.printError(err, sources{replModel: []byte(src)})
		return
	}
	next := r.replState
	next.src, next.info = src, info
	r.commit(next)
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

// bindErr binds the data entries ins, with the values sets, to the model
// f (checked as info) as far as they go (data.BindPartial), and when they
// give every data f reads, compiles f and tries its log density at a fit's
// start, as :check does. It returns the first error; atStart says it is
// the start's (startNote explains it). Data still to come are no error,
// and neither is a NAME=FILE whose NAME f does not declare: it waits for
// the declaration (:data notes it), and :check and :fit report it. A
// cancelled ctx (Ctrl-C) stops it between binding, compiling and the
// tries of the start, with ctx's error.
func (r *repl) bindErr(ctx context.Context, f *ast.File, info *check.Info, ins []replInput, sets setFlags) (atStart bool, err error) {
	var inputs []data.Input
	for _, d := range ins {
		if d.in.Name == "" || info.DataVar(d.in.Name) != nil {
			inputs = append(inputs, d.in)
		}
	}
	bound, missing, err := data.BindPartial(info, inputs, sets)
	if err != nil {
		return false, err
	}
	if len(missing) > 0 {
		// A matrix with no file of its own takes every column of the one
		// positional file, as gpp fit binds it; if the model does not bind
		// so, it waits for the rest of its data.
		if bound, err = data.BindOrdered(info, inputs, sets, r.order.of(info)); err != nil {
			return false, nil
		}
	}
	if r.afterBind != nil {
		r.afterBind(ctx)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m, err := compile.Compile(f, info, bound)
	if err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	err = startError(ctx, m)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	return err != nil, err
}

// errStepStopped is stepError's error when Ctrl-C stopped the checks of a
// step: the step is refused, and the session stays as it was.
var errStepStopped = errors.New("the checks of the step were interrupted")

// stepError returns the error for which a step is refused: the error of
// binding the data entries ins with the values sets to the model f of the
// step, checked as info (bindErr), unless the session's state does not
// bind either. Only a failure the step brings counts; the state before it
// is tried only when the step's fails. Ctrl-C stops the checks, as it
// stops :check, and the step is refused with errStepStopped.
func (r *repl) stepError(f *ast.File, info *check.Info, ins []replInput, sets setFlags) (atStart bool, err error) {
	ctx, stop := r.interruptible(func() {})
	defer stop()
	atStart, err = r.bindErr(ctx, f, info, ins, sets)
	if err != nil && ctx.Err() == nil && !r.binds(ctx) && ctx.Err() == nil {
		return false, nil
	}
	if ctx.Err() != nil {
		return false, errStepStopped
	}
	return atStart, err
}

// binds reports whether the session's state binds (bindErr).
func (r *repl) binds(ctx context.Context) bool {
	f, info, err := checkText(r.src, r.sets)
	if err != nil {
		return false
	}
	_, err = r.bindErr(ctx, f, info, r.data, r.sets)
	return err == nil
}

// refuse prints the errors for which a step is refused (stepError), and
// startNote after a failure at the start.
func (r *repl) refuse(err error, atStart bool, srcs sources) {
	if errors.Is(err, errStepStopped) {
		errorf(r.err, "interrupted: %s was not made (its checks against the data stopped); the session goes on as it was", describeStep(r.input))
		return
	}
	r.printError(err, srcs)
	if atStart {
		errorf(r.err, "%s", startNoteFor(err))
	}
}

// load replaces the model with the model in a file. The data and the :set
// values stay (a value or a NAME=FILE naming nothing in the new model is
// dropped) and must bind to it (stepError), else it is not loaded; the fit
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
	info, err := check.Check(f, &check.Config{Overrides: sets})
	if err != nil {
		r.printError(err, sources{path: raw})
		return
	}
	kept, dropped := keptData(r.data, info)
	if len(kept) > 0 {
		// Errors are positioned in the file, as gpp fit would give them.
		if atStart, err := r.stepError(f, info, kept, sets); err != nil {
			srcs := (&replState{data: kept}).sources("")
			srcs[path] = raw
			r.refuse(err, atStart, srcs)
			if !errors.Is(err, errStepStopped) {
				errorf(r.err, "note: %s was not loaded: the session's data must bind to it (:drop them to load it without them)", path)
			}
			return
		}
	}
	src := string(raw)
	if src != "" && !strings.HasSuffix(src, "\n") {
		src += "\n"
	}
	_, info, err = checkText(src, sets)
	if err != nil {
		r.printError(err, sources{replModel: []byte(src)})
		return
	}
	r.noteDropped(sets)
	for _, d := range dropped {
		errorf(r.err, "note: dropped :data %s: the model has no data %s", quoteArg(d.arg), d.in.Name)
	}
	r.commit(replState{src: src, info: info, data: kept, sets: sets})
	r.savedSrc, r.loadedFrom = src, path
	fmt.Fprintf(r.out, "loaded %s: %s\n", path, describeModel(info))
	r.noteUnusedLevels(info)
}

// noteUnusedLevels reports each gpp repl --levels order for a name that
// the model loaded does not declare as data: a misspelt name would
// otherwise be silently unused, as gpp fit refuses it. The order is kept,
// for a declaration typed later.
func (r *repl) noteUnusedLevels(info *check.Info) {
	for _, name := range sortedKeys(r.order) {
		if d := info.DataVar(name); d == nil || d.Implicit {
			errorf(r.err, "note: --levels %s: the model declares no data named %q (data: %s); the order waits for such a declaration", name, name, strings.Join(declaredData(info), ", "))
		}
	}
}

// declaredData lists the names of a model's data declarations.
func declaredData(info *check.Info) []string {
	var names []string
	for _, d := range info.Data {
		if !d.Implicit {
			names = append(names, d.Name)
		}
	}
	if names == nil {
		return []string{"none"}
	}
	return names
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
	var fns []string
	for _, f := range info.Functions {
		fns = append(fns, f.Name.Name)
	}
	add("functions", fns)
	if len(parts) == 0 {
		return "an empty model"
	}
	return strings.Join(parts, "; ")
}

// addData reads data files and adds them to the session, all of them or
// none: if a file cannot be read, or the model does not bind to the data
// with them where it did before (stepError), the errors are printed and
// the session keeps its data, as one :data is one step of :undo. A file
// (or a NAME=) given again replaces the earlier one, whatever path names
// the file (y.csv and ./y.csv are one file). Without arguments it lists
// the data files, as :drop takes them.
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
	next := r.replState
	next.data = slices.Clone(r.data)
	var added []replInput
	for _, arg := range args {
		srcs := sources{}
		ins, err := pipeline.ReadInputs([]string{arg}, srcs)
		if err != nil {
			r.printError(err, srcs)
			continue
		}
		r.dataReads++
		in := replInput{arg: arg, in: ins[0], src: srcs[ins[0].File], read: r.dataReads}
		added = append(added, in)
		i := slices.IndexFunc(next.data, func(d replInput) bool {
			return d.in.Name == in.in.Name && (in.in.Name != "" || sameFile(d.in.File, in.in.File))
		})
		if i >= 0 {
			next.data[i] = in
		} else {
			next.data = append(next.data, in)
		}
	}
	if len(added) < len(args) {
		if len(args) > 1 {
			errorf(r.err, "note: no data were added: the files of a :data are added together or not at all")
		}
		return
	}
	if !r.dataBind(next.data, next.sources(""), "no data were added: the session's model must bind to its data") {
		return
	}
	r.commit(next)
	for _, in := range added {
		fmt.Fprintf(r.out, "data %s: %s\n", quoteArg(in.arg), describeInput(in.in))
		if in.in.Name != "" && r.info.DataVar(in.in.Name) == nil {
			errorf(r.err, "note: the model declares no data %s yet: %s waits for its declaration (data %s: ...), and :fit, :check and queries fail until then (:drop %s drops it)", in.in.Name, quoteArg(in.arg), in.in.Name, in.in.Name)
		}
	}
}

// dataBind reports whether the session's model, with its values set,
// binds to the data entries ins where the session's state does
// (stepError); if not, it prints the errors, quoting srcs, and the note.
func (r *repl) dataBind(ins []replInput, srcs sources, note string) bool {
	f, info, err := checkText(r.src, r.sets)
	if err != nil { // cannot happen: the model is always valid
		r.printError(err, r.sources(""))
		return false
	}
	if atStart, err := r.stepError(f, info, ins, r.sets); err != nil {
		r.refuse(err, atStart, srcs)
		if !errors.Is(err, errStepStopped) {
			errorf(r.err, "note: %s", note)
		}
		return false
	}
	return true
}

// dropData runs :drop: it drops the data entries each argument names, as
// :data lists them (FILE or NAME=FILE), by the file (any path to it) or
// by the NAME of a NAME=FILE. It drops all of them or none, as addData
// adds them: an argument that names no entry, or data left that the model
// does not bind to, keep the session's data.
func (r *repl) dropData(args []string) {
	if len(args) == 0 {
		r.errorf(":drop takes the data files to drop, as :data lists them")
		return
	}
	next := r.replState
	var dropped []string
	ok := true
	for _, arg := range args {
		name, file := pipeline.DataArg(arg)
		kept := next.data[:0:0]
		n := len(dropped)
		for _, d := range next.data {
			match := arg == d.arg ||
				name == "" && (arg == d.in.Name || sameFile(file, d.in.File)) ||
				name != "" && name == d.in.Name && sameFile(file, d.in.File)
			if match {
				dropped = append(dropped, quoteArg(d.arg))
			} else {
				kept = append(kept, d)
			}
		}
		if len(dropped) == n {
			r.errorf(":drop: no data %s (:data lists them)", quoteArg(arg))
			ok = false
			continue
		}
		next.data = kept
	}
	if !ok {
		if len(args) > 1 {
			errorf(r.err, "note: nothing was dropped: the data of a :drop are dropped together or not at all")
		}
		return
	}
	if !r.dataBind(next.data, r.sources(""), "nothing was dropped: the session's model must bind to the data left") {
		return
	}
	r.commit(next)
	fmt.Fprintf(r.out, "dropped data %s\n", strings.Join(dropped, ", "))
}

// keptData splits data entries into those a model declared as info can
// use and the dropped ones: a NAME=FILE whose NAME it does not declare, as
// keptSets leaves out values.
func keptData(ins []replInput, info *check.Info) (kept, dropped []replInput) {
	for _, d := range ins {
		if d.in.Name != "" && info.DataVar(d.in.Name) == nil {
			dropped = append(dropped, d)
			continue
		}
		kept = append(kept, d)
	}
	return kept, dropped
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

// set adds :set values, all of them or none, checked against the model
// (trySets): if a value is malformed or makes the model invalid, the
// errors are printed and the old values kept, as one :set is one step of
// :undo. Without arguments it lists them.
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
	trial := setFlags{}
	maps.Copy(trial, r.sets)
	var names []string
	ok := true
	for _, arg := range args {
		name, _, _ := strings.Cut(arg, "=")
		delete(trial, name) // :set replaces a value; only the command line refuses two
		if err := trial.Set(arg); err != nil {
			r.errorf(":set: %v", err)
			ok = false
			continue
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if ok && r.trySets(trial) {
		for _, name := range names {
			r.printSet(name)
		}
		return
	}
	if len(args) > 1 {
		errorf(r.err, "note: no value was set: the values of a :set are set together or not at all")
	}
}

// trySets makes sets the session's values, in one step of :undo, if the
// model checks with them and binds to the data, compiles and has a start
// with them where it did with the values before (stepError): a size past
// what a model can store (:set K=1e9) is refused as gpp fit --set refuses
// it. Otherwise it prints the errors and reports false.
func (r *repl) trySets(sets setFlags) bool {
	f, info, err := checkText(r.src, sets)
	if err != nil {
		r.printError(err, r.sources(""))
		return false
	}
	if atStart, err := r.stepError(f, info, r.data, sets); err != nil {
		r.refuse(err, atStart, r.sources(""))
		return false
	}
	next := r.replState
	next.sets, next.info = sets, info
	r.commit(next)
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

// unset drops :set values, all of them or none, as set sets them: the
// model goes back to a constant's default or to the data files' value,
// and must check and bind with it (trySets).
func (r *repl) unset(args []string) {
	if len(args) == 0 {
		r.errorf(":unset takes the names to drop")
		return
	}
	trial := setFlags{}
	maps.Copy(trial, r.sets)
	ok := true
	for _, name := range args {
		if _, has := trial[name]; !has {
			r.errorf(":unset: %s has no :set value", name)
			ok = false
			continue
		}
		delete(trial, name)
	}
	if ok && r.trySets(trial) {
		return
	}
	if len(args) > 1 {
		errorf(r.err, "note: no value was dropped: the names of an :unset are dropped together or not at all")
	}
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
		l.Order = r.order.of(l.Info)
		if !bindAndStart(ctx, r.err, l, r.inputs(), r.sets, r.sources("")) {
			if ctx.Err() != nil {
				r.interrupted(":check stopped")
				return
			}
			r.failed = true
			return
		}
	}
	printSummary(r.out, replModel, r.info, nil)
	if len(r.data) > 0 {
		var files []string
		for _, d := range r.data {
			files = append(files, d.arg)
		}
		fmt.Fprintln(r.out, boundLine(files, r.info, l.Data))
	}
}

// graph prints the model's graph as gpp graph does; with the session's
// data bound, its plates show their sizes (data that do not bind yet leave
// them as names: :check says why).
func (r *repl) graph() {
	l, err := pipeline.ParseSource(replModel, []byte(r.src), r.sets)
	if err != nil {
		r.printError(err, r.sources(""))
		return
	}
	if len(r.data) > 0 {
		l.Order = r.order.of(l.Info)
		l.Bind(r.inputs(), r.sets) // best effort: only the sizes are wanted
	}
	g := l.Graph()
	g.Name = "model" // not the session's stand-in file name
	if err := g.WriteDOT(r.out); err != nil {
		r.errorf("%v", err)
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

// undo takes back the last step: the session's model, data, values set
// and fit become what they were before it. A fit made after the step goes
// with it (it is of the state undone), and the fit the session had before
// it comes back.
func (r *repl) undo() {
	if len(r.steps) == 0 {
		if r.forgotten > 0 {
			r.errorf("nothing more to undo: :undo keeps the last %d steps (fewer when their data files pass %s), and the %d before are forgotten", replMaxSteps, byteSize(r.undoData), r.forgotten)
			return
		}
		r.errorf("nothing to undo")
		return
	}
	step := r.steps[len(r.steps)-1]
	r.steps[len(r.steps)-1] = replStep{} // the state is the session's now, not the history's
	r.steps = r.steps[:len(r.steps)-1]
	fit, sample := r.fit, r.sample
	r.replState = step.before
	fmt.Fprintf(r.out, "undid %s\n", describeStep(step.what))
	switch {
	case step.sampleDropped:
		errorf(r.err, "note: the sample the session had before it is no longer kept (:undo keeps the samples of the last %d steps): run :sample", replFitSteps)
	case sample == r.sample:
	case sample == nil: // only a :fit after the step sets its sample aside
		errorf(r.err, "note: the last :fit, made after it, goes too: sample %d the session had before is back", r.sample.n)
		if !step.fitDropped {
			return
		}
	case r.sample == nil:
		errorf(r.err, "note: the last :sample, made after it, goes too")
	default:
		errorf(r.err, "note: the last :sample, made after it, goes too: sample %d the session had before is back", r.sample.n)
	}
	switch {
	case step.fitDropped:
		errorf(r.err, "note: the fit the session had before it is no longer kept (:undo keeps the fits of the last %d steps): run :fit", replFitSteps)
	case fit == r.fit:
	case fit == nil:
		errorf(r.err, "note: the fit the session had before is back")
	case r.fit == nil:
		errorf(r.err, "note: the last :fit, made after it, goes too: the session has no fit (run :fit)")
	default:
		errorf(r.err, "note: the last :fit, made after it, goes too: the fit the session had before is back")
	}
}

// byteSize writes a number of bytes in MB (10⁶), or bytes below one.
func byteSize(n int) string {
	if n < 1e6 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MB", n/1e6)
}

// describeStep writes the input or :command line of a step on one line.
func describeStep(what string) string {
	lines := strings.Split(strings.TrimSpace(what), "\n")
	if len(lines) == 1 {
		return lines[0]
	}
	return fmt.Sprintf("%s ... (%d lines)", strings.TrimSpace(lines[0]), len(lines))
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
	if err := writeAtomic(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		r.errorf("%v", err)
		return
	}
	n := len(f.Stmts)
	r.savedSrc, r.loadedFrom = r.src, ""
	fmt.Fprintf(r.out, "saved %s (%d statement%s)\n", path, n, plural(n))
}

// unsavedNote returns the note a session prints as it ends when its model
// changed since the last :save or :load (or was typed and never saved),
// "" when it did not: how many statements would be lost, and how to keep
// them. It does not block: the session ends either way.
func (r *repl) unsavedNote() string {
	if r.src == r.savedSrc || strings.TrimSpace(r.src) == "" { // an empty model loses nothing
		return ""
	}
	now, saved := stmtTexts(r.src), stmtTexts(r.savedSrc)
	left := map[string]int{}
	for _, s := range saved {
		left[s]++
	}
	changed := 0
	for _, s := range now {
		if left[s] > 0 {
			left[s]--
		} else {
			changed++
		}
	}
	removed := 0
	for _, n := range left {
		removed += n
	}
	var what string
	switch {
	case changed > 0 && removed > 0:
		what = fmt.Sprintf("%d statement%s new or changed and %d removed", changed, plural(changed), removed)
	case changed > 0:
		what = fmt.Sprintf("%d statement%s new or changed", changed, plural(changed))
	case removed > 0:
		what = fmt.Sprintf("%d statement%s removed", removed, plural(removed))
	default:
		return "" // the same statements, only written differently
	}
	since := "since the last :save or :load"
	if r.savedSrc == "" {
		since = "and was never saved"
	}
	return fmt.Sprintf("note: the model has %s %s; the changes end with the session (:save FILE.gpp keeps them)", what, since)
}

// stmtTexts returns the canonical text of each statement of src (nil when
// it does not parse, which a session's model always does).
func stmtTexts(src string) []string {
	f, err := parser.ParseFile(replModel, []byte(src))
	if err != nil {
		return nil
	}
	out := make([]string, len(f.Stmts))
	for i, s := range f.Stmts {
		out[i] = ast.FormatStmt(s)
	}
	return out
}

// declaredNames returns the model's top-level names, for completion.
func (r *repl) declaredNames() []string {
	var out []string
	for _, s := range r.info.Symbols {
		if !s.Local {
			out = append(out, s.Name)
		}
	}
	for _, f := range r.info.Functions {
		out = append(out, f.Name.Name)
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
