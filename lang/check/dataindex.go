package check

import "github.com/gpplang/gpp/lang/ast"

// AxisIndex is a use of int data as the index of an axis: `d[t]` (or
// `d[t[i]]` in a loop) is axis 0 of d, whose size is Dim, indexed by t.
type AxisIndex struct {
	Of   *Symbol // the indexed value's symbol: a param, let, data or const
	Axis int
	Dim  Dim     // the axis's size as the checker knows it
	Pos  ast.Pos // of the index
}

// dataIndexes records, for each int vector data, the axes it indexes
// (DataVar.Indexes): columns of labels that index one axis are coded
// together (data.Bind), and data that index the rows cannot be split
// into folds as they stand (gpp kfold).
func (c *checker) dataIndexes() {
	byName := map[*Symbol]*DataVar{}
	for _, d := range c.info.Data {
		if d.Elem == Int && len(d.Dims) == 1 && d.Symbol != nil {
			byName[d.Symbol] = d
		}
	}
	if len(byName) == 0 {
		return
	}
	ast.Inspect(c.file, func(n ast.Node) bool {
		e, ok := n.(*ast.IndexExpr)
		if !ok {
			return true
		}
		x, ok := ast.Unparen(e.X).(*ast.Ident)
		if !ok || c.info.Uses[x] == nil {
			return true
		}
		shape := c.info.Types[e.X].Shape
		for axis, ix := range e.Indices {
			ix = ast.Unparen(ix)
			if inner, ok := ix.(*ast.IndexExpr); ok && len(inner.Indices) == 1 { // t[i]
				ix = ast.Unparen(inner.X)
			}
			id, ok := ix.(*ast.Ident)
			if !ok || axis >= len(shape) {
				continue
			}
			if d := byName[c.info.Uses[id]]; d != nil {
				d.Indexes = append(d.Indexes, AxisIndex{Of: c.info.Uses[x], Axis: axis, Dim: shape[axis], Pos: id.Pos()})
			}
		}
		return true
	})
}
