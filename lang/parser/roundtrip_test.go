package parser

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
)

// checkRoundTrip checks that f, parsed from src, prints to source that
// parses back to the same tree, that printing that tree again gives the same
// text, and that every node's span in src holds the node's own source.
func checkRoundTrip(t *testing.T, name string, src []byte, f *ast.File) {
	t.Helper()
	var printed bytes.Buffer
	if err := ast.Fprint(&printed, f); err != nil {
		t.Fatal(err)
	}
	f2, err := ParseFile(name, printed.Bytes())
	if err != nil {
		t.Fatalf("%s: printed source does not parse: %v\n%s", name, err, printed.Bytes())
	}
	if got, want := ast.Dump(f2), ast.Dump(f); got != want {
		t.Fatalf("%s: print → parse changed the tree\nprinted:\n%s\n got %s\nwant %s", name, printed.Bytes(), got, want)
	}
	var again bytes.Buffer
	if err := ast.Fprint(&again, f2); err != nil {
		t.Fatal(err)
	}
	if again.String() != printed.String() {
		t.Fatalf("%s: printing is not stable:\n%s\nthen\n%s", name, printed.Bytes(), again.Bytes())
	}
	checkSpans(t, name, src, f)
}

// checkSpans checks every node's Pos and End against src: the text between
// them parses to the same tree as the node (expressions in parentheses,
// types after "data x: ", statements as they are), and every position
// carries the file name.
func checkSpans(t *testing.T, name string, src []byte, f *ast.File) {
	t.Helper()
	lineStart := []int{0}
	for i, c := range src {
		if c == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	offset := func(p ast.Pos) int {
		if p.File != name || p.Line < 1 || p.Line > len(lineStart) || p.Col < 1 {
			t.Fatalf("%s: bad position %v", name, p)
		}
		o := lineStart[p.Line-1] + p.Col - 1
		if o > len(src) {
			t.Fatalf("%s: position %v beyond the input", name, p)
		}
		return o
	}
	ast.Inspect(f, func(n ast.Node) bool {
		start, end := offset(n.Pos()), offset(n.End())
		if start > end {
			t.Fatalf("%s: %s ends (%v) before it starts (%v)", name, ast.Dump(n), n.End(), n.Pos())
		}
		text := string(src[start:end])
		switch n := n.(type) {
		case *ast.File, *ast.SliceExpr:
		case *ast.TypeExpr:
			stmts, err := ParseStmts(name, []byte("data x: "+text))
			if err != nil || len(stmts) != 1 || ast.Dump(stmts[0].(*ast.DataDecl).Type) != ast.Dump(n) {
				t.Fatalf("%s: span %v-%v of %s holds %q", name, n.Pos(), n.End(), ast.Dump(n), text)
			}
		case ast.Expr:
			// In parentheses, as the span may break lines inside brackets.
			x, err := ParseExpr("(" + text + ")")
			if p, ok := x.(*ast.ParenExpr); err != nil || !ok || ast.Dump(p.X) != ast.Dump(n) {
				t.Fatalf("%s: span %v-%v of %s holds %q", name, n.Pos(), n.End(), ast.Dump(n), text)
			}
		case ast.Stmt:
			stmts, err := ParseStmts(name, []byte(text))
			if err != nil || len(stmts) != 1 || ast.Dump(stmts[0]) != ast.Dump(n) {
				t.Fatalf("%s: span %v-%v of %s holds %q", name, n.Pos(), n.End(), ast.Dump(n), text)
			}
		}
		return true
	})
}

// exampleFiles lists every model under examples/.
func exampleFiles(t testing.TB) []string {
	var files []string
	err := filepath.WalkDir("../../examples", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".gpp") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 4 {
		t.Fatalf("found only %d example models: %v", len(files), files)
	}
	return files
}

func TestExamples(t *testing.T) {
	for _, path := range exampleFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ParseFile(path, src)
			if err != nil {
				t.Fatal(err)
			}
			if f.Name != path || len(f.Stmts) == 0 {
				t.Fatalf("got file %q with %d statements", f.Name, len(f.Stmts))
			}
			checkRoundTrip(t, path, src, f)
		})
	}
}

// TestRoundTrip prints and re-parses inputs with every construct.
func TestRoundTrip(t *testing.T) {
	for _, src := range []string{
		"data x: int<upper=N - 1, lower=0>[N, 2]\nconst K: int = 3\nconst s = -2.5e-3\n",
		"param z: unit[N] ~ Beta(1, 1)\nparam t: simplex[K]\nparam x: real\n",
		"let a = -x^2 - -y .* (b - c) / d ^ -e ^ f\nlet b = ((a))'' * W[i]'[0]\n",
		"let c = A[, 0] + A[0, ] + A[:, :] + x[1:] + x[:n] + x[lo + 1:hi - 1]\n",
		"for i in 0:N {\n  for j in i:N { target += A[i, j]; y[i, j] ~ Poisson(exp(A[i, j])) }\n  target -= 1\n}\n",
		"for i in 0:N {\n}\noutput a\noutput b = f(g(x), h())\noutput c ~ Normal(mu, 1)\n",
		"y ~ Normal(\n    mu +\n    x,\n    1)\n",
		"let a = !(x < 1) || y >= 2 && -z != (w ^ 2 == (u <= v))\nlet b = !!x[a > 0] && (a || b) > c\n",
		"data x: int<lower=0, upper=N>[N]\nif x[0] == 0 {\n} else if K > 1 && N > 0 {\n  for i in 0:N { if x[i] > 2 { target += 1 } else { x[i] ~ Poisson(2) } }\n} else {\n  let z = 2; target -= z\n}\n",
		"if (a) {}\nelse {}\n",
		"fn inv_logit2(x) = 1 / (1 + exp(-x))\nfn zero() = 0\nfn f(a, b,\n  c) = a * b + c'\ny ~ Bernoulli(inv_logit2(f(X, beta, a)))\n",
		"fn g(a, b) {\n  let u = a - b\n  let v = u ^ 2; return sqrt(v) + u\n}\nfn h(x) { return x }\nfn k(x) {\n    return x\n}\n",
		"let S = [[1, 0.8], [0.8, 1]]\nlet L = [\n  [s1, 0],\n  [rho * s1, s2]]\ny ~ MvNormal(mu, [[1, -0.5], [x, [2, 3][0]]][[1, 0]])\nlet R = [x, -[a, b]', (c)]\n",
		"y ~ Normal(mu, s) T[0, ]\nn ~ Poisson(l) T[, U[i] + 1]\ny ~ Normal(0, 1) T[\n  a - 1,\n  b]\noutput r ~ Normal(0, 1) T[0, 1]\n",
	} {
		f, err := ParseFile("rt.gpp", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		checkRoundTrip(t, "rt.gpp", []byte(src), f)
	}
}

func TestPrintCanonical(t *testing.T) {
	src := "data Y:real[N,D]   # data\nconst K=10\nparam W : positive[D,K]~Gamma(0.1,1)\n" +
		"let s=-x[1:,]'+f( a ,b)\nfor i in 0 : N{target-=(s^2);x[i]~Normal(0,1)}\noutput s\n"
	want := `data Y: real[N, D]
const K = 10
param W: positive[D, K] ~ Gamma(0.1, 1)
let s = -x[1:, :]' + f(a, b)
for i in 0:N {
    target -= (s ^ 2)
    x[i] ~ Normal(0, 1)
}
output s
`
	f, err := ParseFile("c.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ast.Fprint(&b, f); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
