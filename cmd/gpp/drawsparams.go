package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpplang/gpp/internal/pipeline"
)

// drawsParamsUsage is --draws-params's help, gpp fit's and gpp sample's.
const drawsParamsUsage = "the params and outputs whose columns draws.csv keeps, besides its own (lp__,\n" +
	"...): comma-separated `NAMES`, each for all its elements, in the model's order\n" +
	"(PyMC's var_names); default all. For a model of 10⁵ latents, whose draws.csv\n" +
	"would hold 10⁸ numbers: the summary, loo.csv and the plots still use every\n" +
	"column's draws, and gpp sample's coords.csv keeps every param for gpp predict"

// chosenDraws returns the columns of ds that --draws-params (names) keeps,
// every element of each variable named, in ds's order: a drawSet sharing
// ds's rows' densities and draws; ds itself for no names. The names were
// checked before the run (checkDrawsParams).
func chosenDraws(ds *drawSet, names []string) *drawSet {
	if len(names) == 0 {
		return ds
	}
	out := *ds
	out.vars, out.cols, out.mean, out.ncol = nil, nil, nil, 0
	for _, v := range ds.vars {
		if !slices.Contains(names, v.name) {
			continue
		}
		n := len(v.elems)
		if ds.mean != nil {
			out.mean = append(out.mean, ds.mean[v.first:v.first+n]...)
		}
		if ds.cols != nil {
			out.cols = append(out.cols, ds.cols[v.first:v.first+n]...)
		}
		v.first = out.ncol
		out.ncol += n
		out.vars = append(out.vars, v)
	}
	return &out
}

// checkDrawsParams checks --draws-params's names against l's params and
// outputs before the run: each names one, whole, as gpp summary reads a
// draws.csv's columns by variable.
func checkDrawsParams(cfg *fitConfig, l *pipeline.Loaded) error {
	if len(cfg.drawsParams) == 0 {
		return nil
	}
	vars := modelDrawSet(l.Model, "", 0).vars // the names alone: no draws
	names := make([]string, len(vars))
	for i := range vars {
		names[i] = vars[i].name
	}
	for _, s := range cfg.drawsParams {
		if slices.Contains(names, s) {
			continue
		}
		if i := strings.IndexAny(s, ".["); i > 0 && slices.Contains(names, strings.TrimSpace(s[:i])) {
			base := strings.TrimSpace(s[:i])
			return fmt.Errorf("--draws-params: %s is an element: draws.csv keeps a param's or output's columns whole, as its readers read them; name %s (gpp summary --params %s picks the element)", s, base, s)
		}
		return fmt.Errorf("--draws-params: the model has no param or output %s%s (its params and outputs: %s)", s, suggestElem(vars, s), strings.Join(names, ", "))
	}
	return nil
}

// drawsParamsLead opens the comment line of a draws.csv whose columns
// --draws-params chose (drawsParamsLine), which its readers look for.
const drawsParamsLead = "#   gpp_draws_params = "

// drawsParamsLine is the comment line of a draws.csv whose columns
// --draws-params chose; "" without.
func drawsParamsLine(cfg *fitConfig) string {
	if cfg == nil || len(cfg.drawsParams) == 0 {
		return ""
	}
	return drawsParamsLead + strings.Join(cfg.drawsParams, ",")
}

// keptDrawsParams returns the names of the --draws-params line among the
// comment lines that open head (a draws.csv's first bytes), "" where there
// is none: the file holds every param's columns.
func keptDrawsParams(head []byte) string {
	for _, l := range strings.Split(string(head), "\n") {
		if !strings.HasPrefix(l, "#") {
			break
		}
		if v, ok := strings.CutPrefix(strings.TrimSuffix(l, "\r"), drawsParamsLead); ok {
			return v
		}
	}
	return ""
}
