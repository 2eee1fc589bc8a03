// Package shareddata locates the project's shared evaluation data (the
// ../shared/data folder beside the repository) for tests, benchmarks and
// experiments, and skips a test with a clear message when it is absent.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpplang/gpp/internal/modroot"
)

// Root returns the absolute path of the shared data folder, or "" when it
// cannot be found. GPP_SHARED_DATA overrides the search; otherwise the folder
// is ../shared/data relative to the module root (the directory holding
// go.mod, modroot.Find), found by walking up from the working directory.
func Root() string {
	if d := os.Getenv("GPP_SHARED_DATA"); d != "" {
		return d
	}
	root, err := modroot.Find()
	if err != nil {
		return ""
	}
	d := filepath.Join(root, "..", "shared", "data")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return filepath.Clean(d)
	}
	return ""
}

// Path returns the absolute path of a file under the shared data folder
// (e.g. Path(t, "networks", "nips234_edges.csv")), skipping the test when the
// folder or the file is absent.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	root := Root()
	if root == "" {
		tb.Skip("shared data not found: expected ../shared/data beside the repository (or set GPP_SHARED_DATA)")
	}
	p := filepath.Join(append([]string{root}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data file %s not found", p)
	}
	return p
}
