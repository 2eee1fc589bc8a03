package pipeline_test

import (
	"bytes"
	"os"
	"testing"
)

// checkGenerated checks that the bundled data file path holds want, what
// its seeded generator writes; with update it first writes want there.
// flag names the test flag that does so (TestNAMEData's -update-name).
func checkGenerated(t *testing.T, path string, want []byte, update bool, flag string) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what its generator writes (go test ./internal/pipeline -run %s -%s rewrites it)", path, t.Name(), flag)
	}
}
