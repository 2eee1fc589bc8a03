package data

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestParseCSVKeep binds each file read whole (ReadCSV) and read keeping
// only the columns the model may read (ParseCSV with ColumnsRead): the
// values, their positions, the errors and the warnings are the same, and
// the other columns' values are not kept, their first bad cell is.
func TestParseCSVKeep(t *testing.T) {
	const groups = "data J: int\ndata g: int<lower=0, upper=J-1>[N]\ndata y: real[N]\nparam a: real[J] ~ Normal(0, 1)\ny ~ Normal(a[g], 1)\n"
	for _, c := range []struct {
		name, model, csv string
		notKept          []string // columns whose values are dropped
	}{
		{"labels and unused columns", groups,
			"note,g,w,y,z\nok,B,1.5,0.5,x\n\"a, b\",A,NA,-1,2\nc,B,3,2.5,\n", []string{"note", "w", "z"}},
		{"a bad cell in a column read", groups,
			"w,g,y\n1,A,0.5\n2,B,oops\n", []string{"w"}},
		{"a missing cell in a column read", "data y: real[N]\ndata x: real[N]\ny ~ Normal(x, 1)\n",
			"x,u,y\n1,2,3\nNA,.,4\n", []string{"u"}},
		{"a vector numbered by columns", "data x: real[3]\ndata t: real\nt ~ Normal(x[0], 1)\n",
			"x.2,x.1,x.3,t,other\n2,1,3,0.5,junk\n", []string{"other"}},
		{"a column naming a param", "data y: real[N]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1)\n",
			"mu,y,k\n1,2,3\n4,5,6\n", []string{"mu", "k"}},
		{"a matrix takes the whole file", "data X: real[N, K]\nparam b: real[K] ~ Normal(0, 1)\ntarget += sum(X * b)\n",
			"a,b\n1,2\n3,x\n", nil},
		{"no column the model reads", groups,
			"u,v\n1,2\n", []string{"u", "v"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := checked(t, c.model)
			whole, err := ReadCSV("d.csv", strings.NewReader(c.csv))
			if err != nil {
				t.Fatal(err)
			}
			kept, err := ParseCSV("d.csv", []byte(c.csv), ColumnsRead(info))
			if err != nil {
				t.Fatal(err)
			}
			for j, col := range kept.Columns {
				w := whole.Columns[j]
				if col.Name != w.Name || col.Pos != w.Pos || col.Int != w.Int || fmt.Sprint(col.Err()) != fmt.Sprint(w.Err()) {
					t.Errorf("column %q: name, position, Int or error differ: %+v, whole %+v", w.Name, col, w)
				}
				if dropped := slices.Contains(c.notKept, col.Name); dropped != (col.Values == nil) {
					t.Errorf("column %q: %d values kept, want them dropped %v", col.Name, len(col.Values), dropped)
				}
			}
			want, wantErr := Bind(info, []Input{{File: "d.csv", Table: whole}}, map[string]string{})
			got, gotErr := Bind(info, []Input{{File: "d.csv", Table: kept}}, map[string]string{})
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, whole %v", gotErr, wantErr)
			}
			if wantErr != nil {
				return
			}
			if w, g := Unused(info, []Input{{File: "d.csv", Table: whole}}), Unused(info, []Input{{File: "d.csv", Table: kept}}); !slices.Equal(w, g) {
				t.Errorf("warnings %q, whole %q", g, w)
			}
			for name, w := range want {
				g := got[name]
				if g == nil {
					t.Fatalf("%s not bound", name)
				}
				same := slices.EqualFunc(g.Values, w.Values, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
				if !same || !slices.Equal(g.Shape, w.Shape) || g.Int != w.Int || !slices.Equal(g.Missing, w.Missing) || g.Pos != w.Pos || fmt.Sprint(g.Levels) != fmt.Sprint(w.Levels) {
					t.Errorf("%s: %+v, whole %+v", name, g, w)
				}
				for i := range w.Values {
					if g.Locate(i) != w.Locate(i) {
						t.Errorf("%s element %d at %v, whole %v", name, i, g.Locate(i), w.Locate(i))
					}
				}
			}
		})
	}
}

// FuzzParseCSVKeep reads any bytes whole (ReadCSV) and keeping the columns
// whose names are of even length (ParseCSV): the same error or none; every
// column's name, position, Int and Err the same; a kept column's values,
// missing cells and positions the same; a dropped one's values nil.
//
//	go test ./data -run '^$' -fuzz '^FuzzParseCSVKeep$' -fuzztime 1m -parallel 1
func FuzzParseCSVKeep(f *testing.F) {
	for _, s := range []string{
		"ab,c,de,f\n1,x,NA,2\n\"3\n\",,1e400,TRUE\n",
		"g,yy,note\nA,0.5,\"a, b\"\nB,.,c\n",
		"# c\nxx\n1\n\n2\n",
	} {
		f.Add([]byte(s))
	}
	even := func(name string) bool { return len(name)%2 == 0 }
	f.Fuzz(func(t *testing.T, src []byte) {
		whole, werr := ReadCSV("d.csv", strings.NewReader(string(src)))
		kept, kerr := ParseCSV("d.csv", slices.Clone(src), even)
		if fmt.Sprint(werr) != fmt.Sprint(kerr) {
			t.Fatalf("error %v, whole %v", kerr, werr)
		}
		if werr != nil {
			return
		}
		if kept.Rows != whole.Rows || len(kept.Columns) != len(whole.Columns) {
			t.Fatalf("%d×%d, whole %d×%d", kept.Rows, len(kept.Columns), whole.Rows, len(whole.Columns))
		}
		for j, c := range kept.Columns {
			w := whole.Columns[j]
			if c.Name != w.Name || c.Pos != w.Pos || c.Int != w.Int || fmt.Sprint(c.Err()) != fmt.Sprint(w.Err()) || kept.header(j) != whole.header(j) {
				t.Fatalf("column %q: %+v, whole %+v", w.Name, c, w)
			}
			if !kept.kept(j) {
				if c.Values != nil || c.Missing != nil {
					t.Fatalf("column %q: values kept", c.Name)
				}
				continue
			}
			same := slices.EqualFunc(c.Values, w.Values, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
			if !same || !slices.Equal(c.Missing, w.Missing) || !slices.Equal(c.labels, w.labels) {
				t.Fatalf("column %q: %+v, whole %+v", c.Name, c, w)
			}
			for i := range w.Values {
				if c.Locate(i) != w.Locate(i) {
					t.Fatalf("column %q element %d at %v, whole %v", c.Name, i, c.Locate(i), w.Locate(i))
				}
			}
		}
	})
}
