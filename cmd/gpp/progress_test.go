package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestProgressSpeed: the live line gives steps a second, or seconds a
// step below one a second, where "0 it/s" said nothing.
func TestProgressSpeed(t *testing.T) {
	for _, c := range []struct {
		iter    int
		elapsed time.Duration
		want    string
	}{
		{1200, time.Second, "  1200 it/s  ETA 6s"},
		{20, 30 * time.Second, "  1.5 s/it  ETA 21m30s"},
		{0, 0, "  0 it/s  ETA —"},
	} {
		line := progressLine(sgvb.Progress{Iter: c.iter, Elapsed: c.elapsed, ELBO: -1, SE: 0.1, RelChange: math.NaN()}, 740+c.iter*7, "", false)
		if !strings.HasSuffix(line, c.want) {
			t.Errorf("%d steps in %v: %q, want it to end %q", c.iter, c.elapsed, line, c.want)
		}
	}
}
