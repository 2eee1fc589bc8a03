package main

import (
	"errors"
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
		} else if cmd[0] == ":show" || cmd[0] == ":sensitivity" {
			pool = r.latentNames()
		} else if cmd[0] == ":del" {
			pool = r.declaredNames()
		} else if cmd[0] == ":type" {
			pool = r.exprNames()
		}
	default:
		pool = r.exprNames()
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

// exprNames returns the words an input may use: keywords, built-ins, the
// REPL's own queries and the model's names.
func (r *repl) exprNames() []string {
	pool := append(parser.Keywords(), stdlib.Names()...) // mean, sd and quantile, the REPL's queries too (evalExpr), are built-ins
	return append(pool, r.declaredNames()...)
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

// splitArgs splits a :command line into its words at blanks. A backslash
// keeps the blank, quote or backslash after it (my\ y.csv), and quotes keep
// what they hold ("my y.csv", 'my y.csv'; in double quotes \" and \\ are
// escapes); a backslash before any other character is kept (C:\data).
func splitArgs(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		escaped := c == '\\' && i+1 < len(line) && isEscapable(line[i+1])
		switch {
		case quote == '\'':
			if c == quote {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == quote:
				quote = 0
			case escaped && (line[i+1] == '"' || line[i+1] == '\\'):
				i++
				w.WriteByte(line[i])
			default:
				w.WriteByte(c)
			}
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case escaped:
			i++
			w.WriteByte(line[i])
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unclosed " + string(quote) + " quote")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// isEscapable reports whether a backslash before c escapes it (splitArgs).
func isEscapable(c byte) bool {
	return c == ' ' || c == '\t' || c == '\'' || c == '"' || c == '\\'
}

// quoteArg writes a word so that splitArgs reads it back: blanks, quotes
// and a backslash before any of them escaped with a backslash.
func quoteArg(word string) string {
	var b strings.Builder
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c == '\\' && !(i+1 < len(word) && isEscapable(word[i+1])) {
			b.WriteByte(c) // kept as it is (C:\data)
			continue
		}
		if isEscapable(c) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// quoteArgs writes words as one line that splitArgs reads back.
func quoteArgs(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quoteArg(w)
	}
	return strings.Join(q, " ")
}
