package check_test

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/check"
)

// replicateModel is a model observing y whole at line 7 with a replicate
// output at line 8 (column 8 for its name); %Y is y's type, %OBS y's ~
// and %OUT the output.
const replicateModel = `data N: int
data y: %Y
data x: real[N]
param mu: real ~ Normal(0, 10)
param sigma: positive ~ Gamma(2, 1)
param theta: simplex[3] ~ Dirichlet(rep(1, 3))
%OBS
output %OUT
`

func replicateSource(y, obs, out string) string {
	return strings.NewReplacer("%Y", y, "%OBS", obs, "%OUT", out).Replace(replicateModel)
}

// TestReplicateShapeWarnings: a replicate output that mirrors data y (the
// same distribution expression as a top-level `y ~`, or named y_rep,
// yrep, y_pred, y_sim) but draws another shape than y's is warned about
// at its name when the name says it is a replicate (named after y, or
// ending in rep), with `rep(arg, N)` suggested when that is right; a replicate of
// y's shape, one mirroring nothing (a ~ of y's elements in a loop does not
// count), and one of scalar y are not.
func TestReplicateShapeWarnings(t *testing.T) {
	for _, tc := range []struct {
		y, obs, out string
		want        string // the warning's position and message; "" for none
	}{
		{"real[N]", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(mu, sigma)",
			"m.gpp:8:8 output `y_rep ~ Normal(mu, sigma)` draws a scalar, but it mirrors y [N] (`y ~ Normal(mu, sigma)` at m.gpp:7:1): a replicate takes the shape of its arguments, as Stan's _rng; for one replicate per observation repeat a scalar argument to y's shape: Normal(rep(mu, N), sigma)"},
		// Named otherwise, mirrored by the distribution expression: a
		// name ending in rep says it is a replicate; another (a
		// one-step-ahead forecast x_next of iid x) is one draw on purpose.
		{"real[N]", "y ~ Normal(mu, sigma)", "z_rep ~ Normal(mu, sigma)",
			"m.gpp:8:8 output `z_rep ~ Normal(mu, sigma)` draws a scalar, but it mirrors y [N] (`y ~ Normal(mu, sigma)` at m.gpp:7:1): a replicate takes the shape of its arguments, as Stan's _rng; for one replicate per observation repeat a scalar argument to y's shape: Normal(rep(mu, N), sigma)"},
		{"real[N]", "y ~ Normal(mu, sigma)", "Rep ~ Normal(mu, sigma)",
			"m.gpp:8:8 output `Rep ~ Normal(mu, sigma)` draws a scalar, but it mirrors y [N] (`y ~ Normal(mu, sigma)` at m.gpp:7:1)"},
		{"real[N]", "y ~ Normal(mu, sigma)", "z ~ Normal(mu, sigma)", ""},
		{"real[N]", "y ~ Normal(mu, sigma)", "y_next ~ Normal(mu, sigma)", ""},
		// Named after y, of another expression, or with y observed in a loop.
		{"real[N]", "y ~ Normal(mu, sigma)", "y_pred ~ Normal(mu, 2 * sigma)",
			"m.gpp:8:8 output `y_pred ~ Normal(mu, 2 * sigma)` draws a scalar, but it mirrors y [N] (by its name; y declared at m.gpp:2:6): a replicate takes the shape of its arguments, as Stan's _rng; for one replicate per observation repeat a scalar argument to y's shape: Normal(rep(mu, N), 2 * sigma)"},
		{"real[N]", "for i in 0:N { y[i] ~ Normal(mu, sigma) }", "y_sim ~ Normal(mu, sigma)",
			"m.gpp:8:8 output `y_sim ~ Normal(mu, sigma)` draws a scalar, but it mirrors y [N] (by its name; y declared at m.gpp:2:6)"},
		{"real[N]", "y ~ Normal(mu, sigma)", "yrep ~ Normal(mu, 2 * sigma)",
			"m.gpp:8:8 output `yrep ~ Normal(mu, 2 * sigma)` draws a scalar, but it mirrors y [N] (by its name; y declared at m.gpp:2:6)"},
		// A truncation is kept in the suggestion; a known size is written as a number.
		{"real<lower=0>[N]", "y ~ Normal(mu, sigma) T[0, ]", "y_rep ~ Normal(mu, sigma) T[0, ]",
			"m.gpp:8:8 output `y_rep ~ Normal(mu, sigma) T[0, ]` draws a scalar, but it mirrors y [N] (`y ~ Normal(mu, sigma) T[0, ]` at m.gpp:7:1): a replicate takes the shape of its arguments, as Stan's _rng; for one replicate per observation repeat a scalar argument to y's shape: Normal(rep(mu, N), sigma) T[0, ]"},
		{"real[4]", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(mu, sigma)",
			"m.gpp:8:8 output `y_rep ~ Normal(mu, sigma)` draws a scalar, but it mirrors y [4] (`y ~ Normal(mu, sigma)` at m.gpp:7:1): a replicate takes the shape of its arguments, as Stan's _rng; for one replicate per observation repeat a scalar argument to y's shape: Normal(rep(mu, 4), sigma)"},
		// No simple rewrite: a matrix y, a vector first argument, a vector replicate.
		{"real[N, 2]", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(mu, sigma)",
			"m.gpp:8:8 output `y_rep ~ Normal(mu, sigma)` draws a scalar, but it mirrors y [N, 2] (`y ~ Normal(mu, sigma)` at m.gpp:7:1): a replicate takes the shape of its arguments, as Stan's _rng; for one replicate per observation give it an argument of y's shape [N, 2]"},
		{"int[N]", "y ~ Categorical(theta)", "y_rep ~ Categorical(theta)",
			"m.gpp:8:8 output `y_rep ~ Categorical(theta)` draws a scalar, but it mirrors y [N] (`y ~ Categorical(theta)` at m.gpp:7:1): a replicate takes the shape of its arguments, as Stan's _rng; for one replicate per observation give it an argument of y's shape [N]"},
		{"real[4]", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(rep(mu, 3), sigma)",
			"m.gpp:8:8 output `y_rep ~ Normal(rep(mu, 3), sigma)` draws [3], but it mirrors y [4] (by its name; y declared at m.gpp:2:6): a replicate takes the shape of its arguments, as Stan's _rng; for one replicate per observation give it an argument of y's shape [4]"},
		// y's shape, or a size that may be y's.
		{"real[N]", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(rep(mu, N), sigma)", ""},
		{"real[N]", "y ~ Normal(mu + x, sigma)", "y_rep ~ Normal(mu + x, sigma)", ""},
		{"real[N]", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(rep(mu, 3), sigma)", ""},
		{"real[4]", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(rep(mu, N), sigma)", ""},
		// Mirrors nothing.
		{"real[N]", "y ~ Normal(mu, sigma)", "z ~ Normal(mu, 2 * sigma)", ""},
		{"real[N]", "y ~ Normal(mu, sigma)", "yy_rep ~ Normal(mu, sigma) T[0, ]", ""},
		{"real[N]", "for i in 0:N { y[i] ~ Normal(mu, sigma) }", "z ~ Normal(mu, sigma)", ""},
		{"real[N]", "y[0] ~ Normal(mu, sigma)", "z ~ Normal(mu, sigma)", ""},
		{"real[N]", "y ~ Normal(mu, sigma)", "x_rep = mu", ""},
		// Scalar y.
		{"real", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(mu, sigma)", ""},
		{"real", "y ~ Normal(mu, sigma)", "y_rep ~ Normal(x, sigma)", ""},
	} {
		src := replicateSource(tc.y, tc.obs, tc.out)
		_, info := checkSource(t, "m.gpp", src, nil)
		var got []string
		for _, w := range info.Warnings {
			if strings.HasPrefix(w.Msg, "output `") { // not the warnings of unused params
				got = append(got, w.Pos.String()+" "+w.Msg)
			}
		}
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s, %s: warnings %q", tc.obs, tc.out, got)
			continue
		case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)):
			t.Errorf("%s, %s: warnings %q, want one starting %q", tc.obs, tc.out, got, tc.want)
			continue
		}
		// The suggested rewrite is a replicate of y's shape.
		if _, fix, ok := strings.Cut(tc.want, "repeat a scalar argument to y's shape: "); ok {
			name, _, _ := strings.Cut(tc.out, " ~ ")
			_, info := checkSource(t, "m.gpp", replicateSource(tc.y, tc.obs, name+" ~ "+fix), nil)
			for _, w := range info.Warnings {
				if strings.HasPrefix(w.Msg, "output `") {
					t.Errorf("%s ~ %s: warning %v", name, fix, w)
				}
			}
			if o := info.Outputs[0]; o.Dims.String() != info.DataVar("y").Dims.String() {
				t.Errorf("%s ~ %s is %s, want y's %s", name, fix, o.Dims, info.DataVar("y").Dims)
			}
		}
	}
}

// TestMirrors: a replicate mirrors the data it is named after and the data
// observed whole at the top level by its distribution expression and
// truncation, in declaration order; the first such ~ is kept.
func TestMirrors(t *testing.T) {
	const src = `data y: real[N]
data w: real[N]
param mu: real ~ Normal(0, 1)
w ~ Normal(mu, 2)
y ~ Normal(mu, 1)
y ~ Normal(mu, 2) T[0, ]
y ~ Normal(mu, 2)
w ~ Normal(mu, 2)
output y_rep ~ Normal(mu, 2)
output yrep ~ Normal(mu, 4)
output a ~ Normal(mu, 2) T[0, ]
output b ~ Normal(mu, 3)
output c = mu
`
	f, info := checkSource(t, "m.gpp", src, nil)
	var got []string
	for _, o := range info.Outputs {
		for _, m := range check.Mirrors(f, info)[o] {
			s := o.Name + "→" + m.Data.Name
			if m.Named {
				s += " named"
			}
			if m.Tilde != nil {
				s += " at " + m.Tilde.Pos().String()
			}
			got = append(got, s)
		}
	}
	want := "y_rep→y named at m.gpp:7:1, y_rep→w at m.gpp:4:1, yrep→y named, a→y at m.gpp:6:1"
	if g := strings.Join(got, ", "); g != want {
		t.Errorf("mirrors %s, want %s", g, want)
	}
}
