package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// rowSumProdRef is rowsum(x .* y .* w) of rows ix of x and iy of y (all
// rows when nil).
func rowSumProdRef(ix, iy []int) func(v [][]float64, s []Shape) []float64 {
	return func(v [][]float64, s []Shape) []float64 {
		k := s[0].Cols
		n := s[0].Rows
		if ix != nil {
			n = len(ix)
		}
		w := v[len(v)-1]
		res := make([]float64, n)
		for e := range res {
			i, j := e, e
			if ix != nil {
				i, j = ix[e], iy[e]
			}
			xv, yv := v[0], v[0]
			if len(v) == 3 {
				yv = v[1]
			}
			for l := 0; l < k; l++ {
				res[e] += xv[i*k+l] * yv[j*k+l] * w[l]
			}
		}
		return res
	}
}

func TestGradRowSumProd(t *testing.T) {
	ix, iy := []int{0, 1, 1, 0, 1, 1}, []int{1, 1, 0, 0, 1, 0} // repeats and i == j
	three := func(dx, dy, dw bool) func(r *rand.Rand) []arg {
		return func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{{Matrix(n, m), dx, real}, {Matrix(n, m), dy, real}, {Matrix(1, m), dw, real}}
		}
	}
	plain := func(b *Builder, x []ID) ID { return b.RowSumProd(x[0], x[1], x[2], testPos) }
	gatherOne := func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Matrix(n, m), real), in(Matrix(1, m), real)}
	}
	cases := []gradCase{
		{name: "rowsumprod/inputs", args: three(false, false, false), build: plain, ref: rowSumProdRef(nil, nil)},
		{name: "rowsumprod/data-x", args: three(true, false, false), build: plain, ref: rowSumProdRef(nil, nil)},
		{name: "rowsumprod/data-y", args: three(false, true, false), build: plain, ref: rowSumProdRef(nil, nil)},
		{name: "rowsumprod/data-w", args: three(false, false, true), build: plain, ref: rowSumProdRef(nil, nil)},
		{name: "rowsumprod/data-x-and-w", args: three(true, false, true), build: plain, ref: rowSumProdRef(nil, nil)},
		// Seven columns: the reverse pass's blocks of four, two and one.
		{name: "rowsumprod/seven-columns", args: func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Matrix(n, 7), real), in(Matrix(1, 7), real)}
		}, build: func(b *Builder, x []ID) ID {
			return b.RowSumProd(b.Gather(x[0], ix, testPos), b.Gather(x[0], iy, testPos), x[1], testPos)
		}, ref: rowSumProdRef(ix, iy)},
		{name: "rowsumprod/aliased", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n, m), real), in(Matrix(1, m), real)}
		}, build: func(b *Builder, x []ID) ID { return b.RowSumProd(x[0], x[0], x[1], testPos) }},
		// EPM: two gathers of one matrix, read in place.
		{name: "rowsumprod/gathers-of-one", args: gatherOne, build: func(b *Builder, x []ID) ID {
			return b.RowSumProd(b.Gather(x[0], ix, testPos), b.Gather(x[0], iy, testPos), x[1], testPos)
		}, ref: rowSumProdRef(ix, iy)},
		{name: "rowsumprod/gathers-of-two", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n, m), real), in(Matrix(n+1, m), real), in(Matrix(1, m), real)}
		}, build: func(b *Builder, x []ID) ID {
			return b.RowSumProd(b.Gather(x[0], ix, testPos), b.Gather(x[1], iy, testPos), x[2], testPos)
		}, ref: rowSumProdRef(ix, iy)},
		{name: "rowsumprod/gather-and-full", args: func(r *rand.Rand) []arg {
			_, m, _ := dims(r)
			return []arg{in(Matrix(2, m), real), in(Matrix(len(ix), m), real), in(Matrix(1, m), real)}
		}, build: func(b *Builder, x []ID) ID {
			return b.RowSumProd(b.Gather(x[0], ix, testPos), x[1], x[2], testPos)
		}},
		// The EPM likelihood through the fused op and log1mexp.
		{name: "rowsumprod/epm", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n, m), pos), in(Vector(m), pos)}
		}, build: func(b *Builder, x []ID) ID {
			rate := b.RowSumProd(b.Gather(x[0], ix, testPos), b.Gather(x[0], iy, testPos), b.Transpose(x[1], testPos), testPos)
			return b.Add(b.Log1mexp(rate, testPos), rate, testPos)
		}},
	}
	runCases(t, cases)
	// The same products summed: Finish fuses the Sum and the RowSumProd
	// (fuseSums), and the Sum's adjoint is the random weight of checkCase.
	var summed []gradCase
	for _, c := range cases {
		if c.name == "rowsumprod/epm" {
			continue // its rowsum has two readers: not fused
		}
		sc := gradCase{name: "sum-" + c.name, args: c.args, build: func(b *Builder, x []ID) ID {
			return b.Sum(c.build(b, x), testPos)
		}}
		if c.ref != nil {
			sc.ref = func(v [][]float64, s []Shape) []float64 {
				t := 0.0
				for _, e := range c.ref(v, s) {
					t += e
				}
				return []float64{t}
			}
		}
		summed = append(summed, sc)
	}
	runCases(t, summed)
}

// Finish fuses a Sum with the RowSumProd it sums when nothing else reads
// the RowSumProd, and the fused node gives the unfused value (up to
// rounding) and gradient; a RowSumProd with another reader is left alone
// (kept ones: TestRowSumProdFoldsGathers; teams: TestTeamRowSumProd).
func TestSumRowSumProd(t *testing.T) {
	ix, iy := []int{0, 2, 1, 2, 5, 5, 3}, []int{1, 1, 2, 0, 4, 5, 0}
	for _, c := range []struct {
		name  string
		two   bool // x and y different matrices
		other bool // the rowsum also read elsewhere
		fused bool
	}{
		{"one-matrix", false, false, true},
		{"two-matrices", true, false, true},
		{"other-reader", false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			x0 := []float64{0.3, 1.2, -0.5, 2, 0.7, 0.1, 1.5, -1, 0.4, 0.9, 2.2, 0.6, // W [6, 2]
				0.8, -0.3, // r
				1.1, 0.2, 0.5, 0.7, -0.4, 1.3, 0.6, 0.9, 1.4, -0.2, 0.3, 0.5} // V [6, 2]
			build := func(fuse bool) (*Program, ID) {
				b := NewBuilder()
				w := b.Input("W", Matrix(6, 2), testPos)
				r := b.Input("r", Vector(2), testPos)
				v := b.Input("V", Matrix(6, 2), testPos)
				y := w
				if c.two {
					y = v
				}
				rs := b.RowSumProd(b.Gather(w, ix, testPos), b.Gather(y, iy, testPos), b.Transpose(r, testPos), testPos)
				var sum ID
				if fuse {
					sum = b.Sum(rs, testPos)
				} else {
					sum = b.Sum(b.Mul(rs, b.Const([]float64{1, 1, 1, 1, 1, 1, 1}, Vector(7), testPos), testPos), testPos)
				}
				root := b.Mul(sum, b.Scalar(-0.7, testPos), testPos)
				if c.other {
					root = b.Add(root, b.Sum(b.Square(rs, testPos), testPos), testPos)
				}
				root = b.Add(root, b.Sum(b.Square(v, testPos), testPos), testPos) // V always has a gradient
				p, err := b.Finish(root)
				if err != nil {
					t.Fatal(err)
				}
				return p, sum
			}
			pr, _ := build(false)
			g0 := make([]float64, len(x0))
			v0, err := pr.LogJoint(x0, g0)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := build(true)
			nfused := 0
			for i := range p.nodes {
				if n := &p.nodes[i]; n.live && n.sumOf > 0 {
					nfused++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[c.fused]; nfused != want {
				t.Fatalf("%d fused sums, want %d", nfused, want)
			}
			g := make([]float64, len(x0))
			v, err := p.LogJoint(x0, g)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(v-v0) > 1e-14*math.Abs(v0) {
				t.Errorf("value %.17g, unfused %.17g", v, v0)
			}
			for i := range g {
				if math.Abs(g[i]-g0[i]) > 1e-14*max(1, math.Abs(g0[i])) {
					t.Errorf("grad[%d] = %.17g, unfused %.17g", i, g[i], g0[i])
				}
			}
		})
	}
}

// The gathers feeding a RowSumProd are folded into it: never evaluated,
// and the result equals the unfused rowsum(x[i] .* x[j] .* w').
func TestRowSumProdFoldsGathers(t *testing.T) {
	b := NewBuilder()
	w := b.Input("W", Matrix(3, 2), testPos)
	r := b.Input("r", Vector(2), testPos)
	gi, gj := b.Gather(w, []int{0, 2, 1}, testPos), b.Gather(w, []int{1, 1, 2}, testPos)
	rt := b.Transpose(r, testPos)
	fused := b.RowSumProd(gi, gj, rt, testPos)
	plain := b.RowSum(b.Mul(b.Mul(gi, gj, testPos), rt, testPos), testPos)
	p, err := b.Finish(b.Sum(fused, testPos), plain, fused) // kept: not fused into the Sum
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{1, 2, 3, 4, 5, 6, 0.5, -1}
	g := make([]float64, len(x))
	if _, err := p.LogJoint(x, g); err != nil {
		t.Fatal(err)
	}
	for i, v := range p.Value(fused) {
		if want := p.Value(plain)[i]; v != want {
			t.Errorf("fused[%d] = %v, unfused %v", i, v, want)
		}
	}
	// Only the kept unfused copy evaluates the gathers.
	b2 := NewBuilder()
	w2 := b2.Input("W", Matrix(3, 2), testPos)
	g2 := b2.Gather(w2, []int{0, 2}, testPos)
	f2 := b2.RowSumProd(g2, g2, b2.Const([]float64{1, 1}, Matrix(1, 2), testPos), testPos)
	p2, err := b2.Finish(b2.Sum(f2, testPos))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p2.Forward(x[:6]); err != nil {
		t.Fatal(err)
	}
	if n := p2.Evals(g2); n != 0 {
		t.Errorf("folded gather evaluated %d times, want 0", n)
	}
}

// gammaLayouts are Gamma densities whose arguments broadcast in each way a
// prepared kernel can share (per row, per column, one set) or not.
var gammaLayouts = []struct {
	name string
	args func(r *rand.Rand) []arg
}{
	{"rows", func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Matrix(n, m), pos), in(Vector(n), pos), in(Vector(n), pos)}
	}},
	{"rows-scalar-rate", func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Matrix(n, m), pos), in(Matrix(n, 1), pos), in(Scalar(), pos)}
	}},
	{"cols", func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Matrix(n, m), pos), in(Matrix(1, m), pos), in(Scalar(), pos)}
	}},
	{"cols-data-shape", func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Matrix(n, m), pos), data(Matrix(1, m), pos), in(Matrix(1, m), pos)}
	}},
	{"scalars", func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{in(Vector(n), pos), in(Scalar(), pos), in(Scalar(), pos)}
	}},
	{"value-broadcast", func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Vector(n), pos), in(Vector(n), pos), data(Matrix(n, m), pos)}
	}},
	{"unshared", func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Matrix(n, m), pos), in(Matrix(n, m), pos), in(Scalar(), pos)}
	}},
}

func TestGradDensityPrepared(t *testing.T) {
	var cases []gradCase
	for _, l := range gammaLayouts {
		cases = append(cases, gradCase{name: "gamma-prepared/" + l.name, args: l.args,
			build: func(b *Builder, x []ID) ID {
				return b.DensityPrepared(testGamma, gammaPrepared{}, x[0], x[1:], testPos)
			}})
	}
	runCases(t, cases)
}

// A prepared density gives the value and gradient of the kernel path, and
// shares its parameter sets as documented.
func TestDensityPreparedMatchesKernel(t *testing.T) {
	wantSets := map[string]int{"rows": -1, "rows-scalar-rate": -1, "cols": -2, "cols-data-shape": -2, "scalars": 1, "value-broadcast": 0, "unshared": 0}
	for _, l := range gammaLayouts {
		r := rand.New(rand.NewPCG(3, 4))
		args := l.args(r)
		var x []float64
		build := func(prep bool) (*Program, ID) {
			r := rand.New(rand.NewPCG(5, 6))
			b := NewBuilder()
			ids := make([]ID, len(args))
			x = x[:0]
			for i, a := range args {
				v := randValues(r, a)
				if a.data {
					ids[i] = b.Const(v, a.shape, testPos)
				} else {
					ids[i] = b.Input(fmt.Sprint("x", i), a.shape, testPos)
					x = append(x, v...)
				}
			}
			var d ID
			if prep {
				d = b.DensityPrepared(testGamma, gammaPrepared{}, ids[0], ids[1:], testPos)
			} else {
				d = b.Density(testGamma, ids[0], ids[1:], testPos)
			}
			p, err := b.Finish(d)
			if err != nil {
				t.Fatal(err)
			}
			return p, d
		}
		pk, _ := build(false)
		pp, d := build(true)
		g1, g2 := make([]float64, len(x)), make([]float64, len(x))
		v1, err1 := pk.LogJoint(x, g1)
		v2, err2 := pp.LogJoint(x, g2)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", l.name, err1, err2)
		}
		if math.Abs(v1-v2) > 1e-14*math.Abs(v1) {
			t.Errorf("%s: prepared %.17g, kernel %.17g", l.name, v2, v1)
		}
		for i := range g1 {
			if math.Abs(g1[i]-g2[i]) > 1e-13*max(1, math.Abs(g1[i])) {
				t.Errorf("%s: grad[%d] prepared %.17g, kernel %.17g", l.name, i, g2[i], g1[i])
			}
		}
		n := &pp.nodes[pp.index(d)]
		got := 0
		switch {
		case n.prep == nil:
		case n.pmode == prepRows && n.nsets == n.gr && n.nsets > 1:
			got = -1
		case n.pmode == prepCols:
			got = -2
		default:
			got = n.nsets
		}
		if got != wantSets[l.name] {
			t.Errorf("%s: layout %d (mode %d, %d sets), want %d", l.name, got, n.pmode, n.nsets, wantSets[l.name])
		}
	}
}

func TestFusedNaNProvenance(t *testing.T) {
	epm := func(b *Builder) ID {
		w := b.Input("W", Matrix(3, 2), at(1, 1))
		r := b.Input("r", Vector(2), at(2, 1))
		return b.Sum(b.RowSumProd(b.Gather(w, []int{0, 1}, at(5, 10)), b.Gather(w, []int{2, 2}, at(5, 20)),
			b.Transpose(r, at(5, 30)), at(5, 3)), at(5, 1))
	}
	for _, c := range []struct {
		name  string
		x     []float64
		build func(b *Builder) ID
		want  string
	}{
		{"rowsum product overflow", []float64{1, 1, 1e200, 1, 1e200, 1, 1, 1}, epm,
			"model.gpp:5:3: rowsum: result is +Inf (element [1], product 1e+200 * 1e+200 * 1 at column 0 is +Inf)"},
		{"rowsum sum overflow", []float64{1, 1, 1, 1, 1, 1, 1e308, 1e308}, epm,
			"model.gpp:5:3: rowsum: result is +Inf (element [0], the sum of the products overflows)"},
		{"rowsum total overflow", []float64{1e154, 0, 1e154, 0, 1.5e154, 0, 1, 1}, func(b *Builder) ID {
			w := b.Input("W", Matrix(3, 2), at(1, 1))
			r := b.Input("r", Vector(2), at(2, 1))
			return b.Sum(b.RowSumProd(b.Gather(w, []int{0, 1}, at(5, 10)), b.Gather(w, []int{2, 2}, at(5, 20)),
				b.Transpose(r, at(5, 30)), at(5, 3)), at(5, 1))
		}, "model.gpp:5:1: sum: result is +Inf (the sum of the elements of rowsum overflows)"},
		{"rowsum gradient overflow", []float64{1e300, 1, 1, 1, 1e-300, 1, 1e10, 1}, epm,
			"model.gpp:5:3: rowsum: gradient is +Inf with respect to argument 1 (value 1e-300, element [2, 0])"},
		{"prepared density invalid parameter", []float64{1, 1, -0.31, 1, 1, 1, 1, 1, 1, 1, 1, 1}, func(b *Builder) ID {
			a := b.Input("a", Matrix(3, 1), at(1, 1))
			w := b.Input("w", Matrix(3, 3), at(1, 1))
			return b.DensityPrepared(testGamma, gammaPrepared{}, w, []ID{a, b.Scalar(1, at(1, 1))}, at(12, 5))
		}, "model.gpp:12:5: Gamma: shape must be > 0 (got -0.31, element [2, 0])"},
		{"prepared density out of support", []float64{2, 1, 2, 0, 1, 1}, func(b *Builder) ID {
			w := b.Input("w", Matrix(2, 3), at(1, 1))
			return b.DensityPrepared(testGamma, gammaPrepared{}, w, []ID{b.Scalar(2, at(1, 1)), b.Scalar(1, at(1, 1))}, at(11, 3))
		}, "model.gpp:11:3: log density is -Inf: value 0 outside the support of Gamma (element [1, 0])"},
	} {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, runOne(t, c.x, c.build), c.want) })
	}
}

func TestRowSumProdShapeErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(b *Builder) ID
		want  string
	}{
		{"shapes", func(b *Builder) ID {
			return b.RowSumProd(b.Input("x", Matrix(2, 3), at(1, 1)), b.Input("y", Matrix(3, 3), at(1, 1)),
				b.Input("w", Matrix(1, 3), at(1, 1)), at(3, 4))
		}, "model.gpp:3:4: rowsum: a product of rows needs two matrices of one shape, got [2, 3] and [3, 3]"},
		{"weights", func(b *Builder) ID {
			return b.RowSumProd(b.Input("x", Matrix(2, 3), at(1, 1)), b.Input("y", Matrix(2, 3), at(1, 1)),
				b.Input("w", Vector(3), at(1, 1)), at(3, 5))
		}, "model.gpp:3:5: rowsum: the weights must be a row [1, 3], got [3]"},
	} {
		b := NewBuilder()
		_, err := b.Finish(b.Sum(c.build(b), at(9, 1)))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// A prepared log-scale density reads exp(value) from the node that computes
// it when that node is evaluated anyway, and exponentiates itself when not;
// both give the kernel path's value and gradient.
func TestDensityPreparedSharesExp(t *testing.T) {
	for _, shared := range []bool{true, false} {
		build := func(prep bool) (*Program, ID) {
			b := NewBuilder()
			l := b.Input("l", Matrix(3, 4), testPos)
			a := b.Input("a", Vector(3), testPos)
			z := b.Exp(l, testPos)
			var d ID
			if prep {
				d = b.DensityPrepared(testGammaLog, gammaLogPrepared{}, l, []ID{a, b.Scalar(1.5, testPos)}, testPos)
			} else {
				d = b.Density(testGammaLog, l, []ID{a, b.Scalar(1.5, testPos)}, testPos)
			}
			if shared {
				d = b.Add(d, b.Sum(b.Square(z, testPos), testPos), testPos)
			}
			p, err := b.Finish(d)
			if err != nil {
				t.Fatal(err)
			}
			return p, d
		}
		x := []float64{-1, 0.2, 0.5, -0.3, 0.1, 0.9, -2, 0.4, 0.3, -0.6, 0.7, 0.05, 0.8, 1.3, 2.2}
		pk, _ := build(false)
		pp, _ := build(true)
		g1, g2 := make([]float64, len(x)), make([]float64, len(x))
		v1, err1 := pk.LogJoint(x, g1)
		v2, err2 := pp.LogJoint(x, g2)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if math.Abs(v1-v2) > 1e-14*math.Abs(v1) {
			t.Errorf("shared %v: prepared %.17g, kernel %.17g", shared, v2, v1)
		}
		for i := range g1 {
			if math.Abs(g1[i]-g2[i]) > 1e-13*max(1, math.Abs(g1[i])) {
				t.Errorf("shared %v: grad[%d] prepared %.17g, kernel %.17g", shared, i, g2[i], g1[i])
			}
		}
		uses := 0
		for i := range pp.nodes {
			if n := &pp.nodes[i]; n.op == OpDensity && n.expOf > 0 {
				uses++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[shared]; uses != want {
			t.Errorf("shared %v: %d densities read exp(value), want %d", shared, uses, want)
		}
	}
	runCases(t, []gradCase{{name: "gamma-log-prepared/shared-exp", args: func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Matrix(n, m), real), in(Vector(n), pos), in(Scalar(), pos)}
	}, build: func(b *Builder, x []ID) ID {
		z := b.Exp(x[0], testPos)
		d := b.DensityPrepared(testGammaLog, gammaLogPrepared{}, x[0], x[1:], testPos)
		return b.Add(d, b.Sum(z, testPos), testPos)
	}}})
}

// cholInverse, through LAPACK's dpotri up to potriMax and two triangular
// solves above it, inverts L L' without allocating.
func TestCholInverse(t *testing.T) {
	for _, d := range []int{1, 3, 50, potriMax, potriMax + 3} {
		r := rand.New(rand.NewPCG(uint64(d), 9))
		c := randValues(r, arg{shape: Matrix(d, d), dom: spd})
		l := make([]float64, d*d)
		symLower(l, c, d)
		if k := cholesky(l, d); k != 0 {
			t.Fatalf("d %d: not positive definite", d)
		}
		ci := make([]float64, d*d)
		cholInverse(ci, l, d)
		worst := 0.0
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				worst = max(worst, math.Abs(dot(ci[i*d:i*d+d], c[j*d:j*d+d])-want))
				if d <= potriMax && ci[i*d+j] != ci[j*d+i] {
					t.Fatalf("d %d: inverse not symmetric at [%d, %d]", d, i, j)
				}
			}
		}
		if worst > 1e-10 {
			t.Errorf("d %d: |C⁻¹ C - I| = %g", d, worst)
		}
		if a := testing.AllocsPerRun(2, func() { cholInverse(ci, l, d) }); a != 0 {
			t.Errorf("d %d: %v allocations", d, a)
		}
	}
}

// hideRun is a prepared log-scale kernel without EvalLogRun, which makes
// the tape take its element-by-element loop.
type hideRun struct{ dist.PreparedLog }

// A log-scale gamma density with a run kernel (dist's own) gives bit for
// bit the value, gradient and errors of the element-by-element loop, with a
// parameter set per row (W ~ Gamma(a, c), EPM) and per column (W ~
// Gamma(g * r', g), GPFA), and with an invalid set among valid ones.
func TestDensityPreparedRun(t *testing.T) {
	u, ok := dist.LookupUnivariate("Gamma")
	if !ok {
		t.Fatal("no Gamma")
	}
	lg := dist.LogScale(u)
	prep, ok := lg.Prepared.(dist.PreparedLogRun)
	if !ok {
		t.Fatal("dist's log-scale Gamma has no EvalLogRun")
	}
	const rows, cols = 7, 5
	for _, c := range []struct {
		name        string
		shape, rate Shape
		mode        int
	}{
		{"set-per-row", Vector(rows), Vector(rows), prepRows},
		{"set-per-column", Matrix(1, cols), Scalar(), prepCols},
	} {
		build := func(k dist.Prepared) *Program {
			b := NewBuilder()
			l := b.Input("l", Matrix(rows, cols), testPos)
			a := b.Input("a", c.shape, testPos)
			r := b.Input("r", c.rate, testPos)
			z := b.Exp(l, testPos) // read by the density as exp(value)
			d := b.DensityPrepared(lg, k, l, []ID{a, r}, testPos)
			p, err := b.Finish(b.Add(d, b.Sum(b.Square(z, testPos), testPos), testPos))
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		na, nr := c.shape.Len(), c.rate.Len()
		x := make([]float64, rows*cols+na+nr)
		rng := rand.New(rand.NewPCG(9, 9))
		for i := range x {
			x[i] = rng.NormFloat64()
			if i >= rows*cols {
				x[i] = 0.2 + rng.ExpFloat64() // shapes and rates
			}
		}
		t.Run(c.name, func(t *testing.T) {
			pr, pe := build(prep), build(hideRun{prep})
			// The run path needs a prepared layout and exp(value) from the tape.
			ready := false
			for i := range pr.nodes {
				n := &pr.nodes[i]
				ready = ready || n.op == OpDensity && n.expOf > 0 && n.pmode == c.mode
			}
			if !ready {
				t.Fatal("the density is not prepared in the expected layout, or does not read exp(value)")
			}
			gr, ge := make([]float64, len(x)), make([]float64, len(x))
			vr, err1 := pr.LogJoint(x, gr)
			ve, err2 := pe.LogJoint(x, ge)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if math.Float64bits(vr) != math.Float64bits(ve) {
				t.Errorf("value %.17g, element by element %.17g", vr, ve)
			}
			for i := range gr {
				if math.Float64bits(gr[i]) != math.Float64bits(ge[i]) {
					t.Errorf("grad[%d] = %.17g, element by element %.17g", i, gr[i], ge[i])
				}
			}
			// An invalid shape in the middle of the sets: the same error.
			bad := slices.Clone(x)
			bad[rows*cols+na/2] = -1
			_, err1 = pr.LogJoint(bad, gr)
			_, err2 = pe.LogJoint(bad, ge)
			if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
				t.Errorf("invalid shape: error %v, element by element %v", err1, err2)
			}
			// A shape that takes dist's large-shape form among the others.
			big := slices.Clone(x)
			big[rows*cols] = 5e4
			vr, err1 = pr.LogJoint(big, gr)
			ve, err2 = pe.LogJoint(big, ge)
			if err1 != nil || err2 != nil || math.Float64bits(vr) != math.Float64bits(ve) {
				t.Errorf("large shape: value %.17g (%v), element by element %.17g (%v)", vr, err1, ve, err2)
			}
			for i := range gr {
				if math.Float64bits(gr[i]) != math.Float64bits(ge[i]) {
					t.Errorf("large shape: grad[%d] = %.17g, element by element %.17g", i, gr[i], ge[i])
				}
			}
		})
	}
}
