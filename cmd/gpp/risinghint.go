package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
)

// risingTolFactor is how many times the tolerance (--tol) the relative
// ELBO change over a fit's last window must be for risingHint to call
// the fit still rising: the convergence rule stops when the median of
// such changes is under the tolerance, so a fit wobbling at it makes
// changes of about 1× and never 10× over a window. A demographer's
// Lee–Carter model fitted with --fullrank all from the default start rose
// by 0.0096 (96× the tolerance) over its last 500 of 10⁴ steps, and
// converged 26 000 steps later.
const risingTolFactor = 10

// risingSEs is how many standard errors of the last ELBO estimate the
// gain must also reach: on a model whose |ELBO| is small the scale is
// the stop rule's floor of 1000 standard errors, where 10× the tolerance
// is one standard error, which the estimates' noise can give.
const risingSEs = 4

// risingHint advises, after the "did not converge" warning of a fit with
// a joint factor (--fullrank, --rank, --band: settings s, result r) that
// stopped at --iter while its ELBO was still rising clearly
// (sgvb.LastRise: a relative gain over the last window of at least
// risingTolFactor times the tolerance and risingSEs standard errors), to
// warm-start it from a mean-field fit, from which such a factor converges
// in a fraction of the steps (the Lee–Carter model: 1500 steps to −2776.00
// against −6027.9 still rising at 10⁴ from the default start), or to
// raise --iter. A fit that started from a fit already (--init, --init
// path, --fullrank auto's refits) is told to raise --iter or continue
// from itself. repl phrases the commands as the REPL's :fit. "" where
// the fit converged, was interrupted, has no joint factor or no
// tolerance, or merely wobbles.
func risingHint(cfg *fitConfig, s sgvb.Settings, r *sgvb.Result, mix *sgvb.Mixture, repl bool) string {
	if r == nil || mix != nil || r.Converged || r.Interrupted || s.Method != sgvb.SGVB || !jointResult(r) {
		return ""
	}
	rise, ok := sgvb.LastRise(r, s)
	tol := rise.Tol
	if !ok || !(tol > 0) || rise.Gain <= 0 || rise.Rel < risingTolFactor*tol || rise.Gain < risingSEs*rise.SE {
		return ""
	}
	moved := fmt.Sprintf("the ELBO was still rising when the fit stopped: %s nats from iteration %d to %d, a relative change of %.2g, %.0f× the tolerance %g (--tol)",
		numText(rise.Gain, "%+.3g"), rise.From, rise.To, rise.Rel, rise.Rel/tol, tol)
	iter := fmt.Sprintf("raise --iter (it ran %d)", r.Iterations)
	if s.Init != nil || s.InitPath {
		if repl {
			return moved + "; " + iter + ", or go on from this fit: :fit " + jointFlags(cfg) + " --init last"
		}
		return moved + "; " + iter + ", or go on from this fit: --init " + cfg.out
	}
	args := cmdArgs(cfg.model, cfg.data)
	advice := "gpp fit " + args + " --out MF, then gpp fit " + args + " " + jointFlags(cfg) + " --init MF, each with this fit's other flags"
	if repl {
		advice = ":fit, then :fit " + jointFlags(cfg) + " --init last"
	}
	return moved + "; a joint factor from the default start can take many times the steps to settle that it takes from a mean-field fit: warm-start it from one (" + advice + "), or " + iter + " (docs/inference.md, Full-rank factors)"
}

// jointResult reports whether fit r has a joint factor (full-rank,
// low-rank or banded).
func jointResult(r *sgvb.Result) bool {
	if len(r.Groups) > 0 {
		return true
	}
	for _, f := range r.Factors {
		if jointFamily(f.Family) {
			return true
		}
	}
	return false
}

// jointFlags gives the flags of cfg's joint factors: --fullrank, with
// --rank or --band.
func jointFlags(cfg *fitConfig) string {
	f := "--fullrank " + cfg.fullRank
	if cfg.rank != 0 {
		f += " --rank " + strconv.Itoa(cfg.rank)
	}
	if cfg.band != 0 {
		f += " --band " + strconv.Itoa(cfg.band)
	}
	return f
}

// cmdArgs gives the model and data arguments of a command as given.
func cmdArgs(model string, data []string) string {
	return strings.Join(append([]string{model}, data...), " ")
}
