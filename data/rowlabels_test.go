package data

import (
	"strings"
	"testing"
)

// TestRowLabelWarning: a column of labels coded in byte order that
// indexes a vector tied to a data matrix's rows (an animal model's u, by
// a non-centred let, through a chain of lets, or by an MvNormal or
// MvNormalCholesky prior, declared or a ~ statement) is warned of once,
// naming the matrix, the tie and --levels id=@FILE; an ordinary
// hierarchy's a[id], a vector built from data alone, and a column whose
// order --levels gave are not.
func TestRowLabelWarning(t *testing.T) {
	const head = "data y: real[N]\ndata id: int[N]\ndata G: real[Q, Q]\nparam sa: positive ~ HalfNormal(1)\n"
	const pheno = "id,y\nP0,1.5\nP1,0.2\nP10,-0.3\nP2,0.7\n"
	const g = `{"G": [[1, 0.1, 0, 0], [0.1, 1, 0, 0], [0, 0, 1, 0.2], [0, 0, 0.2, 1]]}`
	for _, c := range []struct {
		name, body string
		want       string // the tie; "" for no warning
	}{
		{"non-centred", "param z: real[Q] ~ Normal(0, 1)\nlet u = sa * (chol(G) * z)\ny ~ Normal(u[id], 1)\n", "data matrix chol(G) (by the let u at 6:1)"},
		{"through lets", "let LG = chol(G)\nparam z: real[Q] ~ Normal(0, 1)\nlet v = LG * z\nlet u = sa * v\ny ~ Normal(u[id], 1)\n", "data matrix LG (by the let u at 8:1)"},
		{"MvNormal declared", "param u: real[Q] ~ MvNormal(rep(0, Q), square(sa) * G)\ny ~ Normal(u[id], 1)\n", "data matrix G (by its prior MvNormal at 5:20)"},
		{"MvNormalCholesky statement", "param u: real[Q]\nu ~ MvNormalCholesky(rep(0, Q), sa * chol(G))\ny ~ Normal(1 + u[id], 1)\n", "data matrix chol(G) (by its prior MvNormalCholesky at 6:5)"},
		{"ordinary hierarchy", "param u: real[Q] ~ Normal(0, sa)\ny ~ Normal(u[id], 1)\n", ""},
		{"data alone", "let u = G * rep(1, Q)\ny ~ Normal(sa * u[id], 1)\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, info := checkedFile(t, head+c.body)
			in := []Input{csvInput(t, "", "pheno.csv", pheno), jsonInput(t, "g.json", g)}
			bound, err := Bind(info, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := containing(LevelOrderWarnings(f, info, bound), "tied to the rows")
			if c.want == "" {
				if len(got) > 0 {
					t.Errorf("warnings %q, want none", got)
				}
				return
			}
			want := `pheno.csv: column "id": its 4 labels are coded 0 to 3 in sorted (byte) order, P0 0, P1 1, P10 2, P2 3, and ` + "`id`" + ` indexes u at m.gpp:`
			if len(got) != 1 || !strings.HasPrefix(got[0], want) || !strings.Contains(got[0], c.want) || !strings.Contains(got[0], "--levels id=@FILE") {
				t.Fatalf("warnings %q,\nwant one beginning %q, naming %q", got, want, c.want)
			}
			bound, err = BindOrdered(info, in, nil, map[string][]string{"id": {"P0", "P1", "P2", "P10"}})
			if err != nil {
				t.Fatal(err)
			}
			if w := LevelOrderWarnings(f, info, bound); len(w) > 0 {
				t.Errorf("with --levels: warnings %q", w)
			}
		})
	}
}
