package check_test

import (
	"strings"
	"testing"
)

// TestSoftSumWarnings: a ~ on sum(v) or mean(v) of a real vector param
// with a constant location and a scale that holds v's mean within 0.01
// (scale / n for a sum of n known elements) is warned about at its left
// side, naming sum_to_zero_vector and, for a nonzero sum c over n
// elements, the recipe c/n + a zero-sum vector; a wider scale, a sum of
// unknown length with a scale above 0.01, a sum of an expression, of a
// positive or zero-sum param, or a location that is not constant is not.
func TestSoftSumWarnings(t *testing.T) {
	// the trial's Lee–Carter model with soft constraints (lc_soft.gpp)
	lc := `data D: int[A, T]
data E: positive[A, T]
param a: real[A] ~ Normal(-5, 5)
param b: real[A] ~ Normal(0, 1)
param k: real[T]
param drift: real ~ Normal(0, 5)
param sigma_k: positive ~ HalfNormal(5)
sum(b) ~ Normal(1, 0.001)
sum(k) ~ Normal(0, 0.001)
k[1:] ~ Normal(k[:T-1] + drift, sigma_k)
D ~ Poisson(E .* exp(a * rep(1, T)' + b * k'))
`
	wantWarnings(t, lc, []string{
		"m.gpp:8:1 `sum(b) ~ Normal(1, 0.001)` is a soft constraint: it holds the sum of the param `b` within a few times 0.001 of 1, a narrow ridge in b's elements that a fit follows poorly (a mean-field q cannot, NUTS takes tiny steps along it); make the sum exactly 1 instead: declare `param b_z: sum_to_zero_vector[A]` (with b's prior, if any), `let b = 1.0 / A + b_z` and leave out this ~ (docs/language.md, Sum-to-zero vectors)",
		"m.gpp:9:1 `sum(k) ~ Normal(0, 0.001)` is a soft constraint: it holds the sum of the param `k` within a few times 0.001 of 0, a narrow ridge in k's elements that a fit follows poorly (a mean-field q cannot, NUTS takes tiny steps along it); make the sum exactly 0 instead: declare `param k: sum_to_zero_vector[T]` (with its prior, if any) and leave out this ~ (docs/language.md, Sum-to-zero vectors)",
	})
	head := "data N: int\nconst K = 10\nparam v: real[K] ~ Normal(0, 1)\nparam w: real[N] ~ Normal(0, 1)\nparam p: positive[K] ~ Gamma(2, 1)\nparam z: sum_to_zero_vector[K] ~ Normal(0, 1)\nparam m: real ~ Normal(0, 1)\ntarget += sum(v) + sum(w) + sum(p) + sum(z) + m\n"
	for _, tc := range []struct{ stmt, want string }{
		// Stan's sum(v) ~ normal(0, 0.001 * N): 0.0001 per element
		{"sum(v) ~ Normal(0, 0.001 * K)", "m.gpp:9:1 `sum(v) ~ Normal(0, 0.001 * K)` is a soft constraint: it holds the sum of the param `v` within a few times 0.01 of 0"},
		{"sum(v) ~ Normal(0, 0.05)", "make the sum exactly 0 instead: declare `param v: sum_to_zero_vector[K]`"},
		{"sum(v) ~ Normal(2, 0.001)", "make the sum exactly 2 instead: declare `param v_z: sum_to_zero_vector[K]` (with v's prior, if any), `let v = 0.2 + v_z`"},
		{"mean(v) ~ Normal(0.5, 0.001)", "it holds the mean of the param `v` within a few times 0.001 of 0.5, a narrow ridge in v's elements that a fit follows poorly (a mean-field q cannot, NUTS takes tiny steps along it); make the mean exactly 0.5 instead: declare `param v_z: sum_to_zero_vector[K]` (with v's prior, if any), `let v = 0.5 + v_z`"},
		{"sum(w) ~ StudentT(3, 1, 0.001)", "`let w = 1.0 / N + w_z`"},
		{"sum(w) ~ Cauchy(0, 0.01)", "declare `param w: sum_to_zero_vector[N]`"},
		// Stan's form with a size known with the data: 0.001 per element
		{"sum(w) ~ Normal(0, 0.001 * N)", "`sum(w) ~ Normal(0, 0.001 * N)` is a soft constraint: it holds the sum of the param `w` within a few times 0.001 * N of 0"},
		{"sum(w) ~ Normal(0, N * 0.005)", "declare `param w: sum_to_zero_vector[N]`"},
		{"sum(w) ~ Normal(0, 0.1 * N)", ""},
		{"mean(w) ~ Normal(0, 0.001 * N)", ""},
		{"sum(v) ~ Normal(0, 1)", ""},
		{"sum(v) ~ Normal(0, 0.2)", ""},   // 0.02 per element
		{"mean(v) ~ Normal(0, 0.02)", ""}, // a mean of 0.02
		{"sum(w) ~ Normal(0, 0.05)", ""},  // N unknown: 0.05 / N may be larger than 0.01
		{"sum(v[1:]) ~ Normal(0, 0.001)", ""},
		{"sum(p) ~ Normal(1, 0.001)", ""},
		{"sum(z) ~ Normal(0, 0.001)", ""},
		{"sum(v) ~ Normal(m, 0.001)", ""},
	} {
		_, info := checkSource(t, "m.gpp", head+tc.stmt+"\n", nil)
		got := warningLines(info)
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s: warnings %q", tc.stmt, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("%s: warnings %q, want one containing %q", tc.stmt, got, tc.want)
		}
	}
}
