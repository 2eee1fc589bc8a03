package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// FuzzCheck checks that the checker never panics on a file the parser
// accepts, and that every error it reports, or every warning of a file it
// accepts, is positioned inside the file.
func FuzzCheck(f *testing.F) {
	paths, _ := filepath.Glob("../../examples/*.gpp")
	more, _ := filepath.Glob("../../examples/*/*.gpp")
	tests, _ := filepath.Glob("testdata/*.gpp")
	for _, p := range append(append(paths, more...), tests...) {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, chunk := range strings.Split(string(src), "\n---\n") {
			f.Add(chunk)
		}
	}
	// posterior predictive replicates (replicate.go): mirrored by name or
	// by the distribution, truncated, of a matrix, of another shape
	for _, tc := range [][3]string{
		{"real[N]", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(mu, sigma)"},
		{"real[N]", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(rep(mu, N), sigma)"},
		{"real[4]", "y ~ Normal(mu, sigma)", "y_pred ~ Normal(rep(mu, 3), 2 * sigma)"},
		{"real<lower=0>[N]", "y ~ Normal(mu, sigma) T[0, ]", "y_rep ~ Normal(mu, sigma) T[0, ]"},
		{"real<lower=0>[N]", "y ~ Normal(mu, sigma) T[0, 10]", "z ~ Normal(mu, sigma) T[0, 10]"},
		{"real[N, 2]", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(mu, sigma)"},
		{"real[N, K]", "y ~ Normal(rep_matrix(x, K), sigma)", "y_sim ~ Normal(rep_matrix(x, K), sigma)"},
		{"int[N]", "y ~ Categorical(theta)", "y_rep ~ Categorical(theta)"},
		{"real[N]", "for i in 0:N { y[i] ~ Normal(mu, sigma) }", "y_sim ~ Normal(mu, sigma)"},
		{"real", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(x, sigma)"},
	} {
		f.Add(replicateSource(tc[0], tc[1], tc[2]))
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := parser.ParseFile("f.gpp", []byte(src))
		if err != nil {
			return
		}
		cfg := &check.Config{}
		if strings.Contains(src, "const K") { // else --set K=3 is an error, and no warnings are kept
			cfg.Overrides = map[string]string{"K": "3"}
		}
		info, err := check.Check(file, cfg)
		lines := strings.Count(src, "\n") + 1
		if err == nil {
			for _, w := range info.Warnings {
				if w.Pos.File != "f.gpp" || w.Pos.Line < 1 || w.Pos.Line > lines || w.Pos.Col < 1 {
					t.Errorf("warning outside the file: %v", w)
				}
			}
			return
		}
		list, ok := err.(ast.ErrorList)
		if !ok || len(list) == 0 {
			t.Fatalf("error %T %v", err, err)
		}
		for _, e := range list {
			if e.Pos.File != "f.gpp" || e.Pos.Line > lines || e.Pos.Line < 0 || e.Pos.Line > 0 && e.Pos.Col < 1 {
				t.Errorf("error outside the file: %v", e)
			}
			if e.Pos.Line == 0 && !strings.HasPrefix(e.Msg, "--set ") {
				t.Errorf("unpositioned error: %v", e)
			}
		}
	})
}
