package main

import (
	"sort"
	"strings"

	"github.com/gpplang/gpp/stdlib"
)

// This file holds the REPL's reading of its input that needs no model: when
// an input is complete, whether it is an expression or statements, and tab
// completion.

// replToken is one token of the REPL's light scan of an input: enough to
// count brackets and to see what a line ends with. The parser does the real
// scanning.
type replToken struct {
	text string
	kind byte // 'n' name or keyword, '0' number, 'p' punctuation
}

// replScan splits src into tokens, dropping blanks, newlines and comments.
func replScan(src string) []replToken {
	var toks []replToken
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case replIsLetter(c):
			j := i
			for j < len(src) && (replIsLetter(src[j]) || replIsDigit(src[j])) {
				j++
			}
			toks = append(toks, replToken{src[i:j], 'n'})
			i = j
		case replIsDigit(c) || c == '.' && i+1 < len(src) && replIsDigit(src[i+1]):
			j := i
			for j < len(src) && (replIsDigit(src[j]) || replIsLetter(src[j]) || src[j] == '.' && !(j+1 < len(src) && src[j+1] == '*') ||
				(src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			toks = append(toks, replToken{src[i:j], '0'})
			i = j
		default:
			n := 1
			if i+1 < len(src) {
				switch src[i : i+2] {
				case ".*", "+=", "-=":
					n = 2
				}
			}
			toks = append(toks, replToken{src[i : i+n], 'p'})
			i += n
		}
	}
	return toks
}

func replIsLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func replIsDigit(c byte) bool  { return '0' <= c && c <= '9' }

// startsStmt reports whether line starts with a statement keyword.
func startsStmt(line string) bool {
	toks := replScan(line)
	return len(toks) > 0 && stmtKeywordSet[toks[0].text]
}

// openBraces returns the number of "{" left open in src.
func openBraces(src string) int {
	n := 0
	for _, t := range replScan(src) {
		if t.kind == 'p' && t.text == "{" {
			n++
		} else if t.kind == 'p' && t.text == "}" {
			n--
		}
	}
	return n
}

// stmtKeywordSet are the words that start a statement (language.md §1).
var stmtKeywordSet = map[string]bool{
	"data": true, "const": true, "param": true, "let": true, "output": true, "target": true, "for": true,
}

// looksLikeStmt reports whether an input that is neither a valid
// expression nor valid statements was meant as statements: it starts with
// a statement keyword or has a top-level "~", "=", "+=" or "-=". It decides
// which parse error to report.
func looksLikeStmt(src string) bool {
	toks := replScan(src)
	if len(toks) == 0 {
		return false
	}
	if stmtKeywordSet[toks[0].text] {
		return true
	}
	depth := 0
	for _, t := range toks {
		if t.kind != 'p' {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case "~", "=", "+=", "-=", ";":
			if depth <= 0 {
				return true
			}
		}
	}
	return false
}

// replKeywords are the reserved words of the language, for completion.
var replKeywords = []string{
	"const", "data", "for", "in", "int", "let", "output", "param", "positive", "real", "simplex", "target", "unit",
}

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
	for start > 0 && (replIsLetter(before[start-1]) || replIsDigit(before[start-1])) {
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
		pool = append(pool, replKeywords...)
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
