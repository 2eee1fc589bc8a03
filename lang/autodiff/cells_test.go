package autodiff

import (
	"testing"

	"github.com/gpplang/gpp/lang/ast"
)

// TestComputedCell: a value or argument computed elementwise from one
// datum and params (rt[k] - shift[subj[k]], (rt - mu) / s) that falls
// outside its support names the datum's cell and the params, the
// param element an index by data picks, and, for a datum minus a bounded
// param whose upper bound is above the datum, the bound; a value
// computed from two data along the axis, or from data read otherwise
// (a matrix product), names none. The params are named through lets of
// them (c[subj] of c = a + b names a[subj[k]] and b), those of a matrix
// product whole, and the first four of more.
func TestComputedCell(t *testing.T) {
	// rt read from d.csv, one row a line from line 2, in column 3; the
	// subjects of its rows are subj; shift[j] = 0.4·inv_logit(z_j), 0.2
	// at z = 0, so that rt[1] − shift[2] = 0.11 − 0.2 is the bad value.
	rtv := []float64{0.52, 0.11, 0.83, 0.45}
	subj := []int{0, 2, 1, 2}
	cells := func(k int) ast.Pos { return ast.Pos{File: "d.csv", Line: 2 + k, Col: 3} }
	subjCells := func(file string) func(int) ast.Pos {
		return func(k int) ast.Pos { return ast.Pos{File: file, Line: 2 + k, Col: 1} }
	}
	logNormal, normal := family("LogNormal"), family("Normal")
	type vars struct{ rt, w, jw, c, shift, shiftEach, mu, s, X, beta ID }
	setup := func(b *Builder) vars {
		var v vars
		v.rt = b.DataConst("rt", rtv, Vector(4), at(1, 1), cells)
		v.w = b.DataConst("w", []float64{1, 2, 3, 4}, Vector(4), at(1, 1), func(k int) ast.Pos { return ast.Pos{File: "d.csv", Line: 2 + k, Col: 8} })
		// w as a JSON array on one line: its cells share the line of rt's
		v.jw = b.DataConst("jw", []float64{1, 2, 3, 4}, Vector(4), at(1, 1), func(k int) ast.Pos { return ast.Pos{File: "d.csv", Line: 2, Col: 20 + 2*k} })
		v.c = b.DataConst("c", []float64{0.05}, Scalar(), at(1, 1), func(int) ast.Pos { return ast.Pos{File: "c.json", Line: 1, Col: 7} })
		z := b.Input("shift", Vector(3), at(2, 7))
		v.shift = b.Inside(b.Mul(b.Scalar(0.4, at(2, 7)), b.InvLogit(z, at(2, 7)), at(2, 7)), 0, 0.4, at(2, 7))
		// per-element upper bounds (0.4, 0.4, 0.3), as InsideEach keeps them
		hi := []float64{0.4, 0.4, 0.3}
		v.shiftEach = b.InsideEach(b.Mul(b.Const(hi, Vector(3), at(2, 7)), b.InvLogit(z, at(2, 7)), at(2, 7)), []float64{0, 0, 0}, hi, at(2, 7))
		v.mu = b.Input("mu", Scalar(), at(3, 7))
		v.s = b.Input("s", Scalar(), at(3, 7))
		v.X = b.DataConst("X", []float64{1, 0, 0, 1, 1, 1, 2, 0}, Matrix(4, 2), at(1, 1), func(k int) ast.Pos { return ast.Pos{File: "x.csv", Line: 2 + k/2, Col: 1 + 2*(k%2)} })
		v.beta = b.Input("beta", Vector(2), at(3, 7))
		return v
	}
	// shift at 0 (0.2), mu 0.3, s 1, beta (0.2, 0.2)
	x := []float64{0, 0, 0, 0.3, 1, 0.2, 0.2}
	const bad = "model.gpp:5:3: log density is -Inf: value -0.09000000000000001 outside the support of LogNormal (element [1])"
	for _, c := range []struct {
		name  string
		build func(b *Builder, v vars) ID
		want  string
	}{
		{"datum minus an indexed bounded param", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(v.rt, b.Gather(v.shift, subj, at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, bad + "; the value is computed from rt's at d.csv:3:3 and param shift[2]; shift's upper bound 0.4 is above this row's rt 0.11, which shift[2] must stay below"},
		{"bounds per element", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(v.rt, b.Gather(v.shiftEach, subj, at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -0.039999999999999994 outside the support of LogNormal (element [1]); the value is computed from rt's at d.csv:3:3 and param shift[2]; shift[2]'s upper bound 0.3 is above this row's rt 0.11, which it must stay below"},
		{"a scaled param: no bound", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(v.rt, b.Mul(b.Scalar(1, at(5, 6)), b.Gather(v.shift, subj, at(5, 6)), at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, bad + "; the value is computed from rt's at d.csv:3:3 and param shift[2]"},
		{"a data scalar is a single value", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(b.Add(v.rt, v.c, at(5, 3)), b.Gather(v.shift, subj, at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -0.04000000000000001 outside the support of LogNormal (element [1]); the value is computed from rt's at d.csv:3:3 and param shift[2]"},
		{"two params", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Div(b.Sub(v.rt, v.mu, at(5, 3)), v.s, at(5, 3)), []ID{b.Scalar(0, at(5, 9)), b.Scalar(1, at(5, 9))}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -0.19 outside the support of LogNormal (element [1]); the value is computed from rt's at d.csv:3:3 and params mu, s"},
		{"an argument of a density", func(b *Builder, v vars) ID {
			return b.Density(normal, v.w, []ID{v.mu, b.Sub(v.rt, v.mu, at(5, 12))}, at(5, 3))
		}, "model.gpp:5:3: Normal: sigma must be > 0 (got -0.19, element [1]); sigma is computed from rt's at d.csv:3:3 and param mu"},
		{"an argument of a function", func(b *Builder, v vars) ID {
			return b.Sum(b.Log(b.Sub(v.rt, v.mu, at(5, 7)), at(5, 3)), at(5, 3))
		}, "model.gpp:5:3: log: argument -0.19 < 0 (element [1]); the argument is computed from rt's at d.csv:3:3 and param mu"},
		{"two data of one row", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(v.rt, b.Mul(v.w, v.s, at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -0.48 outside the support of LogNormal (element [0]); the value is computed from the row at d.csv:2 (rt = 0.52, w = 1) and param s"},
		{"a row's datum twice, params picked by an index", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(b.Div(v.rt, v.w, at(5, 6)), b.Add(b.Gather(v.shift, subj, at(5, 6)), b.Mul(v.rt, v.mu, at(5, 6)), at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -0.17800000000000002 outside the support of LogNormal (element [1]); the value is computed from the row at d.csv:3 (rt = 0.11, w = 2) and params shift[2], mu"},
		{"a row's index", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(b.Div(v.rt, v.w, at(5, 6)), b.GatherData(v.shift, subj, "subj", subjCells("d.csv"), at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -0.14500000000000002 outside the support of LogNormal (element [1]); the value is computed from the row at d.csv:3 (rt = 0.11, w = 2, subj = 2) and param shift[2]"},
		{"an index of another file", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(b.Div(v.rt, v.w, at(5, 6)), b.GatherData(v.shift, subj, "subj", subjCells("s.csv"), at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -0.14500000000000002 outside the support of LogNormal (element [1]); the value is computed from the row at d.csv:3 (rt = 0.11, w = 2) and param shift[2]"},
		{"one datum and its row's index", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(v.rt, b.GatherData(v.shift, subj, "subj", subjCells("d.csv"), at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, bad + "; the value is computed from rt's at d.csv:3:3 and param shift[2]; shift's upper bound 0.4 is above this row's rt 0.11, which shift[2] must stay below"},
		{"two data of two rows", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(v.rt, b.Mul(b.Gather(v.w, []int{1, 2, 3, 0}, at(5, 6)), v.s, at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -1.48 outside the support of LogNormal (element [0])"},
		{"two data of two files", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(v.rt, b.Mul(b.Col(v.X, 1, at(5, 6)), v.s, at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -0.89 outside the support of LogNormal (element [1])"},
		{"two data of one line that is no row", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(v.rt, b.Mul(v.jw, v.s, at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -0.48 outside the support of LogNormal (element [0])"},
		{"four params named", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(b.Mul(b.Sub(v.rt, v.mu, at(5, 6)), b.Gather(v.beta, []int{0, 0, 1, 1}, at(5, 6)), at(5, 6)), b.Add(b.Gather(v.shift, subj, at(5, 6)), v.s, at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -1.156 outside the support of LogNormal (element [0]); the value is computed from rt's at d.csv:2:3 and params mu, beta[0], shift[0], s"},
		{"a let of params picked by an index", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(v.rt, b.Gather(b.Add(b.Mul(b.Scalar(0.5, at(4, 9)), v.shift, at(4, 9)), b.Mul(v.mu, b.Scalar(0.5, at(4, 9)), at(4, 9)), at(4, 9)), subj, at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -0.14 outside the support of LogNormal (element [1]); the value is computed from rt's at d.csv:3:3 and params shift[2], mu"},
		{"params in a matrix product", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(v.rt, b.Add(b.MatMul(b.Const([]float64{1, 0, 0, 1, 1, 1, 2, 0}, Matrix(4, 2), at(4, 9)), v.beta, at(4, 9)), v.s, at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -0.6799999999999999 outside the support of LogNormal (element [0]); the value is computed from rt's at d.csv:2:3 and params beta, s"},
		{"five params", func(b *Builder, v vars) ID {
			sum := b.Add(b.Add(b.Add(v.mu, v.s, at(5, 6)), b.Gather(v.shift, subj, at(5, 6)), at(5, 6)), b.Gather(v.beta, []int{0, 0, 1, 1}, at(5, 6)), at(5, 6))
			return b.Density(logNormal, b.Sub(v.rt, b.Add(sum, b.Gather(v.beta, []int{1, 1, 0, 0}, at(5, 6)), at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, "model.gpp:5:3: log density is -Inf: value -1.38 outside the support of LogNormal (element [0]); the value is computed from rt's at d.csv:2:3 and params mu, s, shift[0], beta[0] and 1 more"},
		{"data in a matrix product", func(b *Builder, v vars) ID {
			return b.Density(logNormal, b.Sub(v.rt, b.MatMul(v.X, v.beta, at(5, 6)), at(5, 3)), []ID{v.mu, v.s}, at(5, 3))
		}, bad},
	} {
		err := runOne(t, x, func(b *Builder) ID { return c.build(b, setup(b)) })
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error\n %v\nwant\n %s", c.name, err, c.want)
		}
	}
}
