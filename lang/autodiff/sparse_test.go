package autodiff

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// csrPattern is a compressed sparse row pattern of an m × n matrix.
type csrPattern struct {
	m, n int
	v, u []int
}

// csrFixed has an empty first and last row, columns out of order and a
// column repeated in row 1 (its two entries add).
var csrFixed = csrPattern{m: 5, n: 4, v: []int{3, 0, 3, 1, 2, 0, 1, 2, 3}, u: []int{0, 0, 4, 5, 9, 9}}

// randomCSR draws an m × n pattern, each cell non-zero with probability
// 0.3, from its own seed.
func randomCSR(seed uint64, m, n int) csrPattern {
	r := rand.New(rand.NewPCG(seed, 0xc5))
	p := csrPattern{m: m, n: n, u: []int{0}}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if r.Float64() < 0.3 {
				p.v = append(p.v, j)
			}
		}
		p.u = append(p.u, len(p.v))
	}
	return p
}

// dense is the pattern's matrix for the non-zeros w, row-major, written
// from the definition: entry k of row i adds w[k] to cell (i, v[k]).
func (c csrPattern) dense(w []float64) []float64 {
	a := make([]float64, c.m*c.n)
	for i := 0; i < c.m; i++ {
		for k := c.u[i]; k < c.u[i+1]; k++ {
			a[i*c.n+c.v[k]] += w[k]
		}
	}
	return a
}

// denseTimes is the dense product of the pattern's matrix and x.
func (c csrPattern) denseTimes(w, x []float64) []float64 {
	a, z := c.dense(w), make([]float64, c.m)
	for i := range z {
		for j, xj := range x {
			z[i] += a[i*c.n+j] * xj
		}
	}
	return z
}

// TestCSRGrad checks csr_matrix_times_vector's value against the dense
// product and its gradient in w and b against finite differences (both
// inputs, either one data), and csr_to_dense_matrix's likewise.
func TestCSRGrad(t *testing.T) {
	var cases []gradCase
	for _, c := range []struct {
		name string
		p    csrPattern
	}{{"fixed", csrFixed}, {"random", randomCSR(7, 9, 6)}, {"empty", csrPattern{m: 3, n: 2, u: []int{0, 0, 0, 0}}}} {
		p := c.p
		nnz := len(p.v)
		times := func(v [][]float64, _ []Shape) []float64 { return p.denseTimes(v[0], v[1]) }
		build := func(b *Builder, x []ID) ID { return b.CSRMatVec(x[0], x[1], p.v, p.u, testPos) }
		cases = append(cases,
			gradCase{name: "csr_matrix_times_vector/" + c.name, args: func(*rand.Rand) []arg { return []arg{in(Vector(nnz), real), in(Vector(p.n), real)} }, build: build, ref: times},
			gradCase{name: "csr_matrix_times_vector/data-w/" + c.name, args: func(*rand.Rand) []arg { return []arg{data(Vector(nnz), real), in(Vector(p.n), real)} }, build: build, ref: times},
			gradCase{name: "csr_matrix_times_vector/data-b/" + c.name, args: func(*rand.Rand) []arg { return []arg{in(Vector(nnz), real), data(Vector(p.n), real)} }, build: build, ref: times},
			gradCase{name: "csr_to_dense_matrix/" + c.name, args: func(*rand.Rand) []arg { return []arg{in(Vector(nnz), real)} },
				build: func(b *Builder, x []ID) ID { return b.CSRToDense(x[0], p.n, p.v, p.u, testPos) },
				ref:   func(v [][]float64, _ []Shape) []float64 { return p.dense(v[0]) }},
		)
	}
	runCases(t, cases)
}

// TestCSRNoAllocs: a step through both forms allocates nothing, and a
// clone gives the same numbers.
func TestCSRNoAllocs(t *testing.T) {
	p := randomCSR(3, 40, 30)
	b := NewBuilder()
	w := b.Input("w", Vector(len(p.v)), testPos)
	x := b.Input("x", Vector(p.n), testPos)
	total := b.Add(b.Sum(b.Square(b.CSRMatVec(w, x, p.v, p.u, testPos), testPos), testPos),
		b.Sum(b.Exp(b.CSRToDense(w, p.n, p.v, p.u, testPos), testPos), testPos), testPos)
	prog, err := b.Finish(total)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 0x5eed))
	v := make([]float64, prog.Dim())
	for i := range v {
		v[i] = -1 + 2*r.Float64()
	}
	checkZeroAllocsClone(t, prog, v, 10)
}

// TestCSRBuilderErrors: a pattern the compiler would have refused is an
// error at the call, not a panic.
func TestCSRBuilderErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		v, u []int
		nnz  int
		want string
	}{
		{"column out of range", []int{0, 4}, []int{0, 1, 2}, 2, "csr_matrix_times_vector: invalid sparsity pattern for 4 columns"},
		{"u not starting at 0", []int{0, 1}, []int{1, 1, 2}, 2, "invalid sparsity pattern"},
		{"u decreasing", []int{0, 1}, []int{0, 2, 1, 2}, 2, "invalid sparsity pattern"},
		{"u not ending at nnz", []int{0, 1}, []int{0, 1, 3}, 2, "invalid sparsity pattern"},
		{"w too short", []int{0, 1}, []int{0, 1, 2}, 1, "w has 1 elements, v 2"},
	} {
		b := NewBuilder()
		w := b.Input("w", Vector(c.nnz), testPos)
		x := b.Input("x", Vector(4), testPos)
		_, err := b.Finish(b.Sum(b.CSRMatVec(w, x, c.v, c.u, at(3, 7)), testPos))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "model.gpp:3:7: ") {
			t.Errorf("%s: %v, want model.gpp:3:7: ...%s", c.name, err, c.want)
		}
	}
	// a dense matrix past the tape's numbers, refused before its pattern
	// of m·n + 1 row starts is made (n = 10¹² ran out of memory)
	b := NewBuilder()
	w := b.Input("w", Vector(2), testPos)
	_, err := b.Finish(b.Sum(b.CSRToDense(w, 1e12, []int{0, 1}, []int{0, 1, 2}, at(3, 7)), testPos))
	if want := "model.gpp:3:7: csr_to_dense_matrix: a [2, 1000000000000] value would take the model past"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a [2, 10¹²] dense matrix: %v, want %s...", err, want)
	}
}
