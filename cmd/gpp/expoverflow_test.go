package main

import (
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
