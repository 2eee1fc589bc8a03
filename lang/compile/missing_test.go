package compile

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// jsonData reads a JSON object of data, as gpp fit would.
func jsonData(t testing.TB, src string) data.Input {
	t.Helper()
	a, err := data.ReadJSON("d.json", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: a}
}

// The missing cells of observed data are the latent NAME_missing, laid
// out after the params, whose values take the cells' places: the log
// joint and gradient at (params, missing values) are those of the model on
// the data with the cells filled in by those values, bit for bit, for a
// matrix (row-major order), for a vector observed element by element in a
// loop, for data with a lower bound (a positive factor on y − 1), and for
// data of a ~ truncated by constants, the truncated density normalised
// (a positive factor on y for T[0, ], a bounded one on (−1, 2) for
// T[−1, 2], whose density is that of (y + 1)/3, log 3 more per cell). An
// output that reads the data sees the filled-in values.
func TestMissingDataFilledIn(t *testing.T) {
	for _, c := range []struct {
		name, src    string
		withNull     string // the data, missing cells null
		filled       string // the same with %v for the missing cells, in order
		support      dist.Support
		loc, scale   float64
		value        func(x float64) float64 // a missing value from its coordinate
		wantOutputAt []int                   // elements of output Z that are the missing values
		trunc        bool                    // a truncated ~
	}{
		{"matrix", "data Y: real[N, K]\nparam m: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\nY ~ Normal(m, s)\noutput Z = Y\n",
			`{"Y": [[1, null, 2], [null, 0.5, 3]]}`, `{"Y": [[1, %v, 2], [%v, 0.5, 3]]}`,
			dist.Real, 0, 0, func(x float64) float64 { return x }, []int{1, 3}, false},
		{"loop", "data y: real[N]\nparam m: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\nfor i in 0:N {\n  y[i] ~ Normal(m + i, s)\n}\noutput Z = y\n",
			`{"y": [0.3, null, null, 4.5]}`, `{"y": [0.3, %v, %v, 4.5]}`,
			dist.Real, 0, 0, func(x float64) float64 { return x }, []int{1, 2}, false},
		{"lower bound", "data y: real<lower=1>[N]\nparam m: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\ny ~ LogNormal(m, s)\noutput Z = y\n",
			`{"y": ["NaN", 1.5, 2.5, null]}`, `{"y": [%v, 1.5, 2.5, %v]}`,
			dist.Positive, 1, 1, func(x float64) float64 { return 1 + math.Exp(x) }, []int{0, 3}, false},
		{"truncated", "data y: real[N]\nparam m: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\ny ~ Normal(m, s) T[0, ]\noutput Z = y\n",
			`{"y": [0.3, null, null, 4.5]}`, `{"y": [0.3, %v, %v, 4.5]}`,
			dist.Positive, 0, 0, math.Exp, []int{1, 2}, true},
		{"truncated both sides in a loop", "data y: real<lower=-3>[N]\nparam m: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\nfor i in 0:N {\n  y[i] ~ StudentT(4, m, s) T[-1, 2]\n}\noutput Z = y\n",
			`{"y": [0.3, null, 1.5, null]}`, `{"y": [0.3, %v, 1.5, %v]}`,
			dist.Unit, -1, 3, func(x float64) float64 { return -1 + 3/(1+math.Exp(-x)) }, []int{1, 3}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "m.gpp", c.src, nil, jsonData(t, c.withNull))
			if len(m.Latents) != 3 || m.Dim != 4 {
				t.Fatalf("latents %+v, dim %d: want m, s and a missing latent of 2", m.Latents, m.Dim)
			}
			miss := m.Latents[2]
			base := strings.Fields(strings.TrimPrefix(c.src, "data "))[0]
			base = strings.TrimSuffix(base, ":")
			if miss.Name != base+"_missing" || miss.Offset != 2 || miss.Size != 2 || miss.Support != c.support || miss.Loc != c.loc || miss.Scale != c.scale {
				t.Fatalf("missing latent %+v", miss)
			}
			checkGradient(t, m, 5, 0.5)
			ev, err := m.NewEvaluator()
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range [][]float64{{0.2, -0.3, 1.7, -0.4}, {-1, 0.5, 0.01, 2.5}} {
				_, outs, err := ev.Eval(x)
				if err != nil {
					t.Fatal(err)
				}
				z := outs[0]
				v1, v2 := z[c.wantOutputAt[0]], z[c.wantOutputAt[1]]
				if w1, w2 := c.value(x[2]), c.value(x[3]); math.Abs(v1-w1) > 1e-15*math.Abs(w1) || math.Abs(v2-w2) > 1e-15*math.Abs(w2) {
					t.Errorf("at %v: output Z = %v, want %v and %v at elements %v", x, z, w1, w2, c.wantOutputAt)
				}
				full := compileSrc(t, "m.gpp", c.src, nil, jsonData(t, fmtFloats(c.filled, v1, v2)))
				g, gf := make([]float64, 4), make([]float64, 2)
				lp, err := m.LogJoint(x, g)
				if err != nil {
					t.Fatal(err)
				}
				lpf, err := full.LogJoint(x[:2], gf)
				if err != nil {
					t.Fatal(err)
				}
				// a bounded factor's density is that of (y − lo)/scale
				if c.scale > 1 {
					lpf += 2 * math.Log(c.scale)
				}
				same := func(a, b float64) bool { return a == b }
				if c.trunc {
					// with data alone the truncated ~ is fused (truncdata.go),
					// with the missing cells it is not: the same terms,
					// summed in another order
					same = func(a, b float64) bool { return math.Abs(a-b) <= 1e-14*math.Abs(b) }
				}
				if !same(lp, lpf) || !same(g[0], gf[0]) || !same(g[1], gf[1]) {
					t.Errorf("at %v: log joint %.17g, gradient %v; with the cells filled in %.17g, %v", x, lp, g[:2], lpf, gf)
				}
			}
		})
	}
}

// fmtFloats puts vs in the %v of format, in full precision.
func fmtFloats(format string, vs ...float64) string {
	for _, v := range vs {
		format = strings.Replace(format, "%v", strconv.FormatFloat(v, 'g', -1, 64), 1)
	}
	return format
}

// Prior draws of missing values are ancestral: each is drawn from the ~
// that observes the data, at the params' draw, so that y_missing[k] ~
// Normal(m, 2) with m ~ Normal(3, 0.5) has mean 3 and variance 4.25, and
// a positive one (y: real<lower=1>) is drawn inside its bound, its
// coordinate log(y − 1). The coordinates written give the values back.
// Missing values observed in a loop have no such draw: an error at the
// data's declaration.
func TestMissingPriorDraws(t *testing.T) {
	m := compileSrc(t, "m.gpp", "data y: real[N]\nparam m: real ~ Normal(3, 0.5)\ny ~ Normal(m, 2)\noutput y2 = y\n", nil,
		jsonData(t, `{"y": [1, null, 2, null]}`))
	z, _ := priorDraws(t, m, 20000, 3)
	for k := 1; k <= 2; k++ {
		checkMoments(t, "y_missing", column(z, k), 3, 4.25)
	}
	b := compileSrc(t, "m.gpp", "data y: real<lower=1>[N]\nparam m: real ~ Normal(0, 0.1)\ny ~ Normal(m, 2)\noutput y2 = y\n", nil,
		jsonData(t, `{"y": [1.5, null]}`))
	ps, err := b.NewPriorSampler()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 1))
	x, zs := make([]float64, b.Dim), make([]float64, b.Dim)
	for range 200 {
		if _, err := ps.Draw(rng, x, zs); err != nil {
			t.Fatal(err)
		}
		if !(zs[1] > 1) || math.Abs(1+math.Exp(x[1])-zs[1]) > 1e-12*zs[1] {
			t.Fatalf("draw %v, coordinates %v: want a value above 1 and its coordinate log(y − 1)", zs, x)
		}
	}
	loop := compileSrc(t, "m.gpp", "data y: real[N]\nparam m: real ~ Normal(3, 0.5)\nfor i in 0:N {\n  y[i] ~ Normal(m, 2)\n}\noutput y2 = y\n", nil,
		jsonData(t, `{"y": [1, null]}`))
	_, err = loop.NewPriorSampler()
	const want = "m.gpp:1:6: the missing values of `y` (the latent y_missing) cannot be drawn from their prior: the ~ at m.gpp:4:3 observes `y[i]`, and gpp draws missing values from one ~ on the whole data, outside loops and ifs (y ~ D(...))"
	if err == nil || err.Error() != want {
		t.Errorf("prior draws of y[i] ~ in a loop: error %v, want %s", err, want)
	}
}

// A missing scalar is a latent of one element, of the support of the
// family observing it (positive under Exponential); a model that declares
// NAME_missing itself is an error at the data's declaration.
func TestMissingScalarAndName(t *testing.T) {
	m := compileSrc(t, "m.gpp", "data y: real\nparam l: positive ~ Gamma(2, 1)\ny ~ Exponential(l)\noutput y2 = y\n", nil, jsonData(t, `{"y": null}`))
	if len(m.Latents) != 2 || m.Latents[1].Name != "y_missing" || m.Latents[1].Size != 1 || m.Latents[1].Support != dist.Positive || m.Latents[1].Scale != 0 {
		t.Fatalf("latents %+v: want y_missing, one positive element", m.Latents)
	}
	checkGradient(t, m, 2, 0.5)
	_, err := compileSrcErr(t, "m.gpp", "data y: real[N]\nparam y_missing: real\ny ~ Normal(y_missing, 1)\noutput y2 = y\n", nil, jsonData(t, `{"y": [1, null]}`))
	const want = "m.gpp:1:6: the missing values of `y` are fitted as the latent `y_missing`, but the model declares that name at m.gpp:2:7: rename it"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// MissingSampler (PSIS-LOO's draws of missing values given the params):
// it needs no prior on the params (m is flat here), leaves the params'
// coordinates as they are, draws the missing values from their ~ at them
// and returns their log density, truncated by the data's bound where it
// cuts the family's support (y: real<lower=1> under a Normal: the density
// over P(Y > 1)) or by the ~'s truncation (T[1, ], the same); a model whose missing values --prior cannot draw (a ~ in
// a loop) has none.
func TestMissingSampler(t *testing.T) {
	normal := func(v, mu, s float64) float64 {
		z := (v - mu) / s
		return -0.5*z*z - math.Log(s) - 0.5*math.Log(2*math.Pi)
	}
	for _, c := range []struct {
		name, src string
		value     func(x float64) float64
		logMass   float64 // log P(Y in the data's bounds) at m = 0.7
	}{
		{"real", "data y: real[N]\nparam m: real\ny ~ Normal(m, 2)\noutput y2 = y\n", func(x float64) float64 { return x }, 0},
		{"lower bound", "data y: real<lower=1>[N]\nparam m: real\ny ~ Normal(m, 2)\noutput y2 = y\n", func(x float64) float64 { return 1 + math.Exp(x) },
			math.Log(0.5 * math.Erfc((1-0.7)/(2*math.Sqrt2)))},
		{"truncated", "data y: real[N]\nparam m: real\ny ~ Normal(m, 2) T[1, ]\noutput y2 = y\n", func(x float64) float64 { return 1 + math.Exp(x) },
			math.Log(0.5 * math.Erfc((1-0.7)/(2*math.Sqrt2)))},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "m.gpp", c.src, nil, jsonData(t, `{"y": [1.5, null, 2, null]}`))
			s := m.NewMissingSampler()
			if s == nil {
				t.Fatal("no missing sampler")
			}
			if want := []bool{false, true, true}; len(s.Coords()) != 3 || s.Coords()[0] || !s.Coords()[1] || !s.Coords()[2] {
				t.Fatalf("coords %v, want %v", s.Coords(), want)
			}
			rng := rand.New(rand.NewPCG(5, 2))
			x := []float64{0.7, 0, 0}
			var sum, n float64
			for range 4000 {
				lq, err := s.Draw(rng, x)
				if err != nil {
					t.Fatal(err)
				}
				if x[0] != 0.7 {
					t.Fatalf("the param's coordinate changed to %v", x[0])
				}
				v1, v2 := c.value(x[1]), c.value(x[2])
				want := normal(v1, 0.7, 2) + normal(v2, 0.7, 2) - 2*c.logMass
				if math.Abs(lq-want) > 1e-9*math.Abs(want) {
					t.Fatalf("log density %v at %v, %v, want %v", lq, v1, v2, want)
				}
				sum += v1 + v2
				n += 2
			}
			if c.logMass == 0 && math.Abs(sum/n-0.7) > 0.1 {
				t.Errorf("mean of the draws %v, want 0.7", sum/n)
			}
		})
	}
	loop := compileSrc(t, "m.gpp", "data y: real[N]\nparam m: real ~ Normal(3, 0.5)\nfor i in 0:N {\n  y[i] ~ Normal(m, 2)\n}\noutput y2 = y\n", nil,
		jsonData(t, `{"y": [1, null]}`))
	if loop.NewMissingSampler() != nil {
		t.Error("a missing sampler for y[i] ~ in a loop")
	}
}
