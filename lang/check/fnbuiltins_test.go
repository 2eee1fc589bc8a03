package check_test

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
	"github.com/gpplang/gpp/stdlib"
)

// TestFnBodySeesEveryBuiltin: a function's body may call every built-in
// function, the constants of no arguments among them (pi(), sqrt2(), ...,
// once refused there as unknown functions), in both forms of function, as
// the top level may. The functions are never called, so only the names in
// their bodies are checked.
func TestFnBodySeesEveryBuiltin(t *testing.T) {
	n := 0
	for _, f := range stdlib.Funcs() {
		args := make([]string, len(f.Args))
		for i := range args {
			args[i] = "a"
		}
		call := f.Name + "(" + strings.Join(args, ", ") + ")"
		for _, src := range []string{
			"fn g(a) = 1 + " + call + "\n",
			"fn g(a) {\n  let c = " + call + "\n  return c + a\n}\n",
		} {
			src += "param m: real ~ Normal(0, 1)\n"
			file, err := parser.ParseFile("g.gpp", []byte(src))
			if err != nil {
				t.Fatalf("%s: %v", call, err)
			}
			if _, err := check.Check(file, &check.Config{}); err != nil {
				t.Errorf("%s in a function's body: %v", call, err)
			}
			n++
		}
	}
	if n < 100 {
		t.Fatalf("only %d bodies checked", n)
	}
}
