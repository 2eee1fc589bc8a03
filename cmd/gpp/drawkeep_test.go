package main

import (
	"errors"
	"testing"
)

// TestDrawSetKeep: cutting the draws (an interrupt during them) recounts
// the failures among the draws kept and keeps the first error only where
// a kept draw had it (faults as makeDrawsPaced records them: 1 log p, 2
// any, 4 with an error).
func TestDrawSetKeep(t *testing.T) {
	// draw 1's output failed (e1), draw 2's log p (e2), draw 3's log p was NaN
	e1, e2 := errors.New("draw 1"), errors.New("draw 2")
	faults := []uint8{0, 2 | 4, 1 | 2 | 4, 1 | 2, 0}
	for _, c := range []struct {
		n, bad, badLogp int
		badErr, logpErr error
	}{
		{1, 0, 0, nil, nil},
		{2, 1, 0, e1, nil},
		{3, 2, 1, e1, e2},
		{5, 3, 2, e1, e2},
	} {
		ds := &drawSet{logp: make([]float64, 5), logq: make([]float64, 5), cols: [][]float64{make([]float64, 5), make([]float64, 5)},
			bad: 3, badLogp: 2, badErr: e1, logpErr: e2}
		ds.keep(c.n, faults)
		if len(ds.logp) != c.n || len(ds.logq) != c.n || len(ds.cols[0]) != c.n || len(ds.cols[1]) != c.n {
			t.Errorf("keep %d: %d log p, %d log q, columns %d and %d", c.n, len(ds.logp), len(ds.logq), len(ds.cols[0]), len(ds.cols[1]))
		}
		if ds.bad != c.bad || ds.badLogp != c.badLogp || ds.badErr != c.badErr || ds.logpErr != c.logpErr {
			t.Errorf("keep %d: bad %d, bad log p %d, errors %v and %v; want %d, %d, %v and %v", c.n, ds.bad, ds.badLogp, ds.badErr, ds.logpErr, c.bad, c.badLogp, c.badErr, c.logpErr)
		}
	}
}
