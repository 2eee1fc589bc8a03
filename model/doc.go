// Package model is gpp's Go API: load a model with its data, evaluate its
// log density and gradient on unconstrained coordinates, map between those
// and the params' values, and fit or sample it in-process — what
// BridgeStan and CmdStanPy give Stan's users, and pm.fit and pm.sample
// PyMC's.
//
// Place in the pipeline: on top of it, beside cmd/gpp. Load and Compile
// parse, check, bind the data and compile exactly as gpp fit does
// (internal/pipeline); LogDensity is sgvb.Unconstrained's density, the one
// gpp sample's NUTS moves on; Fit is sgvb.Fit with the Target and latents
// gpp fit builds, Sample is infer/nuts with gpp sample's starts. The same
// model, data, settings and seed give the same numbers, bit for bit, as
// the command line. FitSettings and SampleSettings are the commands'
// defaults (a nuts.Settings built by hand has no warm-up unless its Warmup
// says so). Cancelling ctx stops Fit, FitRestarts and Sample with the
// result so far and an error that wraps ctx.Err().
//
// A short session:
//
//	m, err := model.Compile("coin.gpp", []byte(`
//	data y: int[N]
//	param theta: unit ~ Beta(1, 1)
//	y ~ Bernoulli(theta)
//	`), model.DataValues(map[string]any{"y": []int{1, 0, 1, 1}}))
//	if err != nil {
//		return err // file:line:col: message, as gpp check prints it
//	}
//	u := make([]float64, m.Dim())       // theta = 0.5
//	grad := make([]float64, m.Dim())
//	lp, err := m.LogDensityGradient(u, grad) // with the Jacobian: NUTS's density
//	r, err := m.Fit(ctx, model.FitSettings())
//	res, err := m.Sample(ctx, model.SampleSettings(), model.Inits(map[string]any{"theta": 0.3}))
//	mean := r.Factor("theta").Mean()[0]  // q's posterior mean
//	draws, err := m.FitDraws(r, 1000, 1) // gpp fit's draws.csv rows: draws[d][j] is ParamNames()[j]
//
// Coordinates: u has Dim elements, the unconstrained coordinates of every
// param in declaration order (a positive param's log, log(a - 1) for a
// real<lower=1>, the logit for one bounded on both sides, a simplex row's
// stick-breaking coordinates, ...), as BridgeStan's
// param_unc_num; Constrain maps u to the NumParams values ParamNames
// names, in draws.csv's column order, and Unconstrain maps them back.
// The names and their order are CmdStan's, which gpp's CSV files share
// (compile.CSVName, compile.ColumnMajor): "W.2.1", a matrix column by
// column.
//
// Draws: FitDraws draws from a fit's q as gpp fit does, from the same
// random stream (sgvb.DrawStream), and SampleDraws maps a NUTS run's
// draws; both give rows of the params' values, the param columns of the
// command's draws.csv bit for bit (printed there to 6 significant digits).
//
// Summaries: Summary summarises a NUTS run and FitSummary a fit's draws
// as gpp sample's and gpp fit's summary.csv do, CmdStanPy's
// fit.summary() and ArviZ's az.summary: a row per param and output
// element (outputs' replicates drawn from OutputStream, as the commands
// draw them), named as summary.csv names it (SummaryRow.Name: 0-based,
// "beta[0]", by label on an axis a data column's labels size; Column is
// draws.csv's "beta.1", ParamNames'), the mean, sd and quantiles
// (SummarySettings.Probs), an optional HDI (SummarySettings.HDIProb), and
// infer/nuts.Diagnose's ESS, R̂ and Monte Carlo errors; R̂ is NaN for a
// fit's draws, which are not chains.
//
// Restarts: FitRestarts fits N independent q's and mixes them, as gpp
// fit --restarts N (restart r from seed sgvb.RestartSeed(seed, r),
// restarts after the first from jittered starts); MixtureDraws and
// MixtureSummary draw from the mixture as FitDraws and FitSummary from
// one fit, the summary with R̂ across the restarts (sgvb.RestartRhat), as
// gpp fit's summary.csv. Resample importance-resamples a fit's or a
// mixture's draws as gpp fit --psis-resample does, and ResampledDraws and
// ResampledSummary give the resampled draws. Stan's Pathfinder with its 4
// paths, gpp fit --family pathfinder's default, is FitRestarts with
// sgvb.Pathfinder and N 4, then Resample and ResampledSummary
// (ExampleModel_FitRestarts_pathfinder).
//
// Starts: Sample and Fit take StartOptions, CmdStanPy's inits=. Inits
// gives some params' values, as Go values that DataValues would take for
// data, and starts every chain there (the others drawn as without it) or
// q's locations there for one Fit, as gpp sample and gpp fit --init
// FILE.json do; ChainInits gives a map per chain; InitRadius(r) draws the
// coordinates not given uniform on (−r, r), CmdStan's init=r (Stan's 2
// by default). Bad values are errors naming the element, at the option's
// name: "Inits: sigma is -0.5, outside sigma's support: want a positive
// value".
//
// Prediction: Predictor compiles the model on new data as gpp predict
// does (the observed y may be left out, and is then drawn at each draw;
// labels coded, matrix columns matched by name and --set consts
// inherited from the fitted model's data), and FitOutputs and
// SampleOutputs give the outputs at a fit's draws or a NUTS run's, gpp
// predict's draws.csv output columns bit for bit
// (ExampleModel_Predictor); on the fitted model itself they are gpp fit's
// and gpp sample's. LoadFit reads a fit that gpp fit saved (its --out
// directory or fit.json), checked against the model as gpp predict checks
// it (errors at the param's declaration or in fit.json); its Fit's
// Predictor codes new data as the fit coded its own (fit.json's labels,
// sizes and matrix columns, whatever data m was compiled on) and inherits
// the fit's --set consts, and FitOutputs(f.Q, n, f.Seed) is gpp predict's
// draws.csv (ExampleModel_LoadFit): fit once, predict later in a service.
// SaveFit writes a fit made here (with its settings) as gpp fit's fit.json,
// whole or not at all, which gpp predict, gpp fit --init and LoadFit read
// as gpp fit's (ExampleModel_SaveFit; SaveMixture for FitRestarts): fit
// in a program, predict from the command line. LoadFit of a fit of
// restarts, and of a gpp sample's coords.csv, is gpp predict's alone so
// far.
//
// Simulation: Sample with nuts.Settings.FixedParam (gpp sample
// --fixed-param) holds every chain at its start, Inits' values, and
// Outputs at each draw simulates data from them; a model with no params
// samples so whatever the settings, its outputs all there is to draw.
//
// Data: DataValues takes Go values of any integer, float or bool type, as
// scalars, slices and slices of slices, and gonum vectors and matrices;
// integers past 2^53 in magnitude and nils are errors.
//
// Errors are gpp's positioned errors (an *ast.Error or an ast.ErrorList,
// each "file:line:col: message", errors.As finding an *ast.Error in a
// list; for a Go value, at the option or method that took it:
// "Inits: sigma[1] is -1, ..."), never a panic. A *Model is not safe for
// concurrent use: give each goroutine its own Clone.
package model
