package autodiff

import "testing"

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
