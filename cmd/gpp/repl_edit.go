package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// This file holds the session's edits of statements already in the model:
// a declaration typed again replaces the old one where it stands, and :del
// takes statements out. Both are checked, and refused, as an input is.

// declName returns the name a top-level statement declares, or "" for one
// that declares none (a ~, target, for, if, or the short output NAME,
// which reports a let).
func declName(s ast.Stmt) string {
	switch s := s.(type) {
	case *ast.DataDecl:
		return s.Name.Name
	case *ast.ConstDecl:
		return s.Name.Name
	case *ast.ParamDecl:
		return s.Name.Name
	case *ast.LetStmt:
		return s.Name.Name
	case *ast.OutputStmt:
		if s.Value == nil && s.Dist == nil {
			return ""
		}
		return s.Name.Name
	case *ast.FnDecl:
		return s.Name.Name
	}
	return ""
}

// lineSpan returns the lines [first, last] (1-based) of the model that the
// statements stmts[i] stand on, together with every other statement that
// shares one of those lines (a; b on one line goes as a whole), and the
// indices of those statements.
func lineSpan(stmts []ast.Stmt, i int) (first, last int, group []int) {
	first, last = stmts[i].Pos().Line, stmts[i].End().Line
	for grown := true; grown; {
		grown = false
		for j, s := range stmts {
			if slices.Contains(group, j) {
				continue
			}
			if s.Pos().Line <= last && s.End().Line >= first {
				group = append(group, j)
				first, last = min(first, s.Pos().Line), max(last, s.End().Line)
				grown = true
			}
		}
	}
	slices.Sort(group)
	return first, last, group
}

// spliceLines returns src with its lines [first, last] (1-based) replaced
// by text (a newline-terminated block, or "" to delete them).
func spliceLines(src string, first, last int, text string) string {
	lines := strings.SplitAfter(src, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return strings.Join(lines[:first-1], "") + text + strings.Join(lines[last:], "")
}

// redefinition reports which statement of the model f a one-statement
// input redefines: the top-level declaration of the name it declares,
// when that statement has its lines to itself. It returns -1 for an input
// that adds a new name, and -2 for one whose name's declaration shares its
// lines with other statements (check refuses it as redeclared, and
// addStmts says what to do).
func redefinition(f *ast.File, stmts []ast.Stmt) int {
	if len(stmts) != 1 {
		return -1
	}
	name := declName(stmts[0])
	if name == "" {
		return -1
	}
	for i, s := range f.Stmts {
		if declName(s) != name {
			continue
		}
		if _, _, group := lineSpan(f.Stmts, i); len(group) != 1 {
			return -2
		}
		return i
	}
	return -1
}

// replaceStmt makes the input's one statement take the place of the
// model's statement old (redefinition): the model with it there is
// checked and bound as addStmts checks an input, and the old statement's
// lines give way to the input's text. A note names the lines replaced.
func (r *repl) replaceStmt(input string, f *ast.File, stmt ast.Stmt, old int) {
	stmts := slices.Clone(f.Stmts)
	stmts[old] = stmt
	all := &ast.File{Name: replModel, Stmts: stmts}
	info, err := check.Check(all, &check.Config{Overrides: r.sets})
	atStart := false
	if err == nil && len(r.data) > 0 {
		atStart, err = r.stepError(all, info, r.data, r.sets)
	}
	first, last, _ := lineSpan(f.Stmts, old)
	if err != nil {
		r.refuse(err, atStart, r.sources(input))
		if !errors.Is(err, errStepStopped) {
			errorf(r.err, "note: nothing was replaced: the declaration would take the place of %s", describeLines(r.src, first, last))
		}
		return
	}
	src := spliceLines(r.src, first, last, strings.TrimRight(input, "\n")+"\n")
	what := describeLines(r.src, first, last)
	if r.commitSrc(src) {
		errorf(r.err, "note: replaced %s (:undo takes it back)", what)
	}
}

// commitSrc makes src the session's model in one step of :undo, and
// reports whether it did.
func (r *repl) commitSrc(src string) bool {
	_, info, err := checkText(src, r.sets)
	if err != nil { // cannot happen: the edit was checked
		r.printError(err, sources{replModel: []byte(src)})
		return false
	}
	next := r.replState
	next.src, next.info = src, info
	r.commit(next)
	return true
}

// describeLines names lines [first, last] of src and quotes the first.
func describeLines(src string, first, last int) string {
	lines := strings.Split(src, "\n")
	quote := strings.TrimSpace(lines[first-1])
	if first == last {
		return fmt.Sprintf("line %d: %s", first, quote)
	}
	return fmt.Sprintf("lines %d-%d: %s ...", first, last, quote)
}

// del takes out of the model the statements each argument names: LINE the
// statement on that line of :list (with any that share its lines), NAME
// the top-level declarations of NAME. They go all together or not at all:
// the model left must check and bind to the data as an input's must.
func (r *repl) del(args []string) {
	if len(args) == 0 {
		r.errorf(":del takes a line number of :list or a declared name (usage: :del LINE|NAME ...)")
		return
	}
	f, err := parser.ParseFile(replModel, []byte(r.src))
	if err != nil { // cannot happen: the model is always valid
		r.printError(err, r.sources(""))
		return
	}
	nlines := strings.Count(r.src, "\n")
	gone := map[int]bool{} // statements taken out
	for _, a := range args {
		var found []int
		if n, err := strconv.Atoi(a); err == nil {
			if n < 1 || n > nlines {
				r.errorf(":del %s: the model has lines 1 to %d (:list shows them)", a, nlines)
				return
			}
			for i, s := range f.Stmts {
				if s.Pos().Line <= n && s.End().Line >= n {
					found = append(found, i)
				}
			}
			if len(found) == 0 {
				r.errorf(":del %s: no statement on line %d (:list shows them)", a, n)
				return
			}
		} else {
			for i, s := range f.Stmts {
				if declName(s) == a {
					found = append(found, i)
				}
			}
			if len(found) == 0 {
				r.errorf(":del %s: the model declares no %s at the top level (:list shows it)", a, a)
				return
			}
		}
		for _, i := range found {
			_, _, group := lineSpan(f.Stmts, i)
			for _, j := range group {
				gone[j] = true
			}
		}
	}
	var kept []ast.Stmt
	for i, s := range f.Stmts {
		if !gone[i] {
			kept = append(kept, s)
		}
	}
	all := &ast.File{Name: replModel, Stmts: kept}
	info, err := check.Check(all, &check.Config{Overrides: r.sets})
	atStart := false
	if err == nil && len(r.data) > 0 {
		atStart, err = r.stepError(all, info, r.data, r.sets)
	}
	if err != nil {
		r.refuse(err, atStart, r.sources(""))
		if errors.Is(err, errStepStopped) {
			return
		}
		errorf(r.err, "note: nothing was deleted: the model without those statements does not check (:del what uses them too)")
		return
	}
	// Take the lines out from the last, so that earlier line numbers hold.
	src := r.src
	var notes []string
	for i := len(f.Stmts) - 1; i >= 0; i-- {
		if !gone[i] {
			continue
		}
		first, last, group := lineSpan(f.Stmts, i)
		if group[0] != i {
			continue // taken out with the group's first statement
		}
		notes = append(notes, describeLines(r.src, first, last))
		src = spliceLines(src, first, last, "")
	}
	slices.Reverse(notes)
	if r.commitSrc(src) {
		fmt.Fprintf(r.out, "deleted %s\n", strings.Join(notes, "; "))
	}
}
