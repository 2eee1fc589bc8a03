package main

import (
	"fmt"
	"io"
	"strings"
	"unicode"
)

// table aligns rows of cells; notes are lines printed as they are.
type table struct {
	right []bool // right-align column i
	rows  [][]string
}

// headedTable returns a table whose first row is head, its columns from
// the from-th on right-aligned (the numbers after the name columns).
func headedTable(head []string, from int) *table {
	t := &table{right: make([]bool, len(head))}
	for i := from; i < len(head); i++ {
		t.right[i] = true
	}
	t.row(head...)
	return t
}

func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }
func (t *table) note(s string)       { t.rows = append(t.rows, []string{"\x00" + s}) }

// dispWidth is the number of columns s takes on a terminal: its runes less
// the combining marks (the hat of k̂ and R̂).
func dispWidth(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.Is(unicode.Mn, r) {
			n++
		}
	}
	return n
}

func (t *table) print(w io.Writer) {
	var width []int
	for _, r := range t.rows {
		if len(r) == 1 && strings.HasPrefix(r[0], "\x00") {
			continue
		}
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], dispWidth(c))
		}
	}
	for _, r := range t.rows {
		if len(r) == 1 && strings.HasPrefix(r[0], "\x00") {
			fmt.Fprintln(w, r[0][1:])
			continue
		}
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-dispWidth(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(t.right) && t.right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
