package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndefiniteDataCovariance: an MvNormal covariance of params and a
// data matrix C (Pagel's lambda C + (1 − lambda) I) that fails its
// Cholesky factorisation names C as the likely cause, with its smallest
// eigenvalue, where C alone is indefinite (a typology trial's tree matrix
// with one entry mistyped drew only "a matrix valid only for some params'
// values"); where C is positive definite, and the params make the matrix
// fail, it does not. Declared cov_matrix, the indefinite C is an error
// where it loads.
func TestIndefiniteDataCovariance(t *testing.T) {
	const model = "data y: real[N]\ndata C: %s\nparam s: positive ~ HalfNormal(1)\nparam lambda: real<lower=0, upper=1> ~ Beta(1, 1)\ny ~ MvNormal(0, square(s) * (%s))\n"
	const pagel = "lambda * C + (1 - lambda) * I(N)"
	const bad = `{"y": [0.1, -0.3, 0.5], "C": [[1, 3, 0], [3, 1, 0], [0, 0, 1]]}`
	const good = `{"y": [0.1, -0.3, 0.5], "C": [[1, 0.5, 0], [0.5, 1, 0], [0, 0, 1]]}`
	const note = "the data C it is built from is itself not positive definite"
	dir := t.TempDir()
	for _, c := range []struct {
		name, decl, cov, data, want string
		wantNote                    bool
	}{
		{"indefinite C", "real[N, N]", pagel, bad, "MvNormal: covariance matrix is not positive definite (leading minor 2); the data C it is built from is itself not positive definite, its smallest eigenvalue -2 (the largest 4), the likely cause: declare C cov_matrix to have it checked when the data load", true},
		{"the params' fault", "real[N, N]", "C - 2 * I(N) + lambda * I(N)", good, "MvNormal: covariance matrix is not positive definite", false},
		{"declared cov_matrix", "cov_matrix[N]", pagel, bad, "d.json:1:30: C: not positive definite, as a cov_matrix needs: its smallest eigenvalue is -2 (the largest 4)", false},
	} {
		m, d := filepath.Join(dir, "m.gpp"), filepath.Join(dir, "d.json")
		if err := os.WriteFile(m, []byte(strings.ReplaceAll(strings.Replace(strings.Replace(model, "%s", c.decl, 1), "%s", c.cov, 1), "%%", "%")), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(d, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runGpp("check", m, d)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want %d and %q:\n%s", c.name, code, exitError, c.want, stderr)
		}
		if strings.Contains(stderr, note) != c.wantNote {
			t.Errorf("%s: the note on C %v, want %v:\n%s", c.name, !c.wantNote, c.wantNote, stderr)
		}
	}
}
