package model

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// valuesFile stands for the file of DataValues in positions and messages.
const valuesFile = "DataValues"

// maxExactInt is the largest magnitude of an int that gpp holds exactly
// (a float64's 2^53), as docs/language.md §5's limits say.
const maxExactInt = 1 << 53

// valueKinds lists the Go values DataValues takes, for its messages.
const valueKinds = "a Go integer, float or bool, a slice or array of them, a slice of such slices (a matrix), a gonum mat.Vector or mat.Matrix"

// valueArrays converts DataValues' Go values into the arrays a JSON file
// of them would read as: a scalar, a vector [n] or a matrix [n, m],
// row-major, Int for Go ints, NaN cells missing. Errors are at file (the
// option's name: valuesFile, "Inits") and call the values what ("data",
// "inits").
func valueArrays(file, what string, values map[string]any) (map[string]*data.Array, error) {
	out := map[string]*data.Array{}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		a, err := valueArray(file, what, name, values[name])
		if err != nil {
			return nil, err
		}
		out[name] = a
	}
	return out, nil
}

// valueArray converts one value.
func valueArray(file, what, name string, v any) (*data.Array, error) {
	pos := ast.Pos{File: file}
	a := &data.Array{Name: name, Pos: pos}
	rv := reflect.ValueOf(v)
	switch {
	case v == nil:
		return nil, ast.Errorf(pos, "%s: the value is nil; %s are %s", name, what, valueKinds)
	case (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Slice || rv.Kind() == reflect.Map) && rv.IsNil():
		return nil, ast.Errorf(pos, "%s: a nil %T; give a value (an empty slice for no values)", name, v)
	}
	switch v := v.(type) {
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
		if err := setValue(a, what, rv, v); err != nil {
			return nil, err
		}
	}
	for i, x := range a.Values {
		switch {
		case math.IsInf(x, 0):
			// the element as the language names it: beta[1], W[0, 2]
			return nil, ast.Errorf(pos, "%s is %v: infinite values are not allowed in %s", compile.ElemName(name, a.Shape, i), x, what)
		case math.IsNaN(x):
			a.Missing = append(a.Missing, i) // a missing cell, as JSON's null or NaN
		}
	}
	return a, nil
}

// setValue sets a from a scalar, a slice or array of scalars (a vector)
// or a slice or array of those (a matrix) of any Go integer, float or bool
// type; v is rv's value and what names the values ("data"), for messages.
func setValue(a *data.Array, what string, rv reflect.Value, v any) error {
	bad := func() error {
		return ast.Errorf(a.Pos, "%s: a value of Go type %T; %s are %s", a.Name, v, what, valueKinds)
	}
	if k, ok := scalarKind(rv.Type()); ok {
		a.Int = k != reflect.Float32 && k != reflect.Float64
		x, err := scalarValue(a, rv, 0)
		a.Values = []float64{x}
		return err
	}
	if !isList(rv.Type()) {
		return bad()
	}
	elem := rv.Type().Elem()
	if k, ok := scalarKind(elem); ok { // a vector
		a.Int = k != reflect.Float32 && k != reflect.Float64
		a.Shape, a.Values = []int{rv.Len()}, make([]float64, rv.Len())
		for i := range rv.Len() {
			x, err := scalarValue(a, rv.Index(i), i)
			if err != nil {
				return err
			}
			a.Values[i] = x
		}
		return nil
	}
	k, ok := reflect.Invalid, isList(elem)
	if ok {
		k, ok = scalarKind(elem.Elem())
	}
	if !ok {
		return bad()
	}
	// a matrix: rows of one length (a nil row is an empty one)
	a.Int = k != reflect.Float32 && k != reflect.Float64
	rows, cols := rv.Len(), 0
	if rows > 0 {
		cols = rv.Index(0).Len()
	}
	a.Shape, a.Values = []int{rows, cols}, make([]float64, 0, rows*cols)
	for i := range rows {
		row := rv.Index(i)
		if row.Len() != cols {
			return ast.Errorf(a.Pos, "%s: row %d has %d elements but row 0 has %d: a matrix's rows are of one length", a.Name, i, row.Len(), cols)
		}
		for j := range cols {
			x, err := scalarValue(a, row.Index(j), len(a.Values))
			if err != nil {
				return err
			}
			a.Values = append(a.Values, x)
		}
	}
	return nil
}

// isList reports whether t is a slice or an array.
func isList(t reflect.Type) bool {
	return t.Kind() == reflect.Slice || t.Kind() == reflect.Array
}

// scalarKind is the kind of t if it is one DataValues takes as a number:
// a Go integer (signed or not), float or bool.
func scalarKind(t reflect.Type) (reflect.Kind, bool) {
	switch k := t.Kind(); k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Bool:
		return k, true
	}
	return reflect.Invalid, false
}

// scalarValue is the number of the scalar x, element k (row-major, of
// a.Shape; named as the language does, W[1, 0]) of a: a
// float32 exactly as it is held (float32(0.1) is 0.100000001490116...),
// a bool 1 or 0, an integer exactly, or an error past 2^53 in magnitude,
// which a float64 would round to a neighbour.
func scalarValue(a *data.Array, x reflect.Value, k int) (float64, error) {
	tooBig := func(s string) error {
		return ast.Errorf(a.Pos, "%s is %s, past 2^53 in magnitude, the largest int gpp holds exactly", compile.ElemName(a.Name, a.Shape, k), s)
	}
	switch x.Kind() {
	case reflect.Bool:
		if x.Bool() {
			return 1, nil
		}
		return 0, nil
	case reflect.Float32, reflect.Float64:
		return x.Float(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := x.Int()
		if n > maxExactInt || n < -maxExactInt {
			return math.NaN(), tooBig(strconv.FormatInt(n, 10))
		}
		return float64(n), nil
	}
	n := x.Uint()
	if n > maxExactInt {
		return math.NaN(), tooBig(strconv.FormatUint(n, 10))
	}
	return float64(n), nil
}
