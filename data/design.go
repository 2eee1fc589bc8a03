package data

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// designMinRows: a matrix of fewer rows is not read as a design matrix
// (two rows make any two columns look alike).
const designMinRows = 3

// designMaxList caps the columns a note names.
const designMaxList = 5

// DesignNotes returns a note for each real matrix among the bound data
// that f uses as a design matrix (designReads) with a constant column or
// two identical columns, which lm answers with NA coefficients and
// rstanarm's users expect to hear of: a constant column is collinear with
// an intercept, if the model has one, and identical columns split one
// effect between their coefficients, which only the priors tell apart;
// either way the fit runs and says nothing (a trial's X with a column of
// 1s, or a column repeated). A matrix read otherwise (a choice's
// attribute per alternative, read elementwise, where the none
// alternative's column is 0 in every row) gets no such note: its columns
// have no coefficient of their own. Columns with a missing cell are left
// out; so are int matrices (counts, outcomes). It returns a warning
// instead for a matrix constant in every cell (of two columns or more, or
// not a design matrix): what multiplies it is set by the priors alone, a
// real problem that should not sit among the notes (a feature coded 0
// everywhere by mistake).
func DesignNotes(f *ast.File, info *check.Info, bound map[string]*Array) (notes, warnings []string) {
	design := designReads(f, info)
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || d.Elem == check.Int || len(d.Dims) != 2 || len(a.Shape) != 2 || a.Shape[0] < designMinRows || a.Shape[1] < 1 {
			continue
		}
		rows, cols := a.Shape[0], a.Shape[1]
		name := func(j int) string {
			if len(a.Columns) == cols {
				return a.Columns[j]
			}
			return fmt.Sprintf("%s[:, %d]", d.Name, j) // 0-based, as the model indexes it
		}
		hasMissing := make([]bool, cols)
		for _, i := range a.Missing {
			hasMissing[i%cols] = true
		}
		var constant []string
		first := map[uint64][]int{} // a column's hash → the earlier columns of that hash
		var dups []string
		col := func(j, i int) float64 { return a.Values[i*cols+j] }
		whole := len(a.Missing) == 0 // every cell a.Values[0]
	columns:
		for j := range cols {
			if hasMissing[j] || math.IsNaN(a.Values[j]) {
				continue
			}
			h := fnv.New64a()
			var buf [8]byte
			same := true
			for i := range rows {
				v := col(j, i)
				same = same && v == a.Values[j]
				binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v+0)) // +0: −0 hashes as 0
				h.Write(buf[:])
			}
			whole = whole && same && a.Values[j] == a.Values[0]
			if same {
				constant = append(constant, name(j)+" = "+strconv.FormatFloat(a.Values[j], 'g', -1, 64))
				continue // a second constant column is named as constant, not as a copy
			}
			key := h.Sum64()
			for _, k := range first[key] {
				if equalColumns(col, j, k, rows) {
					dups = append(dups, fmt.Sprintf("%s = %s", name(j), name(k)))
					continue columns
				}
			}
			first[key] = append(first[key], j)
		}
		where := a.Pos.File
		if where == "" {
			where = d.Name
		}
		at, isDesign := design[d.Symbol]
		if whole && (cols > 1 || !isDesign) {
			if !at.IsValid() {
				at = firstRead(f, info, d.Symbol)
			}
			read := ""
			if at.IsValid() {
				read = fmt.Sprintf(" (read at %s)", at)
			}
			warnings = append(warnings, fmt.Sprintf("%s: `%s` is %s in every cell (%d rows × %d columns): it carries no information, so a coefficient that multiplies it%s is set by its prior alone; check the data (a feature coded wrongly, the wrong file)",
				where, d.Name, strconv.FormatFloat(a.Values[0], 'g', -1, 64), rows, cols, read))
			continue
		}
		if !isDesign {
			continue
		}
		if n := len(constant); n > 0 {
			notes = append(notes, fmt.Sprintf("%s: `%s` has %s, %s in every row: %s collinear with an intercept, if the model has one, so that only the priors tell %s apart (lm gives NA); drop %s, unless %s the intercept",
				where, d.Name, pick(n, "a constant column", strconv.Itoa(n)+" constant columns"), columnList(constant), pick(n, "its coefficient is", "their coefficients are"), pick(n, "the two", "them"), pick(n, "it", "them"), pick(n, "it is", "one of them is")))
		}
		if len(dups) > 0 {
			notes = append(notes, fmt.Sprintf("%s: `%s` has identical columns, %s: the coefficients of a pair share one effect that only the priors split between them (lm gives NA); drop one of each pair",
				where, d.Name, columnList(dups)))
		}
	}
	return notes, warnings
}

// designFuncs take a design matrix and its coefficients (or form a
// product of it): a data matrix passed to one, as to a user function
// (whose body may multiply it), is noted as X * beta is.
var designFuncs = map[string]bool{"dot_product": true, "crossprod": true, "tcrossprod": true, "quad_form": true}

// factorFuncs turn a matrix into a factor, inverse or eigenbasis of it: a
// covariance's (G's Cholesky factor, LG * z), whose columns are no
// covariates, so a product with their result marks nothing they read.
var factorFuncs = map[string]bool{"chol": true, "inverse": true, "inverse_spd": true, "chol2inv": true,
	"eigenvectors_sym": true, "eigenvalues_sym": true, "generalized_inverse": true,
	"svd_U": true, "svd_V": true, "singular_values": true}

// designReads returns the data that f uses as a design matrix, each with
// where: read (directly or through a let) by an operand of a matrix
// product, both operands vectors or matrices and the other reading params
// (X * beta, X[n] * beta; not a convolution of data W * cases), or passed
// to a designFuncs function beside params or to a user function. A scalar times a
// matrix (bp * price) or an elementwise product (th[:, 0] .* b1) is no
// such use.
func designReads(f *ast.File, info *check.Info) map[*check.Symbol]ast.Pos {
	lets := map[*check.Symbol]map[*check.Symbol]ast.Pos{} // a let's data reads
	user := map[string]bool{}
	for _, fn := range info.Functions {
		user[fn.Name.Name] = true
	}
	reads := func(e ast.Expr) map[*check.Symbol]ast.Pos {
		out := map[*check.Symbol]ast.Pos{}
		ast.Inspect(e, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && factorFuncs[c.Fun.Name] {
				return false // LG = chol(G): LG * z reads a factor, not G's columns
			}
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			sym := info.Uses[id]
			switch {
			case sym == nil:
			case sym.Kind == check.Data:
				if _, seen := out[sym]; !seen {
					out[sym] = id.Pos()
				}
			case lets[sym] != nil:
				for d, p := range lets[sym] {
					if _, seen := out[d]; !seen {
						out[d] = p
					}
				}
			}
			return true
		})
		return out
	}
	out := map[*check.Symbol]ast.Pos{}
	mark := func(e ast.Expr) {
		for d, p := range reads(e) {
			if _, seen := out[d]; !seen {
				out[d] = p
			}
		}
	}
	ranked := func(e ast.Expr) bool {
		t, ok := info.Types[e]
		return ok && t.Shape.Rank() > 0
	}
	// a product of data alone (a convolution W * cases) has no coefficients
	dataOnly := func(e ast.Expr) bool {
		t, ok := info.Types[e]
		return ok && t.DataOnly
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.LetStmt:
			if sym := info.Defs[n.Name]; sym != nil {
				lets[sym] = reads(n.Value)
			}
		case *ast.BinaryExpr:
			if n.Op == ast.Mul && ranked(n.X) && ranked(n.Y) {
				if !dataOnly(n.Y) {
					mark(n.X)
				}
				if !dataOnly(n.X) {
					mark(n.Y)
				}
			}
		case *ast.CallExpr:
			if designFuncs[n.Fun.Name] && len(n.Args) == 2 {
				for i, a := range n.Args {
					if !dataOnly(n.Args[1-i]) {
						mark(a)
					}
				}
			} else if designFuncs[n.Fun.Name] || user[n.Fun.Name] {
				for _, a := range n.Args {
					mark(a)
				}
			}
		}
		return true
	})
	return out
}

// firstRead returns where f first reads the data d, or the zero Pos.
func firstRead(f *ast.File, info *check.Info, d *check.Symbol) ast.Pos {
	var at ast.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == d && (!at.IsValid() || id.Pos().Before(at)) {
			at = id.Pos()
		}
		return true
	})
	return at
}

// equalColumns reports whether columns j and k of col are equal in every row.
func equalColumns(col func(j, i int) float64, j, k, rows int) bool {
	for i := range rows {
		if col(j, i) != col(k, i) {
			return false
		}
	}
	return true
}

// columnList joins at most designMaxList items, counting the rest.
func columnList(items []string) string {
	if len(items) <= designMaxList {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:designMaxList], ", "), len(items)-designMaxList)
}

// pick returns one for a single item, more otherwise.
func pick(n int, one, more string) string {
	if n == 1 {
		return one
	}
	return more
}
