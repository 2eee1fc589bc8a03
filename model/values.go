package model

import (
	"maps"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
)

// valuesFile stands for the file of DataValues in positions and messages.
const valuesFile = "DataValues"

// valueArrays converts DataValues' Go values into the arrays a JSON file
// of them would read as: a scalar, a vector [n] or a matrix [n, m],
// row-major, Int for Go ints, NaN cells missing.
func valueArrays(values map[string]any) (map[string]*data.Array, error) {
	out := map[string]*data.Array{}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		a, err := valueArray(name, values[name])
		if err != nil {
			return nil, err
		}
		out[name] = a
	}
	return out, nil
}

// valueArray converts one value.
func valueArray(name string, v any) (*data.Array, error) {
	pos := ast.Pos{File: valuesFile}
	a := &data.Array{Name: name, Pos: pos}
	switch v := v.(type) {
	case int:
		a.Values, a.Int = []float64{float64(v)}, true
	case float64:
		a.Values = []float64{v}
	case []int:
		a.Shape, a.Int = []int{len(v)}, true
		for _, x := range v {
			a.Values = append(a.Values, float64(x))
		}
	case []float64:
		a.Shape, a.Values = []int{len(v)}, slices.Clone(v)
	case [][]int:
		a.Int = true
		rows := make([][]float64, len(v))
		for i, r := range v {
			for _, x := range r {
				rows[i] = append(rows[i], float64(x))
			}
		}
		if err := setRows(a, rows); err != nil {
			return nil, err
		}
	case [][]float64:
		if err := setRows(a, v); err != nil {
			return nil, err
		}
	case mat.Vector:
		n := v.Len()
		a.Shape, a.Values = []int{n}, make([]float64, n)
		for i := range n {
			a.Values[i] = v.AtVec(i)
		}
	case mat.Matrix:
		r, c := v.Dims()
		a.Shape, a.Values = []int{r, c}, make([]float64, 0, r*c)
		for i := range r {
			for j := range c {
				a.Values = append(a.Values, v.At(i, j))
			}
		}
	default:
		return nil, ast.Errorf(pos, "%s: a value of Go type %T; data are int, float64, []int, []float64, [][]int, [][]float64, a gonum mat.Vector or mat.Matrix", name, v)
	}
	for i, x := range a.Values {
		switch {
		case math.IsInf(x, 0):
			return nil, ast.Errorf(pos, "%s: element %d is %v: infinite values are not allowed in data", name, i+1, x)
		case math.IsNaN(x):
			a.Missing = append(a.Missing, i) // a missing cell, as JSON's null or NaN
		}
	}
	return a, nil
}

// setRows makes a the matrix of rows, which must be of one length.
func setRows(a *data.Array, rows [][]float64) error {
	cols := 0
	if len(rows) > 0 {
		cols = len(rows[0])
	}
	a.Shape = []int{len(rows), cols}
	a.Values = make([]float64, 0, len(rows)*cols)
	for i, r := range rows {
		if len(r) != cols {
			return ast.Errorf(a.Pos, "%s: row %d has %d elements but row 1 has %d: a matrix's rows are of one length", a.Name, i+1, len(r), cols)
		}
		a.Values = append(a.Values, r...)
	}
	return nil
}
