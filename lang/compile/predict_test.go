package compile

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// predictModel reads its observed values y (in a ~ with a T[...] whose
// bound lo is data too), v (in a loop whose bound M only it reads), w (in
// a target +=, through a let that nothing else reads) and the group index
// g (only in the likelihood); the outputs read x (through a let) and the
// param shapes read K.
const predictModel = `data x: real[N]
data y: real[N]
data v: real[M]
data w: real[N]
data lo: real
data g: int[N]
data K: int
param a: real ~ Normal(0, 1)
param u: real[K] ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
let mu = a + x
let r = w - mu
y ~ Normal(mu + u[g], s) T[lo, ]
target += -0.5 * sum(square(r))
for i in 0:M {
  let e = v[i] - a
  e ~ Normal(0, s)
}
output mu_new = mu
output t ~ Normal(2 * a, s)
`

// TestPredictReads: predict mode reads the data of the params' shapes, the
// outputs, and the lets, loops and ifs around and under them, and nothing
// that only a ~, a T[...] bound or a target += reads.
func TestPredictReads(t *testing.T) {
	f, err := parser.ParseFile("p.gpp", []byte(predictModel))
	if err != nil {
		t.Fatal(err)
	}
	info, err := check.Check(f, &check.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for name := range PredictReads(f, info) {
		got = append(got, name)
	}
	sort.Strings(got)
	if want := []string{"K", "x"}; !slices.Equal(got, want) {
		t.Errorf("PredictReads = %v, want %v", got, want)
	}
}

// TestCompilePredict compiles predictModel in predict mode with only the
// data it reads (x, K): the log joint is 0 (no prior, no ~, no
// target +=, no bound's Jacobian), and the outputs are computed; the full
// compile of the same data fails for want of y.
func TestCompilePredict(t *testing.T) {
	f, err := parser.ParseFile("p.gpp", []byte(predictModel))
	if err != nil {
		t.Fatal(err)
	}
	info, err := check.Check(f, &check.Config{})
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string]string{"K": "2"}
	in := data.Input{File: "new.csv", Table: csvTable(t, "new.csv", "x", [][]float64{{1}, {-2}})}
	if _, err := data.Bind(info, []data.Input{in}, sets); err == nil || !strings.Contains(err.Error(), "no data for `y`") {
		t.Fatalf("Bind without y: %v, want no data for y", err)
	}
	optional := map[string]bool{}
	reads := PredictReads(f, info)
	for _, d := range info.Data {
		if reads[d.Name] == nil {
			optional[d.Name] = true
		}
	}
	bound, err := data.BindOptional(info, []data.Input{in}, sets, optional)
	if err != nil {
		t.Fatal(err)
	}
	m, err := CompilePredict(f, info, bound)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim != 4 || len(m.Outputs) != 2 {
		t.Fatalf("Dim %d, %d outputs; want 4 (a, u[2], s) and 2", m.Dim, len(m.Outputs))
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(1, 2)))
	x := []float64{0.5, 0.1, -0.2, math.Log(0.01)} // a, u, log s
	lp, outs, err := ev.Eval(x)
	if err != nil {
		t.Fatal(err)
	}
	if lp != 0 {
		t.Errorf("log joint %v in predict mode, want 0", lp)
	}
	if !slices.Equal(outs[0], []float64{1.5, -1.5}) {
		t.Errorf("mu_new = %v, want [1.5 -1.5]", outs[0])
	}
	// t ~ Normal(2a, 0.01)
	if len(outs[1]) != 1 || math.Abs(outs[1][0]-1) > 0.05 {
		t.Errorf("t = %v, want about 1", outs[1])
	}

	// An output that reads y needs it: the missing-data error at its
	// declaration.
	src := predictModel + "output resid = y - mu\n"
	f2, _ := parser.ParseFile("p.gpp", []byte(src))
	info2, err := check.Check(f2, &check.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if PredictReads(f2, info2)["y"] == nil {
		t.Fatal("PredictReads leaves out y, which an output reads")
	}
	_, err = data.BindOptional(info2, []data.Input{in}, sets, map[string]bool{"v": true, "M": true, "w": true, "lo": true, "g": true})
	if err == nil || !strings.Contains(err.Error(), "p.gpp:2:6: no data for `y`") {
		t.Errorf("BindOptional without y: %v, want p.gpp:2:6: no data for `y`", err)
	}
}
