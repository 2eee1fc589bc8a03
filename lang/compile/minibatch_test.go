package compile

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/stdlib"
)

// batchModel has every kind of term a minibatch scales or leaves alone:
// priors, an elementwise likelihood of a column slice, a Poisson of int
// data, GPFA's zero-mean MvNormalRows (Y'Y hoisted), a centred one (the
// data mean and scatter hoisted), a per-row loop and a target += of a sum.
const batchModel = `data x: real[N]
data y: real[N]
data c: int<lower=0>[N]
data Y: real[N, D]
param alpha: real ~ Normal(0, 1)
param beta: real ~ Normal(0, 1)
param sigma: positive ~ Gamma(2, 2)
param W: real[D, 2] ~ Normal(0, 1)
param m: real[D] ~ Normal(0, 1)
param prec: positive ~ Gamma(2, 1)
let mu = alpha + beta * x
y ~ Normal(mu, sigma)
c ~ Poisson(exp(0.3 * mu))
Y ~ MvNormalRows(0, W * W' + I(D) / prec)
Y ~ MvNormalRows(m, W * W' + I(D))
for i in 0:N {
  x[i] ~ Normal(alpha, 2)
}
target += -0.1 * sum(square(Y[:, 0] - alpha))
target += -0.5 * sigma
`

func batchInput(n int, seed uint64) data.Input {
	rng := rand.New(rand.NewPCG(seed, 3))
	const d = 3
	arr := func(name string, shape []int, f func() float64, isInt bool) *data.Array {
		a := &data.Array{Name: name, Shape: shape, Int: isInt}
		k := 1
		for _, s := range shape {
			k *= s
		}
		for range k {
			a.Values = append(a.Values, f())
		}
		return a
	}
	return data.Input{File: "b.json", JSON: map[string]*data.Array{
		"x": arr("x", []int{n}, rng.NormFloat64, false),
		"y": arr("y", []int{n}, rng.NormFloat64, false),
		"c": arr("c", []int{n}, func() float64 { return float64(rng.IntN(5)) }, true),
		"Y": arr("Y", []int{n, d}, func() float64 { return 2 + rng.NormFloat64() }, false),
	}}
}

// subsets calls f with every k-subset of 0..n-1, increasing.
func subsets(n, k int, f func([]int)) {
	s := make([]int, k)
	var rec func(i, from int)
	rec = func(i, from int) {
		if i == k {
			f(s)
			return
		}
		for j := from; j <= n-(k-i); j++ {
			s[i] = j
			rec(i+1, j+1)
		}
	}
	rec(0, 0)
}

// The batch log joint and its gradient, averaged over every batch of B
// rows (all C(N, B) of them), are the full model's: the estimate is
// unbiased, each data term scaled by N/B and each prior not, and the data
// computations hoisted out of the tape (Y'Y, the data mean and scatter,
// a column slice) follow the batch.
func TestMinibatchUnbiased(t *testing.T) {
	const n = 7
	testUnbiased(t, compileSrc(t, "b.gpp", batchModel, nil, batchInput(n, 1)), n)
}

// groupModel is a regression with group effects indexed by subsampled int
// data, vectorised (u[g], a real datum of the group xg[g], rows of a
// matrix V[g]) and in a loop over the rows (u[g[i]], V[g[i], 1]).
const groupModel = `data x: real[N]
data y: real[N]
data c: int<lower=0>[N]
data g: int<lower=0>[N]
data xg: real[G]
param a: real ~ Normal(0, 1)
param b: real ~ Normal(0, 1)
param tau: positive ~ Gamma(2, 2)
param s: positive ~ Gamma(2, 2)
param u: real[G] ~ Normal(0, tau)
param V: real[G, 2] ~ Normal(0, 1)
y ~ Normal(a + u[g] + b * x + 0.3 * xg[g] + V[g] * [1, -1], s)
c ~ Poisson(exp(0.5 * a + u[g] - V[g, 1]))
for i in 0:N {
  y[i] ~ Normal(a + u[g[i]] - V[g[i], 1] + xg[g[i]], 2)
  x[i] ~ Normal(V[g[i]][0], 2)
}
`

func groupInput(n int, seed uint64) data.Input {
	in := batchInput(n, seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	g := &data.Array{Name: "g", Shape: []int{n}, Int: true}
	for range n {
		g.Values = append(g.Values, float64(rng.IntN(3)))
	}
	in.JSON["g"] = g
	in.JSON["xg"] = &data.Array{Name: "xg", Shape: []int{3}, Values: []float64{-1, 0.5, 2}}
	delete(in.JSON, "Y")
	return in
}

// Group effects indexed by the batch's int data: the gathers' indices
// follow the batch, and the estimate stays unbiased.
func TestMinibatchUnbiasedGroups(t *testing.T) {
	const n = 7
	m := compileSrc(t, "g.gpp", groupModel, nil, groupInput(n, 1))
	testUnbiased(t, m, n)
	// a clone's indices are its own, and a step allocates nothing
	bt, err := m.Minibatch("N", 3)
	if err != nil {
		t.Fatal(err)
	}
	x, gr := make([]float64, m.Dim), make([]float64, m.Dim)
	for i := range x {
		x[i] = 0.1 * float64(i%5-2)
	}
	bt.SetBatch(1, 2)
	want, _ := bt.LogJoint(x, gr)
	c := bt.Clone()
	c.SetBatch(3, 4)
	if got, _ := bt.LogJoint(x, gr); got != want {
		t.Errorf("a clone's batch changed the original's log joint: %g, was %g", got, want)
	}
	if lc, _ := c.LogJoint(x, gr); lc == want {
		t.Errorf("the clone's batch did not change its log joint (%g)", lc)
	}
	seed := uint64(0)
	if allocs := testing.AllocsPerRun(50, func() {
		seed++
		bt.SetBatch(seed, 1)
		if _, err := bt.LogJoint(x, gr); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("a minibatch step with group indices allocates %v times", allocs)
	}
}

// Int data picked by the loop variable (the count c[i] of a Poisson in a
// loop over the rows, and as a covariate) follow the batch: a gather from
// the batch's constant, not a constant fixing the rows it compiled with.
func TestMinibatchUnbiasedIntLoop(t *testing.T) {
	const n = 7
	src := `data x: real[N]
data y: real[N]
data c: int<lower=0>[N]
data g: int<lower=0>[N]
param a: real ~ Normal(0, 1)
param b: real ~ Normal(0, 1)
param u: real[3] ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
for i in 0:N {
  c[i] ~ Poisson(exp(a + u[g[i]]))
  y[i] ~ Normal(b * x[i] + 0.1 * c[i], s)
}
`
	in := groupInput(n, 2)
	delete(in.JSON, "xg")
	testUnbiased(t, compileSrc(t, "c.gpp", src, nil, in), n)
}

// An index computed from the batch's int data, or a column picked per row
// by it, cannot follow the batch: refused at its position.
func TestMinibatchGroupRefusals(t *testing.T) {
	head := "data x: real[N]\ndata y: real[N]\ndata c: int<lower=0>[N]\ndata g: int<lower=0>[N]\ndata xg: real[G]\nparam u: real[3] ~ Normal(0, 1)\nparam A: real[3, 3] ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\n"
	cases := []struct{ src, want string }{
		{head + "for i in 0:N {\n  y[i] ~ Normal(u[2 - g[i]], s)\n}\n", "10:19: --minibatch N: an index computed from the subsampled rows"},
		{head + "let h = g\ny ~ Normal(u[h], s)\n", "10:14: --minibatch N: an index computed from the subsampled rows"},
		{head + "for i in 0:N {\n  y[i] ~ Normal(sum(A[:, g[i]]), s)\n}\n", "10:26: --minibatch N: an index read from the subsampled rows picks from A here"},
	}
	for _, c := range cases {
		m := compileSrc(t, "r.gpp", c.src, nil, groupInput(9, 3))
		_, err := m.Minibatch("N", 4)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\ngot  %v\nwant …%s…", c.src, err, c.want)
		}
	}
}

// testUnbiased checks the batch log joint and gradient of m, averaged
// over all batches of B = 1, 3, 6 of its n rows, against the full ones.
func testUnbiased(t *testing.T, m *Model, n int) {
	t.Helper()
	for _, b := range []int{1, 3, 6} {
		bt, err := m.Minibatch("N", b)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, uint64(b)))
		x := make([]float64, m.Dim)
		for i := range x {
			x[i] = 0.5 * rng.NormFloat64()
		}
		g, gb, gsum := make([]float64, m.Dim), make([]float64, m.Dim), make([]float64, m.Dim)
		full, err := m.LogJoint(x, g)
		if err != nil {
			t.Fatal(err)
		}
		sum, count := 0.0, 0
		subsets(n, b, func(rows []int) {
			copy(bt.rows, rows)
			bt.fill()
			lp, err := bt.LogJoint(x, gb)
			if err != nil {
				t.Fatal(err)
			}
			sum += lp
			for i := range gb {
				gsum[i] += gb[i]
			}
			count++
		})
		if got := sum / float64(count); math.Abs(got-full) > 1e-9*math.Abs(full) {
			t.Errorf("B=%d: mean batch log joint %.12g, full %.12g", b, got, full)
		}
		for i := range g {
			if got := gsum[i] / float64(count); math.Abs(got-g[i]) > 1e-9*(1+math.Abs(g[i])) {
				t.Errorf("B=%d: mean batch gradient of %s %.12g, full %.12g", b, m.LatentOf(i), got, g[i])
			}
		}
		// One batch alone is not the full log joint (the test would pass
		// with N/B dropped only if the data terms were absent).
		copy(bt.rows, []int{0, 1, 2, 3, 4, 5}[:b])
		bt.fill()
		if lp, _ := bt.LogJoint(x, gb); math.Abs(lp-full) < 1e-6 {
			t.Errorf("B=%d: a single batch gives the full log joint %g", b, lp)
		}
	}
}

// SetBatch draws B distinct rows, the same for the same seed, spread over
// all rows, and a step (SetBatch, then the log joint and its gradient)
// allocates nothing.
func TestMinibatchSetBatch(t *testing.T) {
	const n, b = 50, 8
	m := compileSrc(t, "b.gpp", batchModel, nil, batchInput(n, 2))
	bt, err := m.Minibatch("N", b)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, n)
	for s := range uint64(2000) {
		bt.SetBatch(s, 7)
		rows := bt.Rows()
		if !slices.IsSorted(rows) || len(slices.Compact(slices.Clone(rows))) != b {
			t.Fatalf("seed %d: rows %v not %d distinct increasing", s, rows, b)
		}
		for _, r := range rows {
			seen[r]++
		}
	}
	// each row is in a batch with probability B/N: 320 of 2000, sd 16.5
	for r, k := range seen {
		if math.Abs(float64(k)-2000*float64(b)/n) > 5*16.5 {
			t.Errorf("row %d in %d of 2000 batches, want about 320", r, k)
		}
	}
	bt.SetBatch(11, 12)
	first := slices.Clone(bt.Rows())
	c := bt.Clone()
	bt.SetBatch(3, 4)
	c.SetBatch(11, 12)
	if !slices.Equal(c.Rows(), first) {
		t.Errorf("the same seed drew %v, then %v on a clone", first, c.Rows())
	}
	x, g := make([]float64, m.Dim), make([]float64, m.Dim)
	seed := uint64(0)
	allocs := testing.AllocsPerRun(50, func() {
		seed++
		bt.SetBatch(seed, 1)
		if _, err := bt.LogJoint(x, g); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a minibatch step allocates %v times", allocs)
	}
}

// Each use of the subsampled data that a minibatch would get wrong is
// refused at its position, saying why.
func TestMinibatchRefusals(t *testing.T) {
	head := "data x: real[N]\ndata y: real[N]\nparam a: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\n"
	cases := []struct{ src, want string }{
		{head + "param z: real[N] ~ Normal(0, 1)\ny ~ Normal(a + z, s)\n", "5:7: --minibatch N: param z is sized by N: per-row latents"},
		{head + "param b: real ~ Normal(mean(y), 1)\ny ~ Normal(a + b * x, s)\n", "5:24: --minibatch N: mean of a value read from the subsampled rows mixes the rows"},
		{head + "param b: real ~ Normal(0, 1)\nlet ybar = sum(y) / 7\nb ~ Normal(ybar, 1)\ny ~ Normal(a + b * x, s)\n", "6:12: --minibatch N: sum of a value"},
		{head + "a ~ Normal(y[0], 1)\ny ~ Normal(a, s)\n", "5:14: --minibatch N: a row of the subsampled data picked by 0"},
		{head + "y ~ MvNormal(a + x, I(N) * s)\n", "5:5: --minibatch N: MvNormal here is one density over all the rows"},
		{head + "y ~ Normal(a, s)\ntarget += -0.5 * N * log(s)\n", "6:18: --minibatch N: N as a value would be the batch size B"},
		{head + "y ~ Normal(a, s)\ntarget += logsumexp(y * a)\n", "6:11: --minibatch N: logsumexp of a value"},
		{head + "y ~ Normal(a, s)\ntarget += log_sum_exp(y * a)\n", "6:11: --minibatch N: log_sum_exp of a value"},
		{head + "y ~ Normal(a, s)\nlet v = x' * y\n", "6:10: --minibatch N: the transpose of a value"},
		{"fn centre(v) = v - mean(v)\n" + head + "y ~ Normal(a + centre(x), s)\n", "1:20: --minibatch N: mean of a value"},
		{head + "param z: real[9] ~ Normal(0, 1)\nfor i in 0:N {\n  y[i] ~ Normal(a + z[i], s)\n}\n", "7:23: --minibatch N: i runs over the batch's rows, but z is not subsampled"},
		{head + "param t: real<lower=max(y)> ~ Normal(0, 3)\ny ~ Normal(a + t, s)\n", "5:7: --minibatch N: the bounds of param t are computed from the subsampled data"},
		{head + "for i in 0:N {\n  if y[i] > 0 {\n    y[i] ~ Normal(a, s)\n  }\n}\n", "6:6: --minibatch N: a condition on the subsampled rows"},
		// a term that mixes a prior with a sum over the rows other than
		// additively, a sum added to each row, partial and nested loops
		// over the rows, a sum over them inside one
		{head + "target += log(exp(logpdf(a, Normal(0, 1))) * exp(sum(logpdf(y, Normal(a, s)))))\n", "5:50: --minibatch N: sum of a value read from the subsampled rows mixes the rows"},
		{head + "target += sum(logpdf(y, Normal(a, s))) * sum(x)\n", "5:40: --minibatch N: a sum over the subsampled rows in a product or quotient with a value read from them"},
		{head + "target += logpdf(a, Normal(0, 1)) / sum(logpdf(y, Normal(a, s)))\n", "5:35: --minibatch N: a sum over the subsampled rows in a product or quotient"},
		{head + "target += sum(y) + y * a\n", "5:18: --minibatch N: a sum over the subsampled rows added to each of their rows"},
		{head + "let ll = sum(logpdf(y, Normal(a, s)))\ny ~ Normal(ll, s)\n", "5:10: --minibatch N: sum of a value read from the subsampled rows mixes the rows"},
		{head + "for i in 0:N {\n  target += sum(y) * a\n}\n", "6:13: --minibatch N: a sum over the subsampled rows inside a loop over them"},
		{head + "for i in 1:N {\n  y[i] ~ Normal(a, s)\n}\n", "5:10: --minibatch N: a loop over the rows must run over all of them, 0:N"},
		{head + "for j in 0:5 {\n  y[j] ~ Normal(a, s)\n}\n", "6:5: --minibatch N: a row of the subsampled data picked by j, whose loop is not over the rows"},
		{head + "for i in 0:N {\n  for j in 0:N {\n    target += x[i] * y[j] * a\n  }\n}\n", "6:7: --minibatch N: a loop over the rows inside another pairs the rows"},
		// functions across the rows, outside a loop over them or of all
		// the rows inside one; one row combined with all of them; all the
		// rows, or a sum over them, as a term in a loop over the rows
		{head + "y ~ Normal(a, s)\ntarget += dot_product(y, x) * a\n", "6:11: --minibatch N: dot_product of a value read from the subsampled rows mixes the rows"},
		{head + "y ~ Normal(softmax(x) * a, s)\n", "5:12: --minibatch N: softmax of a value"},
		{head + "y ~ Normal(cumsum(x) * a, s)\n", "5:12: --minibatch N: cumsum of a value"},
		{head + "for i in 0:N {\n  y[i] ~ Normal(log_sum_exp(x), s)\n}\n", "6:17: --minibatch N: log_sum_exp of a value"},
		{head + "for i in 0:N {\n  y[i] ~ Normal(dot_product(x, y) * a, s)\n}\n", "6:17: --minibatch N: dot_product of a value"},
		{head + "for i in 0:N {\n  target += sum(x[i] * y) * a\n}\n", "6:22: --minibatch N: one row of the subsampled data (picked by the loop variable) with all of them pairs each row with every other"},
		{head + "for i in 0:N {\n  target += logpdf(y, Normal(a, s))\n}\n", "6:13: --minibatch N: logpdf(y, Normal(a, s)) holds all the subsampled rows in a loop over them"},
		{head + "let ll = sum(logpdf(y, Normal(a, s)))\nfor i in 0:N {\n  target += ll\n}\n", "7:13: --minibatch N: a sum over the subsampled rows inside a loop over them"},
	}
	for _, c := range cases {
		m := compileSrc(t, "r.gpp", c.src, nil, batchInput(9, 3))
		_, err := m.Minibatch("N", 4)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\ngot  %v\nwant …%s…", c.src, err, c.want)
		}
	}
	// a user density's body sums over the rows, as a target += may
	dens := "fn gauss_lpdf(v, m, sd) = sum(-0.5 * square((v - m) / sd) - log(sd))\n" + head + "y ~ gauss(a + x, s)\n"
	if _, err := compileSrc(t, "r.gpp", dens, nil, batchInput(9, 3)).Minibatch("N", 4); err != nil {
		t.Errorf("user density: %v", err)
	}
	// per-row functions: the two-argument log_sum_exp is elementwise (its
	// one-argument form a reduction, refused above), rows_dot_product per
	// row; in a loop over the rows, any function of one row
	for _, src := range []string{
		head + "target += sum(log_sum_exp(logpdf(y, Normal(a, s)), logpdf(y, Normal(-a, s))))\n",
		head + "y ~ Normal(rows_dot_product(x, x) * a, s)\n",
		head + "for i in 0:N {\n  let v = [x[i], y[i]]\n  target += log_sum_exp(v * a) - dot_product(v, v) + sum(cumsum(softmax(v)))\n}\n",
	} {
		if _, err := compileSrc(t, "r.gpp", src, nil, batchInput(9, 3)).Minibatch("N", 4); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	m := compileSrc(t, "r.gpp", head+"y ~ Normal(a, s)\n", nil, batchInput(9, 3))
	for _, c := range []struct {
		size string
		b    int
		want string
	}{
		{"M", 4, "M is not a size of the model's data (its sizes: N)"},
		{"N", 0, "the batch size must be from 1 to 8"},
		{"N", 9, "the batch size must be from 1 to 8"},
	} {
		if _, err := m.Minibatch(c.size, c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%d: got %v, want …%s…", c.size, c.b, err, c.want)
		}
	}
}

// A loop over the rows is lowered as vectors in a batch build as in a
// full one (vecFor): the GLMM's loop is its vectorised form's tape, two
// nodes more (the bounds), whatever B, with the same batch log joint and
// gradient bit for bit; and the loop models that a minibatch can take
// stay unbiased, lowered as vectors, with a tape that does not grow with
// B.
func TestMinibatchLoopAsVectors(t *testing.T) {
	in := glmmInput(400)
	loop := compileSrc(t, "loop.gpp", glmmLoop, nil, in)
	vec := compileSrc(t, "vec.gpp", glmmVec, nil, in)
	for _, b := range []int{10, 200} {
		bl, err1 := loop.Minibatch("N", b)
		bv, err2 := vec.Minibatch("N", b)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if bl.prog.Len() != bv.prog.Len()+2 {
			t.Errorf("B=%d: %d nodes in the loop form's batch model, %d in the vectorised", b, bl.prog.Len(), bv.prog.Len())
		}
		gl, gv := make([]float64, loop.Dim), make([]float64, vec.Dim)
		for seed := range uint64(3) {
			bl.SetBatch(seed, 9)
			bv.SetBatch(seed, 9)
			x := randomPoint(loop, seed)
			ll, err1 := bl.LogJoint(x, gl)
			lv, err2 := bv.LogJoint(x, gv)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if ll != lv || !slices.Equal(gl, gv) {
				t.Errorf("B=%d, seed %d: batch log joint %.17g as a loop, %.17g vectorised (gradients %v, %v)", b, seed, ll, lv, gl, gv)
			}
		}
	}
	for _, name := range []string{"regression", "glmm", "let", "rows", "nested", "dot"} {
		t.Run(name, func(t *testing.T) {
			var body string
			for _, m := range loopModels {
				if m.name == name {
					body = m.body
				}
			}
			m := compileSrc(t, "loop.gpp", loopHead+body+"\n", nil, loopData(7))
			testUnbiased(t, m, 7)
			big := compileSrc(t, "loop.gpp", loopHead+body+"\n", nil, loopData(400))
			checkBatchTapeConstant(t, big)
		})
	}
}

// mixedModel adds priors and likelihoods in the same terms: a target +=
// of a prior plus a sum over the rows, the sum scaled by a param, a let
// holding both, a sum of a sum broadcast over a vector of priors, a user
// function and a user density whose bodies hold both, and terms in a loop
// over the rows that read no row (a prior per row).
const mixedModel = `fn joint(v, m, sd) = logpdf(m, Normal(0, 1)) + sum(logpdf(v, Normal(m, sd)))
fn gpri_lpdf(v, m, sd) = sum(logpdf(v, Normal(m, sd))) + logpdf(sd, Exponential(1))
data x: real[N]
data y: real[N]
data Y: real[N, D]
param a: real
param b: real
param s: positive
param w: real[3]
target += logpdf(a, Normal(0, 1)) + sum(logpdf(y, Normal(a + b * x, s)))
target += -0.5 * sum(square(w)) - sum(square(y - a)) / (4 * s) - (log(s) - sum(x * b))
let lp = sum(logpdf(x, Normal(b, 2))) + logpdf(b, Normal(0, 3))
target += 2 * lp
target += sum(sum(logpdf(y, Cauchy(a, 3))) * 0.1 + logpdf(w, Normal(0, 2)))
target -= (sum(square(x)) - square(b)) * s
target += joint(y, a, s)
x ~ gpri(b, s)
for i in 0:N {
  target += -0.1 * square(a)
  a ~ Normal(x[i], 3)
}
for j in 0:D {
  for i in 0:N {
    target += logpdf(Y[i, j], Normal(w[j] * x[i], 2)) - 0.01 * square(w[j])
    target += 0.02 * b
  }
}
`

// A term that mixes priors and data is split into its additive parts: the
// parts that read the batch are scaled by N/B, the others not, and the
// batch log joint and gradient, averaged over every batch, are the full
// ones; a part inside a loop over the rows is a row's, and scaled.
func TestMinibatchUnbiasedMixed(t *testing.T) {
	const n = 7
	in := batchInput(n, 4)
	delete(in.JSON, "c")
	testUnbiased(t, compileSrc(t, "mixed.gpp", mixedModel, nil, in), n)
}

// rowFormsModel writes a regression's per-row idioms in a loop over the
// rows, each a function of one row (X[i], y[i], k[i]) and of values that
// read no row: dot products either way round, a sum of a row's products,
// a row times a matrix (multi-output), a per-row mixture's log_sum_exp,
// softmax with Categorical, a row under a multivariate density, a let of
// a row; and the same forms vectorised outside the loop.
const rowFormsModel = `data x: real[N]
data y: real[N]
data k: int<lower=0, upper=2>[N]
data X: real[N, D]
param a: real ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
param beta: real[D] ~ Normal(0, 1)
param B: real[D, 3] ~ Normal(0, 1)
param w: simplex[2] ~ Dirichlet(2)
param m2: real[2] ~ Normal(0, 1)
for i in 0:N {
  y[i] ~ Normal(a + dot_product(X[i], beta), s)
  x[i] ~ Normal(0.5 * dot_product(beta, X[i]) - 0.2 * sum(X[i]' .* beta') + 0.1 * sum(X[i] .* beta), 2)
  target += log_sum_exp(log(w) + logpdf(y[i], Normal(m2, s)))
  k[i] ~ Categorical(softmax((X[i]' * B)'))
  k[i] ~ CategoricalLogit(B' * X[i] + a)
  target += -0.1 * sum(square(X[i]' * B)) + 0.2 * sum(X[i]' * beta)
  X[i] ~ MvNormal(beta, I(D) * s)
  let xi = X[i]
  let lp = logpdf(xi, Normal(beta * a, 2))
  target += log_sum_exp(lp) + sum(lp)
}
y ~ Normal(X * beta + a, s)
k ~ CategoricalLogit(X * B)
target += sum(rowlogsumexp(log(w') + logpdf(y, Normal(m2', s))))
x ~ Normal(rows_dot_product(X, X) * a, 3)
`

func rowFormsInput(n int, seed uint64) data.Input {
	in := batchInput(n, seed)
	rng := rand.New(rand.NewPCG(seed, 6))
	k := &data.Array{Name: "k", Shape: []int{n}, Int: true}
	for range n {
		k.Values = append(k.Values, float64(rng.IntN(3)))
	}
	in.JSON["k"] = k
	in.JSON["X"] = in.JSON["Y"]
	in.JSON["X"].Name = "X"
	delete(in.JSON, "Y")
	delete(in.JSON, "c")
	return in
}

// The per-row idioms of a regression in a loop over the rows are accepted,
// and the batch log joint and gradient averaged over every batch are the
// full ones.
func TestMinibatchUnbiasedRowForms(t *testing.T) {
	const n = 7
	testUnbiased(t, compileSrc(t, "rows.gpp", rowFormsModel, nil, rowFormsInput(n, 1)), n)
}

// Each per-row idiom in a loop over the rows gives, on every batch, the
// batch log joint and gradient of its vectorised form (to rounding: a
// loop that is not lowered as vectors sums its rows in another order).
func TestMinibatchRowFormsAsVectors(t *testing.T) {
	head := strings.Join(strings.Split(rowFormsModel, "\n")[:10], "\n") + "\n"
	pairs := []struct{ loop, vec string }{
		{"y[i] ~ Normal(a + dot_product(X[i], beta), s)", "y ~ Normal(a + X * beta, s)"},
		{"y[i] ~ Normal(a + dot_product(beta, X[i]), s)", "y ~ Normal(a + X * beta, s)"},
		{"X[i] ~ MvNormal(beta, I(D) * s)", "X ~ MvNormal(beta', I(D) * s)"},
		{"y[i] ~ Normal(sum(X[i]' .* beta') * a, s)", "y ~ Normal(rowsum(X .* beta') * a, s)"},
		{"target += log_sum_exp(log(w) + logpdf(y[i], Normal(m2, s)))", "target += sum(rowlogsumexp(log(w') + logpdf(y, Normal(m2', s))))"},
		{"k[i] ~ Categorical(softmax((X[i]' * B)'))", "k ~ CategoricalLogit(X * B)"},
		{"target += sum(X[i]' * B) * a", "target += sum(X * B) * a"},
	}
	in := rowFormsInput(60, 2)
	for _, p := range pairs {
		loop := compileSrc(t, "loop.gpp", head+"for i in 0:N {\n  "+p.loop+"\n}\n", nil, in)
		vec := compileSrc(t, "vec.gpp", head+p.vec+"\n", nil, in)
		bl, err1 := loop.Minibatch("N", 9)
		bv, err2 := vec.Minibatch("N", 9)
		if err1 != nil || err2 != nil {
			t.Fatal(p.loop, err1, err2)
		}
		gl, gv := make([]float64, loop.Dim), make([]float64, vec.Dim)
		for seed := range uint64(3) {
			bl.SetBatch(seed, 4)
			bv.SetBatch(seed, 4)
			x := randomPoint(loop, seed)
			ll, err1 := bl.LogJoint(x, gl)
			lv, err2 := bv.LogJoint(x, gv)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if math.Abs(ll-lv) > loopTol*math.Abs(lv) {
				t.Errorf("%s, seed %d: batch log joint %.17g as a loop, %.17g vectorised", p.loop, seed, ll, lv)
			}
			for j := range gl {
				if math.Abs(gl[j]-gv[j]) > loopTol*(1+math.Abs(gv[j])) {
					t.Errorf("%s, seed %d: gradient of %s %.17g as a loop, %.17g vectorised", p.loop, seed, loop.LatentOf(j), gl[j], gv[j])
				}
			}
		}
	}
}

// Every one-argument built-in that keeps its argument's shape is either
// elementwise, and per row of all the rows, or listed in rowMixing: a new
// one (a sort, a running product) must be put in one list or the other.
func TestMinibatchRowMixing(t *testing.T) {
	elementwise := strings.Fields(`exp log log1p expm1 log1mexp lgamma digamma softplus sqrt square abs
		inv_logit logit log1m log_inv_logit log1m_inv_logit inv_cloglog Phi Phi_approx inv_Phi tanh sin cos
		atan inv inv_sqrt inv_square log2 log10 tan asin acos sinh cosh asinh acosh atanh erf erfc exp2
		cbrt tgamma trigamma floor ceil round trunc to_int lambert_w0 lambert_wm1`)
	for _, f := range stdlib.Funcs() {
		for _, form := range f.Forms() {
			if form.Shape == stdlib.Elementwise1 && !rowMixing[f.Name] && !slices.Contains(elementwise, f.Name) {
				t.Errorf("%s: elementwise, or mixing its elements (rowMixing)?", f.Name)
			}
		}
	}
	for name := range rowMixing {
		if stdlib.LookupFunc(name) == nil {
			t.Errorf("rowMixing lists %s, which is not a built-in", name)
		}
	}
}

// checkBatchTapeConstant fails t unless m's minibatch programs have as
// many nodes at B = 5 as at B = 300: the batch model's loops are lowered
// as vectors, not unrolled once per batch row.
func checkBatchTapeConstant(t *testing.T, m *Model) {
	t.Helper()
	small, err1 := m.Minibatch("N", 5)
	large, err2 := m.Minibatch("N", 300)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if small.prog.Len() != large.prog.Len() {
		t.Errorf("batch model not lowered as vectors: %d nodes at B = 5, %d at B = 300", small.prog.Len(), large.prog.Len())
	}
}

// PoissonBinomial of counts with a row of probabilities each, vectorised
// and in a loop over the rows, is a term per row: the batch log joint and
// gradient averaged over every batch are the full ones.
func TestMinibatchUnbiasedPoissonBinomial(t *testing.T) {
	const n = 7
	head := strings.Join(strings.Split(rowFormsModel, "\n")[:10], "\n") + "\n"
	src := head + "k ~ PoissonBinomial(inv_logit(X * B))\nfor i in 0:N {\n  k[i] ~ PoissonBinomial(inv_logit(B' * X[i] + a))\n}\n"
	testUnbiased(t, compileSrc(t, "pb.gpp", src, nil, rowFormsInput(n, 3)), n)
}

// Data not subsampled whose missing cells are left out of the likelihood
// (int data observed only by ~, real leaves) keeps them left out in a
// batch: the batches average to the full log joint, not to one that
// observes the values the compiler put in those cells.
func TestMinibatchKeepsLeftOut(t *testing.T) {
	n := 7
	in := batchInput(n, 1)
	in.JSON["z"] = &data.Array{Name: "z", Shape: []int{3}, Values: []float64{1, math.NaN(), 2}, Missing: []int{1}}
	in.JSON["k"] = &data.Array{Name: "k", Shape: []int{3}, Values: []float64{1, 0, 2}, Int: true, Missing: []int{1}}
	src := batchModel + "data z: real[3]\ndata k: int[3]\nparam nu: real ~ Normal(0, 1)\nz ~ Normal(nu, 1)\nk ~ Poisson(exp(nu))\n"
	m := compileSrc(t, "b.gpp", src, nil, in)
	if len(m.leftOut["z"]) != 1 || len(m.leftOut["k"]) != 1 {
		t.Fatalf("cells left out %v, want z's and k's", m.leftOut)
	}
	testUnbiased(t, m, n)
}
