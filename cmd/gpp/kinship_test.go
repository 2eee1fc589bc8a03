package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// kinHead declares what the models of TestKnownCovs share.
const kinHead = `data y: real[N]
data x: real[N]
data id: int<lower=0, upper=N-1>[N]
data G: real[N, N]
data s: positive[N]
let LG = chol(G)
param mu: real ~ Normal(0, 10)
param sa: positive ~ HalfNormal(1)
param se: positive ~ HalfNormal(1)
`

// TestKnownCovs: a vector u with a data covariance scaled by a param
// (MvNormal declared or a ~ statement, MvNormalCholesky of a chol let,
// the non-centred let u = sa * (LG * z)) that is a term of a Normal
// likelihood's location (added, subtracted, indexed) is found, with its
// eigenbasis marginal written for its names; an ordinary hierarchy, a
// covariance of data alone or of params alone, a prior mean not zero, a
// scale per record, a Poisson likelihood, u scaled in the location and a
// z not standard normal are not.
func TestKnownCovs(t *testing.T) {
	const nc = "param z: real[N] ~ Normal(0, 1)\nlet u = sa * (LG * z)\n"
	for _, c := range []struct {
		name, src string
		want      string // the marginal; "" for none
	}{
		{"non-centred", nc + "y ~ Normal(mu + u, se)\n",
			"data G: cov_matrix[N] (checked positive definite when the data load), let d = eigenvalues_sym(G), let U = eigenvectors_sym(G) and U' * y ~ Normal(mu * (U' * rep(1, N)), sqrt(square(sa) * d + square(se)))"},
		{"MvNormal", "param u: real[N] ~ MvNormal(rep(0, N), square(sa) * G)\ny ~ Normal(mu + u, se)\n",
			"U' * y ~ Normal(mu * (U' * rep(1, N)), sqrt(square(sa) * d + square(se)))"},
		{"MvNormalCholesky statement", "param u: real[N]\nu ~ MvNormalCholesky(rep(0, N), LG * sa)\ny ~ Normal(u + mu + 2 * x, se)\n",
			"eigenvectors_sym(G) and U' * y ~ Normal(U' * (mu + 2 * x), sqrt(square(sa) * d + square(se)))"},
		// a let of z that the likelihood does not read (a breeding value
		// on another scale) before the one it does
		{"second let", "param z: real[N] ~ Normal(0, 1)\nlet bv = 2 * sa * (LG * z)\nlet u = sa * (LG * z)\ny ~ Normal(mu + u, se)\n",
			"U' * y ~ Normal(mu * (U' * rep(1, N)), sqrt(square(sa) * d + square(se)))"},
		{"subtracted", nc + "y ~ Normal(mu - x - u, se)\n", "U' * y ~ Normal(U' * (mu - x), sqrt(square(sa) * d + square(se)))"},
		{"no mean", nc + "y ~ Normal(-x - u, se)\n", "U' * y ~ Normal(U' * (-x), sqrt(square(sa) * d + square(se)))"},
		{"u alone", nc + "y ~ Normal(u, se)\n", "U' * y ~ Normal(0, sqrt("},
		{"indexed", nc + "y ~ Normal(mu + u[id], se)\n", "(u enters indexed: it needs one record per row of G, in its row order, and u whole in place of the index)"},
		{"ordinary hierarchy", "param u: real[N] ~ Normal(0, sa)\ny ~ Normal(mu + u, se)\n", ""},
		{"MvNormalCholesky at 0", "param u: real[N] ~ MvNormalCholesky(0, sa * LG)\ny ~ Normal(mu + u, se)\n", "U' * y ~ Normal(mu * (U' * rep(1, N)), sqrt(square(sa) * d + square(se)))"},
		{"a mean not zero", "param u: real[N] ~ MvNormal(x, square(sa) * G)\ny ~ Normal(mu + u, se)\n", ""},
		{"data covariance alone", "param u: real[N] ~ MvNormal(rep(0, N), G)\ny ~ Normal(mu + u, se)\n", ""},
		{"non-centred without a data matrix", "param z: real[N] ~ Normal(0, 1)\nlet u = sa * z\ny ~ Normal(mu + u, se)\n", ""},
		{"a scale per record", nc + "y ~ Normal(mu + u, s * se)\n", ""},
		{"Poisson", nc + "param w: real[N] ~ Normal(0, 1)\nid ~ Poisson(exp(mu + u))\n", ""},
		{"u scaled in the location", nc + "y ~ Normal(mu + 2 * u, se)\n", ""},
		{"a let of data, not of z", "param z: real[N] ~ Normal(0, 1)\nlet u = sa * (LG * x)\ny ~ Normal(mu + u + z, se)\n", ""},
		{"z not standard normal", "param z: real[N] ~ Normal(0, 2)\nlet u = sa * (LG * z)\ny ~ Normal(mu + u, se)\n", ""},
	} {
		file, info := checkedSrc(t, kinHead+c.src)
		ks := knownCovs(file, info)
		if c.want == "" {
			if len(ks) != 0 {
				t.Errorf("%s: found %s, want none", c.name, knownCovHint(info, ks[0]))
			}
			continue
		}
		if len(ks) != 1 {
			t.Errorf("%s: %d found, want 1", c.name, len(ks))
			continue
		}
		if h := knownCovHint(info, ks[0]); !strings.Contains(h, c.want) {
			t.Errorf("%s: hint\n%s\nwant it to contain\n%s", c.name, h, c.want)
		}
	}
}

// TestKnownCovHintDeclared: with G declared cov_matrix[N] (checked
// positive definite when it loads) the hint takes its eigenvalues as they
// are, neither declaring G again nor clamping them with abs.
func TestKnownCovHintDeclared(t *testing.T) {
	src := strings.Replace(kinHead, "data G: real[N, N]", "data G: cov_matrix[N]", 1) + "param z: real[N] ~ Normal(0, 1)\nlet u = sa * (LG * z)\ny ~ Normal(mu + u, se)\n"
	file, info := checkedSrc(t, src)
	ks := knownCovs(file, info)
	if len(ks) != 1 {
		t.Fatalf("%d found, want 1", len(ks))
	}
	h := knownCovHint(info, ks[0])
	if want := "integrate u out, in the eigenbasis of G: let d = eigenvalues_sym(G), let U"; !strings.Contains(h, want) {
		t.Errorf("hint\n%s\nwant it to contain\n%s", h, want)
	}
}

// TestKnownCovHintFit: gpp fit of a non-centred animal model of 60
// records (families of 6 sharing half their genes, h² 0.5) raises k̂'s
// alarm and hints at integrating u out, in place of the non-centred hint
// on z; the eigenbasis model the hint writes fits with no such hint.
func TestKnownCovHintFit(t *testing.T) {
	const n, fam = 60, 6
	r := rand.New(rand.NewPCG(3, 5))
	G := make([][]float64, n)
	for i := range G {
		G[i] = make([]float64, n)
		for j := range G[i] {
			switch {
			case i == j:
				G[i][j] = 1
			case i/fam == j/fam:
				G[i][j] = 0.5
			}
		}
	}
	y := make([]float64, n)
	famEffect := 0.0
	for i := range y {
		if i%fam == 0 {
			famEffect = r.NormFloat64() * math.Sqrt(0.5)
		}
		y[i] = 10 + famEffect + r.NormFloat64()*math.Sqrt(0.5)*math.Sqrt(0.5) + r.NormFloat64()*math.Sqrt(0.5)
	}
	dir := t.TempDir()
	js, _ := json.Marshal(map[string]any{"y": y, "G": G})
	data := filepath.Join(dir, "d.json")
	nc := filepath.Join(dir, "am.gpp")
	eig := filepath.Join(dir, "eig.gpp")
	if err := os.WriteFile(data, js, 0o644); err != nil {
		t.Fatal(err)
	}
	const head = "data y: real[N]\ndata G: real[N, N]\nparam mu: real ~ Normal(10, 10)\nparam sigma_a: positive ~ HalfNormal(1)\nparam sigma_e: positive ~ HalfNormal(1)\n"
	if err := os.WriteFile(nc, []byte(head+"let LG = chol(G)\nparam z: real[N] ~ Normal(0, 1)\nlet u = sigma_a * (LG * z)\ny ~ Normal(mu + u, sigma_e)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runGpp("fit", nc, data, "--out", filepath.Join(dir, "nc"), "--seed", "1")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	i := strings.Index(stderr, "hint: the let u = sigma_a * (LG * z) at 8:1 and y ~ Normal(mu + u, sigma_e) at 9:1 make a random effect with a known covariance")
	if i < 0 {
		t.Fatalf("no known-covariance hint:\n%s", stderr)
	}
	if strings.Contains(stderr, "non-centred") {
		t.Errorf("a non-centred hint beside the known-covariance one:\n%s", stderr)
	}
	// the curvature hint (mu's sd 1.9× too small, moving with z) names no
	// joint factor that holds z, which the hint above says no joint factor mends
	if !strings.Contains(stderr, "too small: the log density's curvature") || !strings.Contains(stderr, "a joint factor that holds z does not mend this") ||
		strings.Contains(stderr, "one joint factor") || strings.Contains(stderr, "--fullrank auto") {
		t.Errorf("want the curvature hint pointing to the known-covariance one, advising no --fullrank:\n%s", stderr)
	}
	// the eigenbasis model as the hint writes it, pasted back, G's
	// declaration in place of the head's
	form := stderr[i:]
	form = form[strings.Index(form, "data G: cov_matrix[N] (checked positive definite when the data load), let d = "):]
	form = form[:strings.Index(form, ", in place of")]
	form = strings.Replace(form, " (checked positive definite when the data load), let d", "\nlet d", 1)
	form = strings.Replace(strings.Replace(form, ", let U", "\nlet U", 1), " and U' * y", "\nU' * y", 1)
	if err := os.WriteFile(eig, []byte(strings.Replace(head, "data G: real[N, N]\n", "", 1)+form+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runGpp("fit", eig, data, "--out", filepath.Join(dir, "eig"), "--seed", "1")
	if code != exitOK || strings.Contains(stderr, "known covariance") {
		t.Fatalf("the eigenbasis model: exit %d:\n%s\n%s", code, form, stderr)
	}
}

// TestKnownCovParameterisationHints: gpp fit's hints on an animal model
// give the known-covariance hint first, and the mean-field hint points
// back to it, the cure, advising no --fullrank all, which would hold z
// (the marginal hint's model keeps it: TestMarginalParameterisationHints).
func TestKnownCovParameterisationHints(t *testing.T) {
	m := &compile.Model{Latents: []compile.Latent{
		{Name: "mu", Support: dist.Real, Size: 1},
		{Name: "z", Support: dist.Real, Size: 8},
	}}
	file, info := checkedSrc(t, kinHead+"param z: real[N] ~ Normal(0, 1)\nlet u = sa * (LG * z)\ny ~ Normal(mu + u, se)\n")
	l := &pipeline.Loaded{File: file, Info: info, Model: m}
	wantHints(t, parameterisationHints(sgvb.Settings{}, l, "", 1.1, math.NaN(), nil, "", "", false), []string{
		"the let u = sa * (LG * z) at 11:1 and y ~ Normal(mu + u, se) at 12:1 make a random effect with a known covariance",
		meanFieldHead + "a joint factor that holds z does not mend this: q cannot follow the funnel of a random effect with a known covariance (the hint above)",
	})
}
