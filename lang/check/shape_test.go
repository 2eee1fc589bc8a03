package check

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// sh builds a shape from dims written as "3", "N" or "?" (derived).
func sh(dims ...string) Shape {
	s := Shape{}
	for _, d := range dims {
		switch {
		case d == "?":
			s = append(s, Dim{N: -1, Name: "n - 1", Derived: true})
		case d[0] >= '0' && d[0] <= '9':
			n := 0
			for _, c := range d {
				n = n*10 + int(c-'0')
			}
			s = append(s, knownDim(n))
		default:
			s = append(s, Dim{N: -1, Name: d})
		}
	}
	return s
}

func TestBroadcast(t *testing.T) {
	tests := []struct {
		a, b Shape
		want string // result shape, or "error: substring"
	}{
		{sh(), sh(), "scalar"},
		{sh(), sh("N", "K"), "[N, K]"},
		{sh("N"), sh(), "[N]"},
		{sh("N"), sh("N"), "[N]"},
		{sh("N"), sh("D"), "error: rows N and D differ"},
		{sh("3"), sh("4"), "error: rows 3 and 4 differ"},
		{sh("N"), sh("3"), "[3]"}, // name vs number: deferred
		{sh("N"), sh("?"), "[N]"}, // derived: deferred
		{sh("N", "K"), sh("N"), "[N, K]"},
		{sh("N", "K"), sh("1", "K"), "[N, K]"},
		{sh("1", "K"), sh("N", "K"), "[N, K]"},
		{sh("N", "K"), sh("K"), "error: rows N and K differ; a vector is a column: transpose it (x') to meet each row"},
		{sh("N", "2"), sh("2"), "error: the vector [2] is a column, which would stretch along the rows of [N, 2] only if [N, 2] had 2 rows"},
		{sh("K"), sh("N", "K"), "error: rows K and N differ; a vector is a column"},
		{sh("K", "K"), sh("K"), "[K, K]"}, // square: by rows, as written
		{sh("N", "3"), sh("N"), "[N, 3]"},
		{sh("N"), sh("1", "M"), "error: stretch both"},
		{sh("1", "M"), sh("N"), "error: stretch both"},
		{sh("N", "1"), sh("1", "M"), "error: stretch both"},
		{sh("1", "1"), sh("N", "M"), "[N, M]"},
		{sh("N", "1"), sh("N"), "[N]"},
		{sh("N", "1"), sh("N", "1"), "[N, 1]"},
		{sh("1"), sh("N"), "[N]"},
		{sh("N", "K"), sh("N", "D"), "error: columns K and D differ"},
	}
	for _, tt := range tests {
		r := broadcast(tt.a, tt.b)
		got := r.Shape.String()
		if r.Err != "" {
			got = "error: " + r.Err
		}
		if strings.HasPrefix(tt.want, "error: ") {
			if r.Err == "" || !strings.Contains(r.Err, strings.TrimPrefix(tt.want, "error: ")) {
				t.Errorf("broadcast(%v, %v) = %s, want %s", tt.a, tt.b, got, tt.want)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("broadcast(%v, %v) = %s, want %s", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestMatmulTranspose(t *testing.T) {
	tests := []struct {
		a, b Shape
		want string
	}{
		{sh("N", "K"), sh("K", "M"), "[N, M]"},
		{sh("N", "K"), sh("K"), "[N]"},
		{sh("1", "N"), sh("N", "M"), "[1, M]"},
		{sh("1", "N"), sh("N"), "[1]"},
		{sh("1", "N"), sh("N", "1"), "[1, 1]"},
		{sh("N"), sh("1", "M"), "[N, M]"},
		{sh("N", "K"), sh("D", "K"), "error: inner sizes K and D differ"},
		{sh("N", "3"), sh("K", "M"), "[N, M]"}, // deferred
		{sh("N", "3"), sh("4", "M"), "error: inner sizes 3 and 4 differ"},
		{sh("1", "2"), sh("6", "2"), "error: inner sizes 2 and 6 differ; `.*` multiplies elementwise: [1, 2] .* [6, 2] is [6, 2]"},
	}
	for _, tt := range tests {
		s, msg := matmul(tt.a, tt.b)
		got := s.String()
		if msg != "" {
			got = "error: " + msg
		}
		if strings.HasPrefix(tt.want, "error: ") {
			if !strings.Contains(got, strings.TrimPrefix(tt.want, "error: ")) {
				t.Errorf("matmul(%v, %v) = %s, want %s", tt.a, tt.b, got, tt.want)
			}
		} else if got != tt.want {
			t.Errorf("matmul(%v, %v) = %s, want %s", tt.a, tt.b, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, want Shape }{
		{sh(), sh()},
		{sh("N"), sh("1", "N")},
		{sh("1", "N"), sh("N")},
		{sh("N", "K"), sh("K", "N")},
	} {
		if got := transpose(tt.in); got.String() != tt.want.String() {
			t.Errorf("transpose(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestCompareDims(t *testing.T) {
	tests := []struct {
		a, b Dim
		want dimRel
	}{
		{knownDim(3), knownDim(3), dimEqual},
		{knownDim(3), knownDim(4), dimDiffer},
		{sh("N")[0], sh("N")[0], dimEqual},
		{sh("N")[0], sh("D")[0], dimDiffer},
		{sh("N")[0], knownDim(4), dimDeferred},
		{sh("?")[0], sh("D")[0], dimDeferred},
		{Dim{N: 10, Name: "K"}, knownDim(10), dimEqual},
	}
	for _, tt := range tests {
		if got := compareDims(tt.a, tt.b); got != tt.want {
			t.Errorf("compareDims(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSupportArithmetic(t *testing.T) {
	P, U, N, R, C := dist.Positive, dist.Unit, dist.NonNegative, dist.Real, dist.Count
	tests := []struct {
		name string
		got  dist.Support
		want dist.Support
	}{
		{"pos+pos", addSupport(P, P), P},
		{"pos+nonneg", addSupport(P, N), P},
		{"nonneg+count", addSupport(N, C), N},
		{"pos+real", addSupport(P, R), R},
		{"unit*unit", productSupport(U, U), U},
		{"unit*pos", productSupport(U, P), P},
		{"unit matmul", matmulSupport(U, U, 2), P},
		{"simplex rows matmul", matmulSupport(dist.Simplex, dist.Simplex, 2), dist.Simplex},
		{"simplex rows times a simplex", matmulSupport(dist.Simplex, dist.Simplex, 1), N},
		{"pos/pos", divSupport(P, P), P},
		{"nonneg/pos", divSupport(N, P), N},
		{"pos/real", divSupport(P, R), R},
		{"pos^real", powSupport(P, R, nil), P},
		{"unit^pos", powSupport(U, P, nil), U},
		{"real^2", powSupport(R, P, ptr(2)), N},
		{"real^3", powSupport(R, P, ptr(3)), R},
		{"simplex*pos", productSupport(dist.Simplex, P), N},
		{"join unit,unit", joinSupport(U, U), U},
		{"join unit,pos", joinSupport(U, P), P},
		{"join pos,nonneg", joinSupport(P, N), N},
		{"join pos,count", joinSupport(P, C), N},
		{"join count,binary", joinSupport(C, dist.Binary), C},
		{"join binary,binary", joinSupport(dist.Binary, dist.Binary), dist.Binary},
		{"join unit,binary", joinSupport(U, dist.Binary), N},
		{"join pos,real", joinSupport(P, R), R},
		{"join simplex entry", joinSupport(dist.Simplex, dist.Simplex), N},
		{"join interval", joinSupport(dist.Interval, dist.Interval), R},
		{"join bounded count", joinSupport(dist.BoundedCount, dist.BoundedCount), C},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func ptr(v float64) *float64 { return &v }

func TestSuggest(t *testing.T) {
	cands := []string{"Normal", "Gamma", "mu", "sigma", "K"}
	tests := map[string]string{
		"Nromal": "Normal", "normal": "Normal", "gamma": "Gamma", "Gama": "Gamma",
		"muu": "mu", "sigam": "sigma", "Q": "", "xyzzy": "",
	}
	for in, want := range tests {
		got := suggest(in, cands)
		if want == "" && got != "" || want != "" && !strings.Contains(got, "`"+want+"`") {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}
