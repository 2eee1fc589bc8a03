package check_test

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
	"github.com/gpplang/gpp/stdlib"
)

// TestAppendRowHelp: append_row's help (its shape rule, which gpp help and
// docs/language.md print) says what the checker accepts: a scalar beside
// a vector counts as [1], but two scalars, or a scalar and a matrix, are
// errors, the first with the advice the rule repeats.
func TestAppendRowHelp(t *testing.T) {
	rule := stdlib.AppendRow.String()
	for _, c := range []struct {
		call string
		err  string // "" when it checks
		says string // what the rule must say of it
	}{
		{"append_row(1, v)", "", "a scalar beside a vector counts as [1]"},
		{"append_row(1, rho)", "write the vector [1, rho]", "two scalars are an error (write the vector [x, y])"},
		{"append_row(1, M)", "a scalar, which goes only with a vector", "a scalar does not go with a matrix"},
	} {
		src := "data v: real[3]\ndata M: real[3, 2]\nparam rho: real ~ Normal(0, 1)\noutput o = sum(" + c.call + ")\n"
		f, err := parser.ParseFile("m.gpp", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		_, err = check.Check(f, &check.Config{})
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v, want it to check", c.call, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one saying %q", c.call, err, c.err)
		}
		if !strings.Contains(rule, c.says) {
			t.Errorf("append_row's rule %q does not say of %s: %q", rule, c.call, c.says)
		}
	}
}
