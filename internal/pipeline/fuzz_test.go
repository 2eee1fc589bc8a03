package pipeline_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
)

// FuzzPipeline feeds a model, a CSV, TSV or JSON file and --set values through every phase a fit runs:
// parse, check, read the data, bind, compile, evaluate the log joint and its
// gradient, the outputs and replicates at a point, and a few SGVB steps on two workers. Whatever the input, no phase
// may panic, and every error before the fit must be positioned in the model
// or the data (the contract of `gpp fit`: file, line and column, exit code
// 1). The seeds are the bundled examples and the CLI's test models with small
// data; `go test` runs them, `go test -fuzz FuzzPipeline` searches further.
func FuzzPipeline(f *testing.F) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		return string(b)
	}
	head := func(s string, lines int) string {
		parts := strings.SplitAfter(s, "\n")
		return strings.Join(parts[:min(lines, len(parts))], "")
	}
	counts := read("../../cmd/gpp/testdata/fit_counts.csv")
	matrix := read("../../cmd/gpp/testdata/fit_matrix.csv")
	wine := head(read("../../examples/wine_std.csv"), 12)
	f.Add(read("../../cmd/gpp/testdata/fit_poisson.gpp"), counts, "")
	f.Add(read("../../cmd/gpp/testdata/fit_factor.gpp"), matrix, "K=2")
	f.Add(read("../../cmd/gpp/testdata/fit_nan.gpp"), counts, "")
	f.Add(read("../../examples/gpfa.gpp"), wine, "K=2")
	f.Add(read("../../examples/gpfa_diag.gpp"), wine, "K=3")
	f.Add(read("../../examples/fa.gpp"), wine, "K=2")
	f.Add(read("../../examples/mixture.gpp"), wine, "K=3")
	f.Add(read("../../examples/epm.gpp"), `{"N":110,"links":[[0,1],[0,4],[0,9],[0,16],[0,23],[0,33],[0,35],[0,41],[0,65],[0,90],[0,93],[0,104],[1,25],[1,33],[1,37],[1,45],[1,101],[1,103],[1,105],[1,109],[2,6],[2,13],[2,14],[2,15],[2,47],[2,60],[2,72],[2,74],[2,100],[2,106],[3,11],[3,26],[3,40],[3,52],[3,58],[3,72],[3,74],[3,81],[3,84],[3,102],[4,5],[4,9],[4,16],[4,23],[4,28],[4,41],[4,69],[4,93],[4,104],[4,108],[5,10],[5,52],[5,74],[5,81],[5,84],[5,97],[5,98],[5,107],[6,7],[6,39]],"unknown":[[0,109],[1,108],[2,107]]}`, "K=3")
	f.Add(read("../../examples/posteriordb/eight_schools_noncentered.gpp"), `{"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12], "sigma": [15, 10, 16, 11, 9, 11, 10, 18]}`, "")
	f.Add("data y: int<lower=0>[N]\nparam b: real[2] ~ Normal(0, [10, 2.5])\nparam w: simplex[3] ~ Dirichlet(rep(1, 3))\n"+
		"y ~ Poisson(exp(b[0] + b[1] * w[0]))\noutput y_rep ~ Poisson(rep(exp(b[0]), N))\noutput m = max(y_rep) - min([b[1], w[2]])\n", counts, "")
	f.Add(read("../../examples/posteriordb/kidiq_momiq.gpp"), `{"N": 6, "kid_score": [65, 98, 85, 83, 115, 98], "mom_iq": [121.1, 89.4, 115.4, 99.4, 92.7, 107.9]}`, "")
	f.Add("data y: positive[N]\ndata U: real\nparam theta: real<lower=max(y), upper=U> ~ Uniform(0, U)\nparam s: real<lower=min(y)> ~ Gamma(2, 1)\n"+
		"y ~ Uniform(0, rep(theta, N))\ntarget += -s\n", `{"y": [1.2, 3.4, 2.2], "U": 10}`, "")
	f.Add(read("../../examples/ordinal.gpp"), head(read("../../examples/ordinal.csv"), 30), "")
	f.Add("data y: int[N]\nparam lambda: positive_ordered[2] ~ Normal(0, 5)\nparam w: unit ~ Beta(2, 2)\n"+
		"target += sum(rowlogsumexp(log([w, 1 - w])' + logpdf(y, Poisson(lambda'))))\noutput gap = lambda[1] - lambda[0]\n", counts, "")
	f.Add("data y: real[N]\nparam mu: ordered[2] ~ Normal(0, 5)\nparam w: unit ~ Beta(2, 2)\n"+
		"target += sum(rowlogsumexp(log([w, 1 - w])' + logpdf(y, Normal(mu', 1))))\n", `{"y": [-3.1, 2.9, -2.7, 3.3, 0.2]}`, "")
	f.Add("data y: int[N]\ndata c: positive[N]\nparam lam: real<lower=c>[N] ~ Gamma(2, 0.5)\nparam p: real<lower=0.1, upper=c / (1 + c)>[N]\n"+
		"y ~ Poisson(lam)\ntarget += sum(log(p))\n", `{"y": [1, 3, 2], "c": [2, 0.5, 6.5]}`, "")
	f.Add(read("../../examples/varying.gpp"), head(read("../../examples/varying.csv"), 30), "J=3")
	f.Add("param eta: positive ~ Gamma(2, 1)\nparam L: cholesky_factor_corr[3]\nL ~ LKJCorrCholesky(eta)\noutput Omega = L * L'\n", "", "")
	f.Add("param eta: positive ~ Gamma(2, 1)\nparam Omega: corr_matrix[3]\nOmega ~ LKJCorr(eta)\noutput L = chol(Omega)\n", "", "")
	f.Add("data x: real[N]\ndata y: int<lower=0>[N]\nparam b: real[2] ~ Normal(0, 2)\nparam phi: positive ~ Gamma(2, 0.1)\n"+
		"y ~ NegBinomialLog(b[0] + b[1] * x, phi)\ntarget += logccdf(y[0], NegBinomialLog(b[0], phi))\noutput y_rep ~ NegBinomialLog(b[0] + b[1] * x, phi)\n",
		`{"x": [-1.2, 0.3, 0.8, 2.1], "y": [0, 3, 2, 17]}`, "")
	f.Add("data n: int<lower=0>[N]\ndata y: int<lower=0>[N]\nparam mu: unit ~ Beta(2, 2)\nparam kappa: positive ~ Gamma(2, 0.1)\n"+
		"y ~ BetaBinomial(n, mu * kappa, (1 - mu) * kappa)\ntarget += logcdf(y[0], BetaBinomial(n[0], 1, kappa))\noutput y_rep ~ BetaBinomial(n, mu * kappa, (1 - mu) * kappa)\n",
		`{"n": [4, 5, 2, 30], "y": [0, 3, 2, 17]}`, "")
	f.Add("data y: int<lower=0>[K]\ndata Y: int<lower=0>[N, K]\nparam theta: simplex[K] ~ Dirichlet(rep(1, K))\nparam eta: real[K] ~ Normal(0, 1)\n"+
		"y ~ Multinomial(theta)\nY ~ MultinomialLogit(eta)\n", `{"y": [3, 0, 5], "Y": [[1, 2, 3], [0, 0, 4]]}`, "")
	f.Add(read("../../examples/varying.gpp"), head(read("../../examples/varying.csv"), 60), "")
	f.Add("data y: real[N]\ndata t: positive[N]\nparam mu: real ~ Logistic(0, 2)\nparam b: positive ~ ScaledInvChiSquare(3, 1)\nparam nu: positive ~ ChiSquare(3)\n"+
		"param a: positive ~ Frechet(2, 1)\ny ~ Gumbel(mu, b)\nt ~ Frechet(a, b)\nt ~ LogLogistic(b, a)\nt ~ Rayleigh(nu)\nt ~ Pareto(0.2, a)\ny ~ ParetoType2(-5, b, a)\n"+
		"target += sum(logccdf(t, InvChiSquare(nu))) + logcdf(mu, Logistic(0, b))\noutput y_rep ~ Gumbel(mu, b)\n", `{"y": [0.1, -0.4, 1.2], "t": [0.3, 2.5, 1.1]}`, "")
	f.Add("data y: real[N]\nparam xi: real ~ SkewNormal(0, 2, -1)\nparam k: positive ~ Gamma(2, 1)\nparam l: positive ~ Exponential(1)\n"+
		"y ~ VonMises(xi, k)\ny ~ ExpModNormal(xi, k, l)\ntarget += sum(logccdf(y, ExpModNormal(xi, 1, l)))\noutput t_rep ~ VonMises(xi, k)\n", `{"y": [0.1, -0.4, 1.2]}`, "")
	f.Add("data y: real[N]\ndata k: int[M]\nparam mu: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\nparam w: simplex[3] ~ Dirichlet(rep(1, 3))\n"+
		"target += log_mix(inv_logit(mu), logpdf(y[head(k, 2)], Normal(mu, s)), log1m(Phi(y[0:2])))\n"+
		"target += sum(log_softmax(append_row(mu, [s, 1]))) + dot_self(to_vector(rep_matrix(mu, 2, 2))) * -0.1\n"+
		"output q = inv_Phi(Phi(mu)) + lbeta(s, 2) + fmax(mu, tanh(s))\n", `{"y": [0.1, -0.4, 1.2], "k": [2, 0, 1]}`, "")
	f.Add("data Y: real[N, 2]\nparam L: cholesky_factor_cov[2]\nparam Omega: corr_matrix[2] ~ LKJCorr(2)\nparam s: positive[2] ~ HalfNormal(1)\n"+
		"target += -0.5 * sum(square(L))\nY ~ MvNormalCholesky(rep_matrix(0, N, 2), L)\nY ~ MvNormalRows(0, quad_form_diag(Omega, s))\n"+
		"output Sigma = L * L'\n", `{"Y": [[0.1, -0.4], [1.2, 0.3], [-0.7, -1.1]]}`, "")
	f.Add("data Y: real[N, 2]\ndata S: real[2, 2]\nparam nu: real<lower=1>\nparam Sigma: cov_matrix[2] ~ InvWishart(nu + 2, S)\n"+
		"param L: cholesky_factor_cov[2] ~ WishartCholesky(3, chol(S))\nY ~ MvNormalRows(0, Sigma)\nS ~ Wishart(nu + 1, L * L')\n"+
		"output W ~ Wishart(4, Sigma)\noutput V ~ InvWishartCholesky(4, L)\n", `{"Y": [[0.1, -0.4], [1.2, 0.3], [-0.7, -1.1]], "S": [[1, 0.2], [0.2, 2]]}`, "")
	f.Add("data x: real[N]\ndata X: real[N, 2]\ndata y: real[N]\nparam rho: positive ~ InvGamma(5, 5)\nparam alpha: positive ~ HalfNormal(1)\n"+
		"param sigma: positive ~ HalfNormal(1)\nparam z: real[N] ~ Normal(0, 1)\nlet K = add_diag(gp_exp_quad_cov(x, alpha, rho), square(sigma))\n"+
		"y ~ MvNormal(0, K)\ny ~ MvNormalCholesky(0, chol(add_diag(gp_matern32_cov(X, alpha, rho) + gp_periodic_cov(x, 1, rho, 2), sigma * [1, 2, 3])))\n"+
		"z ~ MvNormal(0, add_diag(gp_exp_quad_cov(z, alpha, rho), 0.1))\noutput y_rep ~ MvNormal(0, K)\n",
		`{"x": [0.1, -0.4, 1.2], "X": [[0, 1], [0.5, 0.2], [-1, 0.3]], "y": [0.3, -0.2, 0.8]}`, "")
	f.Add("data node1: int[E]\ndata node2: int[E]\ndata y: int<lower=0>[N]\ndata z: sum_to_zero_vector[3]\nparam sigma: positive ~ HalfNormal(1)\n"+
		"param phi: sum_to_zero_vector[N]\nparam a: sum_to_zero_vector[3] ~ Normal(0, sigma)\ntarget += -0.5 * dot_self(phi[node1] - phi[node2])\n"+
		"y ~ Poisson(exp(sigma * phi))\nz ~ Normal(a, 1)\nparam A: sum_to_zero_matrix[2, 3] ~ Normal(0, 1)\ndata Z: sum_to_zero_matrix[2, 3]\nZ ~ Normal(A, sigma)\noutput s = sum(phi)\n",
		`{"node1": [0, 1, 2, 3], "node2": [1, 2, 3, 0], "y": [3, 0, 5, 2], "z": [0.5, -1, 0.5], "Z": [[1, -0.5, -0.5], [-1, 0.5, 0.5]]}`, "")
	// CmdStan's bare NaN and infinities in JSON, logical cells and Excel's
	// separator line in a CSV, a blank last line of a one-column CSV
	f.Add("data y: real[N]\ndata k: int<lower=0, upper=1>[N]\nparam mu: real ~ Normal(0, 5)\nparam p: unit ~ Beta(1, 1)\n"+
		"y ~ Normal(mu, 1)\nk ~ Bernoulli(p)\n", `{"y": [1.5, NaN, -0.2], "k": [1, 0, 1], "X": [[Infinity, -Infinity]], "note": "NaN"}`, "")
	f.Add("data y: real[N]\ndata k: int<lower=0, upper=1>[N]\nparam mu: real ~ Normal(0, 5)\nparam p: unit ~ Beta(1, 1)\n"+
		"y ~ Normal(mu, 1)\nk ~ Bernoulli(p)\n", "sep=,\r\ny,k\r\n1.5,TRUE\r\nNA,FALSE\r\n-0.2,True\r\n", "")
	f.Add("data y: real[N]\nparam mu: real ~ Normal(0, 5)\ny ~ Normal(mu, 1)\n", "y\n1.5\n\n-0.2\n\n", "")
	// posterior predictive replicates beside the data they mirror (check's
	// replicate-shape warning): whole, truncated, of a matrix, of int
	// counts, of the wrong shape, with missing cells; a TSV file
	rep := "data y: real[N]\nparam mu: real ~ Normal(0, 5)\nparam sigma: positive ~ Gamma(2, 1)\ny ~ Normal(mu, sigma)\n"
	f.Add(rep+"output y_rep ~ Normal(mu, sigma)\n", "y\n1.5\n0.3\n-0.2\n", "")
	f.Add(rep+"output y_rep ~ Normal(rep(mu, N), sigma)\noutput y_pred ~ Normal(mu, 2 * sigma)\n", "y\n1.5\n0.3\n-0.2\n", "")
	f.Add(rep+"output z ~ Normal(mu, sigma)\noutput y_sim ~ Normal(rep(mu, 2), sigma)\n", `{"y": [1.5, 0.3, -0.2]}`, "")
	f.Add("data y: real<lower=0>[N]\nparam mu: real ~ Normal(0, 5)\nparam sigma: positive ~ Gamma(2, 1)\ny ~ Normal(mu, sigma) T[0, ]\n"+
		"output y_rep ~ Normal(rep(mu, N), sigma) T[0, ]\noutput y_sim ~ Normal(mu, sigma) T[0, ]\n", "y\n1.5\n0.3\n2.2\n", "")
	f.Add("data y: int<lower=0, upper=20>[N]\nparam lambda: positive ~ Gamma(2, 0.5)\ny ~ Poisson(lambda) T[, 20]\n"+
		"output y_rep ~ Poisson(rep(lambda, N)) T[, 20]\noutput y_pred ~ Poisson(lambda) T[1, 20]\n", counts, "")
	f.Add("data Y: real[N, K]\nparam mu: real[K] ~ Normal(0, 5)\nparam sigma: positive ~ Gamma(2, 1)\nY ~ Normal(rep_matrix(mu', N), sigma)\n"+
		"output Y_rep ~ Normal(rep_matrix(mu', N), sigma)\noutput Y_sim ~ Normal(mu, sigma)\n", matrix, "K=2")
	f.Add("data Y: real[N, 2]\nparam mu: real ~ Normal(0, 5)\nY ~ Normal(mu, 1)\noutput Y_rep ~ Normal(mu, 1)\n",
		`{"Y": [[0.1, -0.4], [1.2, null], [-0.7, -1.1]]}`, "")
	f.Add(rep+"output y_rep ~ Normal(mu, sigma)\n", "y\tnote\n1.5\ta\nNA\tb\n-0.2\t\"c, d\"\n", "")
	f.Add("data x: real[N]\ndata y: int<lower=0, upper=1>[N]\nparam b: real[2] ~ Normal(0, 2)\ny ~ Bernoulli(inv_logit(b[0] + b[1] * x))\n"+
		"output y_rep ~ Bernoulli(inv_logit(b[0] + b[1] * x))\n", "x\ty\n0.5\t1\n-1.2\t0\n0.3\tTRUE\n", "")
	f.Fuzz(func(t *testing.T, src, text, setList string) {
		sets := map[string]string{}
		for _, kv := range strings.Fields(setList) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				sets[k] = v
			}
		}
		l, err := pipeline.ParseSource("f.gpp", []byte(src), sets)
		if err != nil {
			positioned(t, err, src, text)
			return
		}
		in := data.Input{File: "d.csv"}
		first, _, _ := strings.Cut(text, "\n")
		switch {
		case strings.HasPrefix(strings.TrimSpace(text), "{"):
			in.File = "d.json"
			in.JSON, err = data.ReadJSON(in.File, strings.NewReader(text))
		case strings.Contains(first, "\t"):
			in.File = "d.tsv"
			in.Table, err = data.ReadTSV(in.File, strings.NewReader(text))
		default:
			in.Table, err = data.ReadCSV(in.File, strings.NewReader(text))
		}
		if err != nil {
			positioned(t, err, src, text)
			return
		}
		if err := l.Bind([]data.Input{in}, sets); err != nil {
			positioned(t, err, src, text)
			return
		}
		m := l.Model
		if m.Dim > 1<<16 {
			return // a legitimately huge model; too slow to step here
		}
		rng := rand.New(rand.NewPCG(1, 2))
		x, grad := make([]float64, m.Dim), make([]float64, m.Dim)
		for trial := range 3 {
			for i := range x {
				x[i] = float64(trial) * rng.NormFloat64()
			}
			lp, err := m.LogJoint(x, grad)
			if err == nil && math.IsNaN(lp) {
				t.Errorf("log joint NaN without an error at trial %d", trial)
			}
		}
		// the outputs and replicates, as a fit's draws are written
		if ev, err := m.NewEvaluator(); err != nil {
			positioned(t, err, src, text)
		} else {
			ev.SetRand(rand.New(rand.NewPCG(3, 4)))
			_, outs, _ := ev.Eval(x)
			if len(outs) != len(m.Outputs) {
				t.Fatalf("%d output values, %d outputs", len(outs), len(m.Outputs))
			}
			for i, o := range m.Outputs {
				n := 1
				for _, d := range o.Shape {
					n *= d
				}
				if len(outs[i]) != n {
					t.Errorf("output %s of shape %v has %d values", o.Name, o.Shape, len(outs[i]))
				}
			}
			if err := ev.OutputErr(); err != nil {
				positioned(t, err, src, text)
			}
		}
		s := sgvb.Settings{Seed: 1, MaxIter: 3, Workers: 2, EvalEvery: 1, ELBODraws: 2, PSISDraws: -1, Tol: -1}
		_, _ = sgvb.Fit(context.Background(), pipeline.Target{M: m}, pipeline.Latents(m), s)
	})
}

// positioned fails t unless err is a list of positioned errors inside the
// model (f.gpp) or the data (d.csv, d.tsv or d.json).
func positioned(t *testing.T, err error, src, text string) {
	t.Helper()
	list, ok := ast.Positioned(err)
	if !ok {
		t.Fatalf("unpositioned error %T: %v", err, err)
	}
	if len(list) == 0 {
		t.Fatalf("empty error list")
	}
	lines := map[string]int{"f.gpp": strings.Count(src, "\n") + 1, "d.csv": strings.Count(text, "\n") + 1, "d.tsv": strings.Count(text, "\n") + 1, "d.json": strings.Count(text, "\n") + 1}
	for _, e := range list {
		n, ok := lines[e.Pos.File]
		switch {
		case !ok:
			t.Errorf("error in an unknown file: %v", e)
		case e.Pos.Line > n || e.Pos.Line < 0 || e.Pos.Line > 0 && e.Pos.Col < 1:
			t.Errorf("error outside its file (%d lines): %v", n, e)
		case e.Pos.Line == 0 && e.Pos.File == "f.gpp" && !strings.HasPrefix(e.Msg, "--set "):
			t.Errorf("unpositioned error: %v", e)
		}
	}
}
