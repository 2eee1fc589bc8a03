package ast

import (
	"errors"
	"fmt"
	"testing"
)

func TestPositioned(t *testing.T) {
	one := Errorf(Pos{File: "m.gpp", Line: 2, Col: 3}, "bad")
	two := ErrorList{one, Errorf(Pos{File: "d.csv", Line: 1, Col: 1}, "worse")}
	for _, c := range []struct {
		err  error
		want int
		ok   bool
	}{
		{one, 1, true},
		{two, 2, true},
		{fmt.Errorf("loading: %w", one), 1, true},
		{fmt.Errorf("loading: %w", two), 2, true},
		{errors.New("plain"), 0, false},
	} {
		list, ok := Positioned(c.err)
		if ok != c.ok || len(list) != c.want {
			t.Errorf("Positioned(%v) = %d errors, %v; want %d, %v", c.err, len(list), ok, c.want, c.ok)
		}
	}
}

// TestErrorListAs checks that errors.As finds an *Error in a list, the
// first, also through a wrapping, as Go callers look for one.
func TestErrorListAs(t *testing.T) {
	first := Errorf(Pos{File: "m.gpp", Line: 2, Col: 3}, "bad")
	list := ErrorList{first, Errorf(Pos{File: "m.gpp", Line: 4, Col: 1}, "worse")}
	for _, err := range []error{list, fmt.Errorf("loading: %w", list)} {
		var e *Error
		if !errors.As(err, &e) || e != first {
			t.Errorf("errors.As(%v, *Error) = %v, want the first error", err, e)
		}
		if !errors.Is(err, list[1]) {
			t.Errorf("errors.Is(%v, the second error) is false", err)
		}
	}
}
