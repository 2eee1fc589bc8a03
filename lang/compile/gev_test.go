package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// A value outside GEV's or GeneralizedPareto's support, whose ends move
// with all three arguments (mu − sigma/xi), is an error at build time that
// names the end it passes, computed from the arguments.
func TestGEVOutside(t *testing.T) {
	for _, c := range []struct{ dist, y, want string }{
		{"GEV(0, 1, 0.5)", "[0, -3]", "g.gpp:3:5: GEV: log density is -Inf at value -3, not above -2, where GEV's support starts for these arguments (mu 0, sigma 1, xi 0.5, element [1]); the value is y's at d.json:1:11"},
		{"GEV(0, 1, -0.5)", "[5, 0]", "g.gpp:3:5: GEV: log density is -Inf at value 5, not below 2, where GEV's support ends for these arguments (mu 0, sigma 1, xi -0.5, element [0]); the value is y's at d.json:1:8"},
		{"GeneralizedPareto(1, 2, -0.5)", "[2, 6]", "g.gpp:3:5: GeneralizedPareto: log density is -Inf at value 6, not below 5, where GeneralizedPareto's support ends for these arguments (mu 1, sigma 2, xi -0.5, element [1]); the value is y's at d.json:1:11"},
		{"GeneralizedPareto(1, 2, 0.5)", "[0.5, 2]", "g.gpp:3:5: GeneralizedPareto: log density is -Inf at value 0.5, not above mu, where GeneralizedPareto's support starts (mu 1, sigma 2, xi 0.5, element [0]); the value is y's at d.json:1:8"},
	} {
		js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": `+c.y+`}`))
		if err != nil {
			t.Fatal(err)
		}
		src := "data y: real[2]\nparam m: real ~ Normal(0, 1)\ny ~ " + c.dist + "\n"
		_, err = compileSrcErr(t, "g.gpp", src, nil, data.Input{File: "d.json", JSON: js})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s at %s: got %v, want %s", c.dist, c.y, err, c.want)
		}
	}
}
