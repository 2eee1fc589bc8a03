package main

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// fullRankSettings is s with --fullrank item (a, a+b or all) and --rank
// or --band, as gpp fit expands them (checkFullRank).
func fullRankSettings(t *testing.T, l *pipeline.Loaded, item string, rank, band int) sgvb.Settings {
	t.Helper()
	s := sgvb.Settings{Families: map[string]sgvb.Family{}, Rank: rank, Band: band}
	addFullRankItem(&s, strings.Split(item, "+"), rank, band)
	if _, err := checkFullRank(&s, l.Model); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJoinFlag: the run the hints name to join the params still apart
// takes them: past sgvb.MaxFullRank elements the low-rank factor (not
// --fullrank all again, which leaves z apart as before), beside a banded
// chain the arrowhead (not --fullrank all, which drops the band), none
// where every run leaves them apart; closerFlag's mean-field advice too.
func TestJoinFlag(t *testing.T) {
	dir := t.TempDir()
	big, err := pipeline.Load(writeFile(t, dir, "big.gpp", "param a: real ~ Normal(0, 1)\nparam s: positive ~ HalfNormal(1)\nparam z: real[2, 60] ~ Normal(0, s)\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	chain, err := pipeline.Load(writeFile(t, dir, "chain.gpp", "param sigma: positive ~ HalfNormal(1)\nparam tau: positive ~ HalfNormal(1)\nparam mu: real[200]\nmu[0] ~ Normal(0, 5)\nmu[1:] ~ Normal(mu[:199], sigma)\nparam c: real ~ Normal(mu[199], tau)\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	small, err := pipeline.Load(writeFile(t, dir, "small.gpp", "param a: real ~ Normal(0, 1)\nparam b: real[3] ~ Normal(a, 1)\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := fullRankSettings(t, big, "all", 0, 0)
	if jointIn(all, "z") {
		t.Fatalf("--fullrank all holds z: %+v", all)
	}
	if got := joinFlag(all, big.Model, []string{"z"}); got != "all --rank 10" {
		t.Errorf("--fullrank all, z apart: %q, want all --rank 10", got)
	}
	low := fullRankSettings(t, big, "all", 10, 0)
	band := fullRankSettings(t, chain, "mu", 0, 1)
	if got := joinFlag(band, chain.Model, []string{"sigma", "tau", "c"}); got != "mu+sigma+tau+c --band 1" {
		t.Errorf("banded mu: %q, want the arrowhead mu+sigma+tau+c --band 1", got)
	}
	if got := closerFlag(band, chain.Model); got != "--fullrank mu+sigma+tau+c --band 1" {
		t.Errorf("closerFlag banded mu: %q", got)
	}
	for _, c := range []struct {
		name string
		l    *pipeline.Loaded
		s    sgvb.Settings
		want string
	}{
		{"mean-field, 122 elements", big, sgvb.Settings{}, "--fullrank all --rank 10"},
		{"mean-field, 4 elements", small, sgvb.Settings{}, "--fullrank all"},
		{"all, 4 elements", small, fullRankSettings(t, small, "all", 0, 0), ""},
		{"all past the limit", big, all, "--fullrank all --rank 10"},
		{"map", small, sgvb.Settings{Method: sgvb.MAP}, ""},
	} {
		if got := closerFlag(c.s, c.l.Model); got != c.want {
			t.Errorf("closerFlag %s: %q, want %q", c.name, got, c.want)
		}
	}
	// the hint itself, with this fit's directory to start from
	h := jointMissHint(all, big.Info, big.Model, 1.2, 0.5, "out")
	if !strings.Contains(h, "with z in mean-field factors: joining them with the rest (--fullrank all --rank 10 --init out)") {
		t.Errorf("hint %q", h)
	}
	h = jointMissHint(low, big.Info, big.Model, 1.2, 0.5, "out")
	if h == "" || strings.Contains(h, "--fullrank all") {
		t.Errorf("--fullrank all --rank 10: hint %q, want one that names no --fullrank all", h)
	}
}

// TestGapWalks: the chain over data's missing cells is hinted only where
// two of them lie within the chain's lag (an AR(2): 2 rows) of each
// other; cells 40 rows apart leave no gap for a banded factor to tie.
func TestGapWalks(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "ar2.gpp", "data y: real[T]\nparam c: real ~ Normal(0, 5)\nparam phi: real[2] ~ Normal(0, 0.5)\nparam sigma: positive ~ HalfNormal(2)\ny[2:] ~ Normal(c + phi[0] * y[1:T-1] + phi[1] * y[:T-2], sigma)\n")
	for _, c := range []struct {
		name string
		na   []int
		want int
	}{
		{"40 apart", []int{20, 60}, 0},
		{"3 apart", []int{20, 23}, 0},
		{"2 apart", []int{20, 22}, 1},
		{"neighbours", []int{20, 21}, 1},
	} {
		var b strings.Builder
		b.WriteString("y\n")
		for i := range 80 {
			if i == c.na[0] || i == c.na[1] {
				b.WriteString("NA\n")
				continue
			}
			b.WriteString([]string{"0.3\n", "-0.4\n", "1.1\n", "0.2\n", "-0.9\n"}[i%5])
		}
		l, err := pipeline.Load(model, []string{writeFile(t, dir, "y.csv", b.String())}, nil)
		if err != nil {
			t.Fatal(err)
		}
		walks := hintedWalks(sgvb.Settings{}, l.File, l.Info, missingLatents(l.Model), 1.1, 0.5)
		if len(walks) != 1 || walks[0].data != "y" || walks[0].band != 2 {
			t.Fatalf("%s: chains %+v, want y_missing's of band 2", c.name, walks)
		}
		if got := len(gapWalks(walks, l.Model)); got != c.want {
			t.Errorf("%s: %d chains kept, want %d", c.name, got, c.want)
		}
	}
}

// TestDivergenceFunnelAdvice: the divergence warning advises non-centring
// only where the model may have a centred hierarchy, else priors.
func TestDivergenceFunnelAdvice(t *testing.T) {
	sd := &sampleDraws{n: 10, chains: 1, divergent: make([]bool, 10), depth: make([]int, 10)}
	sd.divergent[3] = true
	s := nuts.Settings{MaxDepth: 10, Delta: 0.8}
	if w := strings.Join(samplerWarnings(sd, s, divAdvice{}), "\n"); !strings.Contains(w, "a hierarchy's funnel by non-centring it") {
		t.Errorf("centred: %q", w)
	}
	w := strings.Join(samplerWarnings(sd, s, divAdvice{noFunnel: true}), "\n")
	if strings.Contains(w, "non-centring") || !strings.Contains(w, "a prior that keeps it from those") || !strings.Contains(w, "--adapt-delta") {
		t.Errorf("no centred hierarchy: %q", w)
	}
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"param sd: positive ~ HalfNormal(1)\nparam z: real[2] ~ Normal(0, 1)\ny ~ Normal(sd * z, 1)\n", false},
		{"param sd: positive ~ HalfNormal(1)\nparam z: real[2] ~ Normal(0, sd)\ny ~ Normal(z, 1)\n", true},
		{"param sd: positive[2] ~ HalfNormal(1)\nparam L: cholesky_factor_corr[2] ~ LKJCorrCholesky(1)\nparam r: real[2, 2] ~ MvNormalCholesky([0, 0], diag_pre_multiply(sd, L))\ny ~ Normal(r[:, 0] + r[:, 1], 1)\n", true},
	} {
		file, info := checkedSrc(t, "data y: real[2]\n"+c.src)
		if got := mayFunnel(file, info); got != c.want {
			t.Errorf("mayFunnel %q: %v, want %v", c.src, got, c.want)
		}
	}
}

// TestMomentMatchAdviceReach: the LOO warning advises a fit's
// --moment-match only where it would run: not where the draws' own
// weights are past sgvb.MMThreshold (it refuses them), nor for draws
// with missing values redrawn; gpp sample's then.
func TestMomentMatchAdviceReach(t *testing.T) {
	lo := &sgvb.LOO{QK: 0.3, Points: []sgvb.LOOPoint{{K: 0.9}, {K: 0.2}}}
	ds := &drawSet{loo: lo, pitDraws: &looDraws{lr: make([]float64, 1000)}}
	cfg := &fitConfig{}
	if a := momentMatchAdvice(cfg, ds); !strings.HasPrefix(a, "; --moment-match moves the draws") {
		t.Errorf("q's weights fine: %q", a)
	}
	lo.QK = 0.68 // above MMThreshold(1000) = 0.667, below 0.7
	if a := momentMatchAdvice(cfg, ds); strings.Contains(a, "; --moment-match moves") || !strings.Contains(a, "gpp sample --moment-match") {
		t.Errorf("q's weights k̂ 0.68: %q", a)
	}
	lo.QK = 0.3
	ds.pitDraws.marginal = true
	if a := momentMatchAdvice(cfg, ds); !strings.Contains(a, "gpp sample --moment-match") {
		t.Errorf("missing values redrawn: %q", a)
	}
	ds.pitDraws = nil // gpp sample's draws
	if a := momentMatchAdvice(cfg, ds); !strings.HasPrefix(a, "; --moment-match moves the draws") {
		t.Errorf("posterior draws: %q", a)
	}
}

// TestFullRankAllCount: the elements the hints and --fullrank auto count
// for --fullrank all (meanFieldElems, fullRankAllSize) are those of the
// joint factor it builds (checkFullRank), ordered params included by
// their coordinates: a trial's mixture hint said "(5 elements)" of a
// joint factor of 8, its ordered means left out.
func TestFullRankAllCount(t *testing.T) {
	l, err := pipeline.Load(writeFile(t, t.TempDir(), "mix.gpp", "param w: simplex[3] ~ Dirichlet(1)\nparam mu: ordered[3] ~ Normal(0, 5)\nparam sigma: positive[3] ~ HalfNormal(2)\nparam b: real ~ Normal(0, 1)\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := fullRankSettings(t, l, "all", 0, 0)
	joint := 0
	for _, g := range s.FullRankGroups {
		for _, name := range g {
			joint += fullRankElems(latentNamed(l.Model, name))
		}
	}
	n, normal, stick := meanFieldElems(sgvb.Settings{}, l.Model)
	if joint != 9 || n != joint || fullRankAllSize(l.Model) != joint {
		t.Errorf("--fullrank all holds %d elements (want 2 + 3 + 3 + 1 = 9); meanFieldElems counts %d, fullRankAllSize %d", joint, n, fullRankAllSize(l.Model))
	}
	if normal != 2 || stick != 2 { // b and mu's first coordinate; w's two sticks
		t.Errorf("meanFieldElems: %d normal, %d stick elements, want 2 and 2", normal, stick)
	}
}
