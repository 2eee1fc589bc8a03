package data

import (
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// input is a fuzzed file: its name and the length of each line, for
// checking positions in it.
type input struct {
	file  string
	lines []int
}

func newInput(file string, src []byte) *input {
	in := &input{file: file}
	for l := range bytes.SplitSeq(src, []byte("\n")) {
		in.lines = append(in.lines, len(l))
	}
	return in
}

// inFile fails t unless pos is a position inside the input: line 1 to
// its last, column 1 to one past the end of its line.
func (in *input) inFile(t *testing.T, what string, pos ast.Pos) {
	t.Helper()
	if pos.File != in.file || pos.Line < 1 || pos.Line > len(in.lines) || pos.Col < 1 || pos.Col > in.lines[pos.Line-1]+1 {
		t.Fatalf("%s at %q line %d col %d, outside %s (%d lines)", what, pos.File, pos.Line, pos.Col, in.file, len(in.lines))
	}
}

// positioned fails t unless err is one *ast.Error inside the input.
func (in *input) positioned(t *testing.T, err error) {
	t.Helper()
	var l ast.ErrorList
	if errors.As(err, &l) { // errors.As would find its first *ast.Error too
		t.Fatalf("a list of %d errors, want one *ast.Error: %v", len(l), err)
	}
	var e *ast.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T without a position: %v", err, err)
	}
	in.inFile(t, "error "+e.Msg, e.Pos)
}

// checkArray fails t unless a's error, if any, is positioned inside the input
// and, if a is numbers (no error other than missing cells), its values
// fill its shape, its missing cells are NaN and listed once in order, and
// every element is located inside the input.
func (in *input) checkArray(t *testing.T, a *Array) {
	t.Helper()
	if err := a.Err(); err != nil {
		in.positioned(t, err)
	}
	if a.bad != nil {
		return // not numbers: Bind reports the error for a value it reads
	}
	n := 1
	for _, d := range a.Shape {
		if d < 0 {
			t.Fatalf("%s: shape %v", a.Name, a.Shape)
		}
		n *= d
	}
	if n != len(a.Values) {
		t.Fatalf("%s: shape %v holds %d values, has %d", a.Name, a.Shape, n, len(a.Values))
	}
	if !slices.IsSorted(a.Missing) || len(slices.Compact(slices.Clone(a.Missing))) != len(a.Missing) {
		t.Fatalf("%s: missing elements %v not increasing", a.Name, a.Missing)
	}
	for _, i := range a.Missing {
		if i < 0 || i >= len(a.Values) || a.Values[i] == a.Values[i] {
			t.Fatalf("%s: missing element %d of %d is %v", a.Name, i, len(a.Values), a.Values[min(max(i, 0), len(a.Values)-1)])
		}
	}
	for i := range a.Values {
		in.inFile(t, a.Name+" element", a.Locate(i))
	}
}

// FuzzReadCSV reads any bytes as a CSV file and as a TSV file: no panic;
// an error is an *ast.Error inside the input; a table has a column per
// header name, each of Rows values located inside the input, and its
// matrix fills Rows × columns.
//
//	go test ./data -run '^$' -fuzz '^FuzzReadCSV$' -fuzztime 4m -parallel 1
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"i,j,w\n0,1,0.5\n2,3,1e-3\n",
		"\ufeffi\tj\tw\tnote\r\n0\t1\t0.5\t\"a, b\"\r\n2\t3\tNA\tc\r\n",
		"sep=,\r\ny,k\r\n1.5,TRUE\r\nNA,FALSE\r\n-0.2,True\r\n",
		"y\n1.5\n\n-0.2\n\n",
		"# comment\ny\n\"1\n2\"\n  \n3\n",
		"a;b\n1,5;2\n",
		",a,b\n1,2,3\n",
		"a,b,\n1,2,\n",
		"x\n1,000\n\"1,5\"\n.\n\u22121\n9007199254740993\n1e400\nInf\n0x10\n",
		"a\tb\n1\t2\t3\n",
		"y\r1\r2\r",
		"a,b\n\"1\"\"\",2\n\"unterminated\n",
		"x.1,x.2,x[3]\n1,2,3\n",
		"county,y\nAITKIN,1\n\"BIG STONE\",2\nNA,3\nAITKIN,4\nb,x\n",
	} {
		f.Add([]byte(s))
	}
	// each column bound as a group index whose labels, if it has them, give J
	af, err := parser.ParseFile("m.gpp", []byte("data J: int\ndata g: int<lower=0, upper=J-1>[N]\n"))
	if err != nil {
		f.Fatal(err)
	}
	info, err := check.Check(af, &check.Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, read := range []struct {
			file string
			fn   func(string, io.Reader) (*Table, error)
		}{{"d.csv", ReadCSV}, {"d.tsv", ReadTSV}} {
			in := newInput(read.file, src)
			tab, err := read.fn(read.file, bytes.NewReader(src))
			if err != nil {
				if tab != nil {
					t.Fatalf("%s: a table and an error %v", read.file, err)
				}
				in.positioned(t, err)
				continue
			}
			if tab.Rows < 1 || len(tab.Columns) < 1 {
				t.Fatalf("%s: a table of %d rows and %d columns without an error", read.file, tab.Rows, len(tab.Columns))
			}
			if len(tab.rowLine) != tab.Rows || len(tab.cellAt) != tab.Rows {
				t.Fatalf("%s: %d rows, %d row lines, %d rows of cell positions", read.file, tab.Rows, len(tab.rowLine), len(tab.cellAt))
			}
			for _, cols := range tab.cellAt {
				if len(cols) != len(tab.Columns) {
					t.Fatalf("%s: a row of %d cells, %d columns", read.file, len(cols), len(tab.Columns))
				}
			}
			var names []string
			for j, c := range tab.Columns {
				if c.Name == "" || c.Name != strings.TrimSpace(c.Name) || slices.Contains(names, c.Name) {
					t.Fatalf("%s: column %d named %q (the others %q)", read.file, j, c.Name, names)
				}
				names = append(names, c.Name)
				if !slices.Equal(c.Shape, []int{tab.Rows}) {
					t.Fatalf("%s: column %q of shape %v in a table of %d rows", read.file, c.Name, c.Shape, tab.Rows)
				}
				in.inFile(t, "column "+c.Name, tab.header(j))
				in.checkArray(t, c)
				if c.labels != nil && len(c.labels) != tab.Rows {
					t.Fatalf("%s: column %q of %d rows has %d labels", read.file, c.Name, tab.Rows, len(c.labels))
				}
				sel, err := tab.Select([]string{c.Name}, "g="+read.file)
				if err != nil {
					t.Fatalf("%s: selecting column %q: %v", read.file, c.Name, err)
				}
				bound, err := Bind(info, []Input{{Name: "g", File: read.file, Table: sel}}, map[string]string{})
				if err != nil { // each error in the data, or in the model (J's)
					var l ast.ErrorList
					if !errors.As(err, &l) || len(l) == 0 {
						t.Fatalf("%s: binding column %q: %T %v", read.file, c.Name, err, err)
					}
					for _, e := range l {
						if e.Pos.File != "m.gpp" {
							in.inFile(t, "error "+e.Msg, e.Pos)
						}
					}
					continue
				}
				if g, jv := bound["g"], bound["J"]; g.Levels != nil {
					if jv == nil || int(jv.Values[0]) != len(g.Levels.Labels) {
						t.Fatalf("%s: column %q: %d labels, J %v", read.file, c.Name, len(g.Levels.Labels), jv)
					}
					for i, v := range g.Values {
						if !g.isMissing(i) && (v < 0 || v >= jv.Values[0] || v != math.Trunc(v) || g.Levels.Labels[int(v)] != c.labels[i]) {
							t.Fatalf("%s: column %q: element %d coded %g for %q", read.file, c.Name, i, v, c.labels[i])
						}
					}
				}
			}
			m := tab.Matrix("X")
			in.checkArray(t, m)
			sel, err := tab.Select(names[len(names)-1:], "X="+read.file)
			if err != nil || sel.Rows != tab.Rows || sel.Columns[0] != tab.Columns[len(names)-1] {
				t.Fatalf("%s: selecting column %q: %v", read.file, names[len(names)-1], err)
			}
			in.checkArray(t, sel.Matrix("X"))
			if sub, _, err := tab.Indexed("x", false); err != nil {
				in.inFile(t, "Indexed error", err.Pos)
			} else if sub != nil {
				in.checkArray(t, sub.Matrix("x"))
			}
		}
	})
}

// FuzzReadJSON reads any bytes as a JSON data file: no panic; an error is
// an *ast.Error inside the input; every array's values fill its shape,
// located inside the input, and its error, if any, is inside it.
//
//	go test ./data -run '^$' -fuzz '^FuzzReadJSON$' -fuzztime 4m -parallel 1
func FuzzReadJSON(f *testing.F) {
	for _, s := range []string{
		`{"N": 3, "y": [1, 2.5, -3e2], "X": [[1, 2], [3, 4]]}`,
		"\ufeff{\"y\": [1.5, NaN, -0.2], \"k\": [1, 0, 1], \"X\": [[Infinity, -Infinity]], \"note\": \"NaN\"}",
		`{"y": [null, "NaN", "Inf", "-inf"], "e": [], "E": [[], []], "s": "text", "b": [true, false]}`,
		`{"A": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], "r": [[1, 2], [3]], "o": {"a": 1}}`,
		`{"n": 9007199254740993, "m": 1e400, "z": -0, "d": 1.0}`,
		"{\n  \"y\": [1,\n  2,\n",
		`{"a": 1, "a": 2}`,
		`[1, 2]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		in := newInput("d.json", src)
		set, err := ReadJSON(in.file, bytes.NewReader(src))
		if err != nil {
			if set != nil {
				t.Fatalf("arrays and an error %v", err)
			}
			in.positioned(t, err)
			return
		}
		for name, a := range set {
			if a.Name != name {
				t.Fatalf("key %q holds the array %q", name, a.Name)
			}
			in.inFile(t, name, a.Pos)
			in.checkArray(t, a)
		}
	})
}
