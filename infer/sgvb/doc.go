// Package sgvb is gpp's inference engine: stochastic-gradient variational
// Bayes (SGVB) with a mean-field q whose factors follow each latent's
// support, after Knowles (2015), "Stochastic gradient variational Bayes for
// gamma approximating distributions"; a MAP point estimate, the Laplace
// approximation (Stan's laplace: a normal at the mode of the unconstrained
// density, laplace.go) and Pathfinder (Stan's pathfinder: the best normal
// along an L-BFGS path, pathfinder.go) are the alternatives.
//
// Place in the pipeline: lang/parser → lang/ast → lang/check → compile →
// lang/autodiff → infer/sgvb. The compiled model reaches this package as a
// Target (a differentiable log joint over one flat coordinate vector) and a
// list of Latents. sgvb imports only dist (gamma draws, special functions)
// and the standard library; the Target's positioned errors (*ast.Error) are
// passed through untouched. See README.md in this directory for the coordinates, the
// families, the estimators, the optimizers and the defaults.
package sgvb
