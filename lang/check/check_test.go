package check_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

func checkSource(t *testing.T, name, src string, overrides map[string]string) (*ast.File, *check.Info) {
	t.Helper()
	f, err := parser.ParseFile(name, []byte(src))
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	info, err := check.Check(f, &check.Config{Overrides: overrides})
	if err != nil {
		t.Fatalf("check %s: %v", name, err)
	}
	return f, info
}

// warningLines gives info's warnings, each as "file:line:col message".
func warningLines(info *check.Info) []string {
	var got []string
	for _, w := range info.Warnings {
		got = append(got, w.Pos.String()+" "+w.Msg)
	}
	return got
}

// wantWarnings checks that src, checked as m.gpp, warns exactly want, in order.
func wantWarnings(t *testing.T, src string, want []string) {
	t.Helper()
	_, info := checkSource(t, "m.gpp", src, nil)
	if got := warningLines(info); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// wantOneError checks that src, checked as m.gpp, gives exactly the one
// error want (none for "").
func wantOneError(t *testing.T, src, want string) {
	t.Helper()
	f, err := parser.ParseFile("m.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = check.Check(f, nil)
	list, _ := ast.Positioned(err)
	switch {
	case want == "" && err != nil:
		t.Errorf("%q: %v", src, err)
	case want != "" && (len(list) != 1 || list[0].Error() != want):
		t.Errorf("%q: errors %v, want %q", src, err, want)
	}
}

func checkExample(t *testing.T, path string) (*ast.File, *check.Info) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", path))
	if err != nil {
		t.Fatal(err)
	}
	return checkSource(t, path, string(src), nil)
}

// findExpr returns the first expression in f whose printed form (as
// written, spaces removed) is text.
func findExpr(t *testing.T, f *ast.File, src, text string) ast.Expr {
	t.Helper()
	lines := strings.Split(src, "\n")
	var found ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok || found != nil {
			return found == nil
		}
		if sourceText(lines, e) == strings.ReplaceAll(text, " ", "") {
			found = e
		}
		return found == nil
	})
	if found == nil {
		t.Fatalf("expression %q not found", text)
	}
	return found
}

func sourceText(lines []string, e ast.Expr) string {
	p, q := e.Pos(), e.End()
	if p.Line != q.Line || p.Line < 1 || p.Line > len(lines) {
		return ""
	}
	line := lines[p.Line-1]
	if q.Col-1 > len(line) {
		return ""
	}
	return strings.ReplaceAll(line[p.Col-1:q.Col-1], " ", "")
}

func TestExamplesCheck(t *testing.T) {
	paths := []string{"gpfa.gpp", "epm.gpp", "posteriordb/eight_schools_noncentered.gpp", "posteriordb/kidiq_momiq.gpp"}
	matches, _ := filepath.Glob("../../examples/*.gpp")
	more, _ := filepath.Glob("../../examples/*/*.gpp")
	if len(matches)+len(more) < len(paths) {
		t.Errorf("found %d example models, want at least %d", len(matches)+len(more), len(paths))
	}
	for _, p := range append(matches, more...) {
		rel, _ := filepath.Rel("../../examples", p)
		if _, info := checkExample(t, rel); len(info.Warnings) != 0 {
			t.Errorf("%s: %v", rel, info.Warnings) // an example is a model to copy
		}
	}
}

func TestGPFAInfo(t *testing.T) {
	src, _ := os.ReadFile("../../examples/gpfa.gpp")
	f, info := checkExample(t, "gpfa.gpp")
	want := []struct{ name, dims string }{
		{"g", "scalar"}, {"g0", "scalar"}, {"c0", "scalar"}, {"prec", "scalar"}, {"r", "[K]"}, {"W", "[D, K]"},
	}
	if len(info.Latents) != len(want) {
		t.Fatalf("%d latents, want %d", len(info.Latents), len(want))
	}
	for i, w := range want {
		l := info.Latents[i]
		if l.Name != w.name || l.Dims.String() != w.dims || l.Family != "gamma" || l.Support != dist.Positive ||
			l.Prior == nil || l.PriorDist == nil || l.PriorDist.Name != "Gamma" || l.Truncated {
			t.Errorf("latent %d = %s %s %s %s, want %s %s gamma", i, l.Name, l.Dims, l.Family, l.Support, w.name, w.dims)
		}
	}
	if k := info.Const("K"); k == nil || k.Value != 40 || k.Elem != check.Int {
		t.Errorf("const K = %+v", k)
	}
	W := info.Latent("W")
	if len(W.Dims) != 2 || W.Dims[1].N != 40 || W.Dims[0].Name != "D" || W.Dims[0].Known() {
		t.Errorf("W dims %+v", W.Dims)
	}
	// W's prior arguments broadcast to [D, K]: g * r' is a row.
	gr := info.Types[W.Prior.Args[0]]
	if gr.Shape.String() != "[1, K]" || gr.Support != dist.Positive || gr.DataOnly {
		t.Errorf("g * r' : %v (data-only %v)", gr, gr.DataOnly)
	}
	// The likelihood's covariance: positive, not data-only.
	cov := findExpr(t, f, string(src), "W * W' + I(D) / prec")
	if ct := info.Types[cov]; ct.Shape.String() != "[D, D]" || ct.DataOnly || ct.Support != dist.Positive {
		t.Errorf("covariance: %v", ct)
	}
	if id := findExpr(t, f, string(src), "I(D)"); info.Types[id].Shape.String() != "[D, D]" || !info.Types[id].DataOnly {
		t.Errorf("I(D): %v", info.Types[id])
	}
	var names []string
	for _, d := range info.Data {
		names = append(names, d.Name)
	}
	if strings.Join(names, " ") != "Y N D" {
		t.Errorf("data %v, want Y N D", names)
	}
	if n := info.DataVar("N"); !n.Implicit || n.SizeOf.Name != "Y" || n.Axis != 0 || info.DataVar("D").Axis != 1 {
		t.Errorf("size N: %+v", n)
	}
	if len(info.Outputs) != 1 || info.Outputs[0].Dims.String() != "[D, D]" {
		t.Errorf("outputs %+v", info.Outputs)
	}
	if len(info.Dists) != 7 {
		t.Errorf("%d distribution calls, want 7", len(info.Dists))
	}
}

func TestDataOnly(t *testing.T) {
	src := `data Y: real[N, D]
const K = 4
param W: positive[D, K] ~ Gamma(1, 1)
param prec: positive ~ Gamma(1, 1)
let S = Y' * Y
let C = W * W' + I(D) / prec
target += -0.5 * N * logdet(C) - 0.5 * trace(solve(C, S))
`
	f, info := checkSource(t, "m.gpp", src, nil)
	yy := findExpr(t, f, src, "Y' * Y")
	if ty := info.Types[yy]; !ty.DataOnly || ty.Shape.String() != "[D, D]" {
		t.Errorf("Y' * Y: %v data-only %v", ty, ty.DataOnly)
	}
	ww := findExpr(t, f, src, "W * W'")
	if tw := info.Types[ww]; tw.DataOnly || tw.Shape.String() != "[D, D]" {
		t.Errorf("W * W': %v data-only %v", tw, tw.DataOnly)
	}
	s := info.Lookup("S")
	if s == nil || s.Kind != check.Let || !s.Type.DataOnly {
		t.Errorf("let S: %+v", s)
	}
	// The use of S inherits data-only-ness; -0.5 * N is a data-only scalar.
	use := findExpr(t, f, src, "-0.5 * N")
	if tu := info.Types[use]; !tu.DataOnly || tu.Shape.Rank() != 0 || tu.Elem != check.Real {
		t.Errorf("-0.5 * N: %v", tu)
	}
	if k := info.Types[info.Latent("W").Decl.Type.Dims[1]]; k.Const == nil || *k.Const != 4 || k.Elem != check.Int {
		t.Errorf("K in W's dims: %v", k)
	}
}

// TestVectorLitTypes checks the type of vector literals: the length is a
// known size, the element type is int only when every element is, the
// support is the narrowest holding every element (never simplex), and the
// literal is data-only unless an element depends on a param.
func TestVectorLitTypes(t *testing.T) {
	src := `data N: int
data k: int<lower=0>
data u: unit
data x: real[N]
param a: real
param p: positive
param w: simplex[2]
data q: simplex[2]
let l1 = [1, 2, 3]
let l2 = [0, 1]
let l3 = [1, 2.5]
let l4 = [0.5, 0.25]
let l5 = [0.5, 0.5]
let l6 = [p, 2]
let l7 = [p, u, k]
let l8 = [1, -1]
let l9 = [a, 1]
let l10 = [w[0], w[1]]
let l15 = [q[0], q[1]]
let l11 = [mean(x), N]
let l12 = [p, 2][0]
let l13 = [p, 2]'
let l14 = [3, 0.5][1]
const K = [4, 5][1]
param v: real[[2, K][0]]
`
	f, info := checkSource(t, "m.gpp", src, nil)
	for _, c := range []struct {
		expr, typ string
		support   dist.Support
		dataOnly  bool
	}{
		{"[1, 2, 3]", "positive int[3]", dist.Positive, true},
		{"[0, 1]", "binary int[2]", dist.Binary, true},
		{"[1, 2.5]", "positive real[2]", dist.Positive, true},
		{"[0.5, 0.25]", "unit real[2]", dist.Unit, true},
		{"[0.5, 0.5]", "unit real[2]", dist.Unit, true}, // sums to 1, yet no simplex
		{"[p, 2]", "positive real[2]", dist.Positive, false},
		{"[p, u, k]", "non-negative real[3]", dist.NonNegative, false},
		{"[1, -1]", "int[2]", dist.Real, true},
		{"[a, 1]", "real[2]", dist.Real, false},
		{"[w[0], w[1]]", "unit real[2]", dist.Unit, false},               // a simplex param's entries are in (0, 1)
		{"[q[0], q[1]]", "non-negative real[2]", dist.NonNegative, true}, // data's may be 0
		{"[mean(x), N]", "real[2]", dist.Real, true},
		{"[p, 2][0]", "positive real", dist.Positive, false},
		{"[p, 2]'", "positive real[1, 2]", dist.Positive, false},
	} {
		got := info.Types[findExpr(t, f, src, c.expr)]
		if got.String() != c.typ || got.Support != c.support || got.DataOnly != c.dataOnly || got.Const != nil {
			t.Errorf("%s: %v (support %s, data-only %v, const %v), want %s (support %s, data-only %v, no const)",
				c.expr, got, got.Support, got.DataOnly, got.Const, c.typ, c.support, c.dataOnly)
		}
		if s := got.Shape; s.Rank() > 0 && !s[len(s)-1].Known() {
			t.Errorf("%s: shape %v, want a known length", c.expr, s)
		}
	}
	// A constant element picked by a constant index is a constant: a
	// value, a const's default, a size.
	if got := info.Types[findExpr(t, f, src, "[3, 0.5][1]")]; got.Const == nil || *got.Const != 0.5 || got.String() != "unit real" {
		t.Errorf("[3, 0.5][1]: %v (const %v), want the unit real constant 0.5", got, got.Const)
	}
	if k := info.Const("K"); k == nil || k.Value != 5 || k.Elem != check.Int {
		t.Errorf("const K = %+v, want the int 5", k)
	}
	if v := info.Latent("v"); v == nil || v.Dims.String() != "[2]" || !v.Dims[0].Known() {
		t.Errorf("v's dims: %+v, want [2]", v)
	}
}

func TestEPMInfo(t *testing.T) {
	src, _ := os.ReadFile("../../examples/epm.gpp")
	f, info := checkExample(t, "epm.gpp")
	for text, want := range map[string]string{
		"W[links[, 0]]":   "[E, K]",
		"links[, 0]":      "[E]",
		"colsum(W)":       "[1, K]",
		"r'":              "[1, K]",
		"W[unknown[, 1]]": "[M, K]",
		"rowsum(W[links[, 0]] .* W[links[, 1]] .* r')": "[E]",
		"s .* s - colsum(W .* W)":                      "[1, K]",
	} {
		e := findExpr(t, f, string(src), text)
		if got := info.Types[e].Shape.String(); got != want {
			t.Errorf("%s: shape %s, want %s", text, got, want)
		}
	}
	links := findExpr(t, f, string(src), "links[, 0]")
	if lt := info.Types[links]; lt.Elem != check.Int || !lt.DataOnly {
		t.Errorf("links[, 0]: %v", lt)
	}
	rate := info.Lookup("rate")
	if rate.Type.Support != dist.Positive || rate.Type.DataOnly {
		t.Errorf("rate: %v", rate.Type)
	}
	var families []string
	for _, l := range info.Latents {
		families = append(families, l.Name+":"+l.Family)
	}
	if got := strings.Join(families, " "); got != "a:gamma c:gamma g0:gamma c0:gamma r:gamma W:gamma" {
		t.Errorf("latents %s", got)
	}
	if o := info.Outputs; len(o) != 1 || o[0].Name != "p_unknown" || o[0].Dims.String() != "[M]" {
		t.Errorf("outputs %+v", o)
	}
	var calls []string
	for call, fn := range info.Calls {
		if fn.Name == "log1mexp" {
			calls = append(calls, call.Fun.Name)
		}
	}
	if len(calls) != 1 {
		t.Errorf("log1mexp calls: %v", calls)
	}
}

func TestEightSchoolsInfo(t *testing.T) {
	_, info := checkExample(t, "posteriordb/eight_schools_noncentered.gpp")
	tau := info.Latent("tau")
	if tau == nil || !tau.Truncated || tau.PriorDist.Name != "Cauchy" || tau.Family != "gamma" {
		t.Errorf("tau: %+v", tau)
	}
	for _, name := range []string{"mu", "theta_trans"} {
		if l := info.Latent(name); l.Truncated || l.Family != "normal" {
			t.Errorf("%s: %+v", name, l)
		}
	}
	if o := info.Outputs; len(o) != 1 || o[0].Let == nil || o[0].Let.Name != "theta" || o[0].Dims.String() != "[J]" {
		t.Errorf("outputs %+v", o)
	}
	if j := info.Lookup("J"); j.Kind != check.Data {
		t.Errorf("J: %+v", j)
	}
}

func TestKidiqInfo(t *testing.T) {
	_, info := checkExample(t, "posteriordb/kidiq_momiq.gpp")
	beta := info.Latent("beta")
	if beta.Prior != nil || beta.PriorDist != nil || beta.Family != "normal" || beta.Dims.String() != "[2]" {
		t.Errorf("beta: %+v", beta)
	}
	sigma := info.Latent("sigma")
	if !sigma.Truncated || sigma.PriorDist.Name != "Cauchy" {
		t.Errorf("sigma: %+v", sigma)
	}
	if len(sigma.Tildes) != 0 || len(beta.Tildes) != 0 {
		t.Errorf("tildes: %d %d", len(sigma.Tildes), len(beta.Tildes))
	}
}

func TestConsts(t *testing.T) {
	src := `const K = 10
const M = 2 * K + 1
const half = K / 4
const s: real = 3
const e = exp(0) + sqrt(4.0)
param x: real[M]
`
	tests := []struct {
		overrides map[string]string
		want      map[string]float64
	}{
		{nil, map[string]float64{"K": 10, "M": 21, "half": 2.5, "s": 3, "e": 3}},
		{map[string]string{"K": "20"}, map[string]float64{"K": 20, "M": 41, "half": 5}},
		{map[string]string{"M": "5", "s": "0.5"}, map[string]float64{"K": 10, "M": 5, "s": 0.5}},
		{map[string]string{"s": "7"}, map[string]float64{"s": 7}},
		// An int in exponent form, as a CSV cell may write it.
		{map[string]string{"K": "1e3"}, map[string]float64{"K": 1000, "M": 2001}},
		{map[string]string{"K": "2.5e1", "M": "30.0"}, map[string]float64{"K": 25, "M": 30}},
	}
	for _, tt := range tests {
		_, info := checkSource(t, "c.gpp", src, tt.overrides)
		for name, v := range tt.want {
			c := info.Const(name)
			if c == nil || c.Value != v {
				t.Errorf("overrides %v: %s = %+v, want %g", tt.overrides, name, c, v)
			}
			if _, set := tt.overrides[name]; set != c.Overridden {
				t.Errorf("overrides %v: %s overridden = %v", tt.overrides, name, c.Overridden)
			}
		}
		if info.Const("K").Elem != check.Int || info.Const("half").Elem != check.Real || info.Const("s").Elem != check.Real {
			t.Error("const element types")
		}
		if m := info.Latent("x").Dims[0]; m.N != int(info.Const("M").Value) {
			t.Errorf("x dims %v, M = %v", m, info.Const("M").Value)
		}
	}
	_, info := checkSource(t, "c.gpp", src, map[string]string{"K": "3"})
	if c := info.Const("K"); c.ValueString() != "3" || !strings.Contains(c.Note(), "default 10") {
		t.Errorf("K: %q %q", c.ValueString(), c.Note())
	}
	// Errors name the const, its position and the text.
	f, _ := parser.ParseFile("c.gpp", []byte(src))
	_, err := check.Check(f, &check.Config{Overrides: map[string]string{"K": "ten", "nope": "1"}})
	list, _ := err.(ast.ErrorList)
	if len(list) != 2 || list[0].Pos.Line != 0 || !strings.Contains(list[0].Msg, "nope") ||
		list[1].Pos.Line != 1 || !strings.Contains(list[1].Msg, `"ten" is not a number`) {
		t.Errorf("override errors: %v", err)
	}
}

// TestHandBuilt checks an AST built by hand, without the parser: a data
// declaration inside a for body (which the parser rejects first) and the
// invalid type that stops cascades.
func TestHandBuilt(t *testing.T) {
	pos := func(line, col int) ast.Pos { return ast.Pos{File: "h.gpp", Line: line, Col: col} }
	id := func(name string, line, col int) *ast.Ident { return &ast.Ident{NamePos: pos(line, col), Name: name} }
	num := func(raw string, v float64, line, col int) *ast.NumberLit {
		return &ast.NumberLit{ValuePos: pos(line, col), Raw: raw, Value: v, IsInt: !strings.Contains(raw, ".")}
	}
	f := &ast.File{Name: "h.gpp", Stmts: []ast.Stmt{
		&ast.DataDecl{Data: pos(1, 1), Name: id("N", 1, 6), Type: &ast.TypeExpr{KindPos: pos(1, 9), Kind: ast.Int}},
		&ast.ForStmt{For: pos(2, 1), Var: id("i", 2, 5), Lo: num("0", 0, 2, 10), Hi: id("N", 2, 12), Body: []ast.Stmt{
			&ast.DataDecl{Data: pos(3, 3), Name: id("w", 3, 8), Type: &ast.TypeExpr{KindPos: pos(3, 11), Kind: ast.Real}},
			&ast.TargetStmt{Target: pos(4, 3), Op: ast.Add, Value: &ast.BinaryExpr{
				X: id("w", 4, 13), OpPos: pos(4, 15), Op: ast.Add, Y: id("undefined", 4, 17)}},
		}},
		&ast.TargetStmt{Target: pos(6, 1), Op: ast.Add, Value: &ast.BinaryExpr{
			X: &ast.IndexExpr{X: id("N", 6, 11), Lbrack: pos(6, 12), Indices: []ast.Expr{num("0", 0, 6, 13)}}, OpPos: pos(6, 16), Op: ast.Add, Y: num("1", 1, 6, 18)}},
	}}
	_, err := check.Check(f, nil)
	list, _ := err.(ast.ErrorList)
	want := []string{
		"3:3: data declarations are allowed only at the top level",
		"4:17: undeclared name `undefined`",
		"6:12: cannot index `N`: it is a scalar",
	}
	if len(list) != len(want) {
		t.Fatalf("errors:\n%v\nwant %d", err, len(want))
	}
	for i, w := range want {
		if got := list[i].Error(); !strings.Contains(got, w) {
			t.Errorf("error %d = %s, want %s", i, got, w)
		}
	}
}

// TestImproperWarnings: a param with no prior, an unbounded support and no
// term of the log density reading it (through lets or a for body) is
// warned about; bounded supports (the correlation matrices and their
// factors too: a flat prior on them is LKJ(1)), priors and any reading term
// are not. A param with a prior that nothing reads (h) is warned about as
// a leftover; one that only an output reads (g) is not.
func TestImproperWarnings(t *testing.T) {
	const src = `data y: real[N]
param m: real ~ Normal(0, 1)
param s: positive
param u: unit
param b: real<lower=0, upper=3>
param lo: real<lower=0>
param w: real
param v: positive
param k: real
let t = w * 2
y ~ Normal(m + t, 1)
for i in 0:2 {
  let q = k
  target += -q * q
}
param h: positive ~ Gamma(2, v)
param up: real<upper=2>
param L: cholesky_factor_corr[3]
param Om: corr_matrix[2]
param g: real ~ Normal(0, 1)
output z = s + lo + up + L[1, 0] + Om[0, 1] + g
`
	_, info := checkSource(t, "m.gpp", src, nil)
	var got []string
	for _, w := range info.Warnings {
		got = append(got, w.Pos.String()+" "+strings.SplitN(w.Msg, ":", 2)[0])
	}
	want := []string{
		"m.gpp:3:7 param `s` has no prior and no term of the log density reads it",
		"m.gpp:6:7 param `lo` has no prior and no term of the log density reads it",
		"m.gpp:16:7 param `h` is read nowhere but in its declaration",
		"m.gpp:17:7 param `up` has no prior and no term of the log density reads it",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A bounded param's flat posterior is over its bounds, not its
	// factor's support ("positive" for real<upper=2>).
	if n := len(info.Warnings); n != 4 || !strings.Contains(info.Warnings[3].Msg, "flat over the bounds (-∞, 2)") || !strings.Contains(info.Warnings[0].Msg, "flat over the positive support") {
		t.Errorf("warnings %v", info.Warnings)
	}
}

// TestTooManyErrors: a check reports 20 errors and then says it stopped,
// where the next unchecked statement starts or at the 21st error of one
// statement; past 20 no name suggestion is searched for (20 000 undeclared
// names among 20 000 params took 4 minutes, each searching every name).
func TestTooManyErrors(t *testing.T) {
	var lines, terms []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("target += u%d", i))
		terms = append(terms, fmt.Sprintf("u%d", i))
	}
	for _, c := range []struct{ name, src, last string }{
		{"lines", strings.Join(lines, "\n") + "\n", "m.gpp:21:1: too many errors; the file was not checked beyond here"},
		{"one statement", "param u: real ~ Normal(0, 1)\ntarget += " + strings.Join(terms, " + ") + "\n", "m.gpp:2:121: too many errors; the rest are not reported"},
	} {
		f, err := parser.ParseFile("m.gpp", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		_, err = check.Check(f, nil)
		list, _ := ast.Positioned(err)
		if len(list) != 21 || list[20].Error() != c.last || !strings.Contains(list[19].Error(), "undeclared name `u") {
			t.Errorf("%s: %d errors, the last %v; want 20 and %q", c.name, len(list), list[len(list)-1], c.last)
		}
	}
	// Ties in a suggestion go to the first name in sorted order, and a name
	// too far in length is never suggested.
	if got := check.Suggest("alpah", []string{"alpha", "alphb", "alpaca"}); got != "alpha" {
		t.Errorf("Suggest(alpah) = %q, want alpha", got)
	}
	if got := check.Suggest("sigmaa", []string{"sig", "SIGMAA"}); got != "SIGMAA" {
		t.Errorf("Suggest(sigmaa) = %q, want SIGMAA (case only)", got)
	}
}

// TestOneBasedLoopWarnings: a loop from the literal 1 to the length of an
// axis its body indexes with the loop variable alone is warned about at its
// range (Stan's 1-based for carried over skips element 0); a loop that also
// reads i - k (a recursion), starts at 0, ends elsewhere, indexes only
// with shifted or other expressions, or whose array's element 0 is read
// anyway (whole, or through a slice) is not.
func TestOneBasedLoopWarnings(t *testing.T) {
	const src = `data y: real[N]
data X: real[N, K]
const M = 3
param v: real[M] ~ Normal(0, 1)
param mu: real ~ Normal(0, 1)
for i in 1:N {
  y[i] ~ Normal(mu, 1)
}
for i in 0:N {
  for j in 1:K {
    target += -X[i, j]^2 * mu^2
  }
}
for i in 1:M {
  target += -v[i]^2
}
for i in 1:N {
  let d = y[i] - y[i - 1]
  target += -d^2
}
for i in 1:N-1 {
  y[i] ~ Normal(mu, 1)
}
for i in 1:N {
  y[i - 1] ~ Normal(mu, 1)
}
for i in 1:K {
  y[i] ~ Normal(mu, 1)
}
for i in 2:N {
  y[i] ~ Normal(mu, 1)
}
`
	wantWarnings(t, src, []string{
		"m.gpp:6:10 loop starts at 1, so y[0] is never used: gpp indexes from 0 and a loop lo:hi runs lo, ..., hi-1 (for i in 0:N)",
		"m.gpp:10:12 loop starts at 1, so column X[:, 0] is never used: gpp indexes from 0 and a loop lo:hi runs lo, ..., hi-1 (for j in 0:K)",
		"m.gpp:14:10 loop starts at 1, so v[0] is never used: gpp indexes from 0 and a loop lo:hi runs lo, ..., hi-1 (for i in 0:M)",
	})
	// A Hawkes process's loop from 1 reads element 0 through a slice of
	// the past events (a trial's warning advised 0:N, whose first
	// iteration is log of an empty sum); an array read whole elsewhere
	// is used too; one read only by single elements elsewhere is not.
	wantWarnings(t, `data t: real[N]
data u: real[N]
data w: real[N]
param beta: positive ~ Gamma(2, 1)
for i in 1:N {
  target += log(sum(exp(-beta * (t[i] - t[0:i]))))
}
for i in 1:N {
  target += -beta * u[i]
}
target += -sum(u)
for i in 1:N {
  target += -beta * w[i]
}
target += -w[N - 1]
`, []string{
		"m.gpp:12:10 loop starts at 1, so w[0] is never used: gpp indexes from 0 and a loop lo:hi runs lo, ..., hi-1 (for i in 0:N)",
	})
}

// TestLogLikWarnings: an output named log_lik that is a scalar (a sum: one
// observation of one for PSIS-LOO) or a replicate (a draw, not a log
// density) is warned about at its name; a vector or a matrix, whose every
// element is an observation (as ArviZ flattens the observation dims), is
// not.
func TestLogLikWarnings(t *testing.T) {
	for _, tc := range []struct{ out, want string }{
		{"output log_lik = sum(logpdf(y, Normal(mu, 1)))", "m.gpp:4:8 output `log_lik` is a scalar"},
		{"output log_lik ~ Normal(mu, 1)", "m.gpp:4:8 output `log_lik ~ ...` draws a replicate"},
		{"output log_lik = logpdf(y, Normal(mu, 1))", ""},
		{"output log_lik = logpdf(Y, Normal(mu, 1))", ""},
		{"output ll = sum(logpdf(y, Normal(mu, 1)))", ""},
	} {
		src := "data y: real[N]\ndata Y: real[N, K]\nparam mu: real ~ Normal(0, 1)\n" + tc.out + "\ny ~ Normal(mu, 1)\nY ~ Normal(mu, 1)\n"
		_, info := checkSource(t, "m.gpp", src, nil)
		got := warningLines(info)
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s: warnings %q", tc.out, got)
		case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)):
			t.Errorf("%s: warnings %q, want one starting %q", tc.out, got, tc.want)
		}
	}
}

// TestHMMLogLikWarning: a log_lik of hmm_marginal's log p(y), directly or
// through lets, is pointed to the HMM's pointwise log_lik (an HMM cannot
// write logpdf(y, D(...))); that pointwise form is not warned about.
func TestHMMLogLikWarning(t *testing.T) {
	const head = "data y: real[N]\nparam mu: ordered[2] ~ Normal(0, 3)\nparam A: simplex[2, 2] ~ Dirichlet(rep(1, 2))\n" +
		"let lo = logpdf(y, Normal(mu', 1))\ntarget += hmm_marginal(lo, A, [0.5, 0.5])\n"
	for _, tc := range []struct{ out, want string }{
		{"output log_lik = hmm_marginal(lo, A, [0.5, 0.5])", "m.gpp:6:8 output `log_lik` is hmm_marginal's log p(y), a scalar, but PSIS-LOO takes each element of log_lik as one observation's log likelihood, so it would leave out one observation of one (the whole series); an HMM's term per time step is log p(y_t | y_-t), from the smoothed state probabilities: let ps = hmm_hidden_state_prob(lo, A, rho), output log_lik = -rowlogsumexp(log(ps) - lo) (language.md, Hidden Markov models: LOO of an HMM)"},
		{"let ll = hmm_marginal(lo, A, [0.5, 0.5])\nlet l2 = 2 * ll\noutput log_lik = l2", "m.gpp:8:8 output `log_lik` is hmm_marginal's log p(y)"},
		{"output log_lik = sum(lo)", "m.gpp:6:8 output `log_lik` is a scalar, but PSIS-LOO"},
		{"output log_lik = -rowlogsumexp(log(hmm_hidden_state_prob(lo, A, [0.5, 0.5])) - lo)", ""},
	} {
		_, info := checkSource(t, "m.gpp", head+tc.out+"\n", nil)
		got := warningLines(info)
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s: warnings %q", tc.out, got)
		case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)):
			t.Errorf("%s: warnings %q, want one starting %q", tc.out, got, tc.want)
		}
	}
}

// TestTinyScaleWarnings: a prior of Normal, LogNormal, StudentT or Cauchy
// whose scale is a constant of at most 0.001 (BUGS's precision in
// dnorm(0, 0.001), read by gpp as an sd) is warned about with its sd
// form, in a declaration or a ~ statement on a param, a const included;
// a larger scale, a scale that is not constant, another family, and a
// likelihood on data (a known measurement error) are not.
func TestTinyScaleWarnings(t *testing.T) {
	const src = `data y: real[N]
const p = 0.0005
param mu: real[2] ~ Normal(0, 0.001)
param a: real
a ~ StudentT(3, 0, 1e-4)
param b: positive ~ LogNormal(0, p)
param c: real ~ Cauchy(0, 0.0011)
param d: real ~ Laplace(0, 0.001)
param s: positive ~ Gamma(0.001, 0.001)
param e: real ~ Normal(0, s)
y ~ Normal(mu[0] + a + b + c + d + e, 0.0001)
`
	wantWarnings(t, src, []string{
		"m.gpp:3:31 the prior Normal(0, 0.001) of `mu` has scale 0.001: Normal's argument 2 is the sd, not a precision as in BUGS, so this prior pins `mu` within ±0.003 of its mean (3 sds); a precision of 0.001, as BUGS's dnorm(0, 0.001), is Normal(0, 31.6)",
		"m.gpp:5:20 the prior StudentT(3, 0, 1e-4) of `a` has scale 1e-4: StudentT's argument 3 is the scale, not a precision as in BUGS, so this prior pins `a` to a few times 0.0001 about its centre; a precision of 1e-4, as BUGS's dnorm(0, 1e-4), is StudentT(3, 0, 100)",
		"m.gpp:6:34 the prior LogNormal(0, p) of `b` has scale p = 0.0005: LogNormal's argument 2 is the sd of the log, not a precision as in BUGS, so this prior pins log(`b`) within ±0.0015 of its mean (3 sds); a precision of p, as BUGS's dnorm(0, p), is LogNormal(0, 44.7)",
	})
}

// TestPairedGatherTypes: A[r, c] with two int vectors is the vector of the
// elements A[r[k], c[k]] (NumPy's paired gather), of the index vectors'
// length, a param's when A is one, and the block is A[r][:, c].
func TestPairedGatherTypes(t *testing.T) {
	src := `data N: int
data age: int[N]
data edu: int[N]
data X: real[5, 4]
data P: simplex[5, 4]
param u: real[5, 4]
let a = u[age, edu]
let b = X[age, edu]
let c = u[age][:, edu]
let d = u[[0, 1, 1], [3, 2, 2]]
let e = P[age, edu]
`
	f, info := checkSource(t, "m.gpp", src, nil)
	for _, c := range []struct {
		expr, typ string
		dataOnly  bool
	}{
		{"u[age, edu]", "real[N]", false},
		{"X[age, edu]", "real[N]", true},
		{"u[age][:, edu]", "real[N, N]", false},
		{"u[[0, 1, 1], [3, 2, 2]]", "real[3]", false},
		{"P[age, edu]", "non-negative real[N]", true},
	} {
		if got := info.Types[findExpr(t, f, src, c.expr)]; got.String() != c.typ || got.DataOnly != c.dataOnly {
			t.Errorf("%s: %v (data-only %v), want %s (data-only %v)", c.expr, got, got.DataOnly, c.typ, c.dataOnly)
		}
	}
}

// TestMatrixLogSumExpWarning: target += logsumexp of a matrix (a mixture's
// [N, K] log joint, where rowlogsumexp was meant) is warned about at the
// call; of a vector, or summed by rows, it is not; nor of a square [N, N]
// table (two change points s1 < s2 marginalised jointly, a user trial's
// model, where the rows summed would be wrong), nor of a literal [3, 3].
func TestMatrixLogSumExpWarning(t *testing.T) {
	head := "data y: real[N]\nparam mu: real[3] ~ Normal(0, 3)\nlet lp = y * rep(1, 3)' + rep(1, N) * mu'\n"
	wantWarnings(t, head+"target += logsumexp(lp)\n", []string{
		"m.gpp:4:11 `logsumexp(lp)` of a matrix is one log-sum-exp over all its elements, rows and columns together: right when the elements are the states of one discrete latent, but if the rows are observations and the columns their components (a mixture's [N, K] table), the log density is a log-sum-exp per row summed over the rows: target += sum(rowlogsumexp(lp))",
	})
	wantWarnings(t, head+"target += sum(rowlogsumexp(lp))\n", nil)
	wantWarnings(t, head+"target += logsumexp(lp[0])\n", nil)
	cp2 := "data y: int[N]\nparam r: positive[2] ~ Exponential(0.2)\nlet A = cumsum(logpdf(y, Poisson(r[0])))\nlet B = cumsum(logpdf(y, Poisson(r[1])))\n" +
		"let idx = linspaced_vector(N, 0, N - 1)\nlet ok = idx * rep(1, N)' < idx'\nlet lp = A * rep(1, N)' + B' - 1e10 * (1 - ok)\ntarget += logsumexp(lp)\n"
	wantWarnings(t, cp2, nil)
	wantWarnings(t, "param a: real[3] ~ Normal(0, 1)\nparam b: real[3] ~ Normal(0, 1)\ntarget += logsumexp(a * rep(1, 3)' + rep(1, 3) * b')\n", nil)
}

// TestUndeclaredSizeIDColumn: an undeclared size is told how a column
// of ids counts it, with the column's own size (M here, not another name),
// naming the int column used as an index into something of that size, or
// one whose bound names it; never the outcome y, which is an int column
// first in the file (a criminologist's trial); without such a use, no column.
func TestUndeclaredSizeIDColumn(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"data g: int[M]\ndata y: real[M]\nparam a: real[J]\ny ~ Normal(a[g], 1)\n", "in place of line 1, the two lines `data J: int` and `data g: int<lower=0, upper=J-1>[M]`"},
		{"data y: int[N]\ndata hood: int[N]\nparam u: real[J] ~ Normal(0, 1)\ny ~ PoissonLog(u[hood])\n", "in place of line 2, the two lines `data J: int` and `data hood: int<lower=0, upper=J-1>[N]`"},
		{"data y: int[N]\ndata hood: int<lower=1>[N]\nparam z: real[J, 2] ~ Normal(0, 1)\nlet u = 2 * z\ny ~ PoissonLog(u[hood - 1, 0])\n", "in place of line 2, the two lines `data J: int` and `data hood: int<lower=1, upper=J>[N]`"},
		{"data y: int[N]\ndata hood: int<lower=0, upper=J-1>[N]\nparam u: real[J] ~ Normal(0, 1)\ny ~ PoissonLog(u[hood])\n", "in place of line 2, the two lines `data J: int` and `data hood: int<lower=0, upper=J-1>[N]`"},
		{"data y: int[N]\ndata hood: int<lower=0, upper=J-1>[N]\nparam u: real[J] ~ Normal(0, 1)\ny ~ Poisson(exp(sum(u)))\n", "in place of line 2"},
		{"data y: int[N]\ndata k: int[N]\nparam u: real[J, 3] ~ Normal(0, 1)\ny ~ PoissonLog(u[0, k])\n", ""},
		{"data y: int[N]\nparam u: real[J] ~ Normal(0, 1)\ny ~ PoissonLog(u[y])\n", ""}, // the outcome, even as an index
		{"data y: int[N]\nparam u: real[J] ~ Normal(0, 1)\ny ~ PoissonLog(sum(u))\n", ""},
	} {
		f, err := parser.ParseFile("u.gpp", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		_, err = check.Check(f, nil)
		if err == nil || !strings.Contains(err.Error(), "undeclared name `J`") {
			t.Fatalf("%q: error %v, want J undeclared", c.src, err)
		}
		if has := strings.Contains(err.Error(), "in place of line"); c.want == "" && has || c.want != "" && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}

// TestRowColMean: rowmean and colmean take colsum's and rowsum's shapes,
// real even of int data, and keep a unit or positive support as mean does.
func TestRowColMean(t *testing.T) {
	src := "data C: int<lower=0>[N, K]\nparam u: unit[N, K]\nlet a = colmean(C)\nlet b = rowmean(u)\n"
	f, info := checkSource(t, "m.gpp", src, nil)
	for text, want := range map[string]string{"colmean(C)": "[1, K] real non-negative", "rowmean(u)": "[N] real unit"} {
		ty := info.Types[findExpr(t, f, src, text)]
		if got := fmt.Sprintf("%s %s %s", ty.Shape, map[bool]string{true: "int", false: "real"}[ty.Elem == check.Int], ty.Support); got != want {
			t.Errorf("%s: %s, want %s", text, got, want)
		}
	}
}
