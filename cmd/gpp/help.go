package main

import (
	"fmt"
	"io"
)

const usageText = `gpp — Bayesian models fitted by gamma-aware stochastic gradient variational Bayes

usage: gpp <command> [arguments]

commands:
  check     check a model: print its latents, families, data and constants, or its errors
  version   print the gpp version
  help      help on a command, or on the language's distributions and functions

Run 'gpp help <command>' or 'gpp <command> --help' for a command's flags,
'gpp help distributions' and 'gpp help functions' for the built-in tables,
'gpp help NAME' for one distribution or function.
`

func usage(w io.Writer) { fmt.Fprint(w, usageText) }
