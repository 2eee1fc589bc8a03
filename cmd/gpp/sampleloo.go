package main

// PSIS-LOO from gpp sample's draws: the draws are of the posterior itself,
// so observation i's importance weights are 1/p(y_i | θ_s), Pareto
// smoothed with a tail as long as the draws' autocorrelation calls for, as
// the loo package's loo(log_lik, r_eff = relative_eff(exp(log_lik))) does.

import (
	"math"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/compile"
)

// sampleLOO sets sd.ds.loo (and ds.waic) from the draws of the output log_lik, when m has
// one: every element an observation but those at a missing cell of data
// (looObservations), each with its relative efficiency from the chains.
func sampleLOO(sd *sampleDraws, m *compile.Model) {
	if !hasLOOOutput(m) {
		sd.ds.setHeldOut(m)
		return
	}
	ds := sd.ds
	v, _ := ds.looVar()
	obs := looObservations(v, m)
	ll := make([][]float64, len(obs))
	reff := make([]float64, len(obs))
	lik := make([]float64, len(ds.logp))
	for i, j := range obs {
		ll[i] = ds.cols[v.first+j]
		for s, x := range ll[i] {
			lik[s] = math.Exp(x)
		}
		reff[i] = relativeEff(sd.byChain(lik))
	}
	ds.loo, ds.looObs = sgvb.PSISLOOMCMC(ll, reff), obs
	ds.waic = sgvb.ComputeWAIC(ll)
	ds.pitDraws = &looDraws{ll: ll, reff: reff}
}

// relativeEff is the relative efficiency ESS/S of the S draws in chains,
// by the plain ESS (not rank-normalised nor split) that the loo package's
// relative_eff takes. NaN for a constant or non-finite quantity or chains
// too short (PSISLOOMCMC then takes 1).
func relativeEff(chains [][]float64) float64 {
	S := 0
	for _, c := range chains {
		S += len(c)
	}
	return nuts.ESS(chains) / float64(S)
}
