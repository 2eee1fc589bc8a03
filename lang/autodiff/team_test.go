package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/internal/par"
)

// fakeTeam runs a task's parts on the calling goroutine, last part first
// (the order a real team does not guarantee either), and counts the tasks.
type fakeTeam struct {
	size, tasks int
}

func (f *fakeTeam) Size() int { return f.size }

func (f *fakeTeam) Run(t par.Task) {
	f.tasks++
	for i := f.size - 1; i >= 0; i-- {
		t.RunPart(i, f.size)
	}
}

// sameWithTeam evaluates a fresh program from build with a fakeTeam of the
// given size and wants tasks shared tasks, value and gradient bit for bit
// v0 and g0, and no allocations; it returns the program.
func sameWithTeam(t *testing.T, build func() *Program, x0 []float64, v0 float64, g0 []float64, size, tasks int) *Program {
	t.Helper()
	g := make([]float64, len(x0))
	p, team := build(), &fakeTeam{size: size}
	p.SetTeam(team)
	v, err := p.LogJoint(x0, g)
	if err != nil {
		t.Fatal(err)
	}
	if team.tasks != tasks {
		t.Errorf("team of %d: %d tasks, want %d", size, team.tasks, tasks)
	}
	if math.Float64bits(v) != math.Float64bits(v0) {
		t.Errorf("team of %d: value %.17g, alone %.17g", size, v, v0)
	}
	for i := range g {
		if math.Float64bits(g[i]) != math.Float64bits(g0[i]) {
			t.Fatalf("team of %d: grad[%d] = %.17g, alone %.17g", size, i, g[i], g0[i])
		}
	}
	if a := testing.AllocsPerRun(10, func() { p.LogJoint(x0, g) }); a != 0 {
		t.Errorf("team of %d: %v allocations per LogJoint, want 0", size, a)
	}
	return p
}

// With a team, the products and the low-rank gradient are shared by rows
// and the value and gradient are bit for bit those without one, for the
// low-rank path (D = 50, K = 10: S W and the gradient's rows) and the
// dense one (D = 42, K = 40: the Gram product W W', the Gaussian's two
// gradient products and W's from W W'); no allocations.
func TestTeamSameNumbers(t *testing.T) {
	for _, sz := range []struct{ d, k, tasks int }{{50, 10, 2}, {42, 40, 4}} {
		t.Run(fmt.Sprintf("d%dk%d", sz.d, sz.k), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(sz.d), 7))
			d, k := sz.d, sz.k
			x0 := make([]float64, d*k+1)
			for i := range d * k {
				x0[i] = r.ExpFloat64()
			}
			x0[d*k] = 10
			sm := randValues(r, arg{shape: Matrix(d, d), dom: spd})
			build := func() *Program {
				b := NewBuilder()
				x := b.Input("W", Matrix(d, k), testPos)
				prec := b.Input("prec", Scalar(), testPos)
				c := b.Add(b.MatMul(x, b.Transpose(x, testPos), testPos), b.Div(b.Identity(d, testPos), prec, testPos), testPos)
				p, err := b.Finish(b.GaussRowsSS(c, b.Const(sm, Matrix(d, d), testPos), 500, testPos))
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			g0, g := make([]float64, len(x0)), make([]float64, len(x0))
			v0, err := build().LogJoint(x0, g0)
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{2, 3} {
				p := sameWithTeam(t, build, x0, v0, g0, size, sz.tasks)
				busy := &fakeTeam{size: 1} // no help available: nothing shared
				p.SetTeam(busy)
				if _, err := p.LogJoint(x0, g); err != nil || busy.tasks != 0 {
					t.Errorf("team of 1: err %v, %d tasks", err, busy.tasks)
				}
			}
		})
	}
}

// A RowSumProd with a team computes its elements by ranges and its
// reverse pass by ranges of destination rows; the value and gradient are
// bit for bit those without a team, for two gathers of one matrix (rows
// repeated, pairs with i == j, both operands adding into one adjoint) and
// gathers of two matrices of different heights, for teams of 2 to 4; and so
// is a summed RowSumProd (fuseSums), whose row sums are shared by rows.
func TestTeamRowSumProd(t *testing.T) {
	const rows, rows2, m, pairs = 60, 45, 10, 2000
	r := rand.New(rand.NewPCG(3, 4))
	ix, iy := make([]int, pairs), make([]int, pairs)
	for e := range ix {
		ix[e], iy[e] = r.IntN(rows2), r.IntN(rows2)
		if e%97 == 0 {
			iy[e] = ix[e]
		}
	}
	x0 := make([]float64, (rows+rows2+1)*m)
	for i := range x0 {
		x0[i] = r.Float64()
	}
	// y's rows come from W itself or from a second matrix V
	build := func(two, summed bool) func() *Program {
		return func() *Program {
			b := NewBuilder()
			w := b.Input("W", Matrix(rows, m), testPos)
			v := b.Input("V", Matrix(rows2, m), testPos)
			rr := b.Input("r", Matrix(1, m), testPos)
			ysrc := w
			if two {
				ysrc = v
			}
			rs := b.RowSumProd(b.Gather(w, ix, testPos), b.Gather(ysrc, iy, testPos), rr, testPos)
			root := b.Sum(b.Log(rs, testPos), testPos)
			if summed {
				root = b.Mul(b.Sum(rs, testPos), b.Scalar(-0.3, testPos), testPos)
			}
			p, err := b.Finish(root)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	for _, c := range []struct {
		name        string
		two, summed bool
		tasks       int
	}{
		{"gathers-of-one", false, false, 3}, // forward, the log of its 2000 elements, reverse
		{"gathers-of-two", true, false, 3},
		{"summed-gathers-of-one", false, true, 1}, // the row sums (forward); the reverse reuses them
		{"summed-gathers-of-two", true, true, 2},  // and y's row sums in the reverse
	} {
		t.Run(c.name, func(t *testing.T) {
			build := build(c.two, c.summed)
			g0 := make([]float64, len(x0))
			v0, err := build().LogJoint(x0, g0)
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{2, 3, 4} {
				sameWithTeam(t, build, x0, v0, g0, size, c.tasks)
			}
		})
	}
}

// Costly elementwise ops (exp, log, lgamma, …) over enough elements are
// shared by ranges, bit for bit; cheap ones (square) and short ones are not.
func TestTeamElementwise(t *testing.T) {
	const n = 1680 // GPFA's loadings on CyTOF
	r := rand.New(rand.NewPCG(5, 6))
	x0 := make([]float64, n+10)
	for i := range x0 {
		x0[i] = 2 * r.NormFloat64()
	}
	build := func() *Program {
		b := NewBuilder()
		w := b.Input("w", Vector(n), testPos)
		short := b.Input("short", Vector(10), testPos)
		z := b.Exp(w, testPos)                                            // shared
		l := b.Lgamma(b.Add(z, b.Scalar(0.5, testPos), testPos), testPos) // shared
		s := b.Square(w, testPos)                                         // cheap: not shared
		e := b.Exp(short, testPos)                                        // short: not shared
		sum := b.Add(b.Add(b.Sum(l, testPos), b.Sum(s, testPos), testPos), b.Sum(e, testPos), testPos)
		p, err := b.Finish(b.Add(sum, b.Sum(b.Log(z, testPos), testPos), testPos)) // log: shared
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	g0 := make([]float64, len(x0))
	v0, err := build().LogJoint(x0, g0)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{2, 3} {
		sameWithTeam(t, build, x0, v0, g0, size, 3)
	}
}

// A density with a parameter set per row (the EPM's W ~ Gamma(a, c): 234
// rows of 10) is shared by rows, bit for bit, through dist's run kernel,
// the element-by-element log-scale loop and the plain prepared loop, with
// an invalid row among valid ones; a small one is not shared. tasks counts
// the shared exp(W) of the log-scale cases too.
func TestTeamDensityPrepared(t *testing.T) {
	u, ok := dist.LookupUnivariate("Gamma")
	if !ok {
		t.Fatal("no Gamma")
	}
	lg := dist.LogScale(u)
	for _, c := range []struct {
		name       string
		rows, cols int
		kern       func() (dist.Univariate, dist.Prepared)
		logScale   bool
		bad, tasks int
	}{
		{"run", 234, 10, func() (dist.Univariate, dist.Prepared) { return lg, lg.Prepared }, true, -1, 2},
		{"run-invalid-row", 234, 10, func() (dist.Univariate, dist.Prepared) { return lg, lg.Prepared }, true, 100, 2},
		{"eval-log", 234, 10, func() (dist.Univariate, dist.Prepared) { return lg, hideRun{lg.Prepared.(dist.PreparedLog)} }, true, -1, 2},
		{"eval", 300, 7, func() (dist.Univariate, dist.Prepared) { return testGamma, gammaPrepared{} }, false, -1, 1},
		{"small", 20, 10, func() (dist.Univariate, dist.Prepared) { return lg, lg.Prepared }, true, -1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, cols := c.rows, c.cols
			r := rand.New(rand.NewPCG(uint64(rows), 11))
			x0 := make([]float64, rows*cols+2*rows)
			for i := range x0 {
				switch {
				case i >= rows*cols:
					x0[i] = 0.05 + r.ExpFloat64() // shapes and rates
				case c.logScale:
					x0[i] = 2 * r.NormFloat64()
				default:
					x0[i] = r.ExpFloat64()
				}
			}
			if c.bad >= 0 {
				x0[rows*cols+c.bad] = -1 // an invalid shape: that row's density is NaN
			}
			build := func() *Program {
				d, k := c.kern()
				b := NewBuilder()
				w := b.Input("W", Matrix(rows, cols), testPos)
				a := b.Input("a", Vector(rows), testPos)
				rate := b.Input("c", Vector(rows), testPos)
				dens := b.DensityPrepared(d, k, w, []ID{a, rate}, testPos)
				var root ID
				if c.logScale {
					// exp(W) computed anyway (and read by the density), as in the EPM.
					root = b.Add(dens, b.Sum(b.Exp(w, testPos), testPos), testPos)
				} else {
					root = b.Add(dens, b.Sum(b.Square(w, testPos), testPos), testPos)
				}
				p, err := b.Finish(root)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			g0 := make([]float64, len(x0))
			v0, err := build().LogJoint(x0, g0)
			if c.bad >= 0 {
				// Alone and with a team, the same positioned error.
				p := build()
				p.SetTeam(&fakeTeam{size: 2})
				_, err2 := p.LogJoint(x0, g0)
				if err == nil || err2 == nil || err.Error() != err2.Error() {
					t.Fatalf("alone: %v; team: %v", err, err2)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{2, 3} {
				sameWithTeam(t, build, x0, v0, g0, size, c.tasks)
			}
		})
	}
}

// The Gram product X X' cut into ranges of rows (gramTask) gives syrk's
// numbers bit for bit for any number of parts, the rows' magnitudes and
// signs varied so that the dot products round; both triangles are written
// (the matrix starts as NaN).
func TestGramTaskSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	for _, sz := range []struct{ r, k int }{{1, 1}, {2, 3}, {7, 5}, {42, 40}, {50, 10}, {65, 70}} {
		ldx := sz.k + 2 // a stride wider than a row
		x := make([]float64, sz.r*ldx)
		for i := range x {
			x[i] = r.NormFloat64() * math.Exp(3*r.NormFloat64())
		}
		want := make([]float64, sz.r*sz.r)
		syrk(false, sz.r, sz.k, x, ldx, want)
		for parts := 1; parts <= 4; parts++ {
			c := make([]float64, sz.r*sz.r)
			for i := range c {
				c[i] = math.NaN()
			}
			g := gramTask{r: sz.r, k: sz.k, x: x, ldx: ldx, c: c}
			for i := parts - 1; i >= 0; i-- {
				g.RunPart(i, parts)
			}
			for i := range c {
				if math.Float64bits(c[i]) != math.Float64bits(want[i]) {
					t.Fatalf("r %d k %d, %d parts: c[%d] = %.17g, syrk %.17g", sz.r, sz.k, parts, i, c[i], want[i])
				}
			}
		}
	}
}

// gramRow cuts the rows into contiguous, covering ranges with about equal
// shares of the triangle.
func TestGramRow(t *testing.T) {
	for _, r := range []int{1, 2, 5, 42, 100} {
		for parts := 1; parts <= 4; parts++ {
			if gramRow(r, 0, parts) != 0 || gramRow(r, parts, parts) != r {
				t.Fatalf("r %d, %d parts: ends %d, %d", r, parts, gramRow(r, 0, parts), gramRow(r, parts, parts))
			}
			for i := range parts {
				lo, hi := gramRow(r, i, parts), gramRow(r, i+1, parts)
				if hi < lo {
					t.Fatalf("r %d, %d parts: part %d is [%d, %d)", r, parts, i, lo, hi)
				}
				if r >= 40 {
					share := float64(hi*(hi+1)-lo*(lo+1)) / float64(r*(r+1))
					if math.Abs(share-1/float64(parts)) > 0.05 {
						t.Errorf("r %d, %d parts: part %d has %.3f of the triangle", r, parts, i, share)
					}
				}
			}
		}
	}
}
