package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Missing cells of int data observed only by ~ are left out of the
// likelihood (leftout.go): the log joint and its gradient are those of
// the hand-masked model, target += sum(M .* logpdf(Y, D(...))) with any
// count in the missing cells, bit for bit for a whole vector or matrix
// (the same nodes) and to rounding for a loop (its terms summed in
// another order); the latents are the params alone, and LeftOut names
// the cells.
func TestLeftOutMatchesMask(t *testing.T) {
	const vecData = `"N": 6, "x": [0.1, -0.4, 0.9, 1.3, -1.1, 0.2]`
	const matData = `"G": 3, "S": 4, "x": [0, 1, 0, 1], "sf": [0.1, -0.2, 0.05, 0.3]`
	for _, c := range []struct {
		name, src, ref string
		data           string // %v for a missing cell: null, then 0
		mask           string
		tol            float64
		cells          []int
	}{
		{"vector Poisson",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0>[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\ny ~ PoissonLog(a + b * x)\n",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0>[N]\ndata M: real[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\ntarget += sum(M .* logpdf(y, PoissonLog(a + b * x)))\n",
			vecData + `, "y": [3, %v, 1, 7, %v, 2]`, `"M": [1, 0, 1, 1, 0, 1]`, 0, []int{1, 4}},
		{"matrix NegBinomialLog",
			"data G: int\ndata S: int\ndata x: real[S]\ndata sf: real[S]\ndata Y: int<lower=0>[G, S]\nparam b0: real[G] ~ Normal(0, 2)\nparam lfc: real[G] ~ Normal(0, 1)\nparam phi: positive ~ Gamma(2, 1)\nY ~ NegBinomialLog(b0 + lfc * x' + sf', phi)\n",
			"data G: int\ndata S: int\ndata x: real[S]\ndata sf: real[S]\ndata Y: int<lower=0>[G, S]\ndata M: real[G, S]\nparam b0: real[G] ~ Normal(0, 2)\nparam lfc: real[G] ~ Normal(0, 1)\nparam phi: positive ~ Gamma(2, 1)\ntarget += sum(M .* logpdf(Y, NegBinomialLog(b0 + lfc * x' + sf', phi)))\n",
			matData + `, "Y": [[4, 0, %v, 9], [12, 15, 3, 2], [%v, 1, 0, 5]]`, `"M": [[1, 1, 0, 1], [1, 1, 1, 1], [0, 1, 1, 1]]`, 0, []int{2, 8}},
		{"scalar loop Poisson",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0>[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\nfor n in 0:N {\n  y[n] ~ Poisson(exp(a + b * x[n]))\n}\n",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0>[N]\ndata M: real[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\nfor n in 0:N {\n  target += M[n] * logpdf(y[n], Poisson(exp(a + b * x[n])))\n}\n",
			vecData + `, "y": [3, %v, 1, 7, %v, 2]`, `"M": [1, 0, 1, 1, 0, 1]`, 1e-12, []int{1, 4}},
		{"row loop NegBinomial",
			"data G: int\ndata S: int\ndata x: real[S]\ndata sf: real[S]\ndata Y: int<lower=0>[G, S]\nparam b0: real[G] ~ Normal(0, 2)\nparam lfc: real[G] ~ Normal(0, 1)\nparam phi: positive ~ Gamma(2, 1)\nfor g in 0:G {\n  Y[g] ~ NegBinomial(exp(b0[g] + lfc[g] * x + sf), phi)\n}\n",
			"data G: int\ndata S: int\ndata x: real[S]\ndata sf: real[S]\ndata Y: int<lower=0>[G, S]\ndata M: real[G, S]\nparam b0: real[G] ~ Normal(0, 2)\nparam lfc: real[G] ~ Normal(0, 1)\nparam phi: positive ~ Gamma(2, 1)\nfor g in 0:G {\n  target += sum(M[g] .* logpdf(Y[g], NegBinomial(exp(b0[g] + lfc[g] * x + sf), phi)))\n}\n",
			matData + `, "Y": [[4, 0, %v, 9], [12, 15, 3, 2], [%v, 1, 0, 5]]`, `"M": [[1, 1, 0, 1], [1, 1, 1, 1], [0, 1, 1, 1]]`, 1e-12, []int{2, 8}},
		{"binary vector",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0, upper=1>[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\ny ~ BernoulliLogit(a + b * x)\n",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0, upper=1>[N]\ndata M: real[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\ntarget += sum(M .* logpdf(y, BernoulliLogit(a + b * x)))\n",
			vecData + `, "y": [1, %v, 0, 1, %v, 0]`, `"M": [1, 0, 1, 1, 0, 1]`, 0, []int{1, 4}},
		{"CategoricalLogit rows",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0, upper=2>[N]\nparam b: real[3] ~ Normal(0, 1)\ny ~ CategoricalLogit(x * b')\n",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0, upper=2>[N]\ndata M: real[N]\nparam b: real[3] ~ Normal(0, 1)\ntarget += sum(M .* logpdf(y, CategoricalLogit(x * b')))\n",
			vecData + `, "y": [2, %v, 0, 1, %v, 2]`, `"M": [1, 0, 1, 1, 0, 1]`, 0, []int{1, 4}},
		{"CategoricalLogit loop",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0, upper=2>[N]\nparam b: real[3] ~ Normal(0, 1)\nlet E = x * b'\nfor n in 0:N {\n  y[n] ~ CategoricalLogit(E[n])\n}\n",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0, upper=2>[N]\ndata M: real[N]\nparam b: real[3] ~ Normal(0, 1)\nlet E = x * b'\nfor n in 0:N {\n  target += M[n] * logpdf(y[n], CategoricalLogit(E[n]))\n}\n",
			vecData + `, "y": [2, %v, 0, 1, %v, 2]`, `"M": [1, 0, 1, 1, 0, 1]`, 1e-12, []int{1, 4}},
		{"OrderedLogistic",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0, upper=2>[N]\nparam b: real ~ Normal(0, 1)\nparam c: ordered[2] ~ Normal(0, 2)\ny ~ OrderedLogistic(b * x, c)\n",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0, upper=2>[N]\ndata M: real[N]\nparam b: real ~ Normal(0, 1)\nparam c: ordered[2] ~ Normal(0, 2)\ntarget += sum(M .* logpdf(y, OrderedLogistic(b * x, c)))\n",
			vecData + `, "y": [2, %v, 0, 1, %v, 2]`, `"M": [1, 0, 1, 1, 0, 1]`, 0, []int{1, 4}},
		{"PoissonBinomial",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0, upper=3>[N]\nparam th: unit[3] ~ Beta(2, 2)\ny ~ PoissonBinomial(th)\n",
			"data N: int\ndata x: real[N]\ndata y: int<lower=0, upper=3>[N]\ndata M: real[N]\nparam th: unit[3] ~ Beta(2, 2)\ntarget += sum(M .* logpdf(y, PoissonBinomial(th)))\n",
			vecData + `, "y": [3, %v, 0, 1, %v, 2]`, `"M": [1, 0, 1, 1, 0, 1]`, 0, []int{1, 4}},
	} {
		for _, unroll := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s unrolled %v", c.name, unroll), func(t *testing.T) {
				unrollLoops = unroll
				defer func() { unrollLoops = false }()
				m, _ := compileLeftOut(t, c.src, fmt.Sprintf(c.data, "null", "null"), c.cells)
				ref := compileSrc(t, "ref.gpp", c.ref, nil, jsonData(t, "{"+fmt.Sprintf(c.data, 0, 0)+", "+c.mask+"}"))
				if ref.Dim != m.Dim {
					t.Fatalf("dim %d, the hand-masked model's %d", m.Dim, ref.Dim)
				}
				sameAtRandomPoints(t, m, ref, "hand-masked model's", rand.New(rand.NewPCG(7, 8)), c.tol)
				checkGradient(t, m, 5, 0.5)
			})
		}
	}
}

// BenchmarkLeftOutNB: the log joint and gradient of a 500 × 40
// NegBinomialLog count matrix, whole (the fused density node) and with 1
// cell in 97 missing (the masked elementwise log mass).
func BenchmarkLeftOutNB(b *testing.B) {
	const G, S = 500, 40
	src := "data G: int\ndata S: int\ndata x: real[S]\ndata Y: int<lower=0>[G, S]\nparam b0: real[G] ~ Normal(0, 2)\nparam lfc: real[G] ~ Normal(0, 1)\nparam phi: positive ~ Gamma(2, 1)\nY ~ NegBinomialLog(b0 + lfc * x', phi)\n"
	for _, miss := range []bool{false, true} {
		var rows []string
		for g := range G {
			var c []string
			for s := range S {
				v := fmt.Sprint((g*7 + s*3) % 50)
				if miss && (g*S+s)%97 == 0 {
					v = "null"
				}
				c = append(c, v)
			}
			rows = append(rows, "["+strings.Join(c, ",")+"]")
		}
		xs := make([]string, S)
		for s := range xs {
			xs[s] = fmt.Sprint(s % 2)
		}
		js := fmt.Sprintf(`{"G": %d, "S": %d, "x": [%s], "Y": [%s]}`, G, S, strings.Join(xs, ","), strings.Join(rows, ","))
		b.Run(fmt.Sprintf("missing=%v", miss), func(b *testing.B) {
			m := compileSrc(b, "m.gpp", src, nil, jsonData(b, js))
			x, g := make([]float64, m.Dim), make([]float64, m.Dim)
			b.ReportAllocs()
			for b.Loop() {
				m.LogJoint(x, g)
			}
		})
	}
}

// Missing cells of real data observed by a family with a point mass at 0
// (HurdleGamma, HurdleLogNormal: rainfall with dry days) are left out of
// the likelihood too, not fitted as a positive latent, which could never
// be 0 and so would add log psi for every missing cell as for a wet day:
// the log joint and gradient are those of the complete cases (the rows
// with the missing cells dropped, x's with them) to rounding, whole and
// in a loop, and of the hand-masked model for a matrix.
func TestLeftOutZeroMass(t *testing.T) {
	const hurdleGamma = "data N: int\ndata x: real[N]\ndata y: real<lower=0>[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\nparam c: real ~ Normal(0, 1)\nparam k: positive ~ Gamma(2, 2)\ny ~ HurdleGamma(inv_logit(a + b * x), k, k / exp(c + b * x))\n"
	const hurdleLogNormalLoop = "data N: int\ndata x: real[N]\ndata y: real<lower=0>[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\nfor n in 0:N {\n  y[n] ~ HurdleLogNormal(inv_logit(a + b * x[n]), b * x[n], s)\n}\n"
	const full = `"N": 6, "x": [0.1, -0.4, 0.9, 1.3, -1.1, 0.2], "y": [2.5, null, 0, 0.7, null, 0]`
	const cc = `"N": 4, "x": [0.1, 0.9, 1.3, 0.2], "y": [2.5, 0, 0.7, 0]`
	const matrix = "data G: int\ndata S: int\ndata x: real[S]\ndata Y: real<lower=0>[G, S]\nparam a: real[G] ~ Normal(0, 1)\nparam c: real[G] ~ Normal(0, 1)\nparam k: positive ~ Gamma(2, 2)\n"
	const matData = `"G": 2, "S": 3, "x": [0.3, -0.8, 1.1], "Y": [[0, %v, 1.4], [%v, 3.2, 0]]`
	for _, c := range []struct {
		name, src, ref, data, refData string
		cells                         []int
		tol                           float64
	}{
		{"HurdleGamma vector", hurdleGamma, hurdleGamma, full, cc, []int{1, 4}, 1e-12},
		{"HurdleLogNormal loop", hurdleLogNormalLoop, hurdleLogNormalLoop, full, cc, []int{1, 4}, 1e-12},
		{"HurdleGamma matrix",
			matrix + "Y ~ HurdleGamma(inv_logit(a + c * x'), k, k / exp(a - c * x'))\n",
			matrix + "data M: real[G, S]\ntarget += sum(M .* logpdf(Y, HurdleGamma(inv_logit(a + c * x'), k, k / exp(a - c * x'))))\n",
			fmt.Sprintf(matData, "null", "null"), fmt.Sprintf(matData, 0, 0) + `, "M": [[1, 0, 1], [0, 1, 1]]`, []int{1, 3}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, name := compileLeftOut(t, c.src, c.data, c.cells)
			if d := m.Info().DataVar(name); d.ZeroMass == "" || d.Missing != nil {
				t.Fatalf("%s: ZeroMass %q, Missing %v: want its point-mass family and no latent", name, d.ZeroMass, d.Missing)
			}
			ref := compileSrc(t, "ref.gpp", c.ref, nil, jsonData(t, "{"+c.refData+"}"))
			if ref.Dim != m.Dim {
				t.Fatalf("dim %d, the reference's %d", m.Dim, ref.Dim)
			}
			sameAtRandomPoints(t, m, ref, "reference's", rand.New(rand.NewPCG(9, 10)), c.tol)
			checkGradient(t, m, 5, 0.5)
		})
	}
}

// compileLeftOut compiles src with the JSON members data (missing cells
// null) and checks that the cells left out of the observed data, y or Y,
// are cells and that none is fitted as a latent; it returns the model and
// the data's name.
func compileLeftOut(t *testing.T, src, data string, cells []int) (*Model, string) {
	t.Helper()
	m, err := compileSrcErr(t, "m.gpp", src, nil, jsonData(t, "{"+data+"}"))
	if err != nil {
		t.Fatal(err)
	}
	name := "y"
	if strings.Contains(data, `"Y"`) {
		name = "Y"
	}
	if got := m.LeftOut()[name].Cells; !slices.Equal(got, cells) {
		t.Fatalf("LeftOut %s %v, want %v", name, got, cells)
	}
	for _, l := range m.Latents {
		if strings.HasSuffix(l.Name, MissingSuffix) {
			t.Fatalf("latent %s: a left-out cell is fitted", l.Name)
		}
	}
	return m, name
}

// Missing cells of real data that are leaves (check.DataVar.LeftOut) are
// summed out: the log joint and gradient are those of the data with those
// rows deleted (x's with them), to rounding, whole, in a loop, positive,
// unit, truncated by constants and with an observed cell read at a
// constant index (y[0]); the cells are drawn from their ~ as the output
// y_missing, of one element per cell, after the model's outputs.
func TestLeftOutRealLeaves(t *testing.T) {
	const head = "data N: int\ndata x: real[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\n"
	const full = `"N": 6, "x": [0.1, -0.4, 0.9, 1.3, -1.1, 0.2], "y": [%v, null, %v, %v, null, %v]`
	const cc = `"N": 4, "x": [0.1, 0.9, 1.3, 0.2], "y": [%v, %v, %v, %v]`
	real, pos, unit := []any{2.5, -0.3, 0.7, 1.1}, []any{2.5, 0.3, 0.7, 1.1}, []any{0.25, 0.3, 0.7, 0.9}
	for _, c := range []struct {
		name, src string
		vals      []any
	}{
		{"Normal", head + "data y: real[N]\ny ~ Normal(a + b * x, s)\noutput r = a + b\n", real},
		{"StudentT loop", head + "data y: real[N]\nfor n in 0:N {\n  y[n] ~ StudentT(4, a + b * x[n], s)\n}\n", real},
		{"Gamma", head + "data y: positive[N]\ny ~ Gamma(s, s / exp(a + b * x))\n", pos},
		{"Beta", head + "data y: unit[N]\ny ~ Beta(s * inv_logit(a + b * x), s)\n", unit},
		{"truncated", head + "data y: real[N]\ny ~ Normal(a + b * x, s) T[-1, 3]\n", real},
		{"y[0] read", head + "data y: real[N]\nparam m: real ~ Normal(y[0], 5)\ny ~ Normal(m + b * x, s)\n", real},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := compileLeftOut(t, c.src, fmt.Sprintf(full, c.vals...), []int{1, 4})
			ref := compileSrc(t, "ref.gpp", c.src, nil, jsonData(t, "{"+fmt.Sprintf(cc, c.vals...)+"}"))
			if ref.Dim != m.Dim {
				t.Fatalf("dim %d, the reference's %d", m.Dim, ref.Dim)
			}
			sameAtRandomPoints(t, m, ref, "rows deleted", rand.New(rand.NewPCG(11, 12)), 1e-12)
			checkGradient(t, m, 5, 0.5)
			last := m.Outputs[len(m.Outputs)-1]
			if last.Name != "y_missing" || !slices.Equal(last.Shape, []int{2}) || len(m.Outputs) != len(ref.Outputs)+1 {
				t.Fatalf("outputs %+v, want the model's and y_missing [2]", m.Outputs)
			}
			if c.name != "Normal" {
				return
			}
			// the draws of y[1] and y[4] at a = 0.5, b = 2, s = 1.5, from
			// the data's stream alone
			ev, err := m.NewEvaluator()
			if err != nil {
				t.Fatal(err)
			}
			ev.SetDrawRand(rand.New(rand.NewPCG(13, 14)))
			x := []float64{0.5, 2, math.Log(1.5)}
			var y1, y4 []float64
			for range 20000 {
				_, outs, err := ev.Eval(x)
				if err != nil {
					t.Fatal(err)
				}
				y1, y4 = append(y1, outs[1][0]), append(y4, outs[1][1])
			}
			checkMoments(t, "y_missing[0]", y1, 0.5+2*-0.4, 2.25)
			checkMoments(t, "y_missing[1]", y4, 0.5+2*-1.1, 2.25)
		})
	}
}

// A leaf's ~ that runs no iteration (a loop over 0:K, K = 0) observes no
// cell: no leaves after all (NotLeaves), the cell is skipped as unread,
// with no y_missing output, as where the ~ misses one cell.
func TestLeftOutLeafNoIteration(t *testing.T) {
	const src = "data K: int\ndata y: real[N]\nparam mu: real ~ Normal(0, 1)\nfor k in 0:K {\n  y ~ Normal(mu, 1)\n}\n"
	m, err := compileSrcErr(t, "m.gpp", src, nil, jsonData(t, `{"K": 0, "y": [1.0, null, 2.0]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !m.NotLeaves()["y"] || m.LeftOut() != nil || !slices.Equal(m.Skipped()["y"], []int{1}) {
		t.Errorf("NotLeaves %v, LeftOut %v, Skipped %v: want y no leaf, its cell 1 skipped", m.NotLeaves(), m.LeftOut(), m.Skipped())
	}
	for _, o := range m.Outputs {
		t.Errorf("output %s: want none", o.Name)
	}
}

// A gather that observes a missing cell twice makes no leaf: the cells are
// fitted as y_missing, a note says why, and the build's own notes (an
// unrolled loop's) come once, from the rebuild.
func TestLeftOutLeafObservedTwice(t *testing.T) {
	const src = "data y: real[N]\ndata x: real[M]\nparam mu: real ~ Normal(0, 1)\ny[[0, 0, 1, 2]] ~ Normal(mu, 1)\nfor n in 0:2 {\n  let k = 2 * n\n  x[k] ~ Normal(mu, 1)\n}\n"
	m, err := compileSrcErr(t, "m.gpp", src, nil, jsonData(t, `{"y": [null, 1.0, 2.0], "x": [1, 2, 3, 4]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !m.NotLeaves()["y"] || m.LeftOut() != nil || m.Latents[len(m.Latents)-1].Name != "y_missing" {
		t.Fatalf("NotLeaves %v, LeftOut %v, latents %+v: want y no leaf, y_missing fitted", m.NotLeaves(), m.LeftOut(), m.Latents)
	}
	if len(m.Notes) != 2 || m.Notes[0] != "y: a ~ observes one of its missing cells twice, so they are fitted as the latent y_missing, not summed out" || !strings.Contains(m.Notes[1], "the loop over n is unrolled") {
		t.Errorf("notes %q: want the demotion's and the unrolled loop's, once each", m.Notes)
	}
	// with another datum's missing cell unread (a loop of no iteration),
	// built again once more to skip it: the demotion's note stays
	const unread = "data z: real[L]\ndata K: int\nfor k in 0:K {\n  z ~ Normal(mu, 1)\n}\n"
	m, err = compileSrcErr(t, "m.gpp", src+unread, nil, jsonData(t, `{"y": [null, 1.0, 2.0], "x": [1, 2, 3, 4], "z": [1, null], "K": 0}`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Skipped()["z"], []int{1}) || !slices.Contains(m.Notes, "y: a ~ observes one of its missing cells twice, so they are fitted as the latent y_missing, not summed out") {
		t.Errorf("Skipped %v, notes %q: want z's cell skipped and y's demotion noted", m.Skipped(), m.Notes)
	}
}

// Missing cells of int data left out of the likelihood are drawn from
// their ~ at each draw as the output y_missing, ints of one element per
// cell, after the model's outputs, whole or in a loop: Poisson draws whose
// mean and variance are lambda at the point, from the data's stream alone
// (the model's own output draws are those of the data without the cells'
// draws: the same stream, unmoved).
func TestLeftOutIntDrawn(t *testing.T) {
	const head = "data N: int\ndata x: real[N]\ndata y: int<lower=0>[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\noutput r ~ Normal(a, 1)\n"
	const vals = `"N": 6, "x": [0.1, -0.4, 0.9, 1.3, -1.1, 0.2], "y": [3, %v, 1, 7, %v, 2]`
	for _, c := range []struct{ name, src string }{
		{"vector", head + "y ~ PoissonLog(a + b * x)\n"},
		{"loop", head + "for n in 0:N {\n  y[n] ~ Poisson(exp(a + b * x[n]))\n}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := compileLeftOut(t, c.src, fmt.Sprintf(vals, "null", "null"), []int{1, 4})
			ref := compileSrc(t, "ref.gpp", c.src, nil, jsonData(t, "{"+fmt.Sprintf(vals, 0, 0)+"}"))
			last := m.Outputs[len(m.Outputs)-1]
			if last.Name != "y_missing" || !slices.Equal(last.Shape, []int{2}) || len(m.Outputs) != len(ref.Outputs)+1 {
				t.Fatalf("outputs %+v, want the model's and y_missing [2]", m.Outputs)
			}
			ev, err := m.NewEvaluator()
			if err != nil {
				t.Fatal(err)
			}
			rev, err := ref.NewEvaluator()
			if err != nil {
				t.Fatal(err)
			}
			ev.SetRand(rand.New(rand.NewPCG(1, 2)))
			rev.SetRand(rand.New(rand.NewPCG(1, 2)))
			ev.SetDrawRand(rand.New(rand.NewPCG(13, 14)))
			x := []float64{0.5, 2}
			var y1, y4 []float64
			for i := range 20000 {
				_, outs, err := ev.Eval(x)
				if err != nil {
					t.Fatal(err)
				}
				_, routs, err := rev.Eval(x)
				if err != nil {
					t.Fatal(err)
				}
				if i < 100 && outs[0][0] != routs[0][0] {
					t.Fatalf("draw %d: r = %v, without the missing cells' draws %v", i, outs[0][0], routs[0][0])
				}
				for _, v := range outs[1] {
					if v != math.Trunc(v) || v < 0 {
						t.Fatalf("y_missing %v: want counts", outs[1])
					}
				}
				y1, y4 = append(y1, outs[1][0]), append(y4, outs[1][1])
			}
			l1, l4 := math.Exp(0.5+2*-0.4), math.Exp(0.5+2*-1.1)
			checkMoments(t, "y_missing[0]", y1, l1, l1)
			checkMoments(t, "y_missing[1]", y4, l4, l4)
		})
	}
}

// Where a real leaf would be no leaf after all (a ~ observes a missing
// cell twice, or no ~ that runs observes one), int data's cells, which no
// latent can fit, stay left out and are not drawn, with a note saying
// why; so too where the model declares y_missing itself.
func TestLeftOutIntUndrawn(t *testing.T) {
	const head = "data y: int<lower=0>[N]\nparam mu: positive ~ Gamma(2, 1)\n"
	for _, c := range []struct{ name, src, note string }{
		{"twice", head + "y[[0, 0, 1, 2]] ~ Poisson(mu)\n",
			"y has 1 missing value in the data, left out of the likelihood, and it is not drawn: a ~ observes one of its missing cells twice, and their product has no sampler; they stay left out"},
		{"no iteration", "data K: int\n" + head + "for k in 0:K {\n  y ~ Poisson(mu)\n}\n",
			"y has 1 missing value in the data, left out of the likelihood, and it is not drawn: no ~ that runs observes y[0], which has no distribution to draw from; they stay left out"},
		{"declared", head + "y ~ Poisson(mu)\noutput y_missing = mu\n",
			"y has 1 missing value in the data, left out of the likelihood, and it is not drawn: the model declares y_missing at m.gpp:4:8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := compileSrcErr(t, "m.gpp", c.src, nil, jsonData(t, `{"K": 0, "y": [null, 1, 2]}`))
			if err != nil {
				t.Fatal(err)
			}
			if m.NotLeaves() != nil || !slices.Equal(m.LeftOut()["y"].Cells, []int{0}) || !m.LeafUndrawn()["y"] || len(m.Latents) != 1 {
				t.Errorf("NotLeaves %v, LeftOut %v, LeafUndrawn %v, latents %+v: want y's cell 0 left out, undrawn, no y_missing latent", m.NotLeaves(), m.LeftOut(), m.LeafUndrawn(), m.Latents)
			}
			for _, o := range m.Outputs {
				if o.Name == "y_missing" && !strings.Contains(c.src, "output y_missing") {
					t.Errorf("output y_missing: want none")
				}
			}
			if !slices.Contains(m.Notes, c.note) {
				t.Errorf("notes %q, want %q", m.Notes, c.note)
			}
		})
	}
}
