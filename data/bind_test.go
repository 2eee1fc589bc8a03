package data

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

func checked(t *testing.T, src string) *check.Info {
	t.Helper()
	_, info := checkedFile(t, src)
	return info
}

func csvInput(t *testing.T, name, file, src string) Input {
	t.Helper()
	tab, err := ReadCSV(file, strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return Input{Name: name, File: file, Table: tab}
}

func jsonInput(t *testing.T, file, src string) Input {
	t.Helper()
	js, err := ReadJSON(file, strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return Input{File: file, JSON: js}
}

func TestBindGPFA(t *testing.T) {
	info := checked(t, "data Y: real[N, D]\nparam p: positive ~ Gamma(1, 1)\nY ~ Normal(0, p)\n")
	out, err := Bind(info, []Input{csvInput(t, "", "y.csv", "a,b,c\n1,2,3\n4,5,6.5\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	y := out["Y"]
	if len(y.Shape) != 2 || y.Shape[0] != 2 || y.Shape[1] != 3 || y.Values[5] != 6.5 {
		t.Errorf("Y = %+v", y)
	}
	if out["N"].Values[0] != 2 || out["D"].Values[0] != 3 {
		t.Errorf("N = %v, D = %v", out["N"].Values, out["D"].Values)
	}
}

func TestBindEPM(t *testing.T) {
	info := checked(t, "data N: int\ndata links: int[E, 2]\nparam W: positive[N] ~ Gamma(1, 1)\n")
	out, err := Bind(info, []Input{csvInput(t, "links", "l.csv", "i,j\n0,1\n1,2\n")}, map[string]string{"N": "3"})
	if err != nil {
		t.Fatal(err)
	}
	if out["E"].Values[0] != 2 || out["N"].Values[0] != 3 || !out["links"].Int {
		t.Errorf("E = %v, N = %v, links int %v", out["E"].Values, out["N"].Values, out["links"].Int)
	}
}

func TestBindJSON(t *testing.T) {
	info := checked(t, "data J: int\ndata y: real[J]\ndata sigma: positive[J]\n")
	out, err := Bind(info, []Input{jsonInput(t, "d.json", `{"J": 2, "y": [1, -2.5], "sigma": [1, 2]}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out["y"].Values[1] != -2.5 || out["J"].Values[0] != 2 {
		t.Errorf("y = %v, J = %v", out["y"].Values, out["J"].Values)
	}
}

// TestBindInferredSize: an int scalar declared as data and used as a size
// of other data (Stan's `int N; vector[N] y;`) is bound from their shape
// when no input gives it, as an undeclared size name is.
func TestBindInferredSize(t *testing.T) {
	info := checked(t, "data N: int<lower=1>\ndata K: int\ndata y: real[N]\ndata X: real[N, K]\nparam b: real[K] ~ Normal(0, 1)\n")
	out, err := Bind(info, []Input{csvInput(t, "", "y.csv", "y\n1\n2\n3\n"), csvInput(t, "X", "x.csv", "a,b\n1,2\n3,4\n5,6\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, k := out["N"], out["K"]; n.Values[0] != 3 || !n.Int || k.Values[0] != 2 || !k.Int {
		t.Errorf("N = %+v, K = %+v", n, k)
	}
	// Given as well, the two must agree (the message is TestBindErrors').
	if _, err := Bind(info, []Input{csvInput(t, "", "y.csv", "y\n1\n2\n3\n"), csvInput(t, "X", "x.csv", "a,b\n1,2\n3,4\n5,6\n")}, map[string]string{"N": "3", "K": "2"}); err != nil {
		t.Errorf("N and K given and equal: %v", err)
	}
}

// TestBindEmptyMatrix: a matrix of no rows, which JSON writers (CmdStan,
// posteriordb) give as [], binds with the column count its declaration
// gets from a constant or the other data; with none, it is an error.
func TestBindEmptyMatrix(t *testing.T) {
	for _, c := range []struct {
		model, json string
		cols        int
	}{
		{"data K: int\ndata M: real[N, K]\ndata y: real[N]\n", `{"N": 0, "K": 3, "M": [], "y": []}`, 3},
		{"data M: real[N, 4]\n", `{"M": []}`, 4},
		{"data M: real[N, K]\ndata w: real[K]\n", `{"M": [], "w": [1, 2]}`, 2},
		{"data M: real[N, K]\n", `{"M": [], "K": 2}`, 2}, // K a size name, given by its key alone
	} {
		out, err := Bind(checked(t, c.model), []Input{jsonInput(t, "d.json", c.json)}, nil)
		if err != nil {
			t.Errorf("%q with %s: %v", c.model, c.json, err)
			continue
		}
		if m := out["M"]; len(m.Values) != 0 || len(m.Shape) != 2 || m.Shape[0] != 0 || m.Shape[1] != c.cols {
			t.Errorf("%q with %s: M has shape %v, values %v; want [0 %d]", c.model, c.json, m.Shape, m.Values, c.cols)
		}
	}
	out, err := Bind(checked(t, "data M: real[N, K]\n"), []Input{jsonInput(t, "d.json", `{"M": []}`)}, map[string]string{"K": "3"})
	if err != nil || out["M"].Shape[1] != 3 || out["K"].Values[0] != 3 {
		t.Errorf("K by --set: %v", err)
	}
	for _, c := range []struct{ model, json, want string }{
		{"data M: real[N, K]\n", `{"M": []}`, "d.json:1:7: M is [] (no rows), and its column count K is not given by other data; give K"},
		{"data K: int\ndata M: real[N, K]\n", `{"M": [], "K": -1}`, "d.json:1:16: K is -1: a size must be 0 or more (the columns of M)"},
		{"data M: real[N, K]\n", `{"M": [], "K": -1}`, "d.json:1:16: K is -1: a size must be 0 or more (the columns of M)"},
	} {
		_, err := Bind(checked(t, c.model), []Input{jsonInput(t, "d.json", c.json)}, nil)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q with %s: error %v, want %q", c.model, c.json, err, c.want)
		}
	}
}

// TestBindUnused: columns and keys that no declaration reads are not read
// as numbers, whatever they hold: the lr.gpp of the bug report fits with a
// column of names, and a Stan data file with keys of other types binds.
func TestBindUnused(t *testing.T) {
	info := checked(t, "data x: real[N]\ndata y: real[N]\nparam a: real ~ Normal(0, 10)\nparam b: real ~ Normal(0, 10)\nparam s: positive ~ HalfNormal(5)\ny ~ Normal(a + b * x, s)\n")
	inputs := [][]Input{
		{csvInput(t, "", "d.csv", "x,y,name\n1,2,foo\n2,3.9,bar\n3,6.1,baz\n")},
		{csvInput(t, "", "d.csv", "x,note\n1,\n2,NaN\n3,\"a, b\"\n"), csvInput(t, "y", "y.csv", "y,name\n2,foo\n3.9,bar\n6.1,baz\n")},
		{jsonInput(t, "d.json", `{"x": [1, 2, 3], "y": [2, 3.9, 6.1], "extra": "hello", "flag": false, "none": null,
 "meta": {"source": "lab", "runs": [1, "two"]}, "ragged": [[1, 2], [3]], "names": ["a", "b"], "N": 3}`)},
	}
	for _, in := range inputs {
		out, err := Bind(info, in, nil)
		if err != nil {
			t.Fatalf("%s: %v", in[0].File, err)
		}
		if out["N"].Values[0] != 3 || out["x"].Values[2] != 3 || out["y"].Values[1] != 3.9 {
			t.Errorf("%s: N = %v, x = %v, y = %v", in[0].File, out["N"].Values, out["x"].Values, out["y"].Values)
		}
	}
}

// TestBindIntLimits: ints up to 2^53 in magnitude are read exactly, in any
// notation; a real may be an integer past 2^53, rounded as any real is.
func TestBindIntLimits(t *testing.T) {
	info := checked(t, "data k: int[N]\ndata x: real[N]\n")
	out, err := Bind(info, []Input{csvInput(t, "", "d.csv", "k,x\n9007199254740992,9007199254740993\n-9007199254740992,1\n1e3,2\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k := out["k"].Values; k[0] != 1<<53 || k[1] != -(1<<53) || k[2] != 1000 {
		t.Errorf("k = %v", k)
	}
	if x := out["x"].Values; x[0] != 1<<53 {
		t.Errorf("x = %v", x)
	}
}

// TestBindSizeGivenAgain: a JSON key or --set value for a size name that
// agrees with the data is accepted (posteriordb's data carry their sizes).
func TestBindSizeGivenAgain(t *testing.T) {
	info, err := check.Check(mustParse(t, "data y: real[N]\n"), &check.Config{Overrides: map[string]string{"N": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Bind(info, []Input{jsonInput(t, "d.json", `{"N": 2.0, "y": [1, 2]}`)}, map[string]string{"N": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if out["N"].Values[0] != 2 {
		t.Errorf("N = %v", out["N"].Values)
	}
}

// TestBindPartial: the data given are checked as Bind checks them, and the
// declarations no input gives yet are missing, not errors; a matrix with no
// file of its own does not take the one positional file (X=x.csv may come
// next). With nothing missing, the result is Bind's.
func TestBindPartial(t *testing.T) {
	const model = "data y: int<lower=0>[N]\ndata X: real[N, K]\ndata M: real[R, C]\ndata P: int\nparam w: real[P] ~ Normal(0, 1)\n"
	info := checked(t, model)
	y := csvInput(t, "", "y.csv", "y\n1\n2\n")
	out, missing, err := BindPartial(info, []Input{y}, nil)
	if err != nil || out["y"] == nil || out["N"].Values[0] != 2 {
		t.Fatalf("y alone: %v, %v", out, err)
	}
	if want := []string{"X", "M", "P"}; strings.Join(missing, " ") != strings.Join(want, " ") {
		t.Errorf("missing %q, want %q", missing, want)
	}
	// An error of the data given is reported, whatever is missing.
	_, missing, err = BindPartial(info, []Input{csvInput(t, "", "y.csv", "y\n1\n-2\n")}, nil)
	if want := "y.csv:3:1: y: value -2 is not >= 0; `y` is declared int<lower=0>[N] at m.gpp:1:6"; err == nil || err.Error() != want || len(missing) != 3 {
		t.Errorf("negative y: missing %q, error %v; want %s", missing, err, want)
	}
	_, _, err = BindPartial(info, []Input{y, csvInput(t, "X", "x.csv", "a,b\n1,2\n3,4\n5,6\n")}, nil)
	if want := "x.csv:2:1: size N is 3 here (rows of X) but 2 from elements of y (y.csv:2:1)"; err == nil || err.Error() != want {
		t.Errorf("X of other rows: %v; want %s", err, want)
	}
	// Nothing missing: Bind's values.
	ins := []Input{y, csvInput(t, "X", "x.csv", "a,b\n1,2\n3,4\n"), jsonInput(t, "m.json", `{"M": [[1, 2]], "P": 3}`)}
	out, missing, err = BindPartial(info, ins, nil)
	full, ferr := Bind(info, ins, nil)
	if err != nil || ferr != nil || len(missing) != 0 || len(out) != len(full) || out["P"].Values[0] != 3 || out["K"].Values[0] != 2 {
		t.Errorf("everything given: %v, %v, missing %q; Bind: %v", out, err, missing, ferr)
	}
}

func mustParse(t *testing.T, src string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile("m.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestBindErrors(t *testing.T) {
	cases := []struct {
		name, model string
		inputs      func(t *testing.T) []Input
		sets        map[string]string
		want        string
	}{
		{"missing column", "data y: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "x\n1\n")}
		}, nil, "m.gpp:1:6: no data for `y` (real[N]): expected a CSV column \"y\", a JSON key \"y\", or y=FILE.csv (y=FILE.csv:COLUMN for a column of another name); the data has x\x00"}, // and not "size N is not bound" after it
		{"misspelt column", "data prolin: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "alcohol,proline\n1,2\n")}
		}, nil, "; the data has alcohol, proline; did you mean \"proline\"? (rename the column or the declaration, or give prolin=d.csv:proline)\x00"},
		{"column of another case", "data Alcohol: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "alcohol,proline\n1,2\n")}
		}, nil, "; did you mean \"alcohol\"? (rename the column or the declaration, or give Alcohol=d.csv:alcohol)\x00"},
		{"per-level table: a column of the rows that give another size is not offered", "data tschool: int[J]\ndata teacher: int<upper=J-1>[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "students.csv", "teacher,school\n0,0\n1,0\n2,1\n")}
		}, nil, "; the data has school, teacher; not column \"school\" of students.csv, whose rows give N (the rows of `teacher`): tschool=students.csv:school would make J = 3, the rows of students.csv, too; `tschool` has one value per J, a table of its own: give its file\x00"},
		{"a table of the same size is offered", "data tschool: int[N]\ndata teacher: int[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "students.csv", "teacher,school\n0,0\n1,0\n2,1\n")}
		}, nil, "; did you mean \"school\"? (rename the column or the declaration, or give tschool=students.csv:school)\x00"},
		{"misspelt JSON key: no column binding offered", "data sigmaa: real\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"sigma": 1}`)}
		}, nil, "; the data has sigma; did you mean \"sigma\"?\x00"},
		{"nothing near", "data z: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "alcohol,proline\n1,2\n")}
		}, nil, "; the data has alcohol, proline\x00"},
		{"missing matrix, two files", "data Y: real[N, D]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "a.csv", "x,y\n1,2\n"), csvInput(t, "", "b.csv", "x,y\n3,4\n")}
		}, nil, "; the data has x, y\x00"},
		{"bidi controls in a header", "data y: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "x\u202ey,\u2066z\n1,2\n")}
		}, nil, `; the data has x\u202ey, \u2066z` + "\x00"},
		{"matrix takes a named column", "data y: real[N]\ndata X: real[N, D]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "y,a,b\n1,2,3\n")}
		}, nil, "m.gpp:2:6: `X` would take every column of d.csv, including column \"y\", which is bound by name: give `X` its columns, as X=d.csv:a,b (or a file of its own, X=FILE.csv)"},
		{"matrix takes named columns", "data y: real[N]\ndata w: real[N]\ndata X: real[N, D]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "y,a,w\n1,2,3\n")}
		}, nil, "m.gpp:3:6: `X` would take every column of d.csv, including columns \"y\", \"w\", which are bound by name"},
		{"a matrix of 20 columns and one that would take them", "data X: real[N, 20]\ndata train: real[N, 20]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "X.1,X.2,X.3,X.4,X.5,X.6,X.7,X.8,X.9,X.10,X.11,X.12,X.13,X.14,X.15,X.16,X.17,X.18,X.19,X.20\n"+strings.Repeat("1,", 19)+"1\n")}
		}, nil, "m.gpp:2:6: `train` would take every column of d.csv, including columns \"X.1\", \"X.2\", \"X.3\", \"X.4\", \"X.5\", \"X.6\", \"X.7\", \"X.8\", ... (20 in all), which are bound by name: give `train` a file of its own, train=FILE.csv\x00"},
		{"a misspelt name among many columns", "data count: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15,cuont\n"+strings.Repeat("1,", 15)+"1\n")}
		}, nil, "; the data has a1, a10, a11, a12, a13, a14, a15, a2, ... (16 in all); did you mean \"cuont\"?"},
		{"two matrices take one file", "data X: real[N, D]\ndata Z: real[N, D]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "a,b\n1,2\n")}
		}, nil, "m.gpp:2:6: `X` and `Z` would both take every column of d.csv: give each its own columns, as Z=d.csv:COL1,COL2 (or a file of its own, Z=FILE.csv)"},
		{"selection of too few columns", "data X: real[N, 2]\n", func(t *testing.T) []Input {
			in := csvInput(t, "X", "d.csv", "# c\na,b,c\n1,2,3\n")
			tab, err := in.Table.Select([]string{"a"}, "X=d.csv:a")
			if err != nil {
				t.Fatal(err)
			}
			in.Table, in.Columns = tab, []string{"a"}
			return []Input{in}
		}, nil, "d.csv:2:1: X=d.csv:a selects 1 column, but `X` is declared real[N, 2] at m.gpp:1:6: select 2\x00"},
		{"one column of a file", "data X: real[N, 2]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "X", "d.csv", "a\n1\n")}
		}, nil, "d.csv:2:1: X has 1 column, but `X` is declared real[N, 2] at m.gpp:1:6\x00"},
		{"no data at all", "data y: real[N]\n", func(t *testing.T) []Input { return nil }, nil,
			"no data files were given\x00"},
		{"wrong rank, size from it", "data y: real[N]\ndata x: real[N, D]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"y": [1, 2], "x": [1, 2]}`)}
		}, nil, "d.json:1:20: x has a vector of 2 values, but `x` is declared real[N, D] at m.gpp:2:6\x00"},
		{"one label in two Unicode forms", "data g: int[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "g\nLyc\u00e9e\nOak\nLyce\u0301e\n")}
		}, nil, "d.csv:4:1: column \"g\": labels \"Lyce\u0301e\" (\"Lyce\\u0301e\") and \"Lyc\\u00e9e\" are one text in two Unicode forms"},
		{"int expected", "data k: int[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "k\n1\n2.0\n2.5\n")}
		}, nil, "d.csv:4:1: k: 2.5 is not an integer, but `k` is declared int[N] at m.gpp:1:6"},
		{"int too large", "data k: int[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "k\n1\n99999999999999999999\n")}
		}, nil, "d.csv:3:1: k: 99999999999999999999 is too large for an int (at most 2^53 in magnitude); `k` is declared int[N] at m.gpp:1:6"},
		{"int 2^53+1 in CSV", "data k: int[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "k\n9007199254740992\n9007199254740993\n")}
		}, nil, "d.csv:3:1: k: 9007199254740993 is too large for an int (at most 2^53 in magnitude); `k` is declared int[N] at m.gpp:1:6"},
		{"int -(2^53+1) in a matrix", "data K: int[N, M]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "a,b\n1,2\n3,-9007199254740993\n")}
		}, nil, "d.csv:3:3: K: -9007199254740993 is too large for an int (at most 2^53 in magnitude)"},
		{"int 2^53+1 in JSON", "data J: int\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"J": 9007199254740993}`)}
		}, nil, "d.json:1:7: J: 9007199254740993 is too large for an int (at most 2^53 in magnitude); `J` is declared int at m.gpp:1:6"},
		{"int 2^53+1 in exponent form", "data k: int[N]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"k": [1, 9.007199254740993e15]}`)}
		}, nil, "d.json:1:11: k: 9.007199254740993e15 is too large for an int (at most 2^53 in magnitude)"},
		{"int rounded from a fraction", "data k: int[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "k\n1.00000000000000000001\n")}
		}, nil, "d.csv:2:1: k: 1.00000000000000000001 is not an integer, but `k` is declared int[N] at m.gpp:1:6"},
		{"int size too large", "data N: int\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"N": 1e300}`)}
		}, nil, "d.json:1:7: N: 1e300 is too large for an int (at most 2^53 in magnitude); `N` is declared int at m.gpp:1:6"},
		{"inferred size out of bounds", "data N: int<lower=5>\ndata y: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "y\n1\n2\n")}
		}, nil, "d.csv:2:1: N: value 2 is not >= 5; `N`, the number of elements of y, is declared int<lower=5> at m.gpp:1:6\x00"},
		{"inferred size given differently", "data N: int\ndata y: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "y\n1\n2\n")}
		}, map[string]string{"N": "3"}, "d.csv:2:1: size N is 2 here (elements of y) but 3 from N (--set N)\x00"},
		{"size of a param only", "data N: int\nparam x: real[N] ~ Normal(0, 1)\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "y\n1\n")}
		}, nil, "m.gpp:1:6: no data for `N` (int): expected a JSON key \"N\" or --set N=VALUE; the data has y\x00"},
		{"inferred size, its data missing", "data N: int\ndata y: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "x\n1\n")}
		}, nil, "m.gpp:2:6: no data for `y` (real[N]): expected a CSV column \"y\", a JSON key \"y\", or y=FILE.csv (y=FILE.csv:COLUMN for a column of another name); the data has x\x00"},
		{"negative positive", "data s: positive[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "s\n1\n-2\n")}
		}, nil, "d.csv:3:1: s: value -2 is not > 0; `s` is declared positive[N] at m.gpp:1:6"},
		{"positive at 0 under Gamma", "data s: positive[N]\nparam k: positive\ns ~ Gamma(k, k)\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "s\n1\n0\n")}
		}, nil, "d.csv:3:1: s: value 0 is not > 0; `s` is declared positive[N] at m.gpp:1:6; for amounts with exact zeros (rainfall with dry days), declare `s` real<lower=0> and use HurdleGamma(psi, alpha, beta), a Gamma(alpha, beta) value with probability psi = P(s > 0), else exactly 0"},
		{"positive underflows", "data s: positive[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "s\n1\n1e-400\n")}
		}, nil, "d.csv:3:1: s: value 1e-400 (which underflows to 0 in double precision) is not > 0"},
		{"upper bound", "data p: real<upper=1>[N]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"p": [0.5, 1.5]}`)}
		}, nil, "d.json:1:13: p: value 1.5 is not <= 1"},
		{"size mismatch", "data x: real[N]\ndata y: real[N]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"x": [1, 2], "y": [1, 2, 3]}`)}
		}, nil, "size N is 3 here (elements of y) but 2 from elements of x"},
		{"literal size", "data x: real[3]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"x": [1, 2]}`)}
		}, nil, "d.json:1:7: x has 2 elements, but `x` is declared real[3] at m.gpp:1:6\x00"},
		{"const size", "const P = 3\ndata X: real[N, P]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "X.1,X.2\n1,2\n")}
		}, nil, "d.csv:2:1: X has 2 columns, but `X` is declared real[N, P] at m.gpp:2:6, where P = 3\x00"},
		{"rank", "data x: real[N, M]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"x": [1, 2]}`)}
		}, nil, "x has a vector of 2 values, but `x` is declared real[N, M]"},
		{"declared N disagrees", "data N: int\ndata x: real[N]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"N": 3, "x": [1, 2]}`)}
		}, nil, "d.json:1:15: size N is 2 here (elements of x) but 3 from N (d.json:1:7)"},
		{"JSON size disagrees", "data y: real[N]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"y": [1, 2, 3], "N": 5}`)}
		}, nil, "d.json:1:23: N is 5 here but the data has 3 elements of y (d.json:1:7)"},
		{"JSON size not a scalar", "data y: real[N]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"y": [1], "N": [1]}`)}
		}, nil, "d.json:1:17: N is a size, bound to 1 by the elements of y (d.json:1:7), but here has a vector of 1 value"},
		{"JSON scalar for a vector", "data y: real[N]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"N": 1, "y": 2.5}`)}
		}, nil, "d.json:1:15: y has a single value, but `y` is declared real[N] at m.gpp:1:6 (a vector of one element is written [2.5]; from R, pass array(x, dim = 1) to write_stan_json)\x00"},
		{"JSON null for a vector", "data y: real[N]\nparam m: real\ny ~ Normal(m, 1)\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"y": null}`)}
		}, nil, "d.json:1:7: y has a single value, but `y` is declared real[N] at m.gpp:1:6 (a vector of one element is written [null];"},
		// CmdStan's "NaN" (or bare NaN) is quoted as written, a missing
		// value as null is (the hint said [null] for either).
		{"JSON \"NaN\" for a vector", "data y: real[N]\nparam m: real\ny ~ Normal(m, 1)\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"y": "NaN"}`)}
		}, nil, "d.json:1:7: y has a single value, but `y` is declared real[N] at m.gpp:1:6 (a vector of one element is written [\"NaN\"] (or [null]: either is a missing value); from R"},
		{"JSON \"NA\" for a vector", "data y: real[N]\nparam m: real\ny ~ Normal(m, 1)\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"y": "NA"}`)}
		}, nil, "(a vector of one element is written [\"NA\"] (or [null]: either is a missing value); from R"},
		{"JSON NaN for a vector", "data y: real[N]\nparam m: real\ny ~ Normal(m, 1)\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"y": NaN}`)}
		}, nil, "(a vector of one element is written [NaN] (or [null]: either is a missing value); from R"},
		{"--set size disagrees", "data Y: real[N, D]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "a,b\n1,2\n")}
		}, map[string]string{"D": "3"}, "d.csv:2:1: size D is 2 here (columns of Y), but --set D=3\x00"},
		{"twice", "data x: real[N]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"x": [1]}`), csvInput(t, "", "d.csv", "x\n1\n")}
		}, nil, "data `x` is given more than once: key \"x\" of d.json; column \"x\" of d.csv"},
		{"unknown named input", "data x: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "z", "z.csv", "x\n1\n")}
		}, nil, "z.csv: the model has no data named \"z\" (it declares x)"},
		{"set non-number", "data N: int\n", func(t *testing.T) []Input { return nil }, map[string]string{"N": "many"},
			"m.gpp:1:6: --set N=many: `N` is int data and \"many\" is not a number"},
		{"set vector", "data x: real[N]\n", func(t *testing.T) []Input { return nil }, map[string]string{"x": "3"},
			"m.gpp:1:6: --set x=3: `x` is a vector [N] data; --set gives scalars only"},
		{"simplex rows", "data p: simplex[N, K]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"p": [[0.5, 0.5], [0.2, 0.3]]}`)}
		}, nil, "p: row 1 sums to 0.5, not 1"},
		{"unbound size", "data x: real[N]\nparam w: real[M] ~ Normal(0, 1)\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"x": [1]}`)}
		}, nil, "M"},
		{"column of words read", "data x: real[N]\ndata y: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "x,y,name\n1,2,foo\n3,NA,bar\n")}
		}, nil, "d.csv:3:3: column \"y\": \"NA\" is read as a missing value: `y` is not observed by any ~, so its missing values would have no distribution; drop or fill in the rows with missing `y`\x00"},
		{"only column read is words", "data y: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "y,name\nfoo,bar\n")}
		}, nil, "d.csv:2:1: column \"y\": \"foo\" is not a number (a column of labels: declare it int (data y: int[N]) to code its labels 0, 1, ... in sorted order)\x00"}, // N is not also reported as unbound
		{"only column read is words, size given", "data y: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "y\nfoo\n"), jsonInput(t, "d.json", `{"N": 5}`)}
		}, nil, "d.csv:2:1: column \"y\": \"foo\" is not a number (a column of labels: declare it int (data y: int[N]) to code its labels 0, 1, ... in sorted order)\x00"}, // N, bound by no data, is not checked
		{"matrix takes a column of words", "data X: real[N, D]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "a,b,name\n1,2,foo\n3,4,bar\n")}
		}, nil, "d.csv:2:5: column \"name\": \"foo\" is not a number (a column of labels, which matrix `X` cannot take: leave it out of its columns (X=FILE.csv:-name, every other column, or X=FILE.csv:COL1,COL2), or bind it to an int vector of its own (data name: int[N]) to code its labels 0, 1, ... in sorted order)\x00"},
		{"named file's column of words read", "data y: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "y", "y.csv", "v\n1\nmany\n")}
		}, nil, "y.csv:3:1: column \"v\": \"many\" is not a number"},
		{"semicolons", "data x: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "x;y\n1;2\n3\n")} // ragged: read as one column
		}, nil, "the data has x;y (the file looks separated by \";\"; gpp reads comma-separated files)"},
		{"JSON string read", "data N: int\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"N": "ten", "note": "ten"}`)}
		}, nil, "d.json:1:7: \"N\": expected a number, found the string \"ten\"\x00"},
		{"JSON ragged rows read", "data X: real[N, M]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"X": [[1, 2], [3]]}`)}
		}, nil, "d.json:1:16: \"X\": row 2 has 1 elements, the rows before it 2\x00"},
		{"numbered columns with a gap", "data X: real[N, K]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "# comment\ny,X.1,X.3\n1,2,3\n")}
		}, nil, "d.csv:2:7: column \"X.3\": the header has no X.2 before it; the columns of X are numbered X.1, X.2, ... with none left out\x00"},
		{"numbered columns with a wider gap", "data X: real[N, K]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "X[5],X[1],X[2]\n1,2,3\n")}
		}, nil, "d.csv:1:1: column \"X[5]\": the header has no X[3] to X[4] before it; the columns of X are numbered X[1], X[2], ... with none left out\x00"},
		{"numbered columns not from 1", "data X: real[N, K]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "X.2,X.3\n1,2\n")}
		}, nil, "d.csv:1:1: column \"X.2\": the header has no X.1 before it"},
		{"numbered columns from 0", "data X: real[N, K]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "X[1],X[0]\n1,2\n")}
		}, nil, "d.csv:1:6: column \"X[0]\": a data file numbers the columns of X from 1 (X[1], X[2], ..., as CmdStan's draws.csv does), not from 0 as gpp's tables name elements\x00"},
		{"a column numbered twice", "data X: real[N, K]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "X.1,X.2,X[2]\n1,2,3\n")}
		}, nil, "d.csv:1:9: column \"X[2]\" numbers column 2 of X again, as \"X.2\" at d.csv:1:5 does\x00"},
		{"a column named as the matrix and numbered ones", "data X: real[N, K]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "X.1,X.2,X.3,X\n1,2,3,4\n")}
		}, nil, "d.csv:1:13: the header has both a column \"X\" and columns X.1 ... X.3 numbering the columns of `X` (declared real[N, K] at m.gpp:1:6): rename one, or select with X=d.csv:COL1,COL2\x00"},
		{"numbered columns in two files", "data X: real[N, K]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "a.csv", "X.1\n1\n"), csvInput(t, "", "b.csv", "X.1,X.2\n1,2\n")}
		}, nil, "m.gpp:1:6: data `X` is given more than once: columns X.1 of a.csv; columns X.1, X.2 of b.csv\x00"},
		{"a bad cell of a numbered column", "data X: real<lower=0>[N, K]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "X.2,a,X.1\n1,2,3\n4,5,-6\n")}
		}, nil, "d.csv:3:5: X: value -6 is not >= 0"},
		{"no matrix, numbered columns named", "data X: real[N, K]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "a.csv", "a\n1\n"), csvInput(t, "", "b.csv", "b\n2\n")}
		}, nil, "m.gpp:1:6: no data for `X` (real[N, K]): expected a JSON key \"X\", CSV columns X.1, X.2, ..., X=FILE.csv"},
		{"a vector's numbered columns with a gap", "data x: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "x.1,x.3\n1,2\n")}
		}, nil, "d.csv:1:5: column \"x.3\": the header has no x.2 before it; the elements of x are numbered x.1, x.2, ... with none left out\x00"},
		{"a vector's numbered columns from 0", "data x: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "x[0],x[1]\n1,2\n")}
		}, nil, "d.csv:1:1: column \"x[0]\": a data file numbers the elements of x from 1 (x[1], x[2], ..., as CmdStan's draws.csv does), not from 0 as gpp's tables name elements\x00"},
		{"a vector's element numbered twice", "data x: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "x.1,x.2,x[1]\n1,2,3\n")}
		}, nil, "d.csv:1:9: column \"x[1]\" numbers element 1 of x again, as \"x.1\" at d.csv:1:1 does\x00"},
		{"a column named as the vector and numbered ones", "data x: real[3]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "x,x.1,x.2,x.3\n1,2,3,4\n")}
		}, nil, "d.csv:1:1: the header has both a column \"x\" and columns x.1 ... x.3 numbering the elements of `x` (declared real[3] at m.gpp:1:6): rename one, or select with x=d.csv:COL1,COL2\x00"},
		{"a vector's numbered columns in a file of rows", "data x: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "a,x.2,x.1\n1,2,3\n4,5,6\n")}
		}, nil, "d.csv:1:7: columns x.1, x.2 number the elements of `x` (declared real[N] at m.gpp:1:6), a vector, which takes them from a file of one row; d.csv has 2 rows: a column \"x\" of one value per row, or a matrix declaration, reads them\x00"},
		{"a vector's row of the wrong length", "data x: real[3]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "x.1,x.2\n1,2\n")}
		}, nil, "d.csv:2:1: x has 2 elements, but `x` is declared real[3] at m.gpp:1:6\x00"},
		{"a bad cell of a vector's row", "data x: real<lower=0>[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "d.csv", "x.2,a,x.1\n1,2,-3\n")}
		}, nil, "d.csv:2:5: x: value -3 is not >= 0"},
		{"a vector's row and its column in two files", "data x: real[N]\n", func(t *testing.T) []Input {
			return []Input{csvInput(t, "", "a.csv", "x\n1\n2\n"), csvInput(t, "", "b.csv", "x.1,x.2\n1,2\n")}
		}, nil, "m.gpp:1:6: data `x` is given more than once: column \"x\" of a.csv; columns x.1, x.2 of b.csv\x00"},
		{"JSON size of another type", "data y: real[N]\n", func(t *testing.T) []Input {
			return []Input{jsonInput(t, "d.json", `{"y": [1], "N": "one"}`)}
		}, nil, "d.json:1:17: \"N\": expected a number, found the string \"one\"\x00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := parser.ParseFile("m.gpp", []byte(c.model))
			if err != nil {
				t.Fatal(err)
			}
			info, err := check.Check(f, &check.Config{Overrides: c.sets})
			if err != nil {
				// Some models are rejected by the checker already; that
				// is a positioned error too.
				if !strings.Contains(err.Error(), c.want) {
					t.Fatalf("check error %q does not contain %q", err, c.want)
				}
				return
			}
			_, err = Bind(info, c.inputs(t), c.sets)
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error()+"\x00", c.want) { // a want ending in \x00 must end the error
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, c.want)
			}
		})
	}
}

// TestUnused: a key or column named after a param, const, let or output is
// warned about, as is a file the model reads nothing from; other unused
// keys and columns are not (CmdStan ignores them too).
func TestUnused(t *testing.T) {
	info := checked(t, "data x: real[N]\nconst K = 2\nparam m: real ~ Normal(0, 1)\nlet t = m * 2\nx ~ Normal(t, 1)\noutput o = m + K\n")
	inputs := []Input{
		jsonInput(t, "d.json", `{"x": [1, 2], "m": 5, "K": 3, "t": 1, "o": 2, "note": "hi"}`),
		csvInput(t, "", "e.csv", "a,b\n1,2\n"),
		csvInput(t, "", "f.csv", "x2,note\n1,2\n"),
		csvInput(t, "", "g.csv", "a\u202eb\n1\n"),
	}
	want := []string{
		`d.json: key "K" names a const of the model, not data: it is ignored (set a const with --set K=VALUE)`,
		`d.json: key "m" names a param of the model, not data: it is ignored`,
		`d.json: key "o" names an output of the model, not data: it is ignored`,
		`d.json: key "t" names a let of the model, not data: it is ignored`,
		"e.csv gives no data the model reads (its columns: a, b)",
		"f.csv gives no data the model reads (its columns: x2, note)",
		`g.csv gives no data the model reads (its columns: a\u202eb)`,
	}
	if got := Unused(info, inputs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A matrix may take a whole CSV file, and a named input binds its name.
	info = checked(t, "data X: real[N, D]\n")
	if got := Unused(info, []Input{csvInput(t, "", "x.csv", "a,b\n1,2\n")}); len(got) != 0 {
		t.Errorf("matrix file: %v", got)
	}
}

// TestEmptyTables: a CSV file with a header and no rows whose column the
// model reads binds N = 0 and is warned of, naming the file, the data and
// the size (it fitted the prior in silence); one with rows, one whose
// columns the model does not read, and a JSON file are not.
func TestEmptyTables(t *testing.T) {
	info := checked(t, "data y: real[N]\ndata x: real[M]\nparam m: real ~ Normal(0, 1)\ny ~ Normal(m, 1)\nx ~ Normal(m, 1)\n")
	inputs := []Input{
		csvInput(t, "", "y.csv", "y\n"),
		csvInput(t, "", "other.csv", "note\n"),
		jsonInput(t, "x.json", `{"x": [1, 2]}`),
	}
	bound, err := Bind(info, inputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "y.csv has a header and no rows: y is empty (0 elements, N = 0), so the model observes nothing from this file"
	if got := EmptyTables(info, inputs, bound); len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("got %q\nwant one warning starting %q", got, want)
	}
	inputs[0] = csvInput(t, "", "y.csv", "y\n1\n")
	if bound, err = Bind(info, inputs, nil); err != nil {
		t.Fatal(err)
	}
	if got := EmptyTables(info, inputs, bound); len(got) != 0 {
		t.Errorf("a file with a row: %q", got)
	}
}

// TestUnderflows: a data value written nonzero that reads as 0 (1e-400,
// nearer 0 than any float64) is warned of at its cell, with a count of
// the others of its value, in CSV, JSON and R dump files alike; values a
// float64 holds (1e-300, the subnormal 1e-310) and zeros written with an
// exponent are not. 1e-400 became 0 in silence, while 1e309 is an error.
func TestUnderflows(t *testing.T) {
	info := checked(t, "data y: real[N]\ndata x: real[M]\ndata z: real[K]\n")
	rdump, err := ReadRDump("z.R", strings.NewReader("z <- c(2, 1e-400)\n"))
	if err != nil {
		t.Fatal(err)
	}
	inputs := []Input{
		csvInput(t, "", "y.csv", "y\n1e-300\n1e-310\n0e-500\n-1e-400\n2\n1e-999\n"),
		jsonInput(t, "x.json", `{"x": [1e-300, 0.0]}`),
		{File: "z.R", JSON: rdump},
	}
	bound, err := Bind(info, inputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"y.csv:5:1: y[3] is written -1e-400, nearer 0 than the smallest float64 (about 4.9e-324), so it is read as 0 (2 values of y are, the first here): a typo, or a unit to change?",
		"z.R:1:11: z[1] is written 1e-400, nearer 0 than the smallest float64 (about 4.9e-324), so it is read as 0: a typo, or a unit to change?",
	}
	if got := Underflows(bound); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v := bound["y"].Values; v[0] != 1e-300 || v[1] != 1e-310 || v[3] != 0 {
		t.Errorf("y = %v", v)
	}
}

// BindOptional leaves the optional declarations that no input gives
// unbound, with the sizes only they would bind; a size that is not
// optional is still an error when only optional data would bind it, and an
// optional matrix does not take every column of the positional CSV file
// that another declaration takes (TestBindOptionalWhole: one that nothing
// else reads).
func TestBindOptional(t *testing.T) {
	info := checked(t, "data X: real[N, D]\ndata Y: real[N, J]\ndata z: real[G]\nparam b: real[G] ~ Normal(0, 1)\n")
	in := csvInput(t, "", "new.csv", "x1,x2\n1,2\n3,4\n5,6\n")
	out, err := BindOptional(info, []Input{in}, map[string]string{"G": "4"}, map[string]bool{"Y": true, "J": true, "z": true})
	if err != nil {
		t.Fatal(err)
	}
	if x := out["X"]; x == nil || x.Shape[0] != 3 || x.Shape[1] != 2 {
		t.Errorf("X = %+v, want 3×2 from every column", x)
	}
	if _, ok := out["Y"]; ok {
		t.Error("Y is bound, want it left out")
	}
	if _, ok := out["J"]; ok {
		t.Error("J is bound, want it left out")
	}
	if out["G"].Values[0] != 4 {
		t.Errorf("G = %v, want 4 from --set", out["G"].Values)
	}
	// G not given: the size that the param needs is an error, although
	// the data that would bind it (z) may be left out.
	_, err = BindOptional(info, []Input{in}, nil, map[string]bool{"Y": true, "J": true, "z": true})
	if err == nil || !strings.Contains(err.Error(), "size G (declared at m.gpp:3:14) is not bound by any data") {
		t.Errorf("err = %v, want size G not bound", err)
	}
	// Bind itself still wants Y.
	if _, err := Bind(info, []Input{in}, map[string]string{"G": "4"}); err == nil {
		t.Error("Bind without Y succeeded")
	}
}

// The one optional matrix left may take every column of the one positional
// CSV file when nothing else was bound from it, as Bind gives it, so that
// gpp predict on GPFA's own data binds the size D that W's shape needs; a
// file whose columns another declaration reads by name is not taken whole.
func TestBindOptionalWhole(t *testing.T) {
	info := checked(t, "data Y: real[N, D]\ndata x: real[M]\nparam W: real[D] ~ Normal(0, 1)\n")
	optional := map[string]bool{"Y": true, "N": true, "x": true, "M": true}
	in := csvInput(t, "", "y.csv", "a,b,c\n1,2,3\n4,5,6\n")
	out, err := BindOptional(info, []Input{in}, nil, optional)
	if err != nil {
		t.Fatal(err)
	}
	if y := out["Y"]; y == nil || y.Shape[0] != 2 || y.Shape[1] != 3 {
		t.Errorf("Y = %+v, want 2×3 from every column", y)
	}
	if d := out["D"]; d == nil || d.Values[0] != 3 {
		t.Errorf("D = %+v, want 3 from Y's columns", d)
	}
	// x read by name from the same file: Y is left out, and D, which W
	// needs, is the usual error.
	in = csvInput(t, "", "new.csv", "x,b\n1,2\n")
	out, err = BindOptional(info, []Input{in}, nil, optional)
	if err == nil || !strings.Contains(err.Error(), "size D (declared at m.gpp:1:17) is not bound by any data") {
		t.Errorf("err = %v, want size D not bound", err)
	}
	if _, ok := out["Y"]; ok {
		t.Error("Y took the file whose column x is bound by name")
	}
	// Given by name, as before.
	in = csvInput(t, "Y", "y.csv", "a,b\n1,2\n")
	if out, err = BindOptional(info, []Input{in}, nil, optional); err != nil || out["D"] == nil || out["D"].Values[0] != 2 {
		t.Errorf("Y=y.csv: D = %+v, err %v", out["D"], err)
	}
}

// TestBindIndexedColumns: a matrix declaration X binds the positional CSV
// file's columns X.1, X.2, ... (or X[1], ...) in the order of their
// numbers, X.10 after X.9, however the header orders them, beside a vector
// bound by name and a column the model does not read; its column count is
// the number of such columns.
func TestBindIndexedColumns(t *testing.T) {
	info := checked(t, "data y: real[N]\ndata X: real[N, K]\nparam b: real[K] ~ Normal(0, 1)\ny ~ Normal(X * b, 1)\n")
	// header: y, X.10, X.1, ..., X.9, note, X.11, X.12; cell X.k of row r is 100r + k
	order := []int{10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 11, 12}
	var head []string
	for _, k := range order {
		if k == 0 {
			head = append(head, "note")
		} else {
			head = append(head, fmt.Sprintf("X.%d", k))
		}
	}
	src := "y," + strings.Join(head, ",") + "\n"
	for r := 0; r < 3; r++ {
		src += fmt.Sprint(-r)
		for _, k := range order {
			if k == 0 {
				src += ",text"
			} else {
				src += fmt.Sprintf(",%d", 100*r+k)
			}
		}
		src += "\n"
	}
	out, err := Bind(info, []Input{csvInput(t, "", "wide.csv", src)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := out["X"]
	if len(x.Shape) != 2 || x.Shape[0] != 3 || x.Shape[1] != 12 {
		t.Fatalf("X has shape %v, want [3 12]", x.Shape)
	}
	for r := 0; r < 3; r++ {
		for k := 1; k <= 12; k++ {
			if v := x.Values[r*12+k-1]; v != float64(100*r+k) {
				t.Errorf("X[%d, %d] = %v, want %d (column X.%d)", r, k-1, v, 100*r+k, k)
			}
		}
	}
	// A cell is located in its own column of the file: X.10 is the
	// header's second column, X.1 its third.
	if p := x.Locate(2*12 + 9); p.Line != 4 || p.Col != strings.Index(strings.Split(src, "\n")[3], ",210")+2 {
		t.Errorf("X[2, 9] located at %v", p)
	}
	if out["K"].Values[0] != 12 || out["N"].Values[0] != 3 || out["y"].Values[2] != -2 {
		t.Errorf("K = %v, N = %v, y = %v", out["K"].Values, out["N"].Values, out["y"].Values)
	}

	// summary.csv's style, X[1], X[2]; a size declared as a constant
	info = checked(t, "data X: real[N, 2]\n")
	out, err = Bind(info, []Input{csvInput(t, "", "b.csv", "X[2],X[1],Xs\n1,2,3\n4,5,6\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := out["X"].Values; !slices.Equal(got, []float64{2, 1, 5, 4}) {
		t.Errorf("X = %v, want [2 1 5 4]", got)
	}

	// Columns of two matrices in one file, and BindPartial (the REPL)
	// binds them at once rather than waiting, as it waits for a matrix
	// that would take every column.
	info = checked(t, "data X: real[N, K]\ndata Z: int[N, J]\n")
	in := csvInput(t, "", "c.csv", "Z.1,X.1,X.2,Z.2,Z.3\n1,2,3,4,5\n")
	bound, missing, err := BindPartial(info, []Input{in}, nil)
	if err != nil || len(missing) != 0 {
		t.Fatalf("missing %v, err %v", missing, err)
	}
	if !slices.Equal(bound["X"].Values, []float64{2, 3}) || !slices.Equal(bound["Z"].Values, []float64{1, 4, 5}) || !bound["Z"].Int || bound["J"].Values[0] != 3 {
		t.Errorf("X = %v, Z = %v, J = %v", bound["X"].Values, bound["Z"].Values, bound["J"].Values)
	}

	// The columns X.1, ... are bound by name: another matrix that would
	// take every column of the file is told which columns are its own.
	info = checked(t, "data X: real[N, K]\ndata W: real[N, J]\n")
	_, err = Bind(info, []Input{csvInput(t, "", "d.csv", "a,X.1,X.2,b\n1,2,3,4\n")}, nil)
	if want := "m.gpp:2:6: `W` would take every column of d.csv, including columns \"X.1\", \"X.2\", which are bound by name: give `W` its columns, as W=d.csv:a,b"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// TestBindIndexedVector: a vector declaration x binds a positional CSV
// file of one row from its columns x.1, x.2, ... (or x[1], ...) in the
// order of their numbers, as R writes a vector as a wide row, beside
// columns it does not read; its size is their count, an int vector's
// values are ints, each element is located at its own cell, and the file
// is not reported as giving nothing the model reads. A missing cell of a
// vector the model observes is fitted, its note naming line:column.
func TestBindIndexedVector(t *testing.T) {
	info := checked(t, "data x: real[N]\ndata k: int[M]\nparam mu: real ~ Normal(0, 1)\nx ~ Normal(mu, 1)\noutput x2 = x\n")
	// header: note, x.10, x.1 ... x.9, then k[2], k[1]; cell x.j is 10 j
	order := []int{0, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	var head, row []string
	for _, j := range order {
		if j == 0 {
			head, row = append(head, "note"), append(row, "text")
			continue
		}
		head, row = append(head, fmt.Sprintf("x.%d", j)), append(row, fmt.Sprint(10*j))
	}
	src := strings.Join(append(head, "k[2]", "k[1]"), ",") + "\n" + strings.Join(append(row, "7", "5"), ",") + "\n"
	in := csvInput(t, "", "row.csv", src)
	out, err := Bind(info, []Input{in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := out["x"]
	if len(x.Shape) != 1 || x.Shape[0] != 10 || out["N"].Values[0] != 10 {
		t.Fatalf("x has shape %v, N = %v; want [10], 10", x.Shape, out["N"].Values)
	}
	for j := 1; j <= 10; j++ {
		if v := x.Values[j-1]; v != float64(10*j) {
			t.Errorf("x[%d] = %v, want %d (column x.%d)", j-1, v, 10*j, j)
		}
	}
	if k := out["k"]; !slices.Equal(k.Values, []float64{5, 7}) || !k.Int || out["M"].Values[0] != 2 {
		t.Errorf("k = %v (int %v), M = %v; want [5 7], int, 2", k.Values, k.Int, out["M"].Values)
	}
	// x.10 is the header's second column, x.1 its third
	if p := x.Locate(9); p.Line != 2 || p.Col != len("text,")+1 {
		t.Errorf("x[9] located at %v, want 2:6", p)
	}
	if p := x.Locate(0); p.Line != 2 || p.Col != len("text,100,")+1 {
		t.Errorf("x[0] located at %v, want 2:10", p)
	}
	if w := Unused(info, []Input{in}); len(w) != 0 {
		t.Errorf("warnings %q, want none", w)
	}

	in = csvInput(t, "", "m.csv", "x[2],x[1],x[3]\n2,1.5,NA\n")
	out, err = Bind(info, []Input{in, csvInput(t, "", "k.csv", "k\n1\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := MissingNotes(info, out, nil)
	if want := "x: 1 missing value (m.csv 2:7) is fitted as the latent x_missing"; len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
}
