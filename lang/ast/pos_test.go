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
