package main

import (
	"sort"
	"strings"

	"github.com/gpplang/gpp/lang/parser"
	"github.com/gpplang/gpp/stdlib"
)

// This file holds the REPL's tab completion. When an input is complete and
// whether it is an expression or statements is lang/parser's to say
// (NeedsMore, StartsStatement, OpenBraces, LooksLikeStatements).

// complete returns the completions of the word that ends at byte pos of
// line, and the length of that word: REPL commands at the start of a line,
// latent names after :show, and otherwise keywords, built-in functions,
// distributions, the REPL's sd, and the names declared by the session's
// model. The candidates are whole words, sorted, without duplicates.
func (r *repl) complete(line string, pos int) ([]string, int) {
	if pos > len(line) {
		pos = len(line)
	}
	before := line[:pos]
	start := pos
	for start > 0 && isWordByte(before[start-1]) {
		start--
	}
	word := before[start:]
	var pool []string
	head := strings.TrimLeft(before[:start], " \t")
	switch {
	case strings.HasPrefix(head, ":"):
		cmd := strings.Fields(head)
		if len(cmd) == 1 && !strings.HasSuffix(head, " ") && !strings.HasSuffix(head, "\t") {
			// ":fi|": the command word itself
			word = ":" + word
			start--
			for _, c := range replCommands {
				pool = append(pool, ":"+c.name)
			}
		} else if cmd[0] == ":show" {
			pool = r.latentNames()
		}
	default:
		pool = append(pool, parser.Keywords()...)
		pool = append(pool, stdlib.Names()...)
		pool = append(pool, "sd")
		pool = append(pool, r.declaredNames()...)
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range pool {
		if strings.HasPrefix(c, word) && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out, len(word)
}

// isWordByte reports whether c can be part of a name (language.md §1).
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// replCompleter adapts repl.complete to readline's AutoCompleter.
type replCompleter struct{ r *repl }

// Do returns the suffixes that complete the word before pos.
func (c replCompleter) Do(line []rune, pos int) ([][]rune, int) {
	s := string(line[:pos])
	cands, n := c.r.complete(s, len(s))
	out := make([][]rune, len(cands))
	for i, cand := range cands {
		out[i] = []rune(cand[n:])
	}
	return out, n
}
