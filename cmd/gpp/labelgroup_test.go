package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// btTeamsModel is the sports trial's Bradley-Terry model: two columns of
// teams, home and away, index one axis of abilities.
const btTeamsModel = `data J: int
data home: int<lower=0, upper=J-1>[N]
data away: int<lower=0, upper=J-1>[N]
data homewin: int[N]
param ability: ABILITY ~ Normal(0, 1)
param hadv: real ~ Normal(0, 1)
homewin ~ BernoulliLogit(hadv + ability[home] - ability[away])
output p_home = inv_logit(hadv + ability[home] - ability[away])
`

// btMatches are four teams' matches; Derby never plays away, so that the
// fit codes the union of the two columns' labels.
const btMatches = "home,away,homewin\nArsenal,Chelsea,1\nChelsea,Leeds,0\nLeeds,Arsenal,1\nDerby,Chelsea,0\nArsenal,Leeds,1\nDerby,Arsenal,1\nChelsea,Arsenal,0\nLeeds,Chelsea,1\n"

// TestPredictNewLevelsTwoColumns: gpp predict --new-levels codes the new
// labels of home and away together: a new team at home and another away
// are two new teams (Ipswich 4, Leicester 5), with probabilities of their
// own, and a new team only away grows J as one only at home does. A
// sum_to_zero_vector's refusal holds whichever column holds the new team,
// and an unseen label without --new-levels suggests the fit's label it
// most likely misspells.
func TestPredictNewLevelsTwoColumns(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "bt.gpp", strings.Replace(btTeamsModel, "ABILITY", "real[J]", 1))
	matches := writeFile(t, dir, "matches.csv", btMatches)
	fit := fitInto(t, dir, "fit", model, matches)
	predict := func(name, rows string, args ...string) (int, string) {
		t.Helper()
		file := writeFile(t, dir, name+".csv", rows)
		args = append([]string{"predict", fit, model, file, "--draw", "none", "--out", filepath.Join(dir, name)}, args...)
		code, _, stderr := runSafe(t, args...)
		return code, stderr
	}

	code, stderr := predict("both", "home,away\nIpswich,Chelsea\nChelsea,Leicester\n", "--new-levels")
	if code != 0 || !strings.Contains(stderr, "(Chelsea 1, Ipswich 4); J = 6") || !strings.Contains(stderr, "(Chelsea 1, Leicester 5)") || !strings.Contains(stderr, "ability is [6] here, [4] in the fit") {
		t.Errorf("a new team at home, another away: exit %d, stderr %s", code, stderr)
	}
	// each match's p_home reads its own new team's ability (ability.5 is
	// Ipswich's, code 4; ability.6 Leicester's), drawn apart
	draws := drawCols(t, filepath.Join(dir, "both", "draws.csv"))
	p0, p1, h := draws["p_home.1"], draws["p_home.2"], draws["hadv"]
	chelsea, ipswich, leicester := draws["ability.2"], draws["ability.5"], draws["ability.6"]
	logit := func(p float64) float64 { return math.Log(p / (1 - p)) }
	apart := 0
	for d := range p0 {
		if math.Abs(logit(p0[d])-(h[d]+ipswich[d]-chelsea[d])) > 1e-3 || math.Abs(logit(p1[d])-(h[d]+chelsea[d]-leicester[d])) > 1e-3 {
			t.Fatalf("draw %d: p_home %v, %v; hadv %v, abilities Chelsea %v, Ipswich %v, Leicester %v", d, p0[d], p1[d], h[d], chelsea[d], ipswich[d], leicester[d])
		}
		if ipswich[d] != leicester[d] {
			apart++
		}
	}
	if len(p0) == 0 || apart < len(p0)/2 {
		t.Errorf("Ipswich and Leicester: %d of %d draws apart", apart, len(p0))
	}

	code, stderr = predict("away", "home,away\nChelsea,Ipswich\n", "--new-levels")
	if code != 0 || !strings.Contains(stderr, "(Ipswich 4)") || !strings.Contains(stderr, "ability is [5] here, [4] in the fit") {
		t.Errorf("a new team only away: exit %d, stderr %s", code, stderr)
	}

	code, stderr = predict("typo", "home,away\narsenal,Chelsea\n")
	if code != exitError || !strings.Contains(stderr, `label "arsenal" is not one the fit coded `+"`home`"+` from; did you mean "Arsenal"?`) {
		t.Errorf("a label in another case: exit %d, stderr %s", code, stderr)
	}

	stz := writeFile(t, dir, "stz.gpp", strings.Replace(btTeamsModel, "ABILITY", "sum_to_zero_vector[J]", 1))
	fit = fitInto(t, dir, "stzfit", stz, matches)
	for _, rows := range []string{"home,away\nIpswich,Chelsea\n", "home,away\nChelsea,Ipswich\n"} {
		file := writeFile(t, dir, "stz.csv", rows)
		code, _, stderr := runSafe(t, "predict", fit, stz, file, "--new-levels", "--draw", "none", "--out", filepath.Join(dir, "stzp"))
		if code != exitError || !strings.Contains(stderr, "param `ability` ([4] in the fit, [5] here) cannot have new elements drawn: a sum_to_zero_vector") {
			t.Errorf("sum_to_zero_vector, %q: exit %d, stderr %s", rows, code, stderr)
		}
	}
}
