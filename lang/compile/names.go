package compile

import (
	"strconv"
	"strings"
)

// Values of a latent or an output are stored row-major (element k of a
// [n, m] matrix is row k/m, column k%m); gpp's CSV files, as CmdStan's,
// list them column-major and name them by 1-based indices (CSVName); the
// tables and messages name them by the language's 0-based ones (ElemName).
// The functions below are those conventions, shared by gpp's outputs and
// the Go API.

// ShapeLen is the number of elements of a value of the shape: the product
// of its dims, 1 for a scalar's nil.
func ShapeLen(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// ColumnMajor returns the row-major indices of the elements of a value of
// the shape in column-major order, the first index varying fastest: the
// order of CmdStan's and gpp's draws.csv columns (W.1.1, W.2.1, ...,
// W.1.2, ...). A scalar's shape (nil) has the one element 0; a vector's
// elements keep their order. gpp's values have at most two dimensions, but
// the order is CmdStan's for any number.
func ColumnMajor(shape []int) []int {
	n := ShapeLen(shape)
	out := make([]int, 0, n)
	idx := make([]int, len(shape))
	for range n {
		k := 0
		for i, d := range shape {
			k = k*d + idx[i]
		}
		out = append(out, k)
		for i := range idx { // the first index varies fastest
			idx[i]++
			if idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out
}

// Unravel returns the 0-based indices of element k (row-major) of a value
// of the shape.
func Unravel(shape []int, k int) []int {
	idx := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] > 0 {
			idx[i] = k % shape[i]
			k /= shape[i]
		}
	}
	return idx
}

// CSVName returns CmdStan's CSV column name of element k (row-major) of
// the value name of the shape: "W.2.1" (1-based), name for a scalar.
func CSVName(name string, shape []int, k int) string {
	var b strings.Builder
	b.WriteString(name)
	for _, v := range Unravel(shape, k) {
		b.WriteByte('.')
		b.WriteString(strconv.Itoa(v + 1))
	}
	return b.String()
}

// ElemName returns gpp's name of element k (row-major) of the value name
// of the shape, as every table, summary and message names it for a gpp
// model: the language's 0-based indices, "W[1, 0]" (an expression a user
// can paste into a model or the REPL, and ArviZ's spelling), name for a
// scalar. draws.csv keeps CmdStan's 1-based columns (CSVName).
func ElemName(name string, shape []int, k int) string {
	return indexName(name, Unravel(shape, k), 0, ", ")
}

// StanName returns Stan's name of element k (row-major) of the value name
// of the shape: "W[2,1]" (1-based, as stansummary and Stan's reference
// summaries name it), name for a scalar. It is for matching and printing
// Stan's names (CmdStan's CSVs, posteriordb), never a gpp model's.
func StanName(name string, shape []int, k int) string {
	return indexName(name, Unravel(shape, k), 1, ",")
}

// indexName writes name[i, j] with each index plus base, joined by sep.
func indexName(name string, idx []int, base int, sep string) string {
	if len(idx) == 0 {
		return name
	}
	parts := make([]string, len(idx))
	for i, v := range idx {
		parts[i] = strconv.Itoa(v + base)
	}
	return name + "[" + strings.Join(parts, sep) + "]"
}
