package main

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/parser"
)

// TestExpOverflowHint: an exp that overflows inside 1 + exp(z) gets the
// rewrite with inv_logit and log1p_exp, its sign taken off a leading
// minus (Stan's 4PL -b * (x - c)); an exp elsewhere, or another error at
// the same call, gets none.
func TestExpOverflowHint(t *testing.T) {
	src := `data x: real[N]
param b: positive ~ HalfNormal(10)
param c: real ~ Normal(0, 10)
let p = 1 / (1 + exp(-b * (x - c)))
let q = log(exp(b) + 1)
let r = exp(c) * 2
`
	f, err := parser.ParseFile("m.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	at := func(line, col int) ast.Pos { return ast.Pos{File: "m.gpp", Line: line, Col: col} }
	for _, c := range []struct {
		pos  ast.Pos
		msg  string
		want string
	}{
		{at(4, 18), "exp: result is +Inf (argument 1547.74, element [4])", "exp(-b * (x - c)) overflows to +Inf in 1 + exp(-b * (x - c)) (past 709): write 1 / (1 + exp(-b * (x - c))) as inv_logit(b * (x - c)), and log(1 + exp(-b * (x - c))) as log1p_exp(-b * (x - c)), which compute the same without overflow"},
		{at(5, 13), "exp: result is +Inf (argument 800)", "exp(b) overflows to +Inf in 1 + exp(b) (past 709): write 1 / (1 + exp(b)) as inv_logit(-b), and log(1 + exp(b)) as log1p_exp(b), which compute the same without overflow"},
		{at(6, 9), "exp: result is +Inf (argument 800)", ""},
		{at(4, 18), "exp: result is NaN", ""},
	} {
		if got := expOverflowHint(&ast.Error{Pos: c.pos, Msg: c.msg}, f); got != c.want {
			t.Errorf("%v %q:\n got %q\nwant %q", c.pos, c.msg, got, c.want)
		}
	}
}

// TestExpOverflowHintFailedFit: a logistic written as 1 / (1 + exp(-b * x))
// on covariates in the hundreds overflows during the fit, and gpp fit and
// the REPL's :fit end with the inv_logit hint, as does gpp sample's warning
// of the points its trajectories rejected there.
func TestExpOverflowHintFailedFit(t *testing.T) {
	const hint = "hint: exp(-b * x) overflows to +Inf in 1 + exp(-b * x) (past 709): write 1 / (1 + exp(-b * x)) as inv_logit(b * x)"
	code, _, stderr := runGpp("fit", "testdata/expoverflow.gpp", "testdata/expoverflow.csv", "--out", t.TempDir(), "--quiet", "--seed", "1")
	if code != exitError || !strings.Contains(stderr, hint) {
		t.Errorf("gpp fit: exit %d, want %d and the hint:\n%s", code, exitError, stderr)
	}
	r, _, errb := newTestRepl()
	typeIn(r, ":load testdata/expoverflow.gpp", ":data testdata/expoverflow.csv", ":fit --quiet --seed 1")
	if got := errb.String(); !strings.Contains(got, hint) || !strings.Contains(got, "the fit failed; the session keeps its previous fit") {
		t.Errorf(":fit: want the hint and the failure note:\n%s", got)
	}
	code, _, stderr = runGpp("sample", "testdata/expoverflow.gpp", "testdata/expoverflow.csv", "--out", t.TempDir(), "--quiet", "--seed", "1", "--chains", "1", "--draws", "200", "--warmup", "200")
	if code != 0 || !strings.Contains(stderr, "were rejected because the log density failed there") || !strings.Contains(stderr, hint) {
		t.Errorf("gpp sample: exit %d, want 0, the rejected points' warning and the hint:\n%s", code, stderr)
	}
}
