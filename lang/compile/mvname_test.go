package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestMvNormalErrorName fails if an MvNormal's covariance errors name
// MvNormalRows, the node MvNormal lowers to, or leave out the data item
// that the covariance is: the spatial trial's asymmetric distance kernel
// and the econometrics trial's data Om read "MvNormalRows: covariance
// matrix ..." under a statement that says MvNormal.
func TestMvNormalErrorName(t *testing.T) {
	tab := func(name, header string, rows [][]float64) data.Input {
		return data.Input{Name: strings.TrimSuffix(name, ".csv"), File: name, Table: csvTable(t, name, header, rows)}
	}
	for _, c := range []struct {
		name, src string
		inputs    []data.Input
		want      string
	}{
		{"asymmetric kernel of a vector", "data D: real[N, N]\ndata y: real[N]\nparam alpha: positive ~ HalfNormal(1)\nlet K = add_diag(square(alpha) * exp(-square(D)), 0.1)\ny ~ MvNormal(0, K)\n",
			[]data.Input{tab("D.csv", "c0,c1", [][]float64{{0, 1}, {1.1, 0}}), tab("y.csv", "y", [][]float64{{0.3}, {-0.2}})},
			"m.gpp:5:5: MvNormal: covariance matrix is not symmetric: element [1, 0]"},
		{"data covariance of rows", "data Y: real[N, 2]\ndata Om: real[2, 2]\nparam m: real ~ Normal(0, 1)\nY ~ MvNormal(rep(m, 2), Om)\n",
			[]data.Input{tab("Y.csv", "a,b", [][]float64{{0.3, 1}, {-0.2, 0.5}}), tab("Om.csv", "c0,c1", [][]float64{{1, 2}, {2, 1}})},
			"m.gpp:4:5: MvNormal: covariance matrix Om (data from Om.csv) is not positive definite (leading minor 2)"},
		{"rows as written", "data Y: real[N, 2]\ndata Om: real[2, 2]\nparam m: real ~ Normal(0, 1)\nY ~ MvNormalRows(rep(m, 2), Om)\n",
			[]data.Input{tab("Y.csv", "a,b", [][]float64{{0.3, 1}, {-0.2, 0.5}}), tab("Om.csv", "c0,c1", [][]float64{{1, 2}, {2, 1}})},
			"m.gpp:4:5: MvNormalRows: covariance matrix Om (data from Om.csv) is not positive definite"},
		{"logpdf's rows", "data Y: real[N, 2]\ndata Om: real[2, 2]\nparam m: real ~ Normal(0, 1)\ntarget += sum(logpdf(Y, MvNormal(rep(m, 2), Om)))\n",
			[]data.Input{tab("Y.csv", "a,b", [][]float64{{0.3, 1}, {-0.2, 0.5}}), tab("Om.csv", "c0,c1", [][]float64{{1, 0.5}, {0.4, 1}})},
			"m.gpp:4:25: MvNormal: covariance matrix Om (data from Om.csv) is not symmetric: element [1, 0] is 0.4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := compileSrcErr(t, "m.gpp", c.src, nil, c.inputs...)
			if err == nil {
				_, err = m.LogJoint(make([]float64, m.Dim), make([]float64, m.Dim))
			}
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %v, want one starting %q", err, c.want)
			}
		})
	}
}
