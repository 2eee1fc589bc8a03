package graph

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// build parses, checks and graphs src, failing the test on an error.
func build(t *testing.T, src string, opt *Options) *Graph {
	t.Helper()
	f, err := parser.ParseFile("m.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info, err := check.Check(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Build(f, info, opt)
}

func (g *Graph) node(id string) *Node {
	for _, n := range g.Nodes {
		if n.ID == id {
			return n
		}
	}
	return nil
}

// edgeList writes the edges as "a->b", in order.
func (g *Graph) edgeList() []string {
	var out []string
	for _, e := range g.Edges {
		out = append(out, g.Nodes[e.From].ID+"->"+g.Nodes[e.To].ID)
	}
	return out
}

// plateOf returns the plate label of the node, "" when it is in none.
func (g *Graph) plateOf(id string) string {
	for _, p := range g.Plates {
		for _, i := range p.Nodes {
			if g.Nodes[i].ID == id {
				return p.Label
			}
		}
	}
	return ""
}

func ids(g *Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		out = append(out, n.ID)
	}
	return out
}

func wantEdges(t *testing.T, g *Graph, want ...string) {
	t.Helper()
	if got := g.edgeList(); !slices.Equal(got, want) {
		t.Errorf("edges %v, want %v", got, want)
	}
}

func TestLoopTilde(t *testing.T) {
	g := build(t, `data y: real[N]
data grp: int<lower=0>[N]
const G = 3
param mu: real[G] ~ Normal(0, 1)
param sigma: positive ~ Gamma(2, 2)
for i in 0:N {
  y[i] ~ Normal(mu[grp[i]], sigma)
}
for i in 0:N {
  y[i] ~ Normal(mu[grp[i]], sigma)
}
`, &Options{Sizes: map[string]int{"N": 234}})
	if got := ids(g); !slices.Equal(got, []string{"y", "grp", "mu", "sigma"}) {
		t.Errorf("nodes %v, want y grp mu sigma (no size N, no const G, no loop variable)", got)
	}
	wantEdges(t, g, "mu->y", "grp->y", "sigma->y")
	if n := g.node("y"); n.Kind != Observed || !slices.Equal(n.Label, []string{"y", "~ Normal"}) {
		t.Errorf("y: kind %d label %q, want observed ~ Normal", n.Kind, n.Label)
	}
	if n := g.node("grp"); n.Kind != Data || !slices.Equal(n.Label, []string{"grp", "~ Data"}) {
		t.Errorf("grp: kind %d label %q, want data", n.Kind, n.Label)
	}
	if n := g.node("mu"); n.Kind != Param || !slices.Equal(n.Label, []string{"mu", "~ Normal", "q: normal"}) {
		t.Errorf("mu: kind %d label %q", n.Kind, n.Label)
	}
	for id, want := range map[string]string{"y": "N (234)", "grp": "N (234)", "mu": "G (3)", "sigma": ""} {
		if got := g.plateOf(id); got != want {
			t.Errorf("%s in plate %q, want %q", id, got, want)
		}
	}
	if len(g.Plates) != 2 || g.Plates[0].ID != "N" || g.Plates[1].ID != "G" {
		t.Errorf("plates %+v, want N then G", g.Plates)
	}
}

func TestLetsTargetsAndFunctions(t *testing.T) {
	g := build(t, `fn scale(a, b) = a * b
param mu: real ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
let m2 = scale(mu, s)
let m3 = m2 + 1
target += -m3 * m3; target -= s
output out = m3 - mu
`, nil)
	if got := ids(g); !slices.Equal(got, []string{"mu", "s", "m2", "m3", "target@6:1", "target@6:21", "out"}) {
		t.Errorf("nodes %v (no node for the function scale, one per target statement)", got)
	}
	wantEdges(t, g, "mu->m2", "s->m2", "m2->m3", "m3->target@6:1", "s->target@6:21", "m3->out", "mu->out")
	if n := g.node("m2"); n.Kind != Let || !slices.Equal(n.Label, []string{"m2", "~ Deterministic"}) {
		t.Errorf("m2: kind %d label %q", n.Kind, n.Label)
	}
	if n := g.node("target@6:21"); n.Kind != Potential || !slices.Equal(n.Label, []string{"target", "(line 6)"}) {
		t.Errorf("second target: kind %d label %q", n.Kind, n.Label)
	}
	if n := g.node("out"); n.Kind != Output || !slices.Equal(n.Label, []string{"out", "~ Output"}) {
		t.Errorf("out: kind %d label %q", n.Kind, n.Label)
	}
}

func TestBoundsPriorsAndSizes(t *testing.T) {
	g := build(t, `data N: int
data M: int
data U: real
data k: int<lower=0, upper=M>[N]
param theta: real<lower=0, upper=U>
data t: real[N]
param w: real[N]
param v: real
sum(w) ~ Normal(0, 0.01)
w[0] ~ Cauchy(0, 1)
w ~ Normal(0, 1)
t ~ Normal(v, 1) T[-U, ]
output mm = M * v
`, &Options{Sizes: map[string]int{"N": 7}})
	if g.node("N") != nil {
		t.Error("N, read only as a size, is a node")
	}
	for _, id := range []string{"M", "U", "k", "t"} {
		if n := g.node(id); n == nil || n.Kind != Data && id != "t" {
			t.Errorf("%s is no data node", id)
		}
	}
	wantEdges(t, g, "M->k", "U->theta", "w->target@9:1", "v->t", "U->t", "M->mm", "v->mm")
	for id, prior := range map[string]string{"theta": "~ Flat (uniform)", "w": "~ Cauchy", "t": "~ Normal T[-U, ]", "v": "~ Flat (improper)"} {
		if got := g.node(id).Label[1]; got != prior {
			t.Errorf("%s: prior line %q, want %q", id, got, prior)
		}
	}
	if got := g.plateOf("w"); got != "N (7)" {
		t.Errorf("w's plate %q, want N (7): the size of data N", got)
	}
}

func TestLocalLetsConditionsAndExpressions(t *testing.T) {
	g := build(t, `data y: real[N]
data grp: int<lower=0>[N]
data flag: int
param mu: real[3] ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
param x: real[3]
for i in 0:N {
  let m = mu[grp[i]] * 2
  if flag > 0 {
    y[i] ~ Normal(m, s)
  } else {
    y[i] ~ Normal(m, 1)
  }
}
sum(x) ~ Normal(0, 0.01)
`, nil)
	if got := ids(g); !slices.Equal(got, []string{"y", "grp", "flag", "mu", "s", "x", "target@15:1"}) {
		t.Errorf("nodes %v: a local let is no node, a ~ on an expression is", got)
	}
	wantEdges(t, g, "flag->y", "mu->y", "grp->y", "s->y", "x->target@15:1")
	if n := g.Nodes[len(g.Nodes)-1]; n.Kind != Potential || !slices.Equal(n.Label, []string{"sum(x) ~ Normal", "(line 15)"}) {
		t.Errorf("sum(x) ~ ...: kind %d label %q, want a potential", n.Kind, n.Label)
	}
	if got := g.node("x").Label[1]; got != "~ Normal of an expression" {
		t.Errorf("x: prior line %q, want the ~ on sum(x) named as on an expression", got)
	}
	if got := g.plateOf("mu"); got != "3" {
		t.Errorf("mu's plate %q, want 3", got)
	}
}

func TestOutputsAndMissing(t *testing.T) {
	g := build(t, `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 5)
param s: positive ~ Exponential(1)
let mu = a + x
y ~ Normal(mu, s)
output mu
output y_rep ~ Normal(mu, s) T[0, ]
output top = max(y_rep)
`, &Options{Missing: map[string]int{"y": 2}})
	if got := ids(g); !slices.Equal(got, []string{"x", "y", "a", "s", "mu", "y_rep", "top"}) {
		t.Errorf("nodes %v: output mu is the let's node", got)
	}
	if n := g.node("mu"); n.Kind != Let || !slices.Equal(n.Label, []string{"mu", "~ Deterministic", "(output)"}) {
		t.Errorf("mu: kind %d label %q", n.Kind, n.Label)
	}
	if n := g.node("y_rep"); n.Kind != Replicate || !slices.Equal(n.Label, []string{"y_rep", "~ Normal T[0, ]", "(replicate)"}) {
		t.Errorf("y_rep: kind %d label %q", n.Kind, n.Label)
	}
	if n := g.node("y"); !slices.Equal(n.Label, []string{"y", "~ Normal", "2 missing: fitted as y_missing"}) {
		t.Errorf("y: label %q", n.Label)
	}
	wantEdges(t, g, "a->mu", "x->mu", "mu->y", "s->y", "mu->y_rep", "s->y_rep", "y_rep->top")
	for _, id := range []string{"x", "y", "mu", "y_rep"} {
		if g.plateOf(id) != "N" {
			t.Errorf("%s not in plate N", id)
		}
	}
}

// TestWriteDOT checks the DOT text of a small model whole, and that the
// same model gives the same bytes.
func TestWriteDOT(t *testing.T) {
	src := `data y: real[N, K]
param w: real
param b: positive[K] ~ Gamma(1, 1)
y ~ Normal(b', 1)
target += b[0]
`
	var out, again bytes.Buffer
	if err := build(t, src, &Options{Name: `my "m"`}).WriteDOT(&out); err != nil {
		t.Fatal(err)
	}
	build(t, src, &Options{Name: `my "m"`}).WriteDOT(&again)
	want := `digraph "my \"m\"" {
	"w" [label = "w\n~ Flat (improper)\nq: normal", shape = ellipse];
	"target@5:1" [label = "target\n(line 5)", shape = octagon];
	subgraph "cluster_N x K" {
		label = "N × K";
		labeljust = r;
		labelloc = b;
		style = rounded;
		"y" [label = "y\n~ Normal", shape = ellipse, style = filled, fillcolor = lightgrey];
	}
	subgraph "cluster_K" {
		label = "K";
		labeljust = r;
		labelloc = b;
		style = rounded;
		"b" [label = "b\n~ Gamma\nq: gamma", shape = ellipse];
	}
	"b" -> "y";
	"b" -> "target@5:1";
}
`
	if out.String() != want {
		t.Errorf("DOT:\n%s\nwant:\n%s", out.String(), want)
	}
	if !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Error("the same model gave different DOT")
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{`a`: `"a"`, `a"b`: `"a\"b"`, `a\b`: `"a\\b"`, "a\nb": `"a\nb"`} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func ExampleBuild() {
	src := `data y: real[N]
param mu: real ~ Normal(0, 10)
param sigma: positive ~ HalfNormal(1)
y ~ Normal(mu, sigma)
`
	f, _ := parser.ParseFile("m.gpp", []byte(src))
	info, _ := check.Check(f, nil)
	g := Build(f, info, &Options{Sizes: map[string]int{"N": 20}})
	for _, e := range g.Edges {
		fmt.Println(g.Nodes[e.From].ID, "->", g.Nodes[e.To].ID)
	}
	fmt.Println(g.Plates[0].Label)
	// Output:
	// mu -> y
	// sigma -> y
	// N (20)
}

// TestIndexedLeftSideAndSelfEdge: the index of a ~'s left side is read by
// the statement, and a value that enters its own density (an AR(1)) draws
// no arrow to itself.
func TestIndexedLeftSideAndSelfEdge(t *testing.T) {
	g := build(t, `data y: real[T]
data idx: int<lower=0>[M]
param s: positive ~ Gamma(2, 2)
for i in 0:M {
  y[idx[i]] ~ Normal(0, s)
}
for i in 1:T {
  y[i] ~ Normal(y[i - 1], s)
}
`, nil)
	wantEdges(t, g, "idx->y", "s->y")
}

// TestTildeOnLet: a ~ on a let, top-level or local to a loop, is a density
// term on values computed elsewhere: a potential reading the let (or, for a
// local one, what it reads) and the distribution's arguments, with no arrow
// from the arguments into the let.
func TestTildeOnLet(t *testing.T) {
	g := build(t, `data x: real[N]
param mu: real[N] ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
for i in 0:N {
  let m = mu[i] + x[i]
  m ~ Normal(0, s)
}
let z = mu + 1
z ~ Normal(0, s)
`, nil)
	if got := ids(g); !slices.Equal(got, []string{"x", "mu", "s", "target@6:3", "z", "target@9:1"}) {
		t.Errorf("nodes %v, want a potential for each ~ on a let", got)
	}
	wantEdges(t, g, "mu->target@6:3", "x->target@6:3", "s->target@6:3", "mu->z", "z->target@9:1", "s->target@9:1")
	if n := g.node("target@9:1"); n.Kind != Potential || !slices.Equal(n.Label, []string{"z ~ Normal", "(line 9)"}) {
		t.Errorf("z ~ ...: kind %d label %q, want a potential", n.Kind, n.Label)
	}
}

// TestSingletonDimsDropFromPlates: a 1 × K row (colsum) shares K's plate
// and an N × 1 column N's, while a real[1] keeps its plate "1"
// and a size 1 written by name stays in the plate's key.
func TestSingletonDimsDropFromPlates(t *testing.T) {
	g := build(t, `data K: int
data y: real[N]
const J = 1
param W: positive[N, K] ~ Gamma(1, 1)
param b: real[K] ~ Normal(0, 1)
param one: real[1] ~ Normal(0, 1)
param v: real[J, K] ~ Normal(0, 1)
let s = colsum(W)
let r = rowsum(W)
let c = to_matrix(r, N, 1)
y ~ Normal(c[:, 0] + sum(s) * sum(b) + one[0] + sum(v), 1)
`, &Options{Sizes: map[string]int{"N": 5, "K": 3}})
	for id, want := range map[string]string{"s": "K (3)", "b": "K (3)", "r": "N (5)", "c": "N (5)", "y": "N (5)", "W": "N (5) × K (3)", "one": "1", "v": "J (1) × K (3)"} {
		if got := g.plateOf(id); got != want {
			t.Errorf("%s in plate %q, want %q", id, got, want)
		}
	}
	var got []string
	for _, p := range g.Plates {
		got = append(got, p.ID)
	}
	if want := []string{"N", "N x K", "K", "1", "J x K"}; !slices.Equal(got, want) {
		t.Errorf("plates %v, want %v", got, want)
	}
}

// TestLocalLetChain: a chain of local lets, each reading the one before
// twice, resolves to the nodes at its root once. Before resolve kept each
// node once, the reads doubled at every link and a chain of 64 never
// finished (testdata/fuzz/FuzzGraph/local_let_chain holds one of 30).
func TestLocalLetChain(t *testing.T) {
	var src strings.Builder
	src.WriteString("param mu: real ~ Normal(0, 1)\ndata x: real\nfor i in 0:3 {\n  let a0 = mu\n")
	for i := 1; i < 64; i++ {
		fmt.Fprintf(&src, "  let a%d = a%d + x * a%d\n", i, i-1, i-1)
	}
	src.WriteString("  target += a63\n}\n")
	g := build(t, src.String(), nil)
	wantEdges(t, g, "mu->target@68:3", "x->target@68:3")
}
