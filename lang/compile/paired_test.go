package compile

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// pairedData are 7 respondents' age and edu codes (the pair (1, 2) three
// times, (0, 3) twice), a weight each, a data matrix X [3, 4] and an int
// matrix K [3, 4] of codes into a vector of 5.
func pairedData(t *testing.T, ages string) data.Input {
	t.Helper()
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"age": `+ages+`, "edu": [2, 3, 2, 0, 3, 1, 2],
"w": [0.5, -1.25, 2, 0.75, 3, -0.5, 1.5],
"X": [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]],
"K": [[0, 1, 2, 3], [4, 0, 1, 2], [3, 4, 0, 1]]}`))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: js}
}

const pairedAges = "[1, 0, 1, 2, 0, 2, 1]"

const pairedHead = `data age: int[7]
data edu: int[7]
data w: real[7]
data X: real[3, 4]
data K: int[3, 4]
param u: real[3, 4] ~ Normal(0, 1)
param v: real[5] ~ Normal(0, 1)
`

// TestPairedGather: u[age, edu] of a param, X[age, edu] of a data matrix
// and K[age, edu] of an int matrix (an index itself) are the vectors of
// the elements at the pairs (age[k], edu[k]). At the origin the gradient
// of target += sum(w .* u[age, edu]) at u[r, c] is the sum of the w[k] of
// the rows k of that pair (repeated pairs accumulate), and likewise for the
// data matrix's and the int matrix's terms; an evaluation of the paired
// gather makes no allocation, and its gradient matches finite
// differences and the unrolled loop's.
func TestPairedGather(t *testing.T) {
	ages := []int{1, 0, 1, 2, 0, 2, 1}
	edus := []int{2, 3, 2, 0, 3, 1, 2}
	ws := []float64{0.5, -1.25, 2, 0.75, 3, -0.5, 1.5}
	K := [3][4]int{{0, 1, 2, 3}, {4, 0, 1, 2}, {3, 4, 0, 1}}
	src := pairedHead + `target += sum(w .* u[age, edu])
target += sum(X[age, edu] .* u[age, edu])
target += sum(v[K[age, edu]])
`
	m := compileSrc(t, "m.gpp", src, nil, pairedData(t, pairedAges))
	if m.Dim != 12+5 {
		t.Fatalf("dim %d, want 17", m.Dim)
	}
	x := make([]float64, m.Dim)
	g := make([]float64, m.Dim)
	if _, err := m.LogJoint(x, g); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, m.Dim)
	for k := range ages {
		a, e := ages[k], edus[k]
		want[a*4+e] += ws[k] + float64(a*4+e+1) // w[k] + X[a, e]
		want[12+K[a][e]]++
	}
	for i := range want {
		if g[i] != want[i] {
			t.Errorf("d/d%s at the origin = %g, want %g", m.LatentOf(i), g[i], want[i])
		}
	}
	checkGradient(t, m, 7, 0.7)
	// The unrolled loop picks each element with a scalar node: the same
	// log joint and gradient, away from the origin.
	loop := pairedHead + `for i in 0:7 {
    target += w[i] * u[age[i], edu[i]] + X[age[i], edu[i]] * u[age[i], edu[i]] + v[K[age[i], edu[i]]]
}
`
	unrollLoops = true
	ref := compileSrc(t, "loop.gpp", loop, nil, pairedData(t, pairedAges))
	unrollLoops = false
	sameAtRandomPoints(t, m, ref, "unrolled loop", rand.New(rand.NewPCG(3, 4)), 1e-12)
	fillNormal(x, rand.New(rand.NewPCG(5, 6)), 0, 1)
	if a := testing.AllocsPerRun(20, func() { m.LogJoint(x, g) }); a != 0 {
		t.Errorf("%v allocations per LogJoint, want 0", a)
	}
}

// TestPairedGatherErrors: an index out of range is reported at its data
// cell, naming its use and the axis's size; index vectors of lengths the
// checker could not compare that differ are an error naming both.
func TestPairedGatherErrors(t *testing.T) {
	_, err := compileSrcErr(t, "m.gpp", pairedHead+"target += sum(u[age, edu])\n", nil, pairedData(t, "[1, 0, 1, 3, 0, 2, 1]"))
	if err == nil || !strings.Contains(err.Error(), "d.json:1:19: 3 is out of range [0, 3) as an index (used at m.gpp:8:17)") {
		t.Errorf("age out of range: %v", err)
	}
	src := `data age: int[7]
data edu: int[7]
data M: int
data r: int[M]
param u: real[3, 4] ~ Normal(0, 1)
target += sum(u[r, edu])
`
	js, jerr := data.ReadJSON("d.json", strings.NewReader(`{"age": [1, 0, 1, 2, 0, 2, 1], "edu": [2, 3, 2, 0, 3, 1, 2], "M": 2, "r": [0, 1]}`))
	if jerr != nil {
		t.Fatal(jerr)
	}
	_, err = compileSrcErr(t, "m.gpp", src, map[string]string{}, data.Input{File: "d.json", JSON: js})
	if err == nil || !strings.Contains(err.Error(), "m.gpp:6:20: paired gather `u[r, edu]`: the index vectors have different lengths, 2 for `r` and 7 for `edu`") {
		t.Errorf("lengths 2 and 7: %v", err)
	}
}

// TestPairedGatherTapeSize: the paired gather is vectorised, its tape the
// same size for 7 rows as for 70; the loop over the pairs, u[age[i],
// edu[i]], is lowered as vectors (cells) too, to the same values, bit
// for bit.
func TestPairedGatherTapeSize(t *testing.T) {
	const head = `data N: int
data age: int[N]
data edu: int[N]
data y: real[N]
param u: real[3, 4] ~ Normal(0, 1)
`
	build := func(body string, n int) *Model {
		rows := make([][]float64, n)
		for k := range rows {
			rows[k] = []float64{float64(k % 3), float64(k % 4), float64(k%5) - 2}
		}
		return compileSrc(t, "m.gpp", head+body, map[string]string{"N": strconv.Itoa(n)}, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "age,edu,y", rows)})
	}
	const paired = "y ~ Normal(u[age, edu], 1)\n"
	const loop = "for i in 0:N {\n    y[i] ~ Normal(u[age[i], edu[i]], 1)\n}\n"
	for _, body := range []string{paired, loop} {
		if a, b := build(body, 7).prog.Len(), build(body, 70).prog.Len(); a != b {
			t.Errorf("%s: %d tape nodes for 7 rows, %d for 70: not vectorised", body, a, b)
		}
	}
	sameAtRandomPoints(t, build(paired, 70), build(loop, 70), "loop over the pairs", rand.New(rand.NewPCG(1, 2)), 0)
}

// TestPairedGatherSkipsUnreadCells: a data matrix observed by a paired
// gather reads only the cells of its pairs, so a missing cell no pair
// picks fits no latent (Skipped), as in the loop over the pairs; the
// block of the pairs' rows and columns would have read it.
func TestPairedGatherSkipsUnreadCells(t *testing.T) {
	const src = `data age: int[4]
data edu: int[4]
data Y: real[3, 4]
param u: real[3, 4] ~ Normal(0, 1)
Y[age, edu] ~ Normal(u[age, edu], 1)
Y[age, edu] ~ Normal(u[age, edu], 2)
`
	// (1, 3) is in the block of rows {0, 1} and columns {1, 3}, no pair.
	// (Two ~ on Y keep its missing cells fitted, not summed out as
	// leaves, leftout.go.)
	m, err := compileSrcErr(t, "m.gpp", src, nil, jsonData(t, `{"age": [0, 1, 0, 0], "edu": [1, 1, 3, 1],
"Y": [[0, 0.5, 0, 1.5], [0, 2, 0, null], [0, 0, 0, 0]]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Skipped()["Y"]; len(got) != 1 || got[0] != 7 {
		t.Errorf("Skipped Y %v, want [7]", got)
	}
}

// TestPairedGatherTruncation: a truncation bound read from a data matrix
// by a paired gather (known before the fit, picked on the Go side) is the
// vector of the pairs' bounds, as in the unrolled loop.
func TestPairedGatherTruncation(t *testing.T) {
	head := `data age: int[4]
data edu: int[4]
data y: real[4]
data L: real[3, 4]
param u: real[3, 4] ~ Normal(0, 1)
`
	in := func() data.Input {
		return jsonData(t, `{"age": [0, 1, 0, 2], "edu": [1, 1, 3, 1], "y": [0.5, 1, 2, 3],
"L": [[0, -1, 0, 1.5], [0, 0.25, 0, -3], [0, 2.5, 0, 0]]}`)
	}
	m := compileSrc(t, "m.gpp", head+"y ~ Normal(u[age, edu], 1) T[L[age, edu], ]\n", nil, in())
	unrollLoops = true
	ref := compileSrc(t, "loop.gpp", head+"for i in 0:4 {\n    y[i] ~ Normal(u[age[i], edu[i]], 1) T[L[age[i], edu[i]], ]\n}\n", nil, in())
	unrollLoops = false
	sameAtRandomPoints(t, m, ref, "unrolled loop", rand.New(rand.NewPCG(8, 9)), 1e-12)
	// A truncated prior's location read by a paired gather: its mass is
	// computed from the pairs' values when the model compiles.
	head2 := head + "param th: real<lower=0>[4] ~ Normal("
	m = compileSrc(t, "m.gpp", head2+"L[age, edu], 1)\n", nil, in())
	ref = compileSrc(t, "m.gpp", head2+"[L[0, 1], L[1, 1], L[0, 3], L[2, 1]], 1)\n", nil, in())
	sameAtRandomPoints(t, m, ref, "literal of the pairs", rand.New(rand.NewPCG(8, 9)), 1e-12)
}

// BenchmarkPairedGather times a gradient of a crossed-effects Bernoulli
// likelihood over 3000 rows written as the paired gather u[age, edu], as
// the loop over its pairs, and flattened by hand (to_vector of a row-major
// index age * E + edu into a vector param).
func BenchmarkPairedGather(b *testing.B) {
	const head = `data N: int
data age: int[N]
data edu: int[N]
data y: int<lower=0, upper=1>[N]
param a0: real ~ Normal(0, 2)
param s: positive ~ HalfNormal(1)
`
	rows := make([][]float64, 3000)
	rng := rand.New(rand.NewPCG(1, 1))
	for k := range rows {
		rows[k] = []float64{float64(rng.IntN(5)), float64(rng.IntN(4)), float64(rng.IntN(2))}
	}
	for _, c := range []struct{ name, body string }{
		{"paired", "param z: real[5, 4] ~ Normal(0, 1)\ny ~ BernoulliLogit(a0 + s * z[age, edu])\n"},
		{"loop", "param z: real[5, 4] ~ Normal(0, 1)\nfor i in 0:N {\n    y[i] ~ BernoulliLogit(a0 + s * z[age[i], edu[i]])\n}\n"},
		{"flat", "param z: real[20] ~ Normal(0, 1)\ny ~ BernoulliLogit(a0 + s * z[age * 4 + edu])\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := compileSrc(b, "m.gpp", head+c.body, nil, data.Input{File: "d.csv", Table: csvTable(b, "d.csv", "age,edu,y", rows)})
			x, g := make([]float64, m.Dim), make([]float64, m.Dim)
			fillNormal(x, rand.New(rand.NewPCG(2, 2)), 0, 0.5)
			b.ReportAllocs()
			for b.Loop() {
				m.LogJoint(x, g)
			}
		})
	}
}

// TestPairedGatherMinibatch: a paired gather by the subsampled rows is
// refused by --minibatch with an error at the index (its flat indices
// would be fixed when the model compiles).
func TestPairedGatherMinibatch(t *testing.T) {
	src := `data N: int
data age: int[N]
data edu: int[N]
data y: real[N]
param u: real[3, 4] ~ Normal(0, 1)
y ~ Normal(u[age, edu], 1)
`
	rows := [][]float64{{0, 1, 0.5}, {1, 2, 1}, {2, 3, -1}, {0, 0, 2}, {1, 1, 0}, {2, 2, 0.25}}
	m := compileSrc(t, "m.gpp", src, nil, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "age,edu,y", rows)})
	_, err := m.Minibatch("N", 3)
	if err == nil || !strings.Contains(err.Error(), "m.gpp:6:14: --minibatch N: a paired gather `u[age, edu]` by the subsampled rows is not supported") {
		t.Errorf("minibatch of a paired gather: %v", err)
	}
}
