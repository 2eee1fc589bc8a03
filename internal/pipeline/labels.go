package pipeline

import (
	"strconv"
	"strings"

	"github.com/gpplang/gpp/internal/textenc"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

// LabelledAxes returns the labels that name the elements of each axis of
// the param (or, output true, the output) name of the shape, by sizes,
// the labels of the int data sizes that a data column's labels gave
// (data.SizeLabels): an axis declared with such a size, as long as its
// labels, is named by them, as ArviZ names one by PyMC's coords; nil when
// no axis is (or name is neither).
func LabelledAxes(info *check.Info, sizes map[string][]string, name string, output bool, shape []int) [][]string {
	if len(sizes) == 0 {
		return nil
	}
	var dims check.Shape
	found := false
	if output {
		for _, o := range info.Outputs {
			if o.Name == name {
				dims, found = o.Dims, true
			}
		}
	} else {
		for _, lat := range info.Latents {
			if lat.Name == name {
				dims, found = lat.Dims, true
			}
		}
	}
	if !found || len(dims) != len(shape) {
		return nil
	}
	var axes [][]string
	for a, d := range dims {
		labels := sizes[d.Name]
		if d.Derived || labels == nil || len(labels) != shape[a] {
			continue
		}
		if axes == nil {
			axes = make([][]string, len(dims))
		}
		axes[a] = labels
	}
	return axes
}

// LabelledName names element k (row-major) of the value name of the shape
// as gpp's tables and summary.csv do: compile.ElemName's 0-based indices,
// W[1, 0], but for an axis that axes labels (LabelledAxes), named by its
// label, QuoteLabel'd: z[AITKIN], b[AITKIN, 1].
func LabelledName(name string, shape []int, axes [][]string, k int) string {
	if axes == nil {
		return compile.ElemName(name, shape, k)
	}
	idx := compile.Unravel(shape, k)
	parts := make([]string, len(idx))
	for a, i := range idx {
		if a < len(axes) && axes[a] != nil {
			parts[a] = textenc.QuoteLabel(axes[a][i])
		} else {
			parts[a] = strconv.Itoa(i)
		}
	}
	return name + "[" + strings.Join(parts, ", ") + "]"
}
