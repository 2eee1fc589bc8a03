//go:build !linux

package sgvb

// osYield does nothing here: spins rely on runtime.Gosched alone.
func osYield() {}
