package compile

import (
	"math/rand/v2"
	"testing"
)

// TestTruncFusedMatchesPerElement: a truncated ~ of data is one density
// node that adds each element's log density and normaliser in its pass
// (Builder.DensityNorm); its log joint and gradient equal those of the
// family's LogPDF and the normaliser added per element and summed
// (fuseTrunc false) to 1e-12 relative, for a normaliser per element (a
// rate per row, a bound of params), one for all (scalar arguments), a
// discrete and a continuous family, loops as vectors and unrolled; the
// fused program has fewer nodes (the fused path is taken) and allocates
// nothing per evaluation.
func TestTruncFusedMatchesPerElement(t *testing.T) {
	const n = 40
	for _, body := range []string{
		"for i in 0:N {\n  y[i] ~ Normal(a + b * x[i], s) T[-50, 50]\n}",
		"for i in 0:N {\n  y[i] ~ Normal(a, s) T[-50, ]\n}",
		"for i in 0:N {\n  y[i] ~ Normal(a, s) T[a - 100, ]\n}",
		"for i in 0:N {\n  c[i] ~ Poisson(exp(0.3 * a)) T[0, 10]\n}",
		"for i in 0:N {\n  c[i] ~ Poisson(exp(0.3 * (a + x[i]))) T[, c[i] + 2]\n}",
		"for i in 0:N {\n  c[i] ~ Poisson(exp(0.3 * (a + x[i]))) T[0, ]\n}",
		"y ~ Normal(a + b * x, s) T[-50, ]",
		"c ~ Poisson(exp(a)) T[0, 10]",
	} {
		src := loopHead + body + "\n"
		for _, unroll := range []bool{false, true} {
			var lp [2]float64
			var grads [2][]float64
			var nodes [2]int
			for f, fuse := range []bool{true, false} {
				unrollLoops, fuseTrunc = unroll, fuse
				m, err := compileSrcErr(t, "m.gpp", src, nil, loopData(n))
				unrollLoops, fuseTrunc = false, true
				if err != nil {
					t.Fatal(err)
				}
				nodes[f] = m.prog.Len()
				r := rand.New(rand.NewPCG(7, 1))
				x := make([]float64, m.Dim)
				for k := range x {
					x[k] = 0.5 * r.NormFloat64()
				}
				x[0] = 1.3
				grads[f] = make([]float64, m.Dim)
				if lp[f], err = m.LogJoint(x, grads[f]); err != nil {
					t.Fatalf("%s: %v", body, err)
				}
				if f == 0 {
					g := make([]float64, m.Dim)
					if a := testing.AllocsPerRun(10, func() { m.LogJoint(x, g) }); a != 0 {
						t.Errorf("%s (unrolled %v): %v allocations per evaluation", body, unroll, a)
					}
				}
			}
			if nodes[0] >= nodes[1] {
				t.Errorf("%s (unrolled %v): %d nodes fused, %d per element: not fused", body, unroll, nodes[0], nodes[1])
			}
			if !closeRel(lp[0], lp[1], 1e-12) {
				t.Errorf("%s (unrolled %v): log joint %.17g fused, %.17g per element", body, unroll, lp[0], lp[1])
			}
			for k := range grads[0] {
				if !closeRel(grads[0][k], grads[1][k], 1e-12) {
					t.Errorf("%s (unrolled %v): gradient[%d] %.17g fused, %.17g per element", body, unroll, k, grads[0][k], grads[1][k])
				}
			}
		}
	}
}
