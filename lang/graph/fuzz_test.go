package graph

import "testing"

// FuzzGraph checks that every model the checker accepts graphs without a
// panic, and that its graph holds the invariants of TestGraphEveryModel:
// well-formed DOT, every param and observed data a node, no edge to
// nowhere, no self or duplicate edge, the same bytes from a second Build.
// The seeds are every model of the repository (repoModels) and the
// findings kept in testdata/fuzz.
func FuzzGraph(f *testing.F) {
	for _, m := range repoModels(f) {
		f.Add(m.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkGraph(t, "f.gpp", src)
	})
}
