//go:build !unix

package main

// processCPU is unknown here: --profile keeps the chains' wall time.
func processCPU() (float64, bool) { return 0, false }
