package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// A value outside DiscreteUniform's bounds is an error at build time that
// names the bound it passes: below lower (which is in the support), or
// above upper, where the support ends; bounds out of order (from data)
// are an error that says they need lower <= upper.
func TestDiscreteUniformOutside(t *testing.T) {
	const src = "data y: int[3]\ndata lo: int[3]\ndata hi: int[3]\nparam m: real ~ Normal(0, 1)\ny ~ DiscreteUniform(lo, hi)\n"
	for _, c := range []struct{ y, lo, want string }{
		{"[1, 1, 3]", "[0, 2, 3]", "d.gpp:5:5: DiscreteUniform: log density is -Inf at value 1, below lower, where DiscreteUniform's support starts (lower 2, upper 4, element [1]); the value is y's at d.json:1:11"},
		{"[0, 4, 5]", "[0, 2, 3]", "d.gpp:5:5: DiscreteUniform: log density is -Inf at value 5, above upper, where DiscreteUniform's support ends (lower 3, upper 4, element [2]); the value is y's at d.json:1:14"},
		{"[0, 3, 3]", "[0, 5, 3]", "d.gpp:5:5: DiscreteUniform needs lower <= upper (lower 5, upper 4, element [1])"},
	} {
		js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": `+c.y+`, "lo": `+c.lo+`, "hi": [1, 4, 4]}`))
		if err != nil {
			t.Fatal(err)
		}
		// all data: the build evaluates the ~ once and reports it
		_, err = compileSrcErr(t, "d.gpp", src, nil, data.Input{File: "d.json", JSON: js})
		if err == nil || err.Error() != c.want {
			t.Errorf("y = %s: got %v, want %s", c.y, err, c.want)
		}
	}
}
