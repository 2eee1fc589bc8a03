package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
)

// outCurvMaxWork bounds the outputs' curvature check (outputRatios): the
// check's coordinates times the output elements it reads, whose
// gradients it holds and whose quadratic forms cost that times the
// coordinates again. An output variable whose elements would take the
// work past it is left unchecked, unmarked (a later, smaller one may
// still be read).
const outCurvMaxWork = 200_000

// outShareOff is the share of an output's mean-field variance, by the
// delta method, from coordinates whose scales are off the curvature's
// (curvCheck.offScale) from which its ratio is not read as too small
// (curvCheck.badOutputs), as a param's is not.
const outShareOff = 0.1

// outputRatios extends the curvature check to the model's outputs by the
// delta method: for each output element g that is a function of the
// params (finite at q's mode; a predictive draw, output y ~ D, is NaN
// there, drawing from no stream), its gradient ∇g at q's mode on the
// check's coordinates by central differences (2·Dim evaluations of the
// outputs), and its ratio √(∇gᵀΣ∇g / Σ_i ∇g_i²/Λ_ii) (sgvb.Curvature.
// DeltaRatio): how many times its sd under the curvature's normal
// exceeds its sd under a mean-field q. It draws nothing. A trial's gauge
// R&R %GRR, of four scales, read sd 1.71 under mean-field VI and 17.1
// under NUTS with no mark.
func outputRatios(ctx context.Context, cc *curvCheck, l *pipeline.Loaded, ud *sgvb.Unconstrained) {
	m := l.Model
	u := cc.c.Mode
	if len(m.Outputs) == 0 || len(u) != ud.Dim() {
		return
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		return
	}
	x := make([]float64, ud.TargetDim())
	eval := func(u []float64) [][]float64 {
		ud.Coords(u, x)
		_, vals, _ := ev.Eval(x)
		out := make([][]float64, len(vals))
		for i, v := range vals {
			out[i] = append([]float64(nil), v...)
		}
		return out
	}
	at := eval(u)
	vars := make([]variable, len(m.Outputs))
	for i, o := range m.Outputs {
		vars[i] = variable{name: o.Name, shape: o.Shape, output: true}
	}
	labelAxes(vars, l.Info, data.SizeLabels(l.Info, l.Data))
	type elem struct{ out, k int }
	var elems []elem
	for oi, vals := range at {
		var these []elem
		for k, v := range vals {
			if !math.IsNaN(v) && !math.IsInf(v, 0) { // a predictive draw is NaN
				these = append(these, elem{oi, k})
			}
		}
		if (len(elems)+len(these))*len(u) > outCurvMaxWork {
			continue
		}
		elems = append(elems, these...)
	}
	if len(elems) == 0 {
		return
	}
	grads := make([][]float64, len(elems))
	for e := range grads {
		grads[e] = make([]float64, len(u))
	}
	xu := append([]float64(nil), u...)
	for j := range u {
		if ctx.Err() != nil {
			return
		}
		h := sgvb.LaplaceStep(u[j])
		xu[j] = u[j] + h
		vp := eval(xu)
		xu[j] = u[j] - h
		vm := eval(xu)
		xu[j] = u[j]
		d := (u[j] + h) - (u[j] - h)
		for e, el := range elems {
			grads[e][j] = (vp[el.out][el.k] - vm[el.out][el.k]) / d // NaN where either is: DeltaRatio's NaN
		}
	}
	for e, el := range elems {
		r := cc.c.DeltaRatio(grads[e])
		if math.IsNaN(r) {
			continue // no function of the params, or not finite near q's mode
		}
		cc.outNames = append(cc.outNames, vars[el.out].elemName(el.k))
		cc.outVar = append(cc.outVar, m.Outputs[el.out].Name)
		cc.outRatio = append(cc.outRatio, r)
		cc.outOff = append(cc.outOff, offShare(cc, grads[e]) >= outShareOff)
	}
}

// offShare is the share of Σ_i g_i²/Λ_ii (a mean-field q's variance of
// g by the delta method, sgvb.Curvature.MeanFieldVar) from coordinates
// offScale.
func offShare(cc *curvCheck, g []float64) float64 {
	all, off := 0.0, 0.0
	for i := range g {
		v := cc.c.MeanFieldVar(g, i)
		all += v
		if cc.offScale(i) {
			off += v
		}
	}
	if !(all > 0) {
		return 0
	}
	return off / all
}

// badOutputs returns the names of the output elements whose ratio is at
// least min, leaving out those whose variance comes largely from
// coordinates offScale (outShareOff).
func (cc *curvCheck) badOutputs(min float64) []string {
	return badRatios(cc.outNames, cc.outRatio, cc.outOff, min)
}

// badRatios returns the names whose ratio is at least min and not off
// (badOutputs, badElems).
func badRatios(names []string, ratio []float64, off []bool, min float64) []string {
	var out []string
	for i, v := range ratio {
		if v >= min && !off[i] {
			out = append(out, names[i])
		}
	}
	return out
}

// maxByOutput returns, per output, the largest ratio of its elements:
// the "meanfield_sd_ratio_outputs" of fit.json; nil where none was read.
func (cc *curvCheck) maxByOutput() map[string]fitfile.Float {
	var out map[string]fitfile.Float
	for i, v := range cc.outRatio {
		if out == nil {
			out = map[string]fitfile.Float{}
		}
		if w, ok := out[cc.outVar[i]]; !ok || v > float64(w) {
			out[cc.outVar[i]] = fitfile.Float(v)
		}
	}
	return out
}

// outputsCurvHint names the output elements whose sds the curvature,
// by the delta method, calls curvRatio times too small (badOutputs, the
// table's * marks of outputs), with how many there are, so that the
// Pareto line's count of them (narrowText) is found below the table
// where they are past its rows: a trial's 12 log_lik elements at 1.52×
// were counted under a hint naming b0 alone. "" where none is.
func outputsCurvHint(cc *curvCheck) string {
	if cc == nil {
		return ""
	}
	var bad []int
	for i, v := range cc.outRatio {
		if v >= curvRatio && !cc.outOff[i] {
			bad = append(bad, i)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	slices.SortStableFunc(bad, func(i, j int) int { return cmp.Compare(cc.outRatio[j], cc.outRatio[i]) })
	var outs []string
	for _, i := range bad {
		if !slices.Contains(outs, cc.outVar[i]) {
			outs = append(outs, cc.outVar[i])
		}
	}
	worst := bad[:min(len(bad), 3)]
	named := make([]string, len(worst))
	for k, i := range worst {
		named[k] = fmt.Sprintf("%s's %s×", cc.outNames[i], ratioText(cc.outRatio[i]))
	}
	list := joinAnd(named)
	if more := len(bad) - len(worst); more > 0 {
		list = strings.Join(named, ", ") + fmt.Sprintf(" (and %d more element%s)", more, plural(more))
	}
	whose := fmt.Sprintf("%d element%s of %s have sds", len(bad), plural(len(bad)), joinAnd(outs))
	if len(bad) == 1 {
		whose = fmt.Sprintf("1 element of %s has an sd", outs[0])
	}
	return fmt.Sprintf("by the log density's curvature at q's mode, read for each output by the delta method (its gradient there), %s at least %.1f× too small: %s; "+
		"a mean-field q cannot represent how the params they are functions of move together, so their intervals are too narrow even where the params' look right: "+
		"a joint factor over those params (--fullrank) mends them, and gpp sample --against checks the sds (docs/inference.md, The mean-field hint)", whose, curvRatio, list)
}
