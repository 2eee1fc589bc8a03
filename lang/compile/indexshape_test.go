package compile

import (
	"fmt"
	"math"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// shapeModel declares data of known shape, some sized by names whose data
// make them 1 (so that a row or column of size 1 is known only when the
// data load).
const shapeModel = `data A: real[3, 4]
data W: real[N, K]
data x: real[5]
data M: int[3, 4]
data k: int[5]
data J: int[N, K]
data i: int
data g1: int[1]
data g2: int[2]
param p: real[3, 4] ~ Normal(0, 1)
`

func shapeData() data.Input {
	seq := func(n int) []float64 {
		v := make([]float64, n)
		for j := range v {
			v[j] = float64(j % 3)
		}
		return v
	}
	return data.Input{File: "d.json", JSON: map[string]*data.Array{
		"N":  {Name: "N", Shape: nil, Values: []float64{1}, Int: true},
		"K":  {Name: "K", Shape: nil, Values: []float64{3}, Int: true},
		"A":  {Name: "A", Shape: []int{3, 4}, Values: seq(12)},
		"W":  {Name: "W", Shape: []int{1, 3}, Values: seq(3)},
		"x":  {Name: "x", Shape: []int{5}, Values: seq(5)},
		"M":  {Name: "M", Shape: []int{3, 4}, Values: seq(12), Int: true},
		"k":  {Name: "k", Shape: []int{5}, Values: seq(5), Int: true},
		"J":  {Name: "J", Shape: []int{1, 3}, Values: seq(3), Int: true},
		"i":  {Name: "i", Values: []float64{1}, Int: true},
		"g1": {Name: "g1", Shape: []int{1}, Values: []float64{2}, Int: true},
		"g2": {Name: "g2", Shape: []int{2}, Values: []float64{2, 0}, Int: true},
	}}
}

// TestIndexShapesAgree compiles each index expression (and transpose) on
// data of known shape, of reals, ints and a param, and checks that the
// tape node it lowers to has the shape the checker gave it (language.md
// §4–5): a slice keeps its axis even when it is 1 wide, a vector is a
// column and its transpose the row [1, n].
func TestIndexShapesAgree(t *testing.T) {
	sizes := map[string]int{"N": 1, "K": 3}
	exprs := []string{
		"A[:, 1:2]", "A[:, 1:3]", "A[0:1, :]", "A[0:1]", "A[0:1, 1:2]", "A[0:1, 1:3]",
		"A[1:3, 1:2]", "A[i, 1:2]", "A[i, 1:3]", "A[1:2, i]", "A[:, i]", "A[i]", "A[i, :]",
		"A[g1]", "A[g1, :]", "A[g1, i]", "A[:, g1]", "A[:, g2]", "A[g2, 1:2]", "A[g1, 1:2]",
		"A[g1, 1:3]", "A[0:1, g1]", "A[1:3, g1]", "A[i, g1]", "A[i, g2]",
		"x[1:2]", "x[g1]", "x[g2]", "x[i]", "x'", "x''", "x[1:2]'", "x[g1]'",
		"A'", "A[0:1]'", "A[:, 1:2]'", "A[0:1, 1:2]'", "A[:, g1]'", "A[0:1]''", "A[:, 1:2]''",
		"W", "W'", "W''", "W[:, 1:2]", "W[:, 1:2]'", "W[0:1]", "W[g1 - 2]", "W[:, g1]'",
		"p[:, 1:2]", "p[0:1, 1:2]", "p[:, g1]", "p[0:1]'", "p[:, 1:2]'", "p[i, 1:2]",
		"M[:, 1:2]", "M[0:1, 1:2]", "M[:, g1]", "M[i, 1:2]", "M'", "M[0:1]'", "M[:, 1:2]'",
		"M''", "k'", "k''", "k[g1]'", "J'", "J''", "J[:, 1:2]'", "to_vector(M')", "to_vector(J')",
		"head(k, 2)'", "append_row(k, g1)'", "append_col(k, k)'", "segment(M', 1, 2)",
		"tail(to_vector(M'), 3)'", "M'[1:3, 0:2]", "k'[0, 1:3]", "k'[:, g2]", "J'[1:3]",
	}
	for _, src := range exprs {
		t.Run(src, func(t *testing.T) {
			text := shapeModel + "output z = " + src + "\n"
			f, err := parser.ParseFile("m.gpp", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			info, err := check.Check(f, &check.Config{})
			if err != nil {
				t.Fatal(err)
			}
			var e ast.Expr
			for _, s := range f.Stmts {
				if o, ok := s.(*ast.OutputStmt); ok {
					e = o.Value
				}
			}
			typ := info.Types[e]
			want := make([]int, len(typ.Shape))
			for j, d := range typ.Shape {
				switch n, ok := sizes[d.Name]; {
				case d.Known():
					want[j] = d.N
				case ok && !d.Derived:
					want[j] = n
				case d.Name == "K * N":
					want[j] = sizes["K"] * sizes["N"]
				default:
					t.Fatalf("dim %v of %s is not known to the test", d, typ.Shape)
				}
			}
			bound, err := data.Bind(info, []data.Input{shapeData()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Compile(f, info, bound)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Outputs[0].Shape; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: the checker's type is %s %v but its node has shape %v", src, typ.Elem, typ.Shape, got)
			}
		})
	}
}

// TestOneColumnSliceInModel fits the columns' matrices [n, 1] of a one-wide
// column slice, a one-long column gather and the transpose of a matrix
// whose rows number 1 with these data as n rows of one coordinate each
// under MvNormal, which the checker types them as: the log joint equals
// that of the same elements under Normal. (A[:, 1:2] was lowered as the
// vector [3], one draw of three coordinates, against a [1, 1] covariance.)
func TestOneColumnSliceInModel(t *testing.T) {
	const head = `data A: real[3, 4]
data W: real[N, K]
data g1: int[1]
param mu: real ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
`
	mv := compileSrc(t, "mv.gpp", head+`let S = rep_matrix(s, 1, 1)
A[:, 1:2] ~ MvNormal(mu, S)
A[1:3, g1] ~ MvNormal(mu, S)
W' ~ MvNormal(mu, S)
W[:, 0:1] ~ MvNormal(mu, S)
`, nil, shapeData())
	uni := compileSrc(t, "uni.gpp", head+`A[:, 1] ~ Normal(mu, sqrt(s))
A[1:3, 2] ~ Normal(mu, sqrt(s))
to_vector(W) ~ Normal(mu, sqrt(s))
W[:, 0] ~ Normal(mu, sqrt(s))
`, nil, shapeData())
	for _, x := range [][]float64{{0.3, -0.2}, {-1.1, 0.8}} {
		want, err := uni.LogJoint(x, make([]float64, 2))
		if err != nil {
			t.Fatal(err)
		}
		got, err := mv.LogJoint(x, make([]float64, 2))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("log joint at %v = %.15g, want %.15g", x, got, want)
		}
	}
}
