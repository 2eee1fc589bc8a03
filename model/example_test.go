package model_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/model"
)

// The log density of a tiny model and its gradient, at theta = 0.5 (u =
// logit 0.5 = 0), with and without the Jacobian of theta's logit.
func ExampleModel_LogDensityGradient() {
	m, err := model.Compile("coin.gpp", []byte(`
data y: int[N]
param theta: unit ~ Beta(2, 2)
y ~ Bernoulli(theta)
`), model.DataValues(map[string]any{"y": []int{1, 0, 1, 1}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.ParamNames(), "unconstrained coordinates:", m.Dim())
	u, grad := []float64{0}, make([]float64, m.Dim())
	lp, err := m.LogDensityGradient(u, grad)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("jacobian=true:  log density %.4f, gradient %.4f\n", lp, grad[0])
	lp, err = m.LogDensityGradient(u, grad, model.Jacobian(false))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("jacobian=false: log density %.4f, gradient %.4f\n", lp, grad[0])
	theta, _ := m.Constrain([]float64{1})
	fmt.Printf("u = 1 is theta = %.4f\n", theta[0])
	// Output:
	// [theta] unconstrained coordinates: 1
	// jacobian=true:  log density -3.7534, gradient 1.0000
	// jacobian=false: log density -2.3671, gradient 1.0000
	// u = 1 is theta = 0.7311
}

// Fit a small model as gpp fit does with no flags, and print q's posterior
// mean; the exact posterior of theta is Beta(5, 3), of mean 0.625.
func ExampleModel_Fit() {
	m, err := model.Compile("coin.gpp", []byte(`
data y: int[N]
param theta: unit ~ Beta(2, 2)
y ~ Bernoulli(theta)
`), model.DataValues(map[string]any{"y": []int{1, 0, 1, 1}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := m.Fit(context.Background(), model.FitSettings())
	if err != nil {
		fmt.Println(err)
		return
	}
	f := r.Factor("theta")
	fmt.Printf("theta: %s factor, posterior mean %.2f\n", f.Family, f.Mean()[0])
	// Output:
	// theta: beta factor, posterior mean 0.63
}

// Draw from q as gpp fit's draws.csv does: FitDraws's rows are its rows
// after the mean row, the params' values in ParamNames' order; and the
// same for NUTS's draws, SampleDraws's rows those of gpp sample's
// draws.csv.
func ExampleModel_FitDraws() {
	m, err := model.Compile("coin.gpp", []byte(`
data y: int[N]
param theta: unit ~ Beta(2, 2)
y ~ Bernoulli(theta)
`), model.DataValues(map[string]any{"y": []bool{true, false, true, true}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := model.FitSettings()
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	draws, err := m.FitDraws(r, 1000, s.Seed) // gpp fit's --output-draws and --seed
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: the first draws %.4f %.4f, the mean of %d %.2f\n", m.ParamNames(), draws[0][0], draws[1][0], len(draws), mean(draws, 0))

	res, err := m.Sample(context.Background(), model.SampleSettings())
	if err != nil {
		fmt.Println(err)
		return
	}
	draws, err = m.SampleDraws(res)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("NUTS: %d draws of %d chains, mean %.2f\n", len(draws), len(res.Chains), mean(draws, 0))
	// Output:
	// [theta]: the first draws 0.7956 0.8463, the mean of 1000 0.62
	// NUTS: 4000 draws of 4 chains, mean 0.63
}

// mean is the mean of column j of rows.
func mean(rows [][]float64, j int) float64 {
	sum := 0.0
	for _, r := range rows {
		sum += r[j]
	}
	return sum / float64(len(rows))
}

// Data simulated at known params, as gpp sample --fixed-param does: the
// chains hold mu and sigma at Inits' values, and Outputs at each draw
// draws y afresh.
func ExampleModel_Sample_fixedParam() {
	m, err := model.Compile("sim.gpp", []byte(`
param mu: real ~ Normal(0, 10)
param sigma: positive ~ HalfNormal(5)
output y ~ Normal(mu, sigma)
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := model.SampleSettings()
	s.FixedParam, s.Chains, s.Draws = true, 1, 3
	res, err := m.Sample(context.Background(), s, model.Inits(map[string]any{"mu": 10, "sigma": 0.001}))
	if err != nil {
		fmt.Println(err)
		return
	}
	draws, _ := m.SampleDraws(res)
	rng := rand.New(rand.NewPCG(1, 2)) // the outputs' stream
	for i, d := range draws {
		y, _ := m.Outputs(res.Chains[0].Draws[i*m.Dim():(i+1)*m.Dim()], rng)
		fmt.Printf("mu %.0f sigma %.3f: y within 0.01 of mu: %v\n", d[0], d[1], y[0] > 9.99 && y[0] < 10.01)
	}
	// Output:
	// mu 10 sigma 0.001: y within 0.01 of mu: true
	// mu 10 sigma 0.001: y within 0.01 of mu: true
	// mu 10 sigma 0.001: y within 0.01 of mu: true
}

// A summary of a NUTS run, CmdStanPy's fit.summary(): gpp sample's
// summary.csv rows, a param's and an output's, with an HDI as ArviZ's;
// and of a fit's draws, whose R̂ is NaN (independent draws, not chains).
func ExampleModel_Summary() {
	m, err := model.Compile("coin.gpp", []byte(`
data y: int[N]
param theta: unit ~ Beta(2, 2)
y ~ Bernoulli(theta)
output odds = theta / (1 - theta)
`), model.DataValues(map[string]any{"y": []bool{true, false, true, true}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := model.SampleSettings()
	res, err := m.Sample(context.Background(), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := m.Summary(res, s.Seed, &model.SummarySettings{HDIProb: 0.94})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range sum.Rows {
		fmt.Printf("%-5s mean %.2f sd %.2f q5 %.2f q95 %.2f hdi [%.2f, %.2f] ess_bulk > 1000 %v R̂ < 1.01 %v\n",
			r.Name, r.Mean, r.SD, r.Quantiles[0], r.Quantiles[2], r.HDI[0], r.HDI[1], r.ESSBulk > 1000, r.Rhat < 1.01)
	}

	fs := model.FitSettings()
	q, err := m.Fit(context.Background(), fs)
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err = m.FitSummary(q, 1000, fs.Seed, &model.SummarySettings{Probs: []float64{0.1, 0.9}})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := sum.Rows[0]
	fmt.Printf("fit: %s mean %.2f q10 %.2f q90 %.2f R̂ %v\n", r.Name, r.Mean, r.Quantiles[0], r.Quantiles[1], r.Rhat)
	// Output:
	// theta mean 0.63 sd 0.16 q5 0.35 q95 0.87 hdi [0.34, 0.91] ess_bulk > 1000 true R̂ < 1.01 true
	// odds  mean 2.48 sd 2.52 q5 0.53 q95 6.64 hdi [0.25, 6.27] ess_bulk > 1000 true R̂ < 1.01 true
	// fit: theta mean 0.62 q10 0.39 q90 0.83 R̂ NaN
}

// Fit 4 restarts from other seeds and jittered starts, as gpp fit
// --restarts 4 does, and summarise their mixture with the R̂ across the
// restarts that gpp fit's summary.csv has: near 1, the restarts found one
// q.
func ExampleModel_FitRestarts() {
	m, err := model.Compile("coin.gpp", []byte(`
data y: int[N]
param theta: unit ~ Beta(2, 2)
y ~ Bernoulli(theta)
`), model.DataValues(map[string]any{"y": []int{1, 0, 1, 1}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := model.FitSettings()
	mix, err := m.FitRestarts(context.Background(), s, sgvb.Restarts{N: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := m.MixtureSummary(mix, 1000, s.Seed, nil) // gpp fit's --output-draws and --seed
	if err != nil {
		fmt.Println(err)
		return
	}
	row := sum.Rows[0]
	fmt.Printf("%d restarts, seeds %v\n", len(mix.Components), mix.Seeds)
	fmt.Printf("%s: mean %.2f, sd %.2f, R̂ %.2f\n", row.Name, row.Mean, row.SD, row.Rhat)
	// Output:
	// 4 restarts, seeds [1 4294967297 8589934593 12884901889]
	// theta: mean 0.62, sd 0.17, R̂ 1.00
}

// Stan's Pathfinder with its default 4 paths, as gpp fit --family
// pathfinder runs it: 4 paths mixed (FitRestarts), 10000 draws of the
// mixture weighted by p/q and 1000 resampled (Resample), and their summary
// (ResampledSummary), gpp fit's summary.csv; the exact posterior is
// Beta(5, 3), of mean 0.625 and sd 0.161.
func ExampleModel_FitRestarts_pathfinder() {
	m, err := model.Compile("coin.gpp", []byte(`
data y: int[N]
param theta: unit ~ Beta(2, 2)
y ~ Bernoulli(theta)
`), model.DataValues(map[string]any{"y": []int{1, 0, 1, 1}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := model.FitSettings()
	s.Method = sgvb.Pathfinder
	mix, err := m.FitRestarts(context.Background(), s, sgvb.Restarts{N: 4}) // Stan's num_paths = 4
	if err != nil {
		fmt.Println(err)
		return
	}
	rs, err := m.Resample(mix, 1000, s.Seed) // --psis-resample for --output-draws 1000
	if err != nil {
		fmt.Println(err)
		return
	}
	var sum *model.Summary
	if rs.Usable() {
		sum, err = m.ResampledSummary(mix, rs, s.Seed, nil)
	} else {
		sum, err = m.MixtureSummary(mix, 1000, s.Seed, nil) // q's own draws, as gpp fit keeps them
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("resampled %v: %d of %d draws, k̂ %.1f\n", rs.Usable(), len(rs.Index), rs.Candidates, rs.K)
	fmt.Printf("theta: mean %.2f, sd %.2f\n", sum.Rows[0].Mean, sum.Rows[0].SD)
	// Output:
	// resampled true: 1000 of 10000 draws, k̂ 0.4
	// theta: mean 0.63, sd 0.16
}

// Predict at new inputs from a fit, as gpp predict does from a saved
// fit: the Predictor compiles the model on data that leave out the
// observed y, which it then draws at each draw of q after the outputs,
// and FitOutputs gives each draw's outputs in OutputNames' order.
func ExampleModel_Predictor() {
	src := []byte(`
data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 5)
param b: real ~ Normal(0, 5)
param sigma: positive ~ HalfNormal(2)
y ~ Normal(a + b * x, sigma)
output yhat = a + b * x
`)
	m, err := model.Compile("lin.gpp", src, model.DataValues(map[string]any{
		"x": []float64{0, 1, 2, 3, 4, 5, 6, 7},
		"y": []float64{0.9, 3.1, 4.8, 7.2, 9.1, 10.8, 13.2, 15.1},
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := model.FitSettings()
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := m.Predictor(model.DataValues(map[string]any{"x": []float64{10, 20}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	draws, err := p.FitOutputs(r, 1000, s.Seed) // gpp predict's draws.csv output columns
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.OutputNames())
	for j, name := range p.OutputNames() {
		mean := 0.0
		for _, d := range draws {
			mean += d[j] / float64(len(draws))
		}
		fmt.Printf("%s: mean %.1f\n", name, mean)
	}
	// Output:
	// [yhat.1 yhat.2 y.1 y.2]
	// yhat.1: mean 21.2
	// yhat.2: mean 41.4
	// y.1: mean 21.2
	// y.2: mean 41.4
}

// LoadFit reads a fit that gpp fit saved, here by
//
//	gpp fit examples/regression.gpp examples/wine_std.csv --out model/testdata/regression
//
// and its Predictor predicts from it on new data, as gpp predict does:
// two new wines' proline, left out of the data and so drawn at each draw.
func ExampleModel_LoadFit() {
	m, err := model.Load("../examples/regression.gpp", model.DataFiles("../examples/wine_std.csv"))
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := m.LoadFit("testdata/regression") // the --out directory, or its fit.json
	if err != nil {
		fmt.Println(err) // file:line:col: message, as gpp predict prints it
		return
	}
	p, err := f.Predictor(model.DataValues(map[string]any{
		"alcohol":         []float64{1, -1},
		"color_intensity": []float64{0, 0},
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	draws, err := p.FitOutputs(f.Q, 1000, f.Seed) // gpp predict's draws.csv output columns
	if err != nil {
		fmt.Println(err)
		return
	}
	names := p.OutputNames()
	for _, name := range []string{"proline.1", "proline.2"} {
		j := slices.Index(names, name)
		mean := 0.0
		for _, d := range draws {
			mean += d[j] / float64(len(draws))
		}
		fmt.Printf("%s: mean %.1f\n", name, mean)
	}
	// Output:
	// proline.1: mean 0.8
	// proline.2: mean -0.7
}

// Save a fit made in Go as gpp fit's fit.json, for gpp predict DIR
// model.gpp new.csv and gpp fit --init DIR, and read it back.
func ExampleModel_SaveFit() {
	m, err := model.Load("../examples/regression.gpp", model.DataFiles("../examples/wine_std.csv"))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := model.FitSettings()
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "gpp-fit")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := m.SaveFit(dir, r, s); err != nil { // writes dir/fit.json
		fmt.Println(err)
		return
	}
	f, err := m.LoadFit(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	same := slices.Equal(f.Q.Factor("beta").Mean(), r.Factor("beta").Mean())
	fmt.Println("saved and read back the same q:", same, "seed", f.Seed)
	// Output:
	// saved and read back the same q: true seed 1
}
