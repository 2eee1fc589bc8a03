package ast

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Pos is a source position: file name, 1-based line and 1-based column
// counted in bytes. The zero Pos is unknown.
type Pos struct {
	File string
	Line int
	Col  int
}

// IsValid reports whether the position is known.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Add returns p moved n columns to the right on the same line.
func (p Pos) Add(n int) Pos {
	if !p.IsValid() {
		return p
	}
	p.Col += n
	return p
}

// Before reports whether p comes strictly before q in the same file.
func (p Pos) Before(q Pos) bool {
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// String formats the position as file:line:col, omitting unknown parts.
func (p Pos) String() string {
	file := p.File
	if file == "" {
		file = "<input>"
	}
	if !p.IsValid() {
		return file
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Col)
}

// Error is the one positioned error type of gpp: every error a user can cause
// in a model, its data or its fit is reported as an Error (or an ErrorList).
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Errorf returns an *Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// MaxErrors is how many errors a phase (parse, check, compile) reports
// before it stops and says so, as Go's compiler does after 10: past a
// score, errors are mostly echoes of the first or the input is no model (a
// data file or a binary given in its place), and reporting them all would
// print for minutes (an error per line of a file, or per iteration of a
// loop of a million).
const MaxErrors = 20

// ErrorList collects the independent errors of one phase.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos Pos, format string, args ...any) {
	*l = append(*l, Errorf(pos, format, args...))
}

// Sort orders the list by file, line and column, keeping the order of
// errors at the same position.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Before(b)
	})
}

// Positioned returns the positioned errors in err's chain: an ErrorList as
// it is, a lone *Error as a list of one; ok is false when err holds neither.
func Positioned(err error) (list ErrorList, ok bool) {
	var one *Error
	switch {
	case errors.As(err, &list):
		return list, true
	case errors.As(err, &one):
		return ErrorList{one}, true
	}
	return nil, false
}

// Unwrap returns the list's errors, so that errors.As finds an *Error in
// a list (the first) and errors.Is looks at each.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// Err returns nil for an empty list and the list itself otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}
