package ast

import "strings"

// Article returns word (a kind, a support, a family) after "a" or "an":
// "an ordered", "an int", "a unit", "a simplex". Only a, e, i and o take
// "an": gpp's words that start with u (unit, unif) are said "you".
func Article(word string) string {
	if word != "" && strings.ContainsRune("aeioAEIO", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
