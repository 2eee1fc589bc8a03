package compile

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// intOpsInput is int data with negative values and divisors of both signs.
func intOpsInput() data.Input {
	return data.Input{File: "d.json", JSON: map[string]*data.Array{
		"k": {Name: "k", Shape: []int{6}, Values: []float64{-7, 7, 0, 5, -4, 9}, Int: true},
		"m": {Name: "m", Shape: []int{6}, Values: []float64{3, -3, 2, 3, -3, 4}, Int: true},
		"d": {Name: "d", Values: []float64{3}, Int: true},
		"y": {Name: "y", Shape: []int{8}, Values: []float64{1, 2, 3, 4, 5, 6, 7, 8}},
	}}
}

const intOpsDecls = "data k: int[6]\ndata m: int[6]\ndata d: int\ndata y: real[8]\nparam mu: real ~ Normal(0, 1)\n"

// Stan's int % and %/% of int data, scalars and vectors, with negative
// operands: the quotient truncated toward 0, the remainder with the sign
// of the dividend (C's, Stan's: -7 % 3 is -1, -7 %/% 3 is -2, 7 % -3 is
// 1), as outputs, and as indices, a loop bound and a size.
func TestIntOpsValues(t *testing.T) {
	src := intOpsDecls + `param z: real[d * 5 %/% 2] ~ Normal(0, 1)
y[k % d + 2] ~ Normal(mu, 1)
for i in 0:(k[5] % 5) {
    y[i %/% 2] ~ Normal(mu, 2)
}
output r = k % d
output q = k %/% d
output rm = k % m
output qm = k %/% m
output c = [-7 % 3, -7 %/% 3, 7 % -3, 7 %/% -3, -7 % -3, -7 %/% -3, 2 * 7 % 4 %/% 2, 9 - 7 % 4]
`
	m := compileSrc(t, "i.gpp", src, nil, intOpsInput())
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, m.Dim)
	_, outs, err := ev.Eval(x)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{-1, 1, 0, 2, -1, 0},
		{-2, 2, 0, 1, -1, 3},
		{-1, 1, 0, 2, -1, 1},
		{-2, -2, 0, 1, 1, 2},
		// -7 % 3, -7 %/% 3, 7 % -3, 7 %/% -3, -7 % -3, -7 %/% -3,
		// (14 % 4) %/% 2, 9 - (7 % 4): left-associative, at *'s level
		{-1, -2, 1, -2, -1, 2, 1, 6},
	}
	for i, w := range want {
		if !slices.Equal(outs[i], w) {
			t.Errorf("output %d: %v, want %v", i, outs[i], w)
		}
	}
	if m.Dim != 1+7 { // mu and z[3 * 5 %/% 2]
		t.Errorf("%d latents, want 8", m.Dim)
	}
	// The indices are those written in: y[[1, 3, 2, 4, 1, 2]] and y[0],
	// y[0], y[1], y[1] (9 % 5 = 4 iterations).
	literal := compileSrc(t, "l.gpp", intOpsDecls+`param z: real[7] ~ Normal(0, 1)
y[[1, 3, 2, 4, 1, 2]] ~ Normal(mu, 1)
y[[0, 0, 1, 1]] ~ Normal(mu, 2)
`, nil, intOpsInput())
	for _, v := range []float64{-1, 0.4} {
		x[0] = v
		g1, g2 := make([]float64, m.Dim), make([]float64, m.Dim)
		v1, err1 := m.LogJoint(x, g1)
		v2, err2 := literal.LogJoint(x, g2)
		if err1 != nil || err2 != nil || v1 != v2 || !slices.Equal(g1, g2) {
			t.Errorf("mu = %g: %v %v (%v), literal %v %v (%v)", v, v1, g1, err1, v2, g2, err2)
		}
	}
}

// A zero divisor among the data is an error at the divisor, naming the
// element that is 0, when the model compiles with its data.
func TestIntOpsZeroDivisor(t *testing.T) {
	in := intOpsInput()
	in.JSON["m"].Values[3] = 0
	in.JSON["d"].Values[0] = 0
	for _, c := range []struct{ stmt, want string }{
		{"output r = k % d", "i.gpp:6:16: modulus by zero: `d` is 0 in `k % d`"},
		{"output r = k %/% m", "i.gpp:6:18: integer division by zero: `m[3]` is 0 in `k %/% m`"},
		{"y[k[0] % (d * 2)] ~ Normal(mu, 1)", "i.gpp:6:10: modulus by zero: `(d * 2)` is 0 in `k[0] % (d * 2)`"},
		{"for i in 0:6 {\n    y[k[i] %/% m[i] + 2] ~ Normal(mu, 1)\n}", "i.gpp:7:16: integer division by zero: `m[i]` is 0 in `k[i] %/% m[i]` at i = 3"},
	} {
		_, err := compileSrcErr(t, "i.gpp", intOpsDecls+c.stmt+"\n", nil, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.stmt, err, c.want)
		}
	}
}

// to_int of real data truncates toward 0 to ints that index and size;
// NaN or a value past 2^53 is an error at the argument naming the element.
func TestToInt(t *testing.T) {
	in := intOpsInput()
	in.JSON["r"] = &data.Array{Name: "r", Shape: []int{4}, Values: []float64{2.9, -2.9, 0.5, 5}}
	src := intOpsDecls + `data r: real[4]
param z: real[to_int(r[0] * 2)] ~ Normal(0, 1)
output o = to_int(r) % 4
output i = y[to_int(r) + 2]
`
	m := compileSrc(t, "t.gpp", src, nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	_, outs, err := ev.Eval(make([]float64, m.Dim))
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{2, -2, 0, 1}; !slices.Equal(outs[0], want) {
		t.Errorf("to_int(r) %% 4 = %v, want %v", outs[0], want)
	}
	if want := []float64{5, 1, 3, 8}; !slices.Equal(outs[1], want) {
		t.Errorf("y[to_int(r) + 2] = %v, want %v", outs[1], want)
	}
	if m.Dim != 1+5 {
		t.Errorf("%d latents, want 6 (z of to_int(5.8))", m.Dim)
	}
	for _, v := range []float64{1e300, -1e16} {
		in.JSON["r"].Values[2] = v
		_, err = compileSrcErr(t, "t.gpp", src, nil, in)
		want := "t.gpp:8:19: to_int: `r[2]` is " + strconv.FormatFloat(v, 'g', -1, 64) + ", which is no int"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("r[2] = %g: %v, want %s", v, err, want)
		}
	}
}

// A length-1 int vector stretches against a longer one, either side: the
// result has the longer one's length (it once took the left operand's
// shape and panicked building a constant of 3 values shaped [1]).
func TestIntOpsStretchOne(t *testing.T) {
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"a": {Name: "a", Shape: []int{1}, Values: []float64{7}, Int: true},
		"b": {Name: "b", Shape: []int{3}, Values: []float64{2, 3, 4}, Int: true},
		"y": {Name: "y", Shape: []int{2}, Values: []float64{1, 2}},
	}}
	src := "data a: int[1]\ndata b: int[3]\ndata y: real[2]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1)\noutput r = a % b\noutput q = b %/% a\n"
	m := compileSrc(t, "s.gpp", src, nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	_, outs, err := ev.Eval(make([]float64, m.Dim))
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range [][]float64{{1, 1, 3}, {0, 0, 0}} {
		if !slices.Equal(outs[i], w) || !slices.Equal(m.Outputs[i].Shape, []int{3}) {
			t.Errorf("output %s: %v shaped %v, want %v shaped [3]", m.Outputs[i].Name, outs[i], m.Outputs[i].Shape, w)
		}
	}
}
