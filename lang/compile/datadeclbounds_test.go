package compile

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// claimsModel is the actuary's censored claims: each claim y[i] never
// above its policy limit u[i] (Stan's vector<lower=0, upper=u>[N] y).
const claimsModel = `data u: positive[N]
data y: real<lower=0, upper=u>[N]
param mu: real
param s: positive
mu ~ Normal(0, 10)
s ~ HalfNormal(1)
y ~ Normal(mu, s)
`

// TestDataElemBoundsValues: data bounded by other data, per element or by
// a scalar, is checked value by value when the model compiles with its
// data, inclusively as Stan does; a violation is an error at the value's
// cell naming the bound's element and, for data read unchanged, its cell.
func TestDataElemBoundsValues(t *testing.T) {
	csv := func(text string) data.Input {
		tab, err := data.ReadCSV("d.csv", strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		return data.Input{File: "d.csv", Table: tab}
	}
	cases := []struct {
		name, src string
		in        data.Input
		want      string // "" for none
	}{
		{"under its limits", claimsModel, csv("u,y\n1000,500\n2000,2000\n3000,0\n"), ""},
		{"above u[3]", claimsModel, csv("u,y\n1000,500\n2000,1500\n3000,2999\n4000,4200\n5000,10\n"),
			"d.csv:5:6: y: value 4200 is above its upper bound u[3] = 4000 (u's cell d.csv:5:1); `y` is declared real<lower=0, upper=u>[N] at m.gpp:2:6"},
		{"JSON", claimsModel, jsonData(t, `{"u": [10, 20, 30], "y": [5, 21, 31]}`),
			"d.json:1:30: y: value 21 is above its upper bound u[1] = 20 (u's cell d.json:1:12); `y` is declared real<lower=0, upper=u>[N] at m.gpp:2:6"},
		{"constant side still checked by Bind", claimsModel, jsonData(t, `{"u": [10, 20], "y": [-1, 5]}`),
			"d.json:1:23: y: value -1 is not >= 0; `y` is declared real<lower=0, upper=u>[N] at m.gpp:2:6"},
		{"lower per element", `data c: real[N]
data y: real<lower=c>[N]
param mu: real
y ~ Normal(mu, 1)
`, jsonData(t, `{"c": [1, 2, 3], "y": [1, 2, 2.5]}`),
			"d.json:1:30: y: value 2.5 is below its lower bound c[2] = 3 (c's cell d.json:1:14); `y` is declared real<lower=c>[N] at m.gpp:2:6"},
		{"arithmetic of data", `data u: positive[N]
data y: real<upper=2 * u - 1>[N]
param mu: real
y ~ Normal(mu, 1)
`, jsonData(t, `{"u": [10, 20], "y": [19, 40]}`),
			"d.json:1:27: y: value 40 is above its upper bound (2 * u - 1)[1] = 39; `y` is declared real<upper=2 * u - 1>[N] at m.gpp:2:6"},
		{"matrix", `data A: real[N, 2]
data Y: real<upper=A>[N, 2]
param mu: real
Y ~ Normal(mu, 1)
`, jsonData(t, `{"A": [[1, 2], [3, 4]], "Y": [[1, 2], [3, 4.5]]}`),
			"d.json:1:43: Y: value 4.5 is above its upper bound A[1, 1] = 4 (A's cell d.json:1:20); `Y` is declared real<upper=A>[N, 2] at m.gpp:2:6"},
		{"scalar data bound", `data m: positive
data y: real<lower=0, upper=m>[N]
param mu: real
y ~ Normal(mu, 1)
`, jsonData(t, `{"m": 3, "y": [1, 2, 5]}`),
			"d.json:1:22: y: value 5 is above its upper bound m = 3 (m's cell d.json:1:7); `y` is declared real<lower=0, upper=m>[N] at m.gpp:2:6"},
		{"scalar bound of arithmetic", `data c: real[K]
data y: real<lower=max(c)>[N]
param mu: real
y ~ Normal(mu, 1)
`, jsonData(t, `{"c": [1, 4, 2], "y": [4, 3.5]}`),
			"d.json:1:27: y: value 3.5 is below its lower bound `max(c)` = 4; `y` is declared real<lower=max(c)>[N] at m.gpp:2:6"},
		{"int counts under their trials", `data n: int<lower=1>[N]
data y: int<lower=0, upper=n>[N]
param p: unit
y ~ Binomial(n, p)
`, jsonData(t, `{"n": [10, 5, 8], "y": [3, 5, 9]}`),
			"d.json:1:31: y: value 9 is above its upper bound n[2] = 8 (n's cell d.json:1:15); `y` is declared int<lower=0, upper=n>[N] at m.gpp:2:6"},
		{"bound of another length", `data M: int
data u: positive[K]
data y: real<upper=u[0:M]>[N]
param mu: real
y ~ Normal(mu, 1)
`, jsonData(t, `{"M": 3, "u": [10, 20, 30], "y": [1, 2]}`),
			"m.gpp:3:20: the upper bound `u[0:M]` of `y` is [3] with this data, not of `y`'s shape [2]: a bound per element needs one per element"},
		{"bound of one element", `data M: int
data u: positive[K]
data y: real<upper=u[0:M]>[N]
param mu: real
y ~ Normal(mu, 1)
`, jsonData(t, `{"M": 1, "u": [10, 20, 30], "y": [1, 2]}`),
			"m.gpp:3:20: the upper bound `u[0:M]` of `y` is [1] with this data, not of `y`'s shape [2]: a bound per element needs one per element"},
		{"a failing bound's error once", `data u: positive[K]
data m: positive
data y: real<upper=u[5]>[N]
data z: real<upper=m>[N]
param mu: real
y ~ Normal(mu, 1)
z ~ Normal(mu, 1)
`, jsonData(t, `{"u": [10, 20, 30], "m": 3, "y": [1, 2], "z": [1, 2]}`),
			"m.gpp:3:22: index 5 out of range [0, 3) along axis 0 of `u` (indices are 0-based)"},
		{"one element each", claimsModel, jsonData(t, `{"u": [10], "y": [11]}`),
			"d.json:1:19: y: value 11 is above its upper bound u[0] = 10 (u's cell d.json:1:8); `y` is declared real<lower=0, upper=u>[N] at m.gpp:2:6"},
	}
	for _, c := range cases {
		_, err := compileSrcErr(t, "m.gpp", c.src, nil, c.in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s: error\n%v\nwant\n%s", c.name, err, c.want)
		}
	}
}

// TestDataBoundSizeFrom: a bound that reads a size bound by a file's rows
// says so, so that a table cut short (teachers.csv of 199 rows, not 200)
// shows as the cause of the error at a student's row.
func TestDataBoundSizeFrom(t *testing.T) {
	csv := func(file, text string) data.Input {
		tab, err := data.ReadCSV(file, strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		return data.Input{File: file, Table: tab}
	}
	src := `data J: int
data tschool: int<lower=0>[J]
data teacher: int<lower=0, upper=J-1>[N]
data y: real[N]
param u: real[J] ~ Normal(0, 1)
y ~ Normal(u[teacher], 1)
`
	_, err := compileSrcErr(t, "m.gpp", src, nil, csv("students.csv", "teacher,y\n0,1\n2,1\n1,0\n"), csv("teachers.csv", "tschool\n0\n1\n"))
	want := "students.csv:3:1: teacher: value 2 is above its upper bound `J - 1` = 1 (J = 2: the rows of teachers.csv); `teacher` is declared int<lower=0, upper=J - 1>[N] at m.gpp:3:6"
	if err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
	// tschool in a JSON file
	_, err = compileSrcErr(t, "m.gpp", src, nil, csv("students.csv", "teacher,y\n0,1\n2,1\n1,0\n"), jsonData(t, `{"tschool": [0, 1]}`))
	if err == nil || !strings.Contains(err.Error(), "(J = 2: the length of `tschool` in d.json)") {
		t.Errorf("tschool from JSON: %v", err)
	}
	// teacher as labels, one of them in no other file (t9) and one
	// another's but for case (T1): the cell holds the label, not its code
	lsrc := "data J: int\ndata teacher: int<lower=0, upper=J-1>[N]\ndata tname: int<lower=0, upper=J-1>[J]\ndata y: real[N]\nparam u: real[J] ~ Normal(0, 1)\ny ~ Normal(u[teacher], 1)\n"
	for _, c := range []struct{ cell, want string }{
		{"t9", `students.csv:3:1: teacher: label "t9", coded 2 of 3 labels, is above its upper bound ` + "`J - 1`" + ` = 1 (J = 2: the rows of teachers.csv)`},
		{"t1", `students.csv:3:1: teacher: label "t1" ("T1" but for case), coded 2 of 3 labels, is above its upper bound`},
	} {
		_, err = compileSrcErr(t, "m.gpp", lsrc, nil, csv("students.csv", "teacher,y\nT0,1\n"+c.cell+",1\nT1,0\n"), csv("teachers.csv", "tname\nT0\nT1\n"))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("label %s: error\n%v\nwant it to begin\n%s", c.cell, err, c.want)
		}
	}
	// J given in a JSON file: its value is data, and no shape is named
	_, err = compileSrcErr(t, "m.gpp", src, nil, csv("students.csv", "teacher,y\n0,1\n2,1\n1,0\n"), jsonData(t, `{"J": 2, "tschool": [0, 1]}`))
	if err == nil || strings.Contains(err.Error(), "J = 2:") {
		t.Errorf("J from JSON: %v", err)
	}
}

// TestDataElemBoundsMissing: a missing cell of bounded data (a value gpp
// predict draws) is not checked against its bound; the others are.
func TestDataElemBoundsMissing(t *testing.T) {
	_, info := checkSrc(t, claimsModel)
	bound, err := data.Bind(info, []data.Input{jsonData(t, `{"u": [10, 20, 30], "y": [5, 6, 7]}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	y := *bound["y"]
	// the missing cell holds a value above u[1] = 20, which a check of it
	// would report (a NaN passes any comparison)
	y.Values = []float64{5, 99, 7}
	y.Missing = []int{1}
	bound["y"] = &y
	if err := checkDataBounds(info, bound); err != nil {
		t.Errorf("a missing cell was checked: %v", err)
	}
	y.Values = slices.Clone(y.Values)
	y.Values[2] = 31
	if err := checkDataBounds(info, bound); err == nil || !strings.Contains(err.Error(), "y: value 31 is above its upper bound u[2] = 30") {
		t.Errorf("with a missing cell, y[2] = 31 above u[2] = 30: %v", err)
	}
}
