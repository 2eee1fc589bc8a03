package check_test

import "testing"

// TestSignScaleWarnings: a scalar real param with a prior symmetric about 0
// that multiplies a standard-normal param (indexed or whole, in a longer
// product or a let) is warned of once, at its declaration; a positive
// scale, a real one with bounds or an off-centre prior, and a real scalar
// times a param whose prior is not Normal(0, 1) are not.
func TestSignScaleWarnings(t *testing.T) {
	wantWarnings(t, `data J: int
data y: real[N]
data g: int<lower=0, upper=J-1>[N]
data x: real[N]
param sd_u: real ~ Normal(0, 1)
param sd_v: real ~ Cauchy(0, 2)
param sd_w: positive ~ Normal(0, 1)
param sd_a: real<lower=0> ~ Normal(0, 1)
param sd_b: real ~ Normal(1, 0.1)
param b: real ~ Normal(0, 1)
param z_u: real[J] ~ Normal(0, 1)
param z_v: real[J] ~ Normal(0, 1)
param z_w: real[J] ~ Normal(0, 1)
param w: real[J] ~ Normal(0, 2)
let eta = b * x + sd_u * z_u[g] + x .* (z_v[g] * sd_v) + sd_w * z_w[g] + sd_a * z_w[g] + sd_b * z_w[g] + b * w[g]
y ~ Normal(eta + sd_u * z_u[g], 1)
`, []string{
		"m.gpp:5:7 sd_u is a scale of the standard-normal z_u but declared real: its sign is not identified (sd_u * z_u = (-sd_u) * (-z_u), so q may settle on −sd_u); declare it positive",
		"m.gpp:6:7 sd_v is a scale of the standard-normal z_v but declared real: its sign is not identified (sd_v * z_v = (-sd_v) * (-z_v), so q may settle on −sd_v); declare it positive",
	})
}

// TestSignScalePinned: a real slope times a standard-normal param whose
// sign another statement pins (the latent covariate also observed with
// error, or the slope read again elsewhere) is no sign-free scale, so no
// warning.
func TestSignScalePinned(t *testing.T) {
	wantWarnings(t, `data y: real[N]
data x_obs: real[N]
data w: real[N]
param beta: real ~ Normal(0, 1)
param gamma: real ~ Normal(0, 1)
param x: real[N] ~ Normal(0, 1)
param u: real[N] ~ Normal(0, 1)
x_obs ~ Normal(x, 0.3)
y ~ Normal(beta * x + gamma * u + gamma * w, 1)
`, nil)
}
