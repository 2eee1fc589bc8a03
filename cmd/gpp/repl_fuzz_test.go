package main

import (
	"strings"
	"testing"
)

// FuzzRepl types fuzzed inputs into a session that holds a small model and
// its data: statements, expressions at the prompt and the commands that
// touch neither files nor the terminal. No input may panic the session. A
// :fit line runs a short fixed fit whatever its flags (flags could name
// files). The seeds are the inputs of testdata/repl_session.in, one of
// :drop, :help COMMAND and an input refused whole, one of :undo over the
// steps of :set, :drop and :fit, and one of redeclarations, :del and
// quantile.
func FuzzRepl(f *testing.F) {
	f.Add("param lambda: positive ~ Gamma(2, 0.5)\ny ~ Poisson(lambda)\n:fit\nmean(lambda)\nlambda[0]\n")
	f.Add("param lambda: positive ~ Gamma(2, 0.5)\noutput twice = 2 * lambda\n:fit\ntwice\nsd(twice)\n:show\n:show lambda\n")
	f.Add("param lambda: positive ~ Gamma(2, 0.5)\ny ~ Poisson(lambda)\n:predict\n:fit\noutput r ~ Poisson(lambda * y)\n:predict\n")
	f.Add("param lambda: positive ~ Gamma(2, 0.5)\ny ~ Poisson(lambda) T[, 40]\n:check\n:fit\ny ~ Poisson(lambda) T[0.5, ]\n")
	f.Add("a * 3\nsum(y)\ny[0:3]\n(mean(y))\n:check\n:set a=3\n:unset a\n:list\n:undo\n")
	f.Add("param W: positive[N, 2] ~ Gamma(1, 1)\ny ~ Poisson(rowsum(W))\n:fit\nW[1:3, 0]\nmean(W)\nW'\n")
	f.Add("let z = log(y + 1)\nz\nfor i in 0:N { y[i] ~ Poisson(3) }\nexp(z) .* 2\n")
	f.Add("let u = y[200]; let v = 1\n:drop y\n:drop testdata/repl_counts.csv\n:help fit\n:undo now\n:set a=\"3\"\n")
	f.Add(":set a=3\n:fit\n:drop testdata/repl_counts.csv\n:undo\n:undo\n:unset a\n:set a=4 N=3\n:undo\n:undo\n:undo\n")
	f.Add("param lambda: positive ~ Gamma(2, 0.5)\nlet r = lambda; let s = 2\ny ~ Poisson(r)\nlet r = lambda * 2\nparam lambda: positive ~ Gamma(3, 1)\n:del 3\n:del r 4\n:undo\nquantile(r, 0.3)\n:type r' * r\n")
	f.Fuzz(func(t *testing.T, script string) {
		r, _, _ := newTestRepl()
		typeIn(r, "data y: int<lower=0>[N]", "const a = 2", ":data testdata/repl_counts.csv")
		for _, in := range strings.Split(script, "\n") {
			if r.quit {
				return
			}
			fields := strings.Fields(in)
			if len(fields) > 0 && strings.HasPrefix(fields[0], ":") {
				switch strings.TrimPrefix(fields[0], ":") {
				case "fit":
					in = ":fit --quiet --seed 1 --iter 20"
				case "predict": // reads files: always the session's own
					in = ":predict testdata/repl_counts.csv"
				case "set", "unset", "drop", "del", "type", "check", "graph", "show", "list", "undo", "help", "quit", "q", "exit":
				default:
					continue // :load, :data, :save read or write files
				}
			}
			r.handle(in)
		}
	})
}
