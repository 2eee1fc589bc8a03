package fitfile

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// Growth takes, while Match matches a model's params to a fit's, a
// param whose shape is larger than the fit's (shape), or says in Hint
// why it does not.
type Growth interface {
	Take(m *compile.Model, lat *compile.Latent, shape []int) bool
	Hint(m *compile.Model, lat *compile.Latent, shape []int) string
}

// Match checks that the params of m are the factors of a fit, one each:
// the same names, supports, bounds and shapes. A param that differs, or
// that the fit lacks, is an error at its declaration; a factor that no
// param takes is an error in the fit file, but for the fitted missing
// values of data, which predict, fitting nothing, does not lay out. need
// ends the messages of a param missing on either side: why the command
// needs the fitted model's params.
// g, when not nil, may take a param larger than the fit's (gpp predict
// --new-levels).
func Match(factors []Factor, path string, src []byte, fitSets, sets map[string]string, model string, m *compile.Model, need [2]string, g Growth) error {
	hint := setsHint(fitSets, sets)
	for i := range m.Latents {
		lat := &m.Latents[i]
		k := slices.IndexFunc(factors, func(f Factor) bool { return f.Name == lat.Name })
		if k < 0 {
			return &ast.Error{Pos: lat.Pos, Msg: fmt.Sprintf("param %s is not in the fit at %s (its params: %s): %s", lat.Name, path, factorNames(factors), need[0])}
		}
		f := factors[k]
		if !SameType(f, lat) {
			if SameBut(f, lat) && g != nil && g.Take(m, lat, f.Shape) {
				continue
			}
			if SameBut(f, lat) && g != nil {
				hint += g.Hint(m, lat, f.Shape)
			}
			here, there := LatentTypeText(lat), FactorTypeText(f)
			if here == there {
				there += " (with other bounds)"
			}
			return &ast.Error{Pos: lat.Pos, Msg: fmt.Sprintf("param %s is %s here, but the fit at %s has %s: %s%s",
				lat.Name, here, path, lat.Name, there, hint)}
		}
	}
	for _, f := range factors {
		if !slices.ContainsFunc(m.Latents, func(l compile.Latent) bool { return l.Name == f.Name }) && !m.MissingName(f.Name) {
			return &ast.Error{Pos: FindPos(path, src, fmt.Sprintf("%q: %q", "name", f.Name)),
				Msg: fmt.Sprintf("the fit has param %s, which %s does not declare: %s", f.Name, model, need[1])}
		}
	}
	return nil
}

// setsHint reminds of the fit's --set values when this run's differ, the
// likely cause of a shape that differs.
func setsHint(fitSets, sets map[string]string) string {
	var diff []string
	for _, k := range slices.Sorted(maps.Keys(fitSets)) {
		if sets[k] != fitSets[k] {
			diff = append(diff, "--set "+k+"="+fitSets[k])
		}
	}
	if len(diff) == 0 {
		return ""
	}
	return " (the fit was run with " + strings.Join(diff, " ") + ")"
}

func factorNames(fs []Factor) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// SameType reports whether the fit's factor f is of a param like lat:
// the same support, coordinate shape and bounds.
func SameType(f Factor, lat *compile.Latent) bool {
	if Supports[f.Support] != lat.Support || !slices.Equal(f.Shape, orEmpty(lat.Shape)) {
		return false
	}
	b := f.Bounds
	if b == nil {
		return !lat.Bounded()
	}
	return b.Loc == lat.Loc && b.Scale == lat.Scale && slices.Equal(b.LocV, lat.LocV) && slices.Equal(b.ScaleV, lat.ScaleV)
}

// SameBut reports whether the fit's factor f is of a param like lat but
// for its shape (gpp predict --new-levels: growth says whether it may
// grow).
func SameBut(f Factor, lat *compile.Latent) bool {
	f.Shape = orEmpty(lat.Shape)
	if f.Bounds != nil && f.Bounds.ScaleV != nil && lat.ScaleV != nil {
		b := *f.Bounds // bounds per element, of another length: NewLevelSampler refuses them
		b.LocV, b.ScaleV = lat.LocV, lat.ScaleV
		f.Bounds = &b
	}
	return SameType(f, lat)
}

func orEmpty(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// LatentTypeText writes a param's type as a declaration would: real[3],
// real<lower=0>, cholesky_factor_corr[4].
func LatentTypeText(lat *compile.Latent) string {
	return typeText(lat.Support, lat.Shape, lat.Loc, lat.Scale, lat.ScaleV != nil)
}

// FactorTypeText writes the type of the param that a fit's factor fits.
func FactorTypeText(f Factor) string {
	var loc, scale float64
	if f.Bounds != nil {
		loc, scale = f.Bounds.Loc, f.Bounds.Scale
	}
	return typeText(Supports[f.Support], f.Shape, loc, scale, f.Bounds != nil && f.Bounds.ScaleV != nil)
}

// typeText writes a param's type from its support, coordinate shape and
// bounds (loc + scale·b; elemBounds: a bound per element).
func typeText(sup dist.Support, shape []int, loc, scale float64, elemBounds bool) string {
	kind := sup.String()
	switch {
	case elemBounds:
		kind = "real<bounds per element>"
	case scale != 0 && sup == dist.Unit:
		kind = fmt.Sprintf("real<lower=%s, upper=%s>", FormatNum(loc), FormatNum(loc+scale))
	case scale > 0:
		kind = fmt.Sprintf("real<lower=%s>", FormatNum(loc))
	case scale < 0:
		kind = fmt.Sprintf("real<upper=%s>", FormatNum(loc))
	}
	if sup == dist.SumToZeroMatrix && len(shape) == 2 {
		return fmt.Sprintf("%s[%d, %d]", kind, shape[0]+1, shape[1]+1)
	}
	if sup.IsCoords() && len(shape) == 1 {
		for k := 1; sup.MatrixSize(k) <= shape[0]; k++ {
			if sup.MatrixSize(k) == shape[0] {
				return fmt.Sprintf("%s[%d]", kind, k)
			}
		}
	}
	if len(shape) == 0 {
		return kind
	}
	dims := make([]string, len(shape))
	for i, n := range shape {
		dims[i] = fmt.Sprint(n)
	}
	return kind + "[" + strings.Join(dims, ", ") + "]"
}
