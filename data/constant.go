package data

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// ConstantObserved returns a warning for each data value, at least two
// numbers and all equal, that a ~ statement gives a distribution whose
// sigma reads a param (y ~ Normal(mu, s_e)): data with no spread leave
// that scale nothing to fit, its likelihood grows without bound as it
// shrinks to 0, and a fit's hints of a collapse or of its start would
// otherwise be the first a user reads (a trial's gauge study of all-equal
// readings). A cheap check of the data, not of the fit.
func ConstantObserved(file *ast.File, info *check.Info, bound map[string]*Array) []string {
	if file == nil || info == nil {
		return nil
	}
	var warns []string
	seen := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		t, ok := n.(*ast.TildeStmt)
		if !ok {
			return true
		}
		id, ok := ast.Unparen(t.LHS).(*ast.Ident)
		d := info.Dists[t.Dist]
		if !ok || d == nil || d.Int || seen[id.Name] || info.Uses[id] == nil || info.Uses[id].Kind != check.Data {
			return false
		}
		scales, a := info.ScaleParams(t), bound[id.Name]
		if len(scales) == 0 || a == nil {
			return false
		}
		scale := scales[0]
		first, count := math.NaN(), 0
		for _, v := range a.Values {
			if math.IsNaN(v) {
				continue // a missing value, fitted
			}
			if count > 0 && v != first {
				return false
			}
			first, count = v, count+1
		}
		if count < 2 {
			return false
		}
		seen[id.Name] = true
		warns = append(warns, fmt.Sprintf("%s: the %d values of %s are all %s, yet %s ~ %s at %s fits their spread by %s: data with no variation leave it nothing to fit (the likelihood grows without bound as %s → 0), so a fit may not converge and its hints of a collapse or a start follow from the data; check them (a column copied, readings rounded to one value)",
			a.Locate(0), count, id.Name, strconv.FormatFloat(first, 'g', -1, 64), id.Name, d.Name, t.Tilde, scale, scale))
		return false
	})
	return warns
}
