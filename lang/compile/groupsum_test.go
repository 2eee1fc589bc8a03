package compile

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// groupJSON has 7 rows in S = 5 groups, group 3 empty, codes out of
// order; n counts, X a matrix; h 1-based codes.
const groupJSON = `{"S": 5, "g": [2, 0, 2, 1, 0, 2, 4],
"h": [3, 1, 3, 2, 1, 3, 5],
"n": [3, 1, 4, 1, 5, 9, 2], "x": [0.5, -1, 2, 0.25, 1.5, -0.5, 3],
"y": [1, -0.5, 2, 0, 0.75],
"X": [[1, 2], [0.5, -1], [2, 0], [-1, 1], [0, 3], [1.5, 0.5], [-2, 1]]}`

func groupInputJSON(t *testing.T) data.Input {
	js, err := data.ReadJSON("d.json", strings.NewReader(groupJSON))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: js}
}

// groupDecls declares groupJSON, and W, the S × N 0/1 matrix of the codes
// built by hand as a user did before group_sum.
const groupDecls = `data S: int
data g: int<lower=0>[N]
data h: int[N]
data n: int<lower=0>[N]
data x: real[N]
data y: real[S]
data X: real[N, 2]
param b: real[N]
param B: real[N, 2]
param s: positive
let W = (cumsum(rep(1, S)) - 1) * rep(1, N)' == rep(1, S) * g'
`

// TestGroupSumModel: group_sum through the compiler gives the log joint
// and gradient of the hand-made 0/1 matrix product it replaces (a param
// vector, a matrix, a poststratification ratio, int sums observed), and
// its gradient matches finite differences.
func TestGroupSumModel(t *testing.T) {
	in := groupInputJSON(t)
	zs := [][]float64{make([]float64, 7+14+1), make([]float64, 7+14+1)}
	for i := range zs[1] {
		zs[1][i] = 0.1 * float64(i%7-3)
	}
	for _, c := range []plainCase{
		{"vector", "target += -0.5 * dot_self(group_sum(b .* x, g, S) - y) / s\n", "target += -0.5 * dot_self(W * (b .* x) - y) / s\n"},
		{"matrix", "target += sum(group_sum(exp(B) .* X, g, S) * [1, -2]) - s\n", "target += sum(W * (exp(B) .* X) * [1, -2]) - s\n"},
		{"poststratified", "target += sum(log(group_sum(n .* inv_logit(b), g, S) + 1) - log(group_sum(n, g, S) + 1)) + log(s)\n",
			"target += sum(log(W * (n .* inv_logit(b)) + 1) - log(W * n + 1)) + log(s)\n"},
		{"int sums observed", "group_sum(n, g, S) ~ Poisson(exp(b[0:S]))\ntarget += sum(B) - s\n", "W * n ~ Poisson(exp(b[0:S]))\ntarget += sum(B) - s\n"},
	} {
		checkGradient(t, wantSamePlain(t, groupDecls, in, zs, c), 5, 0.5)
	}
}

// TestGroupSumOutputs: the sums by group, from the definition, 0 for
// the empty group; int of ints, an index when known; [S, 2] of a matrix.
func TestGroupSumOutputs(t *testing.T) {
	in := groupInputJSON(t)
	m := compileSrc(t, "a.gpp", groupDecls+"target += -s + sum(b) + sum(B)\noutput a = group_sum(x, g, S)\noutput c = group_sum(n, g, S)\noutput d = group_sum(X, g, S)\noutput e = group_sum(x, h - 1, S)\noutput f = x[group_sum(rep(1, N), g, S)]\n", nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	_, outs, err := ev.Eval(make([]float64, m.Dim))
	if err != nil {
		t.Fatal(err)
	}
	vals := func(name string) []float64 { return in.JSON[name].Values }
	g := vals("g")
	want := func(x []float64, cols int) []float64 {
		z := make([]float64, 5*cols)
		for i, c := range g {
			for j := 0; j < cols; j++ {
				z[int(c)*cols+j] += x[i*cols+j]
			}
		}
		return z
	}
	for i, w := range [][]float64{want(vals("x"), 1), want(vals("n"), 1), want(vals("X"), 2), want(vals("x"), 1)} {
		if !slices.Equal(outs[i], w) {
			t.Errorf("%s = %v, want %v", m.Outputs[i].Name, outs[i], w)
		}
	}
	// int sums of ints are known ints, an index: x at the group sizes
	size := want(slices.Repeat([]float64{1}, len(g)), 1)
	var at []float64
	for _, k := range size {
		at = append(at, vals("x")[int(k)])
	}
	if !slices.Equal(outs[4], at) {
		t.Errorf("x[group sizes] = %v, want %v", outs[4], at)
	}
	if s := m.Outputs[2].Shape; !slices.Equal(s, []int{5, 2}) {
		t.Errorf("d's shape %v, want [5 2]", s)
	}
	if outs[1][3] != 0 {
		t.Errorf("the empty group's sum is %g, want 0", outs[1][3])
	}
}

// TestGroupSumAllocs: a value or a gradient through group_sum costs no
// allocation.
func TestGroupSumAllocs(t *testing.T) {
	m := compileSrc(t, "a.gpp", groupDecls+"target += -0.5 * dot_self(group_sum(b .* x, g, S) - y) / s + sum(group_sum(exp(B), g, S) * [1, -2])\n", nil, groupInputJSON(t))
	x, gr := make([]float64, m.Dim), make([]float64, m.Dim)
	for i := range x {
		x[i] = 0.1 * float64(i%5-2)
	}
	if _, err := m.LogJoint(x, gr); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(50, func() { m.LogJoint(x, gr) }); a != 0 {
		t.Errorf("LogJoint allocates %v times an evaluation", a)
	}
	if a := testing.AllocsPerRun(50, func() { m.LogJointValue(x) }); a != 0 {
		t.Errorf("LogJointValue allocates %v times an evaluation", a)
	}
}

// TestGroupSumCompileErrors: a code out of [0, K) is an error when the
// model compiles, at its data cell (with where it is used) and naming the
// shift when the codes look 1-based, else at the argument; codes whose
// count the checker could not compare to x's rows are counted here.
func TestGroupSumCompileErrors(t *testing.T) {
	in := groupInputJSON(t)
	for _, c := range []struct{ call, want string }{
		{"group_sum(x, h, S)", "d.json:2:25: group_sum: g[6] = 5 is out of range [0, 5) as a group code (used at m.gpp:13:25); group codes are 0-based and these run from 1 to 5, as Stan's 1-based ids do: pass g - 1"},
		{"group_sum(x, g, 4)", "d.json:1:34: group_sum: g[6] = 4 is out of range [0, 4) as a group code (used at m.gpp:13:25)"},
		{"group_sum(x, g - 1, S)", "m.gpp:13:25: group_sum: g[1] = -1 is out of range [0, 5) as a group code"},
		{"group_sum(x, [0, 1, 7, 0, 1, 2, 3], S)", "m.gpp:13:32: group_sum: g[2] = 7 is out of range [0, 5) as a group code (used at m.gpp:13:25)"},
		{"group_sum(x, g[0:6], S)", "m.gpp:13:25: group_sum: g has 6 codes but x has 7 elements"},
		{"group_sum(X, g[0:6], S)", "m.gpp:13:25: group_sum: g has 6 codes but x has 7 rows"},
	} {
		src := groupDecls + "target += -s + sum(b) + sum(B)\noutput o = " + c.call + "\n"
		_, err := compileSrcErr(t, "m.gpp", src, nil, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error\n%v\nwant\n%s", c.call, err, c.want)
		}
	}
}

// TestGroupSumMinibatch: group_sum of the subsampled rows is refused,
// saying why; of data that is not subsampled (census cells beside the
// rows) it is fine.
func TestGroupSumMinibatch(t *testing.T) {
	in := batchInput(9, 3)
	in.JSON["cg"] = &data.Array{Name: "cg", Shape: []int{4}, Int: true, Values: []float64{1, 0, 1, 2}}
	in.JSON["cn"] = &data.Array{Name: "cn", Shape: []int{4}, Values: []float64{10, 20, 5, 7}}
	head := "data x: real[N]\ndata y: real[N]\ndata c: int<lower=0>[N]\ndata cg: int[M]\ndata cn: real[M]\nparam a: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\ny ~ Normal(a * x, s)\n"
	m := compileSrc(t, "r.gpp", head+"output t = group_sum(cn * a, cg, 3) / group_sum(cn, cg, 3)\n", nil, in)
	if _, err := m.Minibatch("N", 4); err != nil {
		t.Errorf("census cells: %v", err)
	}
	m = compileSrc(t, "r.gpp", head+"let t = group_sum(y * a, c, 5)\ntarget += -dot_self(t)\n", nil, in)
	want := "9:9: --minibatch N: group_sum of a value read from the subsampled rows mixes the rows (a batch's group_sum is not a share of the full data's): only elementwise and per-row functions of the data"
	if _, err := m.Minibatch("N", 4); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "group_sum's groups would be a batch's rows") {
		t.Errorf("group_sum of the rows: %v, want …%s…", err, want)
	}
}
