package compile

import "testing"

// rowLoopModels are loop bodies of Stan's per-row idioms (looprows.go),
// over fuzzLoopHead, that are lowered as vectors.
var rowLoopModels = []struct{ name, body string }{
	{"sum-of-products", `for i in 0:N {
    y[i] ~ Normal(a + sum(X[i] .* beta), s)
    x[i] ~ Normal(sum(X[i]' .* beta') - 0.5 * sum(X[i]' * beta), s)
}`},
	{"dot-either-way", `for i in 0:N {
    y[i] ~ Normal(dot_product(beta, X[i]) + 0.1 * dot_product(X[i] * a, beta), s)
}`},
	{"multi-output", `for i in 0:N {
    target += -0.1 * sum(square(X[i]' * B)) + 0.2 * sum(X[i]' * beta)
    y[i] ~ Normal(dot_product((X[i]' * B)', [1, -1, 0.5, 2]), s)
}`},
	{"categorical-softmax", `for i in 0:N {
    k[i] ~ Categorical(softmax((X[i]' * B)'))
}`},
	{"categorical-logit", `for i in 0:N {
    k[i] ~ CategoricalLogit(B' * X[i] + a - u[g[i]])
}`},
	{"mixture", `for i in 0:N {
    target += log_sum_exp(log(w) - 0.5 * square(y[i] - m) / s)
    target += log_sum_exp(log_softmax((X[i]' * B)') * x[i])
}`},
	{"mixture-logpdf", `for i in 0:N {
    target += log_sum_exp(log(w) + logpdf(y[i], Normal(m, s)))
    let lp = logpdf(X[i], Normal(beta * a, 2))
    target += 0.1 * sum(logccdf(p[i], Gamma(2, exp(m))))
}`},
	{"literal", `for i in 0:N {
    let xi = [x[i], y[i] * a, X[i, 1]]
    k[i] ~ Categorical(softmax(b + B' * xi))
    target += log_sum_exp([y[i], x[i] - a, 2, X[i, 1]])
}`},
	{"long-chain", `for i in 0:N {
    target += -0.1 * sum(square(((((((((((((((((((((((((X[i] + a) * 0.9) + b) * 0.9) + a) * 0.9) + b) * 0.9) + a) * 0.9) + b) * 0.9) + a) * 0.9) + b) * 0.9) + a) * 0.9) + b) * 0.9) + a) * 0.9) + b) * 0.9)))
}`},
	{"in-branch", `for i in 0:N {
    if c[i] == 0 {
        k[i] ~ CategoricalLogit((X[i]' * B)')
    } else {
        target += 0.1 * log_sum_exp(X[i] * b)
    }
}`},
	{"nested", `for i in 0:N {
    for j in 0:2 {
        k[i] ~ CategoricalLogit((X[i]' * B)' * (j + 1))
    }
}`},
	{"element", `for i in 0:N {
    let v = B' * X[i]
    y[i] ~ Normal(v[0] + 0.5 * v[3] - (X[i] .* beta)[1], s)
    target += -0.1 * square(softmax(v)[G - 18] - (X[i]' * B)'[2])
}`},
	{"max-min", `for i in 0:N {
    y[i] ~ Normal(max(X[i]' * B) - 0.5 * min(X[i] .* beta), s)
    target += 0.1 * max(log(w) + logpdf(y[i], Normal(m, s))) + min([x[i], a, y[i] * b])
}`},
	{"mvnormal", `for i in 0:N {
    X[i] ~ MvNormal(beta, crossprod(B') + I(3))
    X[i] ~ MvNormal(B * (X[i]' * B)' * 0.1 + a, I(3) * s)
    X[i] ~ MvNormal(x[i], diag([2, 1, s]) + 0.5)
}`},
	{"mvnormal-param", `param Z: real[N, 3]
for i in 0:N {
    Z[i] ~ MvNormal(beta + x[i], I(3) * s)
    y[i] ~ Normal(Z[i, 0] + max(Z[i]), s)
}`},
	{"cumsum", `for i in 0:N {
    y[i] ~ Normal(sum(cumsum(X[i] .* beta)), s)
    let c4 = cumsum((X[i]' * B)')
    k[i] ~ CategoricalLogit(c4 - max(c4))
    target += 0.1 * cumsum(log(w) + logpdf(y[i], Normal(m, s)))[1]
}`},
	{"prod-mean", `for i in 0:N {
    y[i] ~ Normal(prod(X[i]) - 0.5 * mean(X[i]' * B), s)
    target += 0.1 * prod(inv_logit(B' * X[i])) + mean(log(w) + logpdf(y[i], Normal(m, s)))
    k[i] ~ CategoricalLogit((X[i]' * B)' - mean(X[i] .* beta) * prod([1, x[i], a]))
}`},
	{"element-per-row", `for i in 0:N {
    let v = B' * X[i]
    y[i] ~ Normal(v[k[i]] - 0.5 * (X[i] .* beta)[z[i]], s)
    target += -0.1 * square(log_softmax(v)[k[i]] + softmax(v)[k[i]])
    for j in 0:2 {
        target += 0.01 * (X[i] * (j + 1))[z[i]]
    }
}`},
	{"mvnormal-cholesky", `for i in 0:N {
    X[i] ~ MvNormalCholesky(beta, chol(crossprod(B') + I(3)))
    X[i] ~ MvNormalCholesky(B * (X[i]' * B)' * 0.1 + a, diag([1, 2, s]))
    X[i] ~ MvNormalCholesky(0.5, chol(I(3) * s + 0.5))
}`},
	{"multinomial", `for i in 0:N {
    Y[i] ~ Multinomial(softmax(B' * X[i]))
    Y[i] ~ MultinomialLogit((X[i]' * B)' * 0.5 + a)
    Y[i] ~ Multinomial(softmax([0.1, 0.2, 0.3, 0.4] * a))
    Y[i] ~ MultinomialLogit(B' * [1, -1, 0.5] * s)
}`},
	{"dirichlet", `param W: simplex[N, 4]
for i in 0:N {
    W[i] ~ Dirichlet(2)
    W[i] ~ Dirichlet(exp(m[0]) + [1, 2, 0.5, 1])
    W[i] ~ Dirichlet(exp(B' * X[i] * 0.3))
    y[i] ~ Normal(a + 0.5 * W[i, 1] + dot_product(W[i], [1, 0, -1, 2]), s)
}`},
	{"dirichlet-data", `for i in 0:N {
    Q[i] ~ Dirichlet(1.5)
    Q[i] ~ Dirichlet(exp(beta) + 0.5)
    Q[i] ~ Dirichlet(exp(X[i] * a))
}`},
	{"truncated", `for i in 0:N {
    y[i] ~ Normal(a + b * x[i], s) T[-30, 30]
    c[i] ~ Poisson(exp(0.3 * x[i] + a)) T[0, c[i] + 3]
    p[i] ~ Gamma(2, exp(b)) T[, p[i] + s]
    y[i] ~ StudentT(4, a, s) T[y[i] - exp(u[g[i]]), ]
    x[i] ~ Normal(y[i] * b, 2) T[x[i] - 1, x[i] + square(a) + 0.5]
    y[i] ~ Normal(a, s) T[-30, 30]
}`},
}

// The per-row idioms are lowered as vectors: the same log joint and
// gradient as unrolled, and a tape that does not grow with N.
func TestLoopRowFormsAsVectors(t *testing.T) {
	for _, m := range rowLoopModels {
		t.Run(m.name, func(t *testing.T) {
			src := fuzzLoopHead + m.body + "\n"
			vec, unr := compileLoop(t, src, fuzzLoopData(300))
			if vec.prog.Len() >= unr.prog.Len()/2 {
				t.Errorf("loop not lowered as vectors: %d nodes, %d unrolled", vec.prog.Len(), unr.prog.Len())
			}
			small := compileSrc(t, "loop.gpp", src, nil, fuzzLoopData(40))
			large := compileSrc(t, "loop.gpp", src, nil, fuzzLoopData(4000))
			if small.prog.Len() != large.prog.Len() {
				t.Errorf("%d nodes at N = 40, %d at N = 4000", small.prog.Len(), large.prog.Len())
			}
			gv, gu := make([]float64, vec.Dim), make([]float64, unr.Dim)
			for seed := range uint64(3) {
				x := randomPoint(vec, seed)
				lv, err1 := vec.LogJoint(x, gv)
				lu, err2 := unr.LogJoint(x, gu)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if !closeRel(lv, lu, loopTol) {
					t.Errorf("seed %d: log joint %.17g as vectors, %.17g unrolled", seed, lv, lu)
				}
				for k := range gv {
					if !closeRel(gv[k], gu[k], loopTol) {
						t.Errorf("seed %d: gradient[%d] %.17g as vectors, %.17g unrolled", seed, k, gv[k], gu[k])
					}
				}
			}
		})
	}
}

// A --minibatch fit's batch model lowers the per-row idioms as vectors
// too: its tape does not grow with the batch, and its log joint and
// gradient averaged over every batch are the full model's.
func TestMinibatchRowLoopForms(t *testing.T) {
	for _, m := range rowLoopModels {
		if m.name == "in-branch" || m.name == "mvnormal-param" || m.name == "dirichlet" {
			continue // --minibatch refuses a condition on the rows, and a param per row
		}
		t.Run(m.name, func(t *testing.T) {
			src := fuzzLoopHead + m.body + "\n"
			testUnbiased(t, compileSrc(t, "loop.gpp", src, nil, fuzzLoopData(7)), 7)
			big := compileSrc(t, "loop.gpp", src, nil, fuzzLoopData(400))
			checkBatchTapeConstant(t, big)
		})
	}
}

// An evaluation of the log joint and its gradient of each per-row idiom
// lowered as vectors (the rows' outer products of MvNormal, the row
// reductions, MvNormalCholesky's rows, Multinomial's and Dirichlet's rows)
// makes no allocations, and gives the same numbers again.
func TestLoopRowFormsZeroAllocs(t *testing.T) {
	for _, m := range rowLoopModels {
		t.Run(m.name, func(t *testing.T) {
			mod := compileSrc(t, "loop.gpp", fuzzLoopHead+m.body+"\n", nil, fuzzLoopData(300))
			x := randomPoint(mod, 1)
			g1, g2 := make([]float64, mod.Dim), make([]float64, mod.Dim)
			v1, err := mod.LogJoint(x, g1)
			if err != nil {
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(10, func() { mod.LogJoint(x, g2) }); a != 0 {
				t.Errorf("%v allocations per LogJoint, want 0", a)
			}
			if v2, _ := mod.LogJoint(x, g2); v2 != v1 {
				t.Errorf("log joint %.17g again, %.17g at first", v2, v1)
			}
			for k := range g1 {
				if g1[k] != g2[k] {
					t.Fatalf("gradient[%d] %.17g again, %.17g at first", k, g2[k], g1[k])
				}
			}
		})
	}
}
