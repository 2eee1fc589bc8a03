// Package epm runs the edge-partition-model experiments of gpp's
// reproduction of Knowles (2015): link prediction on NIPS234 (experiment 1,
// Run) and the optimizer comparison of the paper's Fig. 1 and Fig. 2
// (experiment 4, RunOptimizers), plus the validation study that fixed the
// fit settings (Tune).
//
// Place in the project: above the pipeline. Every model fit goes through
// the same path as `gpp fit`: examples/epm.gpp is parsed and checked by
// internal/pipeline, its data (N, the training links, the held-out pairs)
// are bound from in-memory data.Input values, the model is compiled and
// fitted by infer/sgvb, and predictions are the model's own output
// p_unknown evaluated on draws of q (compile.Evaluator). The MCMC baseline
// (RunNUTS, method NUTS) samples the same compiled model by infer/nuts on
// the unconstrained coordinates of sgvb.NewUnconstrained and evaluates
// p_unknown on its draws instead. The package adds
// the split protocol of Zhou's EPM code (MakeSplit, InnerSplit), the Katz
// index reference (Katz, ChooseKatzBeta), a symmetric-NMF starting point
// (SymNMF, Start) and the reports; the metrics live in experiments/metrics.
//
// Usage (cmd/gpp-experiments calls these):
//
//	rep, err := epm.Run(ctx, epm.Options{Out: "docs/results", Log: os.Stderr})
//	nuts, err := epm.RunNUTS(ctx, epm.Options{Out: "docs/results", Log: os.Stderr})
//	opt, err := epm.RunOptimizers(ctx, epm.Options{Out: "docs/results", Log: os.Stderr})
//	tune, err := epm.Tune(ctx, epm.Options{Out: "docs/results", Log: os.Stderr})
//	mix, err := epm.TuneWith(ctx, epm.Options{Out: "docs/results", Log: os.Stderr},
//		epm.MixtureCases(), "epm_mixture_tuning", "one fit against a mixture of 8 on a validation split")
//
// Each writes CSV, PNG and Markdown files into Options.Out (see Run,
// RunNUTS, RunOptimizers and Tune for the names). Options.Quick gives a smoke test
// of a few seconds. Randomness is explicit: splits, fits and prediction
// draws are seeded math/rand/v2 PCG streams derived from Options.Seed, so a
// run is reproducible (fit times aside).
package epm
