// Package bridge estimates the log marginal likelihood (the log evidence)
// log Z = log ∫ p̃(θ) dθ of an unnormalised log density log p̃ on R^d from
// posterior draws, by bridge sampling, for gpp sample to report the evidence
// and Bayes factors of a NUTS run.
//
// It sits beside infer/nuts at the end of the pipeline and imports of gpp
// only nuts's effective sample sizes: the draws are any chains of positions
// on unconstrained coordinates with log p̃ at each, and log p̃ is any function.
//
// The method is the R package bridgesampling's default, method = "normal"
// (Meng & Wong 1996; Gronau et al. 2017, "A tutorial on bridge sampling",
// Journal of Mathematical Psychology 81): every chain is cut in halves; the
// first halves fit the proposal g, the multivariate normal with their mean
// and sample covariance; the second halves, N1 draws, are the bridge's
// posterior draws, and N2 draws from g (seeded, Settings.Seed) are its
// proposal draws, where log p̃ is evaluated (N2 calls of the function). With
// l = log p̃ − log g at each draw (l1 at the posterior's, l2 at the
// proposal's) and the optimal bridge function h = 1/(s1 p + s2 g),
// s1 = N1eff/(N1eff + N2), s2 = N2/(N1eff + N2), Meng & Wong's fixed point
//
//	r ← mean_j[e^l2_j / (s1 e^l2_j + s2 r)] / mean_i[1 / (s1 e^l1_i + s2 r)]
//
// is iterated from r = 1 until |r_new − r|/r_new < Tol, entirely in log
// space (log-sum-exp) with l shifted by the median of l1, so that neither
// r nor a term overflows. N1eff, the posterior draws' effective sample size,
// is the median over coordinates of their bulk ESS (nuts.ESSBulk), as
// bridgesampling's use_neff = TRUE. A proposal draw with p̃ = 0 (log p̃ = −Inf)
// is a legitimate term, zero in the numerator; an error or NaN is an error.
//
// Settings.Method = Warp3 is bridgesampling's method = "warp3", warp-III
// bridge sampling (Meng & Schilling 2002, "Warp bridge sampling", Journal
// of Computational and Graphical Statistics 11; Gronau et al. 2017, §
// "warp-III"): with μ and L the mean and Cholesky factor of the normal
// fitted to the first halves, the posterior is standardised and warped to
// the symmetric density
//
//	p̃_w(η) = ½ |L| (p̃(μ + Lη) + p̃(μ − Lη)),
//
// of the same integral, and bridged to the standard normal φ, which
// then matches its mean, covariance and (zero) skewness where the normal
// proposal matches only the first two. The iteration and the error are
// the normal method's with l = log p̃_w − log φ. A posterior draw θ stands
// for η = L⁻¹(θ − μ): η is not a draw from p̃_w/Z, but every function of η
// the scheme averages is even, and under p̃_w/Z and under the density of
// η its means are the same. Since |L| φ(η) = g(θ),
// l = log ½(p̃(θ) + p̃(2μ − θ)) − log g(θ) at the posterior draws, which
// costs one call at each draw's reflection 2μ − θ (N1 calls), and at the
// proposal draws θ = μ + Lz, η = z, the same with p̃ at θ and its
// reflection (2·N2 calls). On a skewed posterior its SE is smaller for the
// same draws: half the normal method's on a log-Gamma(2, 1) coordinate
// (TestWarp3).
//
// The standard error is Frühwirth-Schnatter's (2004, "Estimating marginal
// likelihoods for mixture and Markov switching models using bridge sampling
// techniques", Econometrics Journal 7) approximate relative mean-squared
// error of Ẑ, as bridgesampling's error_measures:
//
//	re² = V_g(f1) / (N2 E_g(f1)²) + ρ_f2(0) V_post(f2) / (N1 E_post(f2)²),
//
// with p = p̃/Ẑ, f1 = p/(s1 p + s2 g) at the proposal draws, f2 =
// g/(s1 p + s2 g) at the posterior draws and ρ_f2(0) = N1 / ESS(f2), the
// ESS of the f2 series of the chains split in halves (nuts.ESS, posterior's
// ess_mean). SE = √re² is, to first order, the standard error of log Ẑ.
// f1 and f2 are computed in log space and scaled by their maxima, which
// re² does not depend on, so that neither underflows where the proposal
// is far off (TestRelErrFarProposal).
// Two departures from bridgesampling: f1 and f2 use the s1, s2 of the
// estimator (bridgesampling's error uses N1/(N1+N2) even with use_neff),
// and ρ_f2(0) is the normalised autocorrelation factor the formula asks for
// (bridgesampling multiplies by spectrum0.ar's spectral density, the
// variance times that factor, which is not scale free).
//
// Estimate calls log p̃ N2 + 1 times (Warp3: N1 + 2·N2 + 1) and otherwise
// costs little: BenchmarkEstimate (d = 20, 4 chains of 1000 draws,
// N2 = 2000, a cheap normal log density) takes about 7.8–8.5 ms (AMD EPYC,
// 2 shared cores, loaded), two thirds of it the bulk ESS of the 20
// coordinates; BenchmarkEstimateWarp3 about 7.9 ms, its 4000 more calls
// of the cheap density a small part.
//
// The estimate is only as good as log p̃ is complete: it must include every
// normalising constant of the model and the Jacobian of the transform to
// unconstrained coordinates, the same function that gave the chains' LogP
// (Estimate checks one draw). Bridge sampling needs the proposal to cover
// the posterior; a multimodal or heavy-tailed posterior gives a large SE.
package bridge
