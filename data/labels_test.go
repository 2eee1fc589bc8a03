package data

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A CSV column whose cells are all labels binds an int vector as codes of
// its distinct labels sorted in byte order, from the declaration's lower
// bound or 0; missing cells stay missing, Levels records the coding, and
// LevelNotes says it.
func TestBindLabels(t *testing.T) {
	const src = "county,y\nBECKER,1\nAITKIN,2\n\"YELLOW MEDICINE\",3\nAITKIN,4\nANOKA,5\nbecker,6\n"
	for _, c := range []struct {
		name, decl string
		first      int
	}{
		{"from 0", "int[N]", 0},
		{"lower 1", "int<lower=1>[N]", 1},
		{"lower -2", "int<lower=-2, upper=3>[N]", -2},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := checked(t, "data county: "+c.decl+"\ndata y: real[N]\n")
			bound, err := Bind(info, []Input{csvInput(t, "", "radon.csv", src)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := bound["county"]
			f := float64(c.first)
			// byte order: upper case before lower case, "YELLOW MEDICINE" before "becker"
			want := []float64{f + 2, f + 0, f + 3, f + 0, f + 1, f + 4}
			if !slices.Equal(a.Values, want) || !a.Int {
				t.Errorf("codes %v (int %v), want %v", a.Values, a.Int, want)
			}
			lv := a.Levels
			if lv == nil || lv.First != c.first || !slices.Equal(lv.Labels, []string{"AITKIN", "ANOKA", "BECKER", "YELLOW MEDICINE", "becker"}) || lv.Column != "county" || lv.File != "radon.csv" {
				t.Errorf("levels %+v", lv)
			}
			if got := Coded(info, bound); len(got) != 1 || got["county"].First != c.first {
				t.Errorf("Coded: %v", got)
			}
		})
	}
	info := checked(t, "data county: int[N]\ndata y: real[N]\n")
	bound, err := Bind(info, []Input{csvInput(t, "", "radon.csv", src)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := LevelNotes(info, bound, false)
	want := `radon.csv: column "county": 5 labels coded 0 to 4 in sorted order (AITKIN 0, ANOKA 1, BECKER 2, YELLOW MEDICINE 3, becker 4)`
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
	// Of more labels, the first few, "…" and the last.
	long := "g\nA\nB\nC\nD\nE\nF\nG\n"
	info = checked(t, "data g: int<lower=1>[N]\n")
	bound, err = Bind(info, []Input{csvInput(t, "", "g.csv", long)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = `g.csv: column "g": 7 labels coded 1 to 7 in sorted order (A 1, B 2, C 3, D 4, …, G 7)`
	if notes := LevelNotes(info, bound, false); len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
	// A label holding a line break, a comma or space at an end is quoted
	// in the note as the summaries quote it, so that the note stays one
	// line and its list reads unambiguously; others are as written.
	info = checked(t, "data g: int[N]\n")
	bound, err = Bind(info, []Input{csvInput(t, "", "g.csv", "g\n\"Lyc\u00e9e\nFran\u00e7ais\"\n\"Paris, France\"\nNorth High\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = `g.csv: column "g": 3 labels coded 0 to 2 in sorted order ("Lycée\nFrançais" 0, North High 1, "Paris, France" 2)`
	if notes := LevelNotes(info, bound, false); len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
	// Numbers are not coded, and no note says so.
	bound, err = Bind(info, []Input{csvInput(t, "", "g.csv", "g\n2\n1\n")}, nil)
	if err != nil || bound["g"].Levels != nil || len(LevelNotes(info, bound, false)) != 0 || Coded(info, bound) != nil {
		t.Errorf("a numeric column: err %v, levels %v", err, bound["g"].Levels)
	}
}

// Missing cells of a column of labels stay missing (NaN, in Missing):
// fitted where the model fits them, an error where it does not, as for
// numbers.
func TestBindLabelsMissing(t *testing.T) {
	const src = "g\nB\nNA\nA\n\nB\n"
	info := checked(t, "data g: int[N]\n")
	_, err := Bind(info, []Input{csvInput(t, "", "g.csv", src)}, nil)
	if err == nil || !strings.Contains(err.Error(), `g.csv:3:1: column "g": "NA" is read as a missing value (the first of 2)`) {
		t.Errorf("missing labels of data that fits none: error %v", err)
	}
	a, err := readColumn(t, src)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Missing, []int{1, 3}) || !slices.Equal(a.labels, []string{"B", "", "A", "", "B"}) {
		t.Errorf("missing %v, labels %q", a.Missing, a.labels)
	}
	b := &binder{}
	d := info.DataVar("g")
	coded, cerr := b.codeLabels(d, a)
	if cerr != nil {
		t.Fatal(cerr)
	}
	if coded.Values[0] != 1 || !math.IsNaN(coded.Values[1]) || coded.Values[2] != 0 || !math.IsNaN(coded.Values[3]) || !slices.Equal(coded.Missing, []int{1, 3}) {
		t.Errorf("coded %v, missing %v", coded.Values, coded.Missing)
	}
}

// readColumn reads the first column of a CSV file.
func readColumn(t *testing.T, src string) (*Array, error) {
	t.Helper()
	tab, err := ReadCSV("g.csv", strings.NewReader(src))
	if err != nil {
		return nil, err
	}
	return tab.Columns[0], nil
}

// Text that is no column of labels stays the error at its first text cell:
// a column mixing numbers and text (a typo in a numeric column), numbers
// written with a thousands separator, a decimal comma or the digits of
// another script, Stata's "."; a
// column of labels bound to anything but an int vector is the same error
// with the hint that an int vector codes it; an upper bound below the
// labels' count is the usual positioned error.
func TestBindLabelsErrors(t *testing.T) {
	for _, c := range []struct{ name, model, csv, want string }{
		{"mixed", "data g: int[N]\n", "g\n1\nA\n2\n", `d.csv:3:1: column "g": "A" is not a number` + "\x00"},
		{"mixed, text first", "data g: int[N]\n", "g\nA\n1\nB\n", `d.csv:2:1: column "g": "A" is not a number, nor is 1 more of the column's 3 cells, on line 4` + "\x00"},
		// a lab's export: values below a detection limit, counted, with the remedy
		{"censored text", "data c: real[N]\n", "c\n<5.0\n1.5\nND\n< 2\n2.5\nn.d.\n<LOD\nBDL\n", `d.csv:2:1: column "c": "<5.0" is not a number, nor are 5 more of the column's 8 cells, on lines 4, 5, 7, 8, … (a value below a detection limit, as lab exports write it? give the column as numbers, the limit in such rows and the value measured in the others, and add a 0/1 column that is 1 where the value is censored, which the model reads in an if: docs/language.md, Censored data: logcdf and logccdf)` + "\x00"},
		{"censored text second", "data c: real[N]\n", "c\n1.5\nBDL\n", `d.csv:3:1: column "c": "BDL" is not a number (a value below a detection limit`},
		{"other text, no hint", "data c: real[N]\n", "c\n1.5\nabc\n2\nx\n", `d.csv:3:1: column "c": "abc" is not a number, nor is 1 more of the column's 4 cells, on line 5` + "\x00"},
		{"logical", "data g: int[N]\n", "g\nTRUE\nA\n", `d.csv:3:1: column "g": "A" is not a number` + "\x00"},
		{"infinity", "data g: int[N]\n", "g\nInf\nA\n", `d.csv:2:1: column "g": "Inf": infinite values are not allowed in data` + "\x00"},
		{"thousands", "data g: int[N]\n", "g\n\"1,000\"\n\"2,500\"\n", `d.csv:2:1: column "g": "1,000" is not a number (a thousands separator? write 1000)` + "\x00"},
		{"stata missing", "data g: int[N]\n", "g\n.\nA\n", `d.csv:2:1: column "g": "." is not a number (a missing value, as Stata, SAS and NONMEM write it? write NA or leave the cell empty)` + "\x00"},
		// counts in another script's digits sort as labels "١٠" < "٢": a number, never a label
		{"arabic-indic digits", "data g: int[N]\n", "g\n٢\n١٠\n", `d.csv:2:1: column "g": "٢" is not a number (digits of another script? write 2)` + "\x00"},
		{"fullwidth digits", "data g: int[N]\n", "g\n－３\n１２\n", `d.csv:2:1: column "g": "－３" is not a number (digits of another script? write -3)` + "\x00"},
		// not UTF-8: fit.json's JSON would record another label than the file's
		{"real", "data g: real[N]\n", "g\nA\nB\n", `d.csv:2:1: column "g": "A" is not a number (a column of labels: declare it int (data g: int[N]) to code its labels 0, 1, ... in sorted order)` + "\x00"},
		{"positive", "data g: positive[N]\n", "g\nA\nB\n", `(a column of labels: declare it int (data g: int[N]) to code`},
		{"dates", "data day: real[N]\n", "day\n2010-01-31\n2010-02-01\n", `d.csv:2:1: column "day": "2010-01-31" is not a number (a column of dates, which gpp does not read as numbers: give ` + "`day`" + ` a number per row computed before the fit, a time index in days`},
		{"dates and times", "data t: real[N]\n", "t\n2010/1/31T10:00\n", `(a column of dates,`},
		{"no date", "data g: real[N]\n", "g\n2010-13-01\n", `(a column of labels: declare it int`},
		{"int scalar", "data g: int\n", "g\nA\n", `d.csv:2:1: column "g": "A" is not a number (a column of labels: declare an int vector (data g: int[N]) to code`},
		{"matrix", "data X: int[N, 2]\n", "a,b\n1,A\n2,B\n", "d.csv:2:3: column \"b\": \"A\" is not a number (a column of labels, which matrix `X` cannot take: leave it out of its columns (X=FILE.csv:-b, every other column, or X=FILE.csv:COL1,COL2), or bind it to an int vector of its own (data b: int[N])"},
		{"upper bound", "data g: int<lower=1, upper=2>[N]\n", "g\nB\nC\nA\n", "d.csv:3:1: g: value 3 is not <= 2; `g` is declared int<lower=1, upper=2>[N] at m.gpp:1:6"},
		// Stan's 1-based categories against lower=0: the advice to shift them
		{"1-based ids", "data g: int<lower=0, upper=3>[N]\n", "g\n1\n4\n2\n3\n", "d.csv:3:1: g: value 4 is not <= 3; `g` is declared int<lower=0, upper=3>[N] at m.gpp:1:6; categories and indices are 0-based and these run from 1 to 4, as Stan's 1-based ids do: give 0-based ids, or declare `g` int<lower=1, upper=4> and write g - 1 where the model reads it as a category or an index\x00"},
		{"a 0 among them: no advice", "data g: int<lower=0, upper=3>[N]\n", "g\n0\n4\n2\n3\n", "d.csv:3:1: g: value 4 is not <= 3; `g` is declared int<lower=0, upper=3>[N] at m.gpp:1:6\x00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := checked(t, c.model)
			_, err := Bind(info, []Input{csvInput(t, "", "d.csv", c.csv)}, nil)
			if err == nil || !strings.Contains(err.Error()+"\x00", c.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, c.want)
			}
		})
	}
}

// BindCoded codes a column of labels as the fit coded it: a few of its
// labels in another order get the fit's codes, not codes of their own; a
// label the fit did not see is an error at its cell naming the fit's
// labels; labels for a declaration the fit did not code, and numbers for
// one it did, are errors.
func TestBindCoded(t *testing.T) {
	info := checked(t, "data county: int[N]\ndata y: real[N]\n")
	fit, err := Bind(info, []Input{csvInput(t, "", "radon.csv", "county,y\nAITKIN,1\nANOKA,2\nBECKER,3\nBENTON,4\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	levels := Coded(info, fit)
	bound, err := BindCoded(info, []Input{csvInput(t, "", "new.csv", "county\nBENTON\nANOKA\nBENTON\n")}, nil, map[string]bool{"y": true}, levels, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := bound["county"].Values; !slices.Equal(got, []float64{3, 1, 3}) {
		t.Errorf("codes %v, want the fit's [3 1 3] (a fresh coding would give [1 0 1])", got)
	}
	want := `new.csv: column "county": 2 labels coded as the fit coded its 4 (ANOKA 1, BENTON 3)`
	if notes := LevelNotes(info, bound, true); len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
	// J from the fit's count, not the new data's, said once however often
	// the fit's coding (the REPL's, data.Coded's, which has the fit's J) is used
	infoJ := checked(t, "data J: int\ndata county: int<lower=0, upper=J-1>[N]\ndata y: real[N]\n")
	fitJ, err := Bind(infoJ, []Input{csvInput(t, "", "radon.csv", "county,y\nAITKIN,1\nANOKA,2\nBECKER,3\nBENTON,4\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	levelsJ := Coded(infoJ, fitJ)
	for range 2 {
		bound, err := BindCoded(infoJ, []Input{csvInput(t, "", "new.csv", "county\nBENTON\nANOKA\n")}, nil, map[string]bool{"y": true}, levelsJ, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := `new.csv: column "county": 2 labels coded as the fit coded its 4 (ANOKA 1, BENTON 3); J = 4 from the fit's count`
		if notes := LevelNotes(infoJ, bound, true); bound["J"].Values[0] != 4 || len(notes) != 1 || notes[0] != want {
			t.Errorf("J %v, notes %q, want %q", bound["J"].Values, notes, want)
		}
	}
	for _, c := range []struct {
		name, csv string
		levels    map[string]Levels
		want      string
	}{
		{"unseen", "county\nANOKA\nCASS\n", levels, `new.csv:3:1: column "county": label "CASS" is not one the fit coded ` + "`county`" + ` from (its 4 labels: AITKIN, ANOKA, BECKER, BENTON)`},
		{"not coded", "county\nANOKA\n", map[string]Levels{}, `new.csv:2:1: column "county": "ANOKA" is a label, but the fit recorded no labels for ` + "`county`"},
		{"old fit", "county\nANOKA\n", nil, `new.csv:2:1: column "county": "ANOKA" is a label, but the fit recorded no labels`},
		{"numbers", "county\nNA\n1\n", levels, `new.csv:3:1: county: 1 is a number, but the fit coded ` + "`county`" + ` from labels (4 labels: AITKIN 0, ANOKA 1, BECKER 2, BENTON 3)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := BindCoded(info, []Input{csvInput(t, "", "new.csv", c.csv)}, nil, map[string]bool{"y": true}, c.levels, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, c.want)
			}
		})
	}
}

// An int scalar that no input gives is the number of labels of the column
// whose declaration it bounds above (Stan's int<lower=1, upper=J>, or
// upper=J-1 from 0), said in the note; given, it is taken as given; with
// numbers in the column, or with no such bound, it is the usual error.
func TestBindLabelsBound(t *testing.T) {
	const src = "county,y\nBECKER,1\nAITKIN,2\nANOKA,3\nAITKIN,4\n"
	for _, c := range []struct {
		name, decl string
		want       float64
	}{
		{"upper J, lower 1", "int<lower=1, upper=J>[N]", 3},
		{"upper J-1, lower 0", "int<lower=0, upper=J-1>[N]", 3},
		{"upper (J - 1) from 0", "int<lower=0, upper=(J - 1)>[N]", 3},
		{"upper J from 0", "int<lower=0, upper=J>[N]", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := checked(t, "data J: int<lower=1>\ndata county: "+c.decl+"\ndata y: real[N]\n")
			bound, err := Bind(info, []Input{csvInput(t, "", "radon.csv", src)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if j := bound["J"]; j == nil || !slices.Equal(j.Values, []float64{c.want}) || !j.Int {
				t.Fatalf("J %+v, want %g", j, c.want)
			}
			notes := LevelNotes(info, bound, false)
			if len(notes) != 1 || !strings.HasSuffix(notes[0], "; J = "+strconv.Itoa(int(c.want))+" from their count") {
				t.Errorf("notes %q", notes)
			}
		})
	}
	// given, J is the input's, and the note says nothing of it
	info := checked(t, "data J: int\ndata county: int<lower=0, upper=J-1>[N]\ndata y: real[N]\n")
	bound, err := Bind(info, []Input{csvInput(t, "", "radon.csv", src)}, map[string]string{"J": "10"})
	if err != nil {
		t.Fatal(err)
	}
	if j := bound["J"]; j == nil || j.Values[0] != 10 {
		t.Errorf("J given as 10: %+v", j)
	}
	if notes := LevelNotes(info, bound, false); len(notes) != 1 || strings.Contains(notes[0], "J =") {
		t.Errorf("notes %q", notes)
	}
	// from the labels, J is checked against its own bounds
	info = checked(t, "data J: int<lower=5>\ndata county: int<lower=0, upper=J-1>[N]\ndata y: real[N]\n")
	if _, err := Bind(info, []Input{csvInput(t, "", "radon.csv", src)}, nil); err == nil || !strings.Contains(err.Error(), "radon.csv:2:1: J: value 3 is not >= 5; `J`, from the 3 labels of column \"county\"") {
		t.Errorf("J below its lower bound: %v", err)
	}
	// two columns of labels bounded by J index one axis: they are coded
	// together (TestBindLabelGroup has more)
	info = checked(t, "data J: int\ndata g: int<lower=1, upper=J>[N]\ndata g_new: int<lower=1, upper=J>[M]\n")
	same := []Input{csvInput(t, "g", "a.csv", "g\nB\nA\nC\n"), csvInput(t, "g_new", "b.csv", "g_new\nC\nA\nB\nA\n")}
	if bound, err := Bind(info, same, nil); err != nil || !slices.Equal(bound["g_new"].Values, []float64{3, 1, 2, 1}) || bound["J"].Values[0] != 3 {
		t.Errorf("two columns of the same labels: %v", err)
	}
	subset := []Input{csvInput(t, "g", "a.csv", "g\nB\nA\nC\n"), csvInput(t, "g_new", "b.csv", "g_new\nC\nA\n")}
	if bound, err := Bind(info, subset, nil); err != nil || !slices.Equal(bound["g_new"].Values, []float64{3, 1}) || bound["J"].Values[0] != 3 {
		t.Errorf("a column of some of the other's labels: %v", err)
	}
	for _, c := range []struct{ model, data, want string }{
		{"data J: int\ndata county: int<lower=0, upper=J*2>[N]\n", "county\nA\nB\n",
			"m.gpp:1:6: no data for `J` (int): expected a JSON key \"J\" or --set J=VALUE; the data has county"},
		{"data J: int\ndata county: int[N]\n", "county\nA\nB\n",
			"m.gpp:1:6: no data for `J` (int): expected a JSON key \"J\" or --set J=VALUE; the data has county"},
	} {
		info := checked(t, c.model)
		_, err := Bind(info, []Input{csvInput(t, "", "d.csv", c.data)}, nil)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q with %q: %v\nwant %s", c.model, c.data, err, c.want)
		}
	}
}

// TestSizeLabels: a size bound from the labels' count names the elements
// of its axes by label (SizeLabels) when it is the count, under lower=0,
// upper=J-1 and Stan's lower=1, upper=J; not when it is another number
// (upper=J from 0, upper=J-1 from 1); a J an input gave is labelled
// when it is the count the labels would have given.
func TestSizeLabels(t *testing.T) {
	const src = "county,y\nBECKER,1\nAITKIN,2\nANOKA,3\nAITKIN,4\n"
	want := []string{"AITKIN", "ANOKA", "BECKER"}
	for _, c := range []struct {
		name, decl string
		sets       map[string]string
		labelled   bool
	}{
		{"upper J-1 from 0", "int<lower=0, upper=J-1>[N]", nil, true},
		{"upper J from 1", "int<lower=1, upper=J>[N]", nil, true},
		{"upper J from 0", "int<lower=0, upper=J>[N]", nil, false},
		{"upper J-1 from 1", "int<lower=1, upper=J-1>[N]", nil, false},
		{"J given as the count", "int<lower=0, upper=J-1>[N]", map[string]string{"J": "3"}, true},
		{"J given as the count from 1", "int<lower=1, upper=J>[N]", map[string]string{"J": "3"}, true},
		{"J given larger", "int<lower=0, upper=J-1>[N]", map[string]string{"J": "4"}, false},
		{"J given, upper J from 0", "int<lower=0, upper=J>[N]", map[string]string{"J": "3"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := checked(t, "data J: int<lower=1>\ndata county: "+c.decl+"\ndata y: real[N]\n")
			bound, err := Bind(info, []Input{csvInput(t, "", "radon.csv", src)}, c.sets)
			if err != nil {
				t.Fatal(err)
			}
			got := SizeLabels(info, bound)
			if c.labelled != (got != nil) || c.labelled && (len(got) != 1 || !slices.Equal(got["J"], want)) {
				t.Errorf("SizeLabels %q, want labels %v for J: %v", got, want, c.labelled)
			}
		})
	}
}
