package check

import (
	"strconv"
	"testing"
)

func TestIntegerText(t *testing.T) {
	tests := []struct {
		text           string
		integer, exact bool
	}{
		{"0", true, true},
		{"-0", true, true},
		{"0.000", true, true},
		{"0e-99999", true, true},
		{"1000", true, true},
		{"1e3", true, true},
		{"1E+3", true, true},
		{"1000.0", true, true},
		{"0.001e6", true, true},
		{"-25e-1", false, false},
		{"1.5e0", false, false},
		{"1e-3", false, false},
		{"1e-400", false, false}, // read as 0
		{"9007199254740992", true, true},
		{"-9007199254740992", true, true},
		{"9007199254740993", true, false}, // 2^53 + 1, read as 2^53
		{"-9007199254740993", true, false},
		{"9.007199254740993e15", true, false},
		{"9007199254740994", true, true}, // 2^53 + 2 is a float64
		{"1e20", true, true},
		{"99999999999999999999", true, false}, // read as 1e20
		{"1.00000000000000000001", false, false},
		{"1e308", true, false}, // not a power of two: 1e308 rounds
		{"1e22", true, true},   // 5^22 < 2^53, so 10^22 is a float64
		{"1e23", true, false},
	}
	for _, tt := range tests {
		v, err := strconv.ParseFloat(tt.text, 64)
		if err != nil {
			t.Fatal(err)
		}
		integer, exact := IntegerText(tt.text, v)
		if integer != tt.integer || exact != tt.exact {
			t.Errorf("IntegerText(%q, %v) = %v, %v, want %v, %v", tt.text, v, integer, exact, tt.integer, tt.exact)
		}
	}
}
