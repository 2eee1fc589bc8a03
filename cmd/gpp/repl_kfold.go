package main

import (
	"fmt"
	"strings"
)

// This file holds the REPL's :kfold: gpp kfold on the session's model and
// data, printing the folds and the estimate, writing no files.

// kfoldCmd runs :kfold with gpp kfold's flags (no model, no data, no
// --set, no --out). The session's fit, sample and values stay as they were.
func (r *repl) kfoldCmd(args []string) {
	if isHelp(args) {
		fmt.Fprint(r.out, "The session's model and data are cross-validated by K folds, as gpp kfold does,\nwith its flags; nothing is written (gpp kfold --out DIR writes kfold.csv for\ngpp compare), and the session's fit, sample and values stay as they are.\nCtrl-C stops the fits.\n\n")
		parseKfoldArgs([]string{"--help"}, r.out, r.err)
		return
	}
	if hasFlag(args, "out") {
		r.errorf(":kfold prints the estimate and writes nothing: gpp kfold --out DIR writes kfold.csv and kfold.json for gpp compare")
		return
	}
	var msgs strings.Builder
	kc, _, ok := parseKfoldArgs(append([]string{replModel}, args...), r.out, &msgs)
	if !ok {
		r.flagError(":kfold", &msgs)
		return
	}
	switch {
	case len(kc.fit.data) > 0:
		r.errorf(":kfold takes flags only, not %s: add data with :data", strings.Join(kc.fit.data, " "))
		return
	case len(kc.fit.sets) > 0:
		r.errorf(":kfold cross-validates the session's model with its values: set them with :set")
		return
	case len(kc.fit.levels) > 0:
		r.errorf("%s", replLevelsRefusal(":kfold"))
		return
	}
	srcs := r.sources("")
	l, err := r.boundModel()
	if err != nil {
		r.printError(err, srcs)
		return
	}
	con := newConsole(r.err, isTerminal(r.err), kc.fit.quiet, kc.fit.verbose)
	su, err := setupKfold(l, kc, con)
	if err != nil {
		r.printError(err, srcs)
		return
	}
	if !kfoldFactors(kc.fit, su, con) {
		r.failed = true
		return
	}
	ctx, stop := r.interruptible(func() { con.note("interrupted: stopping the fits; the session goes on") })
	defer stop()
	res, code := crossValidate(ctx, kc, su, con)
	switch code {
	case exitInterrupted:
		r.interrupted("no estimate")
		return
	case exitOK:
	default:
		r.failed = true
		return
	}
	t := su.totals(res)
	printKfold(r.out, su, kc.nuts, res, t, "", nil)
	for _, w := range append(kfoldWarnings(su, res, t, kc.fit.outputDraws, kfoldWarnMethod(kc), closerFlag(kc.fit.settings, su.l.Model)), kfoldFitWarnings(su, res, kc.nuts)...) {
		con.note("warning: %s", w)
	}
}
