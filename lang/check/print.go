package check

import (
	"sort"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// maxExprText bounds the length of expressions quoted in messages.
const maxExprText = 48

// exprString prints an expression for a message, shortened with "…" when
// long.
func exprString(e ast.Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	s := b.String()
	if r := []rune(s); len(r) > maxExprText {
		s = string(r[:maxExprText-1]) + "…"
	}
	return s
}

func writeExpr(b *strings.Builder, e ast.Expr) {
	switch e := e.(type) {
	case nil:
	case *ast.Ident:
		b.WriteString(e.Name)
	case *ast.NumberLit:
		b.WriteString(e.Raw)
	case *ast.ParenExpr:
		b.WriteByte('(')
		writeExpr(b, e.X)
		b.WriteByte(')')
	case *ast.UnaryExpr:
		b.WriteString(e.Op.String())
		writeExpr(b, e.X)
	case *ast.BinaryExpr:
		writeExpr(b, e.X)
		if e.Op == ast.Pow {
			b.WriteString("^")
		} else {
			b.WriteString(" " + e.Op.String() + " ")
		}
		writeExpr(b, e.Y)
	case *ast.TransposeExpr:
		writeExpr(b, e.X)
		b.WriteByte('\'')
	case *ast.CallExpr:
		b.WriteString(e.Fun.Name)
		b.WriteByte('(')
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExpr(b, a)
		}
		b.WriteByte(')')
	case *ast.IndexExpr:
		writeExpr(b, e.X)
		b.WriteByte('[')
		for i, ix := range e.Indices {
			if i > 0 {
				b.WriteString(", ")
			}
			if s, ok := ix.(*ast.SliceExpr); ok && s.Lo == nil && s.Hi == nil && len(e.Indices) > 1 {
				continue // x[, j]
			}
			writeExpr(b, ix)
		}
		b.WriteByte(']')
	case *ast.SliceExpr:
		writeExpr(b, e.Lo)
		b.WriteByte(':')
		writeExpr(b, e.Hi)
	}
}

// suggest returns ` (did you mean "x"?)` for the candidate closest to name,
// or "" if none is close: same letters ignoring case, or an edit distance
// (with transpositions) of at most a third of the name's length.
func suggest(name string, candidates []string) string {
	best, bestD := "", 1<<30
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
	return "; did you mean `" + best + "`?"
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
