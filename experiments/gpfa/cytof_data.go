package gpfa

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/internal/shareddata"
)

// CyTOFFile is the CyTOF data set's path under the shared data folder.
var CyTOFFile = filepath.Join("continuous", "cytof_himc_pbmc", "cytof_asinh5_30k.csv")

// CyTOFPath returns override when given, else the CyTOF CSV under the
// shared data folder (internal/shareddata.Root).
func CyTOFPath(override string) (string, error) {
	if override != "" {
		return override, nil
	}
	root := shareddata.Root()
	if root == "" {
		return "", fmt.Errorf("gpfa: shared data folder not found (../shared/data beside the repository, or GPP_SHARED_DATA); set Options.Data")
	}
	return filepath.Join(root, CyTOFFile), nil
}

// ReadMatrix reads a numeric CSV file with a header row into a rows×columns
// matrix (with data.ReadCSV, so a bad cell is reported with its position).
func ReadMatrix(path string) (*mat.Dense, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	t, err := data.ReadCSV(path, f)
	if err != nil {
		return nil, nil, err
	}
	a := t.Matrix("Y")
	if err := a.Err(); err != nil { // a cell that is not a number
		return nil, nil, err
	}
	names := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		names[j] = c.Name
	}
	return mat.NewDense(a.Shape[0], a.Shape[1], a.Values), names, nil
}

// SplitTest splits the rows of x into training rows (0-based index
// i % 5 != 4, in file order) and test rows (i % 5 == 4), the split of the
// shared data's README and baselines.
func SplitTest(x *mat.Dense) (train, test *mat.Dense) {
	n, d := x.Dims()
	var tr, te []float64
	for i := 0; i < n; i++ {
		if i%5 == 4 {
			te = append(te, x.RawRowView(i)...)
		} else {
			tr = append(tr, x.RawRowView(i)...)
		}
	}
	return mat.NewDense(len(tr)/d, d, tr), mat.NewDense(len(te)/d, d, te)
}

// firstRows returns a view of the first n rows of x.
func firstRows(x *mat.Dense, n int) *mat.Dense {
	_, d := x.Dims()
	return x.Slice(0, n, 0, d).(*mat.Dense)
}
