package stdlib

import (
	"fmt"
	"strings"

	"github.com/gpplang/gpp/dist"
)

// Markdown renders the function and distribution tables for
// docs/language.md (section 7) and `gpp help`.
func Markdown() string {
	var b strings.Builder
	b.WriteString("### Functions\n\n")
	b.WriteString("| function | result shape | result support | description |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, g := range funcs {
		for _, f := range g.Forms() {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s, e.g. `%s` |\n",
				f.Signature(), mdEscape(f.ShapeDoc()), mdEscape(f.SupportDoc()), mdEscape(f.Doc), mdEscape(f.Example))
		}
	}
	b.WriteString("\n### Distributions\n\n")
	b.WriteString("| distribution | value | arguments | description |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, d := range dists {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s, e.g. `%s` |\n",
			d.Signature(), mdEscape(d.ValueDoc()), mdEscape(d.ParamsDoc()), mdEscape(d.Doc), mdEscape(d.Example))
	}
	notes := []string{"Shapes: elementwise distributions take a value of any shape and arguments that broadcast to it (section 5)"}
	for _, d := range dists {
		if d.Shape != DistElementwise {
			notes = append(notes, d.Name+": "+d.Shape.String())
		}
	}
	b.WriteString("\n" + strings.Join(notes, ". ") + ".\n")
	return b.String()
}

// ShapeDoc describes the result shape in words, including when the result
// is int.
func (f *Func) ShapeDoc() string {
	s := f.Shape.String()
	if f.Elem == IntResult {
		return s + "; int"
	}
	if f.Elem == IntIfAllInt {
		// the arguments that may be real decide
		var free []string
		for _, a := range f.Args {
			if !a.Int {
				free = append(free, a.Name)
			}
		}
		switch {
		case len(f.Args) == 1:
			return s + "; int if the argument is"
		case len(free) == 1:
			return s + "; int if " + free[0] + " is"
		}
		return s + "; int if every argument is"
	}
	return s
}

// SupportDoc describes the result support in words.
func (f *Func) SupportDoc() string {
	if len(f.Args) == 0 { // a constant: its support is fixed
		return f.Support.Describe("")
	}
	return f.Support.Describe(f.Args[f.Support.Arg].Name)
}

// ValueDoc describes the value: its support and whether it must be int.
func (d *Dist) ValueDoc() string {
	if d.Int {
		return d.Support.String() + " (int)"
	}
	if u, ok := dist.LookupUnivariate(d.Name); ok && u.Support == dist.NonNegative && d.Support == dist.Positive {
		// the density is finite at 0 (HalfNormal, HalfCauchy, Exponential)
		return d.Support.String() + "; data may also be 0"
	}
	return d.Support.String()
}

// ParamsDoc lists the arguments with their required supports, e.g.
// "shape: positive, rate: positive".
func (d *Dist) ParamsDoc() string {
	parts := make([]string, len(d.Params))
	for i, p := range d.Params {
		s := p.Name + ": " + p.Support.String()
		if p.Int {
			s += " int"
		}
		if p.Ranks != AnyRank {
			s += " " + p.Ranks.String()
		}
		if p.Optional {
			s += ", optional"
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
