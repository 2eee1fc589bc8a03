package sgvb

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
	"github.com/gpplang/gpp/lang/parser"
)

// compiledTarget adapts a compiled model to Target, as gpp fit's does
// (internal/pipeline, which this package cannot import in its tests).
type compiledTarget struct{ m *compile.Model }

func (t compiledTarget) LogJoint(x, g []float64) (float64, error) { return t.m.LogJoint(x, g) }
func (t compiledTarget) LogJointValue(x []float64) (float64, error) {
	return t.m.LogJointValue(x)
}
func (t compiledTarget) Clone() Target { return compiledTarget{t.m.Clone()} }

// compiledModel compiles src against tab (read as d.csv) and returns the
// model with its latents as Fit takes them, as gpp fit's pipeline does.
func compiledModel(t *testing.T, src string, tab *data.Table) (*compile.Model, []Latent) {
	t.Helper()
	f, err := parser.ParseFile("m.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info, err := check.Check(f, &check.Config{})
	if err != nil {
		t.Fatal(err)
	}
	bound, err := data.Bind(info, []data.Input{{File: "d.csv", Table: tab}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := compile.Compile(f, info, bound)
	if err != nil {
		t.Fatal(err)
	}
	lat := make([]Latent, len(m.Latents))
	for i, l := range m.Latents {
		lat[i] = Latent{Name: l.Name, Offset: l.Offset, Size: l.Size, Shape: l.Shape, Support: l.Support, Init: l.Init, Loc: l.Loc, Scale: l.Scale, LocV: l.LocV, ScaleV: l.ScaleV}
	}
	return m, lat
}

// TestCompiledZeroAllocs: an SGVB step and an ELBO evaluation allocate
// nothing for compiled models using tv_filter, renewal, a ~ summed by groups from
// sufficient statistics (Bernoulli of a unit vector picked per row, so
// beta factors too, and the logit-normal ones of betaFallback's refit;
// Normal of picked means), and the zero-inflated and hurdle NegBinomial
// counts (their hoisted kernels), one worker and two.
func TestCompiledZeroAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var csv strings.Builder
	csv.WriteString("g,y,x,z\n")
	for range 200 {
		g := rng.IntN(4)
		fmt.Fprintf(&csv, "%d,%d,%g,%g\n", g, rng.IntN(2), float64(g)+rng.NormFloat64(), 5+rng.NormFloat64())
	}
	tab, err := data.ReadCSV("d.csv", strings.NewReader(csv.String()))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, src string }{
		{"tv_filter", "data z: real[N]\nparam a: unit[N] ~ Beta(2, 2)\nparam e: positive[N] ~ Gamma(2, 1)\nparam s: positive ~ Exponential(1)\nz ~ Normal(tv_filter(a, e), s)\n"},
		{"renewal", "data z: real[N]\nparam R: positive[N] ~ Gamma(20, 20)\nparam I0: positive[3] ~ Gamma(2, 1)\nparam asc: unit ~ Beta(2, 2)\nparam s: positive ~ Exponential(1)\nz ~ Normal(asc * renewal(R, [0.5, 0.3, 0.2], I0), s)\n"},
		{"Bernoulli by groups", "data g: int<lower=0, upper=3>[N]\ndata y: int<lower=0, upper=1>[N]\nparam p: unit[4] ~ Beta(1, 1)\ny ~ Bernoulli(p[g])\n"},
		{"Normal by groups", "data g: int<lower=0, upper=3>[N]\ndata x: real[N]\nparam mu: real[4] ~ Normal(0, 5)\nparam s: positive ~ Exponential(1)\nx ~ Normal(mu[g], s)\n"},
		{"ZeroInflatedNegBinomial", "data y: int<lower=0>[N]\ndata x: real[N]\nparam b: real ~ Normal(0, 1)\nparam zi: unit ~ Beta(1, 1)\nparam phi: positive ~ Gamma(2, 0.5)\ny ~ ZeroInflatedNegBinomial(1 - zi, exp(b * x), phi)\n"},
		{"HurdleNegBinomial", "data y: int<lower=0>[N]\ndata x: real[N]\nparam b: real ~ Normal(0, 1)\nparam hu: unit ~ Beta(1, 1)\nparam phi: positive ~ Gamma(2, 0.5)\ny ~ HurdleNegBinomial(1 - hu, exp(b * x), phi)\n"},
	} {
		m, lat := compiledModel(t, c.src, tab)
		for _, w := range []int{1, 2} {
			for _, logitNormal := range []bool{false, true} { // beta factors, or betaFallback's refit
				s := Settings{Seed: 1, Workers: w, DrawsPerStep: w, logitNormalUnit: logitNormal}.withDefaults()
				e, err := newEngine(compiledTarget{m}, lat, &s)
				if err != nil {
					t.Fatal(err)
				}
				unit := FamilyBeta
				if logitNormal {
					unit = FamilyNormal
				}
				has := false
				for _, b := range e.blocks {
					has = has || b.fam == unit && b.support == dist.Unit
				}
				if !has && c.name != "Normal by groups" {
					t.Errorf("%s: no %v factor of a unit latent", c.name, unit)
				}
				checkZeroAllocs(t, e, fmt.Sprintf("%s, workers %d, logit-normal %v", c.name, w, logitNormal))
				e.close()
			}
		}
	}
}
