package compile

import (
	"strings"
	"testing"
)

// TestNames checks gpp's 0-based element names, Stan's 1-based ones and
// CmdStan's column names and order,
// the first index fastest, for a scalar, a vector, a matrix and (though
// gpp's values have at most two dimensions) a rank-3 array, whose order
// CmdStan writes as x.1.1.1, x.2.1.1, x.1.2.1, ...
func TestNames(t *testing.T) {
	shape := []int{2, 3}
	if got := ElemName("W", shape, 1); got != "W[0, 1]" { // row 0, column 1: the language's W[0, 1]
		t.Errorf("ElemName = %s", got)
	}
	if got := ElemName("W", shape, 5); got != "W[1, 2]" {
		t.Errorf("ElemName of the last = %s", got)
	}
	if got := ElemName("r", []int{4}, 0); got != "r[0]" {
		t.Errorf("ElemName of a vector's first = %s", got)
	}
	if got := StanName("W", shape, 1); got != "W[1,2]" {
		t.Errorf("StanName = %s", got)
	}
	if got := StanName("s", nil, 0); got != "s" {
		t.Errorf("scalar Stan name %s", got)
	}
	if got := CSVName("W", shape, 5); got != "W.2.3" {
		t.Errorf("CSVName = %s", got)
	}
	if got := ElemName("s", nil, 0); got != "s" {
		t.Errorf("scalar name %s", got)
	}
	if got := CSVName("r", []int{4}, 3); got != "r.4" {
		t.Errorf("vector name %s", got)
	}
	for _, c := range []struct {
		name  string
		shape []int
		want  string
	}{
		{"s", nil, "s"},
		{"r", []int{3}, "r.1,r.2,r.3"},
		{"W", []int{2, 3}, "W.1.1,W.2.1,W.1.2,W.2.2,W.1.3,W.2.3"},
		{"x", []int{2, 2, 2}, "x.1.1.1,x.2.1.1,x.1.2.1,x.2.2.1,x.1.1.2,x.2.1.2,x.1.2.2,x.2.2.2"},
		{"e", []int{0, 3}, ""},
	} {
		var names []string
		for _, k := range ColumnMajor(c.shape) {
			names = append(names, CSVName(c.name, c.shape, k))
		}
		if got := strings.Join(names, ","); got != c.want {
			t.Errorf("%v: column-major order %s, want %s", c.shape, got, c.want)
		}
	}
}
