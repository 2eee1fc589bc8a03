package check

import (
	"slices"
	"sort"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// maxExprText bounds the length of expressions quoted in messages.
const maxExprText = 48

// exprString formats an expression for messages, in the canonical form of
// the printer, shortened to about maxExprText bytes.
func exprString(e ast.Expr) string {
	s := ast.FormatExpr(e)
	if len(s) > maxExprText {
		s = s[:maxExprText-3] + "..."
	}
	return s
}

// suggest returns "; did you mean `X`?" for the candidate X that Suggest
// finds for a misspelt name, or "".
func suggest(name string, candidates []string) string {
	best := Suggest(name, candidates)
	if best == "" {
		return ""
	}
	return "; did you mean `" + best + "`?"
}

// Suggest returns the candidate that name most likely misspells, or "": one
// that differs only in case, else the nearest by edit distance, within a
// third of name's length (at most 3 edits). The checker suggests names this
// way in its errors; gpp help does for topics.
func Suggest(name string, candidates []string) string {
	best, bestD := "", 1<<30
	candidates = slices.Clone(candidates)
	sort.Strings(candidates)
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := editDistance(name, c)
		if strings.EqualFold(c, name) {
			d = 0
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	limit := len(name) / 3
	if limit > 3 {
		limit = 3
	}
	if best == "" || bestD > limit {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and adjacent transpositions.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
