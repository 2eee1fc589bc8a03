package main

// --evidence on gpp fit and gpp sample: the log evidence log p(y), the
// marginal likelihood that Bayes factors and posterior model probabilities
// compare (R's bridgesampling::bridge_sampler and bayes_factor, brms's
// bayes_factor and post_prob). A fit estimates it by importance sampling
// from its q (sgvb.EstimateEvidence), a sample by bridge sampling from its
// draws (sampleEvidence); gpp compare --evidence reads evidence.json.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/gpplang/gpp/infer/bridge"
	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

const (
	evidenceFile   = "evidence.json"
	evidenceFormat = "gpp-evidence/1"
)

// evidenceJSON is evidence.json: the estimate, how it was made, and what
// was fitted, for gpp compare.
type evidenceJSON struct {
	fitfile.Head
	// Method is "importance sampling" (gpp fit) or "bridge sampling"
	// (gpp sample), Proposal what drew the weighted draws.
	Method      string        `json:"method"`
	Proposal    string        `json:"proposal"`
	LogEvidence fitfile.Float `json:"log_evidence"`
	SE          fitfile.Float `json:"se"`
	// Draws is the number of importance draws, or of the bridge's
	// proposal draws; ParetoK and RelESS are the importance weights'
	// (null for bridge sampling), ZeroWeights the draws whose log joint
	// was not finite (weight 0).
	Draws       int           `json:"draws"`
	ParetoK     fitfile.Float `json:"pareto_k"`
	RelESS      fitfile.Float `json:"rel_ess"`
	ZeroWeights int           `json:"zero_weights"`
	// PosteriorDraws and Iterations are bridge sampling's: the posterior
	// draws of its iterative half and the iterations of its scheme.
	PosteriorDraws int `json:"posterior_draws,omitempty"`
	Iterations     int `json:"iterations,omitempty"`
	// Caveats are the terms of the model that enter p(y) as written
	// (compile.Model.EvidenceCaveats), file:line:col: message.
	Caveats []string `json:"caveats,omitempty"`
}

// evidenceOutcome is an estimate for the console and evidence.json.
type evidenceOutcome struct {
	file evidenceJSON
	// detail is the console line's parenthesis, notes the caveats.
	detail string
	notes  ast.ErrorList
	// failed counts bridge sampling's evaluations of the log joint
	// (at proposal draws, and under warp3 at reflections) that failed or
	// were not a number (density 0); evals counts them all.
	failed, evals int
}

// evidenceCaveats checks that m's evidence is defined, printing the errors
// (a param with an improper flat prior) with printErr and returning
// false, or returns the caveats to print with the estimate.
func evidenceCaveats(m *compile.Model, printErr func(error)) (ast.ErrorList, bool) {
	errs, notes := m.EvidenceCaveats()
	if len(errs) > 0 {
		printErr(errs)
		printErr(errors.New("--evidence: the model's evidence p(y) is not defined"))
		return nil, false
	}
	return notes, true
}

// newEvidenceOutcome starts an estimate by method of the fit of h: what
// was fitted, from the fit's header, and the model's caveats notes.
func newEvidenceOutcome(h drawsHeader, method string, notes ast.ErrorList) *evidenceOutcome {
	o := &evidenceOutcome{file: evidenceJSON{Head: newFitHead(evidenceFormat, h), Method: method}, notes: notes}
	for _, n := range notes {
		o.file.Caveats = append(o.file.Caveats, n.Error())
	}
	return o
}

// fitEvidence estimates the log evidence of the fit r (or of the mixture
// mix) by importance sampling from sgvb.EvidenceDraws draws.
func fitEvidence(cfg *fitConfig, h drawsHeader, r *sgvb.Result, mix *sgvb.Mixture, m *compile.Model, notes ast.ErrorList) (*evidenceOutcome, error) {
	par := fitWorkers(cfg.settings.Workers)
	t := pipeline.Target{M: m}
	var ev *sgvb.Evidence
	if mix != nil {
		ev = mix.EstimateEvidence(t, sgvb.EvidenceDraws, cfg.settings.Seed, par)
	} else {
		var err error
		if ev, err = sgvb.EstimateEvidence(t, r, sgvb.EvidenceDraws, cfg.settings.Seed, par); err != nil {
			return nil, err
		}
	}
	o := newEvidenceOutcome(h, "importance sampling", notes)
	f := &o.file
	f.Proposal, f.LogEvidence, f.SE, f.Draws = ev.Proposal, fitfile.Float(ev.LogZ), fitfile.Float(ev.SE), ev.Draws
	f.ParetoK, f.RelESS, f.ZeroWeights = fitfile.Float(ev.K), fitfile.Float(ev.RelESS), ev.Zero
	o.detail = fmt.Sprintf("importance sampling, %d draws of %s, k̂ %s", ev.Draws, ev.Proposal, kText(ev.K))
	return o, nil
}

// printEvidenceLine prints the estimate's line of a fit's or a sample's
// summary (nothing without one).
func printEvidenceLine(w io.Writer, o *evidenceOutcome) {
	if o == nil {
		return
	}
	f := o.file
	fmt.Fprintf(w, "log evidence %.6g ± %.2g (%s)\n", float64(f.LogEvidence), float64(f.SE), o.detail)
}

// evidenceWarnings returns the warnings of an estimate: its importance
// weights' tail (Vehtari et al. 2024: above 0.7 the estimate is
// unreliable, typically too small; from 0.5 the weights' variance may be
// infinite and the se too small), draws of weight 0, and none for a good
// estimate.
func evidenceWarnings(o *evidenceOutcome) []string {
	if o == nil {
		return nil
	}
	f := o.file
	var ws []string
	k := float64(f.ParetoK)
	switch {
	case math.IsInf(float64(f.LogEvidence), -1):
		ws = append(ws, fmt.Sprintf("--evidence: no draw of %d had a finite log joint, so the estimate is −∞", f.Draws))
	case k > 0.7:
		ws = append(ws, fmt.Sprintf("--evidence: the importance weights' k̂ is %s (above 0.7): q misses much of the posterior's mass, so the log evidence is unreliable and likely too small, its se too; gpp sample --evidence estimates it from NUTS draws by bridge sampling", kText(k)))
	case k > 0.5:
		ws = append(ws, fmt.Sprintf("--evidence: the importance weights' k̂ is %s (above 0.5): their variance may be infinite, so the se may understate the error", kText(k)))
	}
	if f.Method == "bridge sampling" {
		if se := float64(f.SE); se > bridgeSEWarn {
			ws = append(ws, fmt.Sprintf("--evidence: the bridge sampling estimate's se is %.2g nats: the proposal fits the posterior poorly (several modes, heavy tails or a funnel), so the estimate is imprecise", se))
		}
		if o.failed > 0 {
			ws = append(ws, fmt.Sprintf("--evidence: the log joint failed or was not a number at %d of its %d evaluations, counted as density 0", o.failed, o.evals))
		}
		return ws
	}
	if f.ZeroWeights > 0 && !math.IsInf(float64(f.LogEvidence), -1) {
		ws = append(ws, fmt.Sprintf("--evidence: %d of %d draws had a non-finite log joint (weight 0)", f.ZeroWeights, f.Draws))
	}
	return ws
}

// writeEvidenceJSON writes evidence.json.
func writeEvidenceJSON(w io.Writer, f *evidenceJSON) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// printEvidenceWarnings prints an estimate's warnings and the model's
// caveats about it (nothing without one).
func printEvidenceWarnings(con *console, o *evidenceOutcome, srcs sources) {
	var ns notices
	ns.evidence(o)
	ns.print(con, srcs)
}

// bridgeSEWarn is the standard error of a bridge sampling estimate above
// which the console warns: a factor e^0.5 of p(y) unresolved, where the
// normal proposal fits the posterior poorly.
const bridgeSEWarn = 0.5

// sampleEvidence estimates the log evidence of a sample's draws by bridge
// sampling (infer/bridge) on the unconstrained coordinates of u, whose log
// density with the Jacobian is the draws' lp__. A proposal draw where the
// log joint fails or is not a number counts as density 0, as an
// importance draw's weight does, and is counted. It returns nil, noting
// why, when the sample was interrupted or the estimate failed.
func sampleEvidence(ctx context.Context, sc *sampleConfig, h drawsHeader, res *nuts.Result, u *sgvb.Unconstrained, m *compile.Model, con *console) *evidenceOutcome {
	if res.Interrupted || ctx.Err() != nil {
		con.note("note: --evidence: the run was interrupted, so no evidence is estimated")
		return nil
	}
	con.info("evidence: bridge sampling from the draws")
	chains := make([]bridge.Chain, len(res.Chains))
	for c, ch := range res.Chains {
		chains[c] = bridge.Chain{Draws: ch.Draws, LogP: ch.LogP}
	}
	d := u.Clone()
	t := pipeline.Target{M: m}
	x := make([]float64, d.TargetDim())
	failed := 0
	logp := func(v []float64) (float64, error) {
		d.Coords(v, x)
		lp, err := t.LogJointValue(x)
		if err != nil || math.IsNaN(lp) || math.IsInf(lp, 0) {
			if err != nil || !math.IsInf(lp, -1) {
				failed++
			}
			return math.Inf(-1), nil
		}
		return d.LogDensityAt(v, lp), nil
	}
	br, err := bridge.Estimate(ctx, chains, res.Dim, logp, bridge.Settings{Seed: sc.nuts.Seed, Method: sc.evMethod})
	if err != nil {
		con.note("warning: --evidence: no estimate: %v", err)
		return nil
	}
	o := newEvidenceOutcome(h, "bridge sampling", sc.evNotes)
	f := &o.file
	f.Proposal = "a normal fitted to the first half of each chain"
	how := "bridge sampling: %d posterior draws, ESS %.0f, and %d of a normal proposal; %d iterations"
	if sc.evMethod == bridge.Warp3 {
		f.Proposal = "warp3: a normal fitted to the first half of each chain, the posterior warped to symmetry"
		how = "bridge sampling, warp3: %d posterior draws warped to symmetry, ESS %.0f, and %d of the standard normal; %d iterations"
	}
	f.LogEvidence, f.SE, f.Draws, f.PosteriorDraws, f.Iterations = fitfile.Float(br.LogZ), fitfile.Float(br.SE), br.N2, br.N1, br.Iterations
	f.ParetoK, f.RelESS, f.ZeroWeights = fitfile.Float(math.NaN()), fitfile.Float(math.NaN()), br.ZeroDensity
	o.detail = fmt.Sprintf(how, br.N1, br.N1eff, br.N2, br.Iterations)
	o.failed, o.evals = failed, br.Evals
	return o
}
