// Package modroot finds the gpp module's root directory from the working
// directory, for the experiments, which read the bundled examples/ models
// and run from anywhere inside the repository.
package modroot

import (
	"errors"
	"os"
	"path/filepath"
)

// ErrNotFound is Find's error when no directory from the working directory
// up holds a go.mod.
var ErrNotFound = errors.New("no go.mod above the working directory")

// Find returns the nearest directory from the working directory up that
// holds a go.mod (absolute).
func Find() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", ErrNotFound
		}
		dir = up
	}
}

// Example returns the path of examples/name in the module root, relative to
// the working directory where it can be (examples/NAME from the root), so
// that positions in errors and reports carry no machine's paths. It does
// not check that the file exists.
func Example(name string) (string, error) {
	root, err := Find()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, "examples", name)
	cwd, err := os.Getwd()
	if err != nil {
		return p, nil
	}
	if rel, err := filepath.Rel(cwd, p); err == nil {
		return rel, nil
	}
	return p, nil
}
