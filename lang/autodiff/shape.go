package autodiff

import "fmt"

// Shape is the shape of a tensor value. Values are stored row-major; a
// vector is a column, so a vector [n] has the layout of a matrix [n, 1].
type Shape struct {
	Rank int // 0 scalar, 1 vector, 2 matrix
	Rows int // 1 for a scalar
	Cols int // 1 for a scalar or a vector
}

// Scalar returns the shape of a scalar.
func Scalar() Shape { return Shape{Rank: 0, Rows: 1, Cols: 1} }

// Vector returns the shape of a (column) vector of length n.
func Vector(n int) Shape { return Shape{Rank: 1, Rows: n, Cols: 1} }

// Matrix returns the shape of an r×c matrix.
func Matrix(r, c int) Shape { return Shape{Rank: 2, Rows: r, Cols: c} }

// Len returns the number of elements.
func (s Shape) Len() int { return s.Rows * s.Cols }

// runLen is the length of cumsum's runs over s: a vector's whole, a
// matrix's rows.
func (s Shape) runLen() int {
	if s.Rank == 2 {
		return s.Cols
	}
	return s.Len()
}

// IsScalar reports whether s is the scalar shape.
func (s Shape) IsScalar() bool { return s.Rank == 0 }

// IsSquare reports whether s is an n×n matrix.
func (s Shape) IsSquare() bool { return s.Rank == 2 && s.Rows == s.Cols }

func (s Shape) String() string {
	switch s.Rank {
	case 0:
		return "scalar"
	case 1:
		return fmt.Sprintf("[%d]", s.Rows)
	}
	return fmt.Sprintf("[%d, %d]", s.Rows, s.Cols)
}

// valid reports whether s is one of the shapes the constructors make.
func (s Shape) valid() bool {
	switch s.Rank {
	case 0:
		return s.Rows == 1 && s.Cols == 1
	case 1:
		return s.Rows >= 0 && s.Cols == 1
	case 2:
		return s.Rows >= 0 && s.Cols >= 0
	}
	return false
}

// elem formats the index of element k (row-major) for error messages:
// "" for a scalar, "[3]" for a vector, "[2, 0]" for a matrix.
func (s Shape) elem(k int) string {
	switch s.Rank {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("[%d]", k)
	}
	c := max(s.Cols, 1)
	return fmt.Sprintf("[%d, %d]", k/c, k%c)
}

// Broadcast returns the common shape of operands of the given shapes
// combined elementwise, as the elementwise nodes do (broadcast), and
// whether they combine.
func Broadcast(shapes ...Shape) (Shape, bool) { return broadcast(shapes...) }

// broadcast returns the common shape of operands combined elementwise:
// a scalar goes with anything; otherwise a vector [n] is viewed as [n, 1]
// and each dimension must be equal or 1 on one side. The result is a vector
// when no operand is a matrix, and a matrix otherwise.
func broadcast(shapes ...Shape) (Shape, bool) {
	rows, cols, rank := 1, 1, 0
	for _, s := range shapes {
		rank = max(rank, s.Rank)
		if s.Rows != 1 {
			if rows != 1 && rows != s.Rows {
				return Shape{}, false
			}
			rows = s.Rows
		}
		if s.Cols != 1 {
			if cols != 1 && cols != s.Cols {
				return Shape{}, false
			}
			cols = s.Cols
		}
	}
	if rank < 2 {
		return Shape{Rank: rank, Rows: rows, Cols: 1}, true
	}
	return Matrix(rows, cols), true
}

// geometry returns how an elementwise node over operands of the given
// shapes iterates: gr rows of gc columns, and for each operand a row stride
// and a column stride (0 where the operand is broadcast). When every operand
// is either full-size or a single element the iteration is flat: one row of
// out.Len() columns.
func geometry(out Shape, shapes []Shape) (gr, gc int, strides []int) {
	strides = make([]int, 0, 2*len(shapes))
	flat := true
	for _, s := range shapes {
		if s.Len() != out.Len() && s.Len() != 1 {
			flat = false
		}
	}
	if flat {
		for _, s := range shapes {
			cs := 1
			if s.Len() == 1 && out.Len() != 1 {
				cs = 0
			}
			strides = append(strides, 0, cs)
		}
		return 1, out.Len(), strides
	}
	for _, s := range shapes {
		rs, cs := 0, 0
		if s.Rows > 1 {
			rs = s.Cols
		}
		if s.Cols > 1 {
			cs = 1
		}
		strides = append(strides, rs, cs)
	}
	return out.Rows, out.Cols, strides
}
