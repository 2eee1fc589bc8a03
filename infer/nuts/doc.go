// Package nuts samples a density on R^d by the No-U-Turn sampler as Stan runs it.
//
// It sits beside infer/sgvb at the end of the pipeline and imports nothing
// of gpp: a Density is any log density with its gradient, so a caller can
// check a variational fit against NUTS on the same model (the CLI does).
//
// The transition is Stan's base_nuts (Hoffman & Gelman 2014 with the changes
// Betancourt 2017, appendix A, describes): a Euclidean kinetic energy
// ½pᵀM⁻¹p with a diagonal, dense or unit inverse metric M⁻¹, the leapfrog
// integrator, a trajectory doubled in a random direction up to MaxDepth,
// multinomial sampling of the new state (uniform progressive sampling by the
// states' weights exp(−H) within a subtree, biased progressive sampling,
// min(1, w_new/w_old), when a subtree joins the trajectory), and the
// generalised no-U-turn criterion on ρ, the sum of the momenta, with
// p♯ = M⁻¹p at the ends, checked over every subtree and, as Stan does since
// 2.26, across the junction of its two halves. A state with H − H0 > 1000,
// a non-finite log density or an error from the Density ends the trajectory
// as a divergence. accept_stat__ is the mean of min(1, exp(H0 − H)) over the
// trajectory's new states; treedepth__ the number of doublings completed;
// n_leapfrog__ ≤ 2^MaxDepth − 1.
//
// Warm-up is Stan's: the step size starts by Stan's init_stepsize heuristic
// (double or halve until one leapfrog step's acceptance crosses 0.8) and is
// tuned by dual averaging of its log toward the mean acceptance Delta
// (γ = 0.05, t0 = 10, κ = 0.75, μ = log(10ε)); the inverse metric is the
// regularised variance (DiagE) or covariance (DenseE) of the positions in
// windows of 25, 50, 100, ... iterations after an initial buffer of 75, the
// last stretched to a terminal buffer of 50 (15 %/75 %/10 % of a warm-up
// shorter than 150; no metric adaptation below 20), each window restarting
// the step size search. Warm-up ends at exp(x̄), the averaged iterate.
// Stan's step-size jitter is not offered (its default is none).
//
// Settings.FixedParam runs Stan's fixed_param sampler instead (fixed.go):
// each chain stays at its start, lp__ and accept_stat__ 0, for a caller
// that draws a model's outputs at each draw (data simulated from fixed
// params, or from a model with no params: a start of no coordinates).
//
// Each chain draws from its own PCG stream (Settings.Seed, chain), so a run
// is bit-identical on any number of Workers. A transition allocates nothing.
// BenchmarkNUTS measures the sampler's own cost at about 0.7–0.8 µs per
// gradient evaluation on a 100-dimensional normal (AMD EPYC, 2 shared
// cores, loaded; 0.9–1.6 µs before the leapfrog step and the tree's leaf
// were fused into two passes for diagonal metrics): the vector work of the
// leapfrog step and the tree, beside 0.13 µs for that density.
//
// The diagnostics (Rhat, ESSBulk, ESSTail, MCSEMean, MCSESD, MCSEQuantile,
// EBFMI) and MAD, Diagnose giving all but EBFMI at once, are those of
// Vehtari et al. (2021) as the R package posterior computes them, pinned to an
// independent Python transcription in the tests; the autocovariances of a
// slowly mixing chain come from an FFT, O(n log n).
package nuts
