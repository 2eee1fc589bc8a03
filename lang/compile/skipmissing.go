package compile

import (
	"maps"
	"slices"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
)

// Missing cells that no statement reads. A NONMEM data set leaves DV empty
// on its dose rows and the model observes DV only on the others:
//
//	for n in 0:N { if EVID[n] == 0 { DV[n] ~ Normal(c, s) } }
//
// The if on data is decided when the model compiles (lower.go), so the ~
// never runs at a dose row: a latent for that row's DV would have no
// density at all, an improper posterior. Compile therefore records, in
// its first build, which cells of each such datum the lowered statements
// read (markRead), and binds the cells that none reads as numbers (their
// value is never read) instead of fitting them (Model.Skipped). Only data
// that every mention observes by a ~ and no output reads qualify: a cell
// read elsewhere (a let, an expression, an output, which reads the
// imputed value at each draw) keeps its latent as before.

// skippable returns the data whose missing cells may be left out when no
// statement reads them: data with missing cells in bound that the model
// fits, observed by ~ only (no read in an expression, check.DataVar.ReadAt)
// and mentioned by no output.
func (m *Model) skippable() map[string]bool {
	var out map[string]bool
	for _, d := range m.info.Data {
		if a := m.data[d.Name]; a == nil || len(a.Missing) == 0 || d.Missing == nil || d.ReadAt.IsValid() { // cells summed out are filled in m.data
			continue
		}
		found := false
		for _, s := range m.file.Stmts {
			if _, ok := s.(*ast.OutputStmt); !ok {
				continue
			}
			ast.Inspect(s, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && m.info.Uses[id] == d.Symbol {
					found = true
				}
				return !found
			})
		}
		if !found {
			if out == nil {
				out = map[string]bool{}
			}
			out[d.Name] = true
		}
	}
	return out
}

// markRead records that index expression e, with its indices resolved to
// sels, reads cells of the datum of read (its cells' flags, row-major;
// shape its shape): the cells of the selected elements, or every cell
// for a selection it does not follow.
func markRead(read []bool, shape []int, sels []sel) {
	all := func() {
		for i := range read {
			read[i] = true
		}
	}
	idx := func(s sel, n int) []int {
		switch s.kind {
		case selOne:
			return []int{s.one}
		case selMany:
			return s.many
		case selRange, selFull:
			lo, hi := 0, n
			if s.kind == selRange {
				lo = s.lo
				if s.hi >= 0 {
					hi = s.hi
				}
			}
			var r []int
			for i := lo; i < hi; i++ {
				r = append(r, i)
			}
			return r
		}
		return nil
	}
	mark := func(i int) {
		if i >= 0 && i < len(read) {
			read[i] = true
		}
	}
	switch {
	case len(shape) == 1 && len(sels) == 1:
		for _, i := range idx(sels[0], shape[0]) {
			mark(i)
		}
	case len(shape) == 2 && (len(sels) == 2 && sels[0].row && sels[1].row || pairedSels(sels) && len(sels[0].many) == len(sels[1].many)):
		for _, c := range rowCells(sels[0], sels[1], shape[1]) {
			mark(c)
		}
	case len(shape) == 2 && len(sels) <= 2:
		cols := sel{kind: selFull}
		if len(sels) == 2 {
			cols = sels[1]
		}
		for _, r := range idx(sels[0], shape[0]) {
			if r < 0 || r >= shape[0] {
				continue
			}
			for _, c := range idx(cols, shape[1]) {
				if c >= 0 && c < shape[1] {
					mark(r*shape[1] + c)
				}
			}
		}
	default:
		all()
	}
}

// unread returns, for each datum whose missing cells the build tracked
// (lowerer.missRead), its missing cells that no statement read, or nil.
func unread(bound map[string]*data.Array, missRead map[string][]bool) map[string][]int {
	var out map[string][]int
	for _, name := range slices.Sorted(maps.Keys(missRead)) {
		read, a := missRead[name], bound[name]
		var cells []int
		for _, i := range a.Missing {
			if !read[i] {
				cells = append(cells, i)
			}
		}
		if len(cells) > 0 {
			if out == nil {
				out = map[string][]int{}
			}
			out[name] = cells
		}
	}
	return out
}

// Skipped returns, for each datum with missing cells that no statement of
// the model reads, those cells (row-major, increasing): they fit no
// latent, and the model's data has numbers there (data.SkippedNotes says
// so). nil when there are none.
func (m *Model) Skipped() map[string][]int { return m.skipped }
