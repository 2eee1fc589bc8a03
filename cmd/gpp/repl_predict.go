package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// predict runs :predict: the session model's outputs at the last fit's
// draws of q on the data files given, as gpp predict evaluates them (the
// model compiled in predict mode, so that data only the log density reads
// may be left out). The fit's seed and number of draws are used, so that
// row d is the fit's draw d and, on the fit's own data, the outputs are
// the fit's. With --new-levels, a param that the new data make larger
// (a group the fit did not see, a new label) gets its new elements from
// its prior at each draw, as gpp predict --new-levels. The session's
// model, data and fit are left as they are, and nothing is written.
func (r *repl) predict(args []string) {
	var files []string
	grow := false
	for _, a := range args {
		switch {
		case a == "--new-levels" || a == "-new-levels":
			grow = true
		case strings.HasPrefix(a, "-"):
			// gpp predict's other flags (--draw, --seed, --out, ...) are not :predict's
			r.errorf(":predict takes data files and --new-levels only, not %s: it uses the fit's --seed and --output-draws, draws the observed data left out, and writes nothing (gpp predict has the flags)", a)
			return
		default:
			files = append(files, a)
		}
	}
	if len(files) == 0 {
		r.errorf(":predict takes the new data, as :predict [--new-levels] [NAME=]FILE ... (the data an output reads; the observed values may be left out)")
		return
	}
	if r.sample != nil {
		// gpp predict SAMPLE evaluates a sample's draws from its coords.csv
		r.errorf(":predict evaluates the outputs at draws of a fit's q, and the session's last result is sample %d (NUTS draws): write it with :sample --out DIR and run gpp predict DIR on the new data, or :fit to predict from q", r.sample.n)
		return
	}
	if r.fit == nil {
		r.errorf("no fit yet: :predict evaluates the outputs at draws of the last fit's q; run :fit first")
		return
	}
	srcs := r.sources("")
	l, err := pipeline.ParseSource(replModel, []byte(r.src), r.sets)
	if err != nil {
		r.printError(err, srcs)
		return
	}
	inputs, err := pipeline.ReadInputs(files, l.Sources)
	for k, b := range l.Sources {
		srcs[k] = b
	}
	if err == nil {
		// a copy: growLevels marks the codings to take new labels
		err = l.BindPredict(inputs, r.sets, compile.PredictOptions{}, growLevels(maps.Clone(r.fit.levels), grow), r.fit.sizes, r.fit.columns)
	}
	if err != nil {
		if !grow {
			err = unseenLabelHint(err, ":predict --new-levels")
		}
		r.printError(err, srcs)
		return
	}
	for _, w := range l.Warnings {
		errorf(r.err, "warning: %s", w)
	}
	m := l.Model
	for _, n := range l.Notes {
		errorf(r.err, "note: %s", n)
	}
	if len(m.Outputs) == 0 {
		r.errorf("the model has no outputs and the data leave out no observed values to draw: :predict evaluates them (add output NAME = EXPR, or type an expression to evaluate it on the session's data)")
		return
	}
	res, err := withoutMissing(r.fit.res, m)
	if err != nil {
		r.errorf("%v", err)
		return
	}
	lv, ok := r.predictLevels(m, res, grow)
	if !ok {
		return
	}
	if err := checkDrawsSize(r.fit.draws, 1, m); err != nil {
		r.errorf("%v", err)
		return
	}
	r.noteStale()
	for _, n := range m.Drawn {
		errorf(r.err, "note: %s", n)
	}
	if lv != nil {
		for _, n := range lv.notes() {
			errorf(r.err, "note: %s", n)
		}
	} else if grow {
		errorf(r.err, "note: --new-levels: no param is larger here than in the fit: nothing new to draw")
	}
	ds, err := makeDrawsAt(res, nil, m, r.fit.draws, r.fit.seed, nil, false, lv)
	if err != nil {
		r.printError(err, srcs)
		return
	}
	nameByLabels(ds.vars, l) // u[north], as the fit's table and gpp predict name it
	st := summariseColumns(ds, 0, nil)
	t := &table{right: []bool{false, true, true, true, true, true}}
	t.row("name", "mean", "sd", "5%", "50%", "95%")
	for _, v := range ds.vars {
		if !v.output {
			continue // the params' rows are the fit's
		}
		col := make([]int, len(v.elems)) // row-major element → column
		for j, k := range v.elems {
			col[k] = v.first + j
		}
		for k, c := range col {
			if k == replMaxElems {
				t.note(fmt.Sprintf("... %d more elements of %s", len(col)-k, v.name))
				break
			}
			s := st[c]
			t.row(markFinite([]string{v.elemName(k), num3(s.mean), num3(s.sd), num3(s.q5), num3(s.q50), num3(s.q95)}, 1, s)...)
		}
	}
	t.print(r.out)
	if ds.bad > 0 {
		errorf(r.err, "warning: %d of %d draws had an output that is not finite", ds.bad, r.fit.draws)
	}
	for _, w := range nanWarnings(ds, st) {
		errorf(r.err, "warning: %s", w)
	}
}

// withoutMissing returns res without the factors of the fitted missing
// values (NAME_missing) that m, compiled to predict, does not lay out, as
// gpp predict reads a fit file (fitfile.InitResult): a joint factor keeps the
// others' marginal, and their correlations with it. res itself when it
// has none.
func withoutMissing(res *sgvb.Result, m *compile.Model) (*sgvb.Result, error) {
	drop := func(name string) bool {
		return m.MissingName(name) && !slices.ContainsFunc(m.Latents, func(l compile.Latent) bool { return l.Name == name })
	}
	if !slices.ContainsFunc(res.Factors, func(f sgvb.Factor) bool { return drop(f.Name) }) {
		return res, nil
	}
	out := &sgvb.Result{Method: res.Method, Dim: res.Dim}
	for _, f := range res.Factors {
		if drop(f.Name) {
			out.Dim -= f.Size
			continue
		}
		out.Factors = append(out.Factors, f)
	}
	for _, f := range out.Factors {
		if f.Offset+f.Size > out.Dim { // the missing values are laid out last
			return nil, fmt.Errorf("the fit lays out %s after its missing values", f.Name)
		}
	}
	for _, g := range res.Groups {
		var kept []string
		var keep []bool
		for _, name := range g.Names {
			if !drop(name) {
				kept = append(kept, name)
			}
			keep = append(keep, slices.Repeat([]bool{!drop(name)}, res.Factor(name).Size)...)
		}
		if len(kept) == 0 {
			continue
		}
		mg, err := g.Marginal(kept, keep)
		if err != nil {
			return nil, err
		}
		out.Groups = append(out.Groups, mg)
	}
	return out, nil
}

// predictLevels matches m's params, compiled on the new data, to the
// fit's q res. A param that is the fit's but for a larger shape (a group
// or label the fit did not see) takes new elements with grow
// (--new-levels): the returned levelDraws lays q's draws out as m's and
// draws them; without grow it is an error naming the flag, not a change
// of the model. Any other difference is the model's change since the fit.
func (r *repl) predictLevels(m *compile.Model, res *sgvb.Result, grow bool) (*levelDraws, bool) {
	g := &growth{allow: grow}
	for i := range m.Latents {
		lat := &m.Latents[i]
		k := slices.IndexFunc(res.Factors, func(f sgvb.Factor) bool { return f.Name == lat.Name })
		if k < 0 {
			continue // latentChange names it
		}
		f := fitfile.ToFactors(res.Factors[k : k+1])[0]
		if fitfile.SameType(f, lat) || !fitfile.SameBut(f, lat) || !grows(m, lat, f.Shape) || g.Take(m, lat, f.Shape) {
			continue
		}
		why := "the fit's q has no elements for what the fit did not see"
		if h := g.Hint(m, lat, f.Shape); h != "" {
			why = ":predict --new-levels draws the new elements from the param's prior"
		}
		r.errorf("param %s is %s with the new data, %s in the fit (a group or label the fit did not see): %s",
			lat.Name, fitfile.LatentTypeText(lat), fitfile.FactorTypeText(f), why)
		return nil, false
	}
	if len(g.shapes) == 0 {
		return nil, !r.staleParams(latentChange(m.Latents, m.Dim, true, res))
	}
	lv, err := newLevelDraws(m, g, r.fit.seed)
	if err != nil {
		r.printError(levelsErr(err), r.sources(""))
		return nil, false
	}
	mf := lv.fitModel()
	if r.staleParams(latentChange(mf.Latents, mf.Dim, true, res)) {
		return nil, false
	}
	return lv, true
}
