package nuts

import (
	"context"
	"fmt"
	"math"
	"time"
)

// sampleFixed is Stan's fixed_param sampler (Settings.FixedParam): the
// trivial Markov chain that leaves its start unchanged, so that a model's
// generated quantities are drawn afresh at a fixed point (data simulated
// from known params) or, for a model with no params, are all there is.
// Chain c keeps inits[c] at each of the Draws/Thin kept iterations, with
// lp__, accept_stat__ and the other statistics 0 (CmdStan's fixed_param
// output has lp__ and accept_stat__ 0 and no others) and no step size or
// metric. There is no warm-up: Settings.Warmup is not used.
func sampleFixed(ctx context.Context, inits [][]float64, s Settings) (*Result, error) {
	if len(inits) != s.Chains {
		return nil, fmt.Errorf("nuts: %d chains but %d initial points", s.Chains, len(inits))
	}
	dim := len(inits[0])
	for c, x := range inits {
		if len(x) != dim {
			return nil, fmt.Errorf("nuts: chain %d: initial point has %d coordinates, chain 0's has %d", c, len(x), dim)
		}
		for i, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("nuts: chain %d: initial point is %g in coordinate %d", c, v, i)
			}
		}
	}
	n := s.Draws / s.Thin
	res := &Result{Dim: dim, Chains: make([]Chain, s.Chains), FixedParam: true}
	kept := make([]int, s.Chains)
	for c := range res.Chains {
		ch := &res.Chains[c]
		*ch = newRecord(n, dim)
		start := time.Now()
		for it := 1; it <= s.Draws && ctx.Err() == nil; it++ {
			if it%s.Thin == 0 && kept[c] < n {
				copy(ch.Draws[kept[c]*dim:], inits[c])
				kept[c]++
			}
			if s.Progress != nil {
				s.Progress(c, it, false)
			}
		}
		ch.Sampling = time.Since(start)
	}
	res.cut(kept, n)
	return res, nil
}
