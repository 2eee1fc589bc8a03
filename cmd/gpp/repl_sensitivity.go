package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
)

// This file holds the REPL's :sensitivity: gpp sensitivity on the
// session's last sample, or its last fit's q, with the session's model and
// data.

// sensitivityCmd runs :sensitivity: gpp sensitivity's flags (no FIT, no
// model, no data, no --set), on the draws of the session's last :sample
// or, when a :fit ran last, of its q weighted by p/q.
func (r *repl) sensitivityCmd(args []string) {
	var msgs strings.Builder
	fs := newFlagSet("sensitivity", ":sensitivity [flags]", "", &msgs)
	cfg := sensFlags(fs)
	if isHelp(args) {
		fs.SetOutput(r.out)
		fmt.Fprint(r.out, replSensitivityHelp+"\nflags:\n")
		printFlags(fs)
		return
	}
	if err := fs.Parse(args); err != nil {
		r.flagError(":sensitivity", &msgs)
		return
	}
	fs.Visit(func(f *flag.Flag) { cfg.set[f.Name] = true })
	switch {
	case fs.NArg() > 0:
		r.errorf(":sensitivity takes flags only, not %s: it power-scales the session's last sample or fit, of its model and data", strings.Join(fs.Args(), " "))
		return
	case len(cfg.sets) > 0:
		r.errorf(":sensitivity power-scales the posterior of the session's values: set them with :set, then :sample or :fit again")
		return
	}
	if err := cfg.check(); err != nil {
		r.errorf("%v", err)
		return
	}
	var made [3]string
	switch {
	case r.sample != nil:
		if cfg.set["seed"] || cfg.set["draws"] {
			r.errorf("--seed and --draws are a fit's: the draws of sample %d, the session's last result, are its own", r.sample.n)
			return
		}
		made = r.sample.made
	case r.fit == nil:
		r.errorf("no fit or sample yet: :sensitivity power-scales the draws of the session's last :sample (or :fit); run :sample first")
		return
	case r.fit.res.Method == sgvb.MAP:
		r.errorf(":sensitivity: fit %d, the session's last, is a MAP estimate, which has no draws to power-scale: :sample, or :fit without --family map", r.fit.n)
		return
	case sgvb.Overflows(r.fit.res.ELBO, r.fit.res.ELBOSE):
		r.errorf(":sensitivity: fit %d, the session's last, failed (its ELBO overflows): its q approximates no posterior", r.fit.n)
		return
	default:
		made = r.fit.made
	}
	what := "fit"
	if r.sample != nil {
		what = "sample"
	}
	if made != r.fitOf(r.sets) {
		r.errorf("the model, the data or the values set changed since the last :%s: the sensitivities are of its posterior; run :%s again", what, what)
		return
	}
	srcs := r.sources("")
	l, err := r.boundModel()
	if err != nil {
		r.printError(err, srcs)
		return
	}
	m := l.Model
	cfg.choosePrior(l)
	con := newConsole(r.err, false, false, cfg.verbose)
	var b *sensBase
	if s := r.sample; s != nil {
		sd := s.run.sd
		b, err = sensFromDraws(cfg, m, sd.ds, sd.coords, sd.xdim, s.describe(), nil)
	} else {
		seed, S := cfg.fitDraws(r.fit.seed, r.fit.draws)
		if err = checkDrawsSize(S, 1, m); err == nil {
			b, err = sensFromQ(cfg, m, r.fit.res, seed, S, fmt.Sprintf("%d draws of the q of fit %d (seed %d), weighted by p/q", S, r.fit.n, seed), nil)
			if b != nil {
				b.kFit = r.fit.res.ParetoK // the fit's own estimate, as fit.json's
			}
		}
	}
	if b != nil {
		nameByLabels(b.ds.vars, l)
	}
	if err != nil {
		r.printError(err, srcs)
		return
	}
	for _, in := range r.inputFiles() {
		b.inputs = append(b.inputs, in.path)
	}
	if !sensReport(r.out, con, cfg, b) {
		r.failed = true
	}
}

// replSensitivityHelp starts :sensitivity --help.
const replSensitivityHelp = `The power-scaling sensitivity of the session's last result, as gpp
sensitivity computes it, with its flags: of the draws of the last :sample,
or, when a :fit ran last, of its q's draws weighted by p/q (the table's
draws line says which). The model, its data and the :set values must be
those of that sample or fit. As there, the prior power-scaled leaves out
hierarchical population priors and non-centred innovations by default;
--prior all scales every prior, --prior NAMES and --likelihood NAMES narrow
the parts power-scaled; --csv FILE and --plots DIR write files.
`
