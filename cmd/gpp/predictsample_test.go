package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// predictSampleModel has a param of each coordinate kind that a value
// does not give back exactly (a log, a logit, a simplex's logs), a real
// vector, deterministic outputs and a replicate.
const predictSampleModel = `data y: int<lower=0>[N]
param lambda: positive ~ Gamma(2, 0.5)
param p: real<lower=0, upper=1> ~ Beta(2, 2)
param w: simplex[3] ~ Dirichlet(2)
param b: real[2] ~ Normal(0, 1)
y ~ Poisson(lambda * p + w[0])
output s = lambda * p + w[0] + b[0] - b[1]
output lw = log(w)
output y_rep ~ Poisson(lambda * p + w[0])
`

// TestPredictSampleExact: gpp predict over a sample's coords.csv, with the
// sample's model, data and seed, gives the sample's own values: every
// param and output, replicates included, bit for bit. The draws are made
// up (no sampler runs), so this holds whatever infer/nuts is.
func TestPredictSampleExact(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", predictSampleModel)
	data := writeFile(t, dir, "y.csv", "y\n3\n0\n2\n5\n")
	l, err := pipeline.Load(model, []string{data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
	if err != nil {
		t.Fatal(err)
	}
	chain := func(seed uint64, n int) nuts.Chain {
		us := make([]float64, n*u.Dim())
		for i := range us {
			us[i] = 0.7*float64((int(seed)*31+i*17)%23)/23 - 0.35 + 0.1*float64(i%5)/3
		}
		return nuts.Chain{Draws: us, LogP: make([]float64, n), Accept: make([]float64, n), Depth: make([]int, n),
			Leapfrogs: make([]int, n), Divergent: make([]bool, n), Energy: make([]float64, n)}
	}
	res := &nuts.Result{Dim: u.Dim(), Chains: []nuts.Chain{chain(1, 7), chain(2, 7), chain(3, 7)}}
	const seed = 5
	sd, err := makeSampleDraws(u, l.Model, res, seed)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	h := drawsHeader{model: model, modelHash: fitfile.ModelHash(l.Source)}
	if err := writeCoordsCSV(&b, h, sd, l.Model); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, dir, coordsFile, b.String())
	sc, err := readSampleCoords(path)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := pipeline.LoadPredict(model, []string{data}, nil, compile.PredictOptions{}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.match(lp.Model, model, sampleNeeds); err != nil {
		t.Fatal(err)
	}
	got, err := evalSampleCoords(sc, lp.Model, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.ds.ncol != sd.ds.ncol || got.chains != 3 || got.n != 7 {
		t.Fatalf("%d columns, %d chains × %d; want %d, 3 × 7", got.ds.ncol, got.chains, got.n, sd.ds.ncol)
	}
	for c := range sd.ds.cols {
		for d := range sd.ds.cols[c] {
			if g, w := got.ds.cols[c][d], sd.ds.cols[c][d]; g != w {
				t.Fatalf("column %d draw %d: predict %v, the sample %v", c, d, g, w)
			}
		}
	}
	for d := range sd.chain {
		if got.chain[d] != sd.chain[d] || got.draw[d] != sd.draw[d] {
			t.Fatalf("row %d: chain %d draw %d, want %d %d", d, got.chain[d], got.draw[d], sd.chain[d], sd.draw[d])
		}
	}
}

// TestPredictSampleCLI: gpp predict SAMPLE with the sample's model and
// data writes the sample's params and outputs in every row, keeping
// chain__ and draw__; a model whose param has another type is refused.
// Holds for any sampler.
func TestPredictSampleCLI(t *testing.T) {
	dir := t.TempDir()
	s, p := filepath.Join(dir, "s"), filepath.Join(dir, "p")
	if code, _, stderr := runGpp("sample", poissonModel, poissonData, "--quiet", "--chains", "2", "--warmup", "50", "--draws", "30", "--out", s); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	if code, _, stderr := runGpp("predict", s, poissonModel, poissonData, "--quiet", "--out", p); code != exitOK {
		t.Fatalf("predict: exit %d:\n%s", code, stderr)
	}
	sh, srows := drawLines(t, filepath.Join(s, drawsFile))
	ph, prows := drawLines(t, filepath.Join(p, drawsFile))
	if want := "chain__,draw__,lambda,twice"; strings.Join(ph, ",") != want {
		t.Fatalf("predict's header %v, want %s", ph, want)
	}
	if len(prows) != 60 || len(srows) != 60 || len(sh) != 11 {
		t.Fatalf("%d and %d rows, want 60", len(prows), len(srows))
	}
	for d := range prows {
		sc := strings.Split(srows[d], ",")
		if want := strings.Join(append(sc[:2:2], sc[9:]...), ","); prows[d] != want {
			t.Fatalf("row %d: predict %s, the sample %s", d, prows[d], want)
		}
	}
	// a param of another type
	other := writeFile(t, dir, "o.gpp", strings.Replace(readText(t, poissonModel), "param lambda: positive", "param lambda: real<lower=0, upper=10>", 1))
	code, _, stderr := runGpp("predict", s, other, poissonData, "--out", filepath.Join(dir, "q"))
	if code != exitError || !strings.Contains(stderr, "param lambda is real<lower=0, upper=10> here, but the sample at "+filepath.Join(s, coordsFile)+" has positive") {
		t.Errorf("another type: exit %d:\n%s", code, stderr)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
