package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// TestCurvatureHintSmallModel: for a fit of at most smallModelMax
// coordinates the curvature hint names --family pathfinder and laplace,
// joint normals that are quick there (a 4PL curve of 5 coordinates: lec's
// sd 0.027 mean-field, laplace 0.037, pathfinder 0.041, NUTS 0.043), with
// or without --fullrank auto's refit; for a larger fit it does not.
func TestCurvatureHintSmallModel(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", "param a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0.95 * a, 0.3)\n")
	code, _, stderr := runSafe(t, "fit", model, "--quiet", "--out", filepath.Join(dir, "o"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	const clause = "at 2 coordinates, --family pathfinder or --family laplace is a quick fit with a joint normal"
	if !strings.Contains(stderr, "--fullrank all (2 elements) gives") || !strings.Contains(stderr, clause) {
		t.Errorf("stderr:\n%s\nwant the curvature hint with %q", stderr, clause)
	}
	cc := &curvCheck{
		c:     &sgvb.Curvature{Ratio: []float64{2.5, 1.2}, Partner: []int{1, 0}, Corr: []float64{0.9, 0.9}},
		names: []string{"a", "b"}, lats: []int{0, 1},
		r:        &sgvb.Result{Dim: 2, Factors: []sgvb.Factor{{Name: "a", Size: 1}, {Name: "b", Size: 1, Offset: 1}}},
		autoLost: "a+b",
	}
	if h := curvatureHint(cc); !strings.Contains(h, clause) {
		t.Errorf("after --fullrank auto: hint %q, want it to hold %q", h, clause)
	}
	cc.r.Dim = smallModelMax + 1
	if h := curvatureHint(cc); strings.Contains(h, "--family pathfinder") {
		t.Errorf("%d coordinates: hint %q names pathfinder", cc.r.Dim, h)
	}
}

// TestCurvatureHintPartnerLeftOut: where the group the curvature hint
// recommends leaves out the element the worst one is most correlated
// with, the hint says it need not join: a Hui–Walter fit read "sp1 moves
// with se2 (correlation −0.70)" then "--fullrank prev+sp1", as if se2
// had been forgotten.
func TestCurvatureHintPartnerLeftOut(t *testing.T) {
	code, _, stderr := runSafe(t, "fit", "testdata/huiwalter_flat.gpp", "testdata/huiwalter.csv", "--seed", "1", "--quiet", "--out", filepath.Join(t.TempDir(), "o"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "sp1 moves with se2") || !strings.Contains(stderr, "--fullrank prev+sp1 (3 elements; by that curvature se2 need not join it)") {
		t.Errorf("stderr:\n%s\nwant se2 named as the partner and as not needed in prev+sp1", stderr)
	}
	if strings.Contains(stderr, "need not join it) --init") {
		t.Errorf("the clause reached the warm-start command:\n%s", stderr)
	}
}

// TestCurvatureHintHierarchy: a hierarchy's joint mode shrinks its scales,
// so for one the curvature hint offers no --family laplace or pathfinder
// (a bivariate meta-analysis: tau[0] 1.68 by laplace, 1.36 by pathfinder,
// NUTS 0.48): centred, non-centred, or a param per observation.
func TestCurvatureHintHierarchy(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		src  string
		hier bool
	}{
		{"param a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0.95 * a, 0.3)\n", false},
		{"data y: real[N]\nparam tau: positive ~ HalfNormal(1)\nparam b: real[N] ~ Normal(0, tau)\ny ~ Normal(b, 1)\n", true},
		{"data y: real[N]\nparam tau: positive ~ HalfNormal(1)\nparam z: real[3] ~ Normal(0, 1)\ny ~ Normal(sum(tau * z), 1)\n", true},
		{"data y: real[N]\nparam z: real[N, 2] ~ Normal(0, 1)\ny ~ Normal(z[:, 0] + z[:, 1], 1)\n", true},
	} {
		l, err := pipeline.Parse(writeFile(t, dir, "m.gpp", c.src), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := hierarchical(l); got != c.hier {
			t.Errorf("hierarchical = %v, want %v for\n%s", got, c.hier, c.src)
		}
	}
	cc := &curvCheck{
		c:     &sgvb.Curvature{Ratio: []float64{2.5, 1.2}, Partner: []int{1, 0}, Corr: []float64{0.9, 0.9}},
		names: []string{"a", "b"}, lats: []int{0, 1},
		r:        &sgvb.Result{Dim: 2, Factors: []sgvb.Factor{{Name: "a", Size: 1}, {Name: "b", Size: 1, Offset: 1}}},
		autoLost: "a+b", hier: true,
	}
	if h := curvatureHint(cc); strings.Contains(h, "--family pathfinder") {
		t.Errorf("a hierarchy's hint %q names pathfinder", h)
	}
}

// TestJointMissHint: a fit with joint factors whose Pareto k̂ still raises
// the alarm gets a hint where it had only the warning: with every param
// joint (or a laplace fit), that q's sds may be too narrow and NUTS is
// the check; with some left mean-field, those named and --fullrank all
// warm-started; none for a mean-field fit (its hints are others'), MAP,
// or a k̂ without alarm.
func TestJointMissHint(t *testing.T) {
	dir := t.TempDir()
	l, err := pipeline.Load(writeFile(t, dir, "m.gpp", "data y: real[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\nparam r: positive ~ Gamma(2, 2)\ny ~ Normal(a + b, r)\n"), []string{writeFile(t, dir, "y.csv", "y\n0.5\n1.2\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	full := sgvb.Settings{Families: map[string]sgvb.Family{"all": sgvb.FamilyFullRank}}
	group := sgvb.Settings{FullRankGroups: [][]string{{"a", "b"}}}
	for _, c := range []struct {
		name string
		s    sgvb.Settings
		k    float64
		want string // "" for none
	}{
		{"all", full, 0.93, "q holds the params jointly and Pareto k̂ still says it misses the posterior"},
		{"laplace", sgvb.Settings{Method: sgvb.Laplace}, 0.93, "q holds the params jointly"},
		{"group", group, 0.93, "with r in mean-field factors: joining them with the rest (--fullrank all --init out)"},
		{"group with r", sgvb.Settings{FullRankGroups: [][]string{{"a", "b", "r"}}}, 0.93, "q holds the params jointly"},
		{"no alarm", full, 0.5, ""},
		{"mean-field", sgvb.Settings{}, 0.93, ""},
		{"map", sgvb.Settings{Method: sgvb.MAP}, 0.93, ""},
	} {
		got := jointMissHint(c.s, l.Info, l.Model, c.k, 0.5, "out")
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: hint %q, want %q", c.name, got, c.want)
		}
	}
}

// TestJointMissHintLeftOut: beside a banded chain the hint's arrowhead
// leaves a simplex out (it joins full-rank factors only), and says so
// where it names the simplex among the mean-field params: a nowcast's
// delay p was named and left out with no word, and adding it was an
// error (user trial t68).
func TestJointMissHintLeftOut(t *testing.T) {
	dir := t.TempDir()
	l, err := pipeline.Load(writeFile(t, dir, "m.gpp", "data n: int[T, D]\n"+
		"param sig: positive ~ HalfNormal(0.5)\nparam loglam: real[T]\nloglam[0] ~ Normal(3, 2)\nloglam[1:] ~ Normal(loglam[:T-1], sig)\n"+
		"param p: simplex[D] ~ Dirichlet(1)\nparam phi: positive ~ Exponential(0.05)\nn ~ NegBinomial(outer(exp(loglam), p), phi)\n"),
		[]string{writeFile(t, dir, "n.json", `{"n": [[3, 1, 0], [5, 2, 1], [4, 2, 0], [7, 3, 1]]}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	band := sgvb.Settings{Band: 1, FullRankGroups: [][]string{{"loglam"}}}
	got := jointMissHint(band, l.Info, l.Model, 1.2, 0.5, "out")
	const want = "with sig, p and phi in mean-field factors: joining them with the rest (--fullrank loglam+sig+phi --band 1 --init out) may reach a higher ELBO " +
		"(p stays mean-field in it: a simplex joins full-rank factors only, its stick-breaking coordinates not implemented for banded ones);"
	if !strings.Contains(got, want) {
		t.Errorf("banded: hint %q, want %q", got, want)
	}
	full := sgvb.Settings{FullRankGroups: [][]string{{"loglam", "sig"}}}
	if got := jointMissHint(full, l.Info, l.Model, 1.2, 0.5, "out"); !strings.Contains(got, "(--fullrank all --init out)") || strings.Contains(got, "stays mean-field") {
		t.Errorf("full-rank: hint %q, want --fullrank all and none left out", got)
	}
}
