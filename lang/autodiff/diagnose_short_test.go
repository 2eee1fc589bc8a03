package autodiff

import (
	"testing"

	"github.com/gpplang/gpp/dist"
)

// TestShort: 6 significant digits where they tell the value from the
// bounds of its message, more where they would not, and the exact form
// where it is no longer.
func TestShort(t *testing.T) {
	tests := []struct {
		v      float64
		others []float64
		want   string
	}{
		{-2.5957691216057306, []float64{0}, "-2.59577"},
		{1.0000000000000002, []float64{1}, "1.0000000000000002"},
		{0.9999999, []float64{1}, "0.9999999"},
		{2.0000001, []float64{2}, "2.0000001"},
		{-1.0000001, []float64{-1}, "-1.0000001"},
		{-1.00000000001, []float64{-1}, "-1.00000000001"},
		{2.5, []float64{0}, "2.5"},
		{1e-320, nil, "1e-320"},
		{709.782712893384, nil, "709.783"},
		{123456789, nil, "1.23457e+08"},
		{-1.1447152810087817, []float64{-1.1447152810087818}, "-1.1447152810087817"},
	}
	for _, tt := range tests {
		if got := short(tt.v, tt.others...); got != tt.want {
			t.Errorf("short(%v, %v) = %q, want %q", tt.v, tt.others, got, tt.want)
		}
	}
	if got := binaryMessage(OpPow, -2, 2.0000000001, "NaN", ""); got != "pow: negative base -2 with non-integer exponent 2.0000000001" {
		t.Errorf("pow message %q", got)
	}
	if got := unaryMessage(OpLog, -2.5957691216057306, "NaN", ""); got != "log: argument -2.59577 < 0" {
		t.Errorf("log message %q", got)
	}
	if got := unaryMessage(OpLog1m, 1.0000000000000002, "NaN", ""); got != "log1m: argument 1.0000000000000002 > 1" {
		t.Errorf("log1m message %q", got)
	}
}

// TestShortPair: two values a message sets against each other (a
// matrix's [i, j] and [j, i]) read differently, each on its side of the
// other; TestShortAdmits: a parameter's value on its side of its
// support's bounds, in full where the support wants an integer.
func TestShortPair(t *testing.T) {
	for _, tt := range []struct {
		x, y   float64
		wx, wy string
	}{
		{0.30000000000000004, 0.3, "0.30000000000000004", "0.3"},
		{1.2345678, 1.2345679, "1.2345678", "1.2345679"},
		{-0.3135498146057129, 0.8312409520149231, "-0.31355", "0.831241"},
		{2, 2.0000001, "2", "2.0000001"},
	} {
		if gx, gy := shortPair(tt.x, tt.y); gx != tt.wx || gy != tt.wy {
			t.Errorf("shortPair(%v, %v) = %q, %q, want %q, %q", tt.x, tt.y, gx, gy, tt.wx, tt.wy)
		}
	}
}

func TestShortAdmits(t *testing.T) {
	for _, tt := range []struct {
		s    dist.Support
		v    float64
		want string
	}{
		{dist.Positive, -0.31354981460571289, "-0.31355"},
		{dist.Positive, -1e-300, "-1e-300"},
		{dist.NonNegative, -4.9406564584124654e-324, "-5e-324"},
		{dist.Unit, 1.0000000000000002, "1.0000000000000002"},
		{dist.Unit, 1.23456789, "1.23457"},
		{dist.Count, 2.0000001, "2.0000001"},
		{dist.Count, 2.5123456789, "2.5123456789"},
	} {
		if got := shortAdmits(tt.s, tt.v); got != tt.want {
			t.Errorf("shortAdmits(%v, %v) = %q, want %q", tt.s, tt.v, got, tt.want)
		}
	}
}

// Density and matrix messages print their values by short: a log density
// of -Inf at a value and parameters of many digits, a parameter outside
// its support by shortAdmits, an asymmetric matrix by shortPair.
func TestShortInMessages(t *testing.T) {
	normal, _ := dist.LookupUnivariate("Normal")
	for _, c := range []struct {
		name  string
		x     []float64
		build func(b *Builder) ID
		want  string
	}{
		{"at value", []float64{0.123456789012, 1.23456789e-300}, func(b *Builder) ID {
			return b.Density(*normal, b.Input("y", Scalar(), testPos), []ID{b.Const([]float64{0}, Scalar(), testPos), b.Input("sigma", Scalar(), testPos)}, at(2, 3))
		}, "model.gpp:2:3: Normal: log density is -Inf at value 0.123457 (mu 0, sigma 1.23457e-300)"},
		{"parameter", []float64{-0.31354981460571289}, func(b *Builder) ID {
			return b.Density(*normal, b.Const([]float64{1}, Scalar(), testPos), []ID{b.Const([]float64{0}, Scalar(), testPos), b.Input("sigma", Scalar(), testPos)}, at(2, 3))
		}, "model.gpp:2:3: Normal: sigma must be > 0 (got -0.31355)"},
		{"asymmetric", []float64{2, 0.3, 0.30000012345678, 2}, func(b *Builder) ID {
			return b.Sum(b.Chol(b.Input("K", Matrix(2, 2), testPos), at(3, 5)), testPos)
		}, "model.gpp:3:5: chol: matrix is not symmetric: element [1, 0] is 0.3000001, [0, 1] is 0.3"},
	} {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, runOne(t, c.x, c.build), c.want) })
	}
}
