package data

import (
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	tab, err := ReadCSV("d.csv", strings.NewReader("i,j,w\n0,1,0.5\n2,3,1e-3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows != 2 || len(tab.Columns) != 3 {
		t.Fatalf("rows %d cols %d", tab.Rows, len(tab.Columns))
	}
	if c := tab.Column("i"); !c.Int || c.Values[1] != 2 {
		t.Errorf("column i = %+v", c)
	}
	if c := tab.Column("w"); c.Int || c.Values[1] != 1e-3 {
		t.Errorf("column w = %+v", c)
	}
	m := tab.Matrix("X")
	if got := m.Values; len(got) != 6 || got[3] != 2 || got[5] != 1e-3 || m.Int {
		t.Errorf("matrix = %v int=%v", got, m.Int)
	}
	if got := m.Locate(5).String(); got != "d.csv:3:5" {
		t.Errorf("Locate(5) = %s, want d.csv:3:5", got)
	}
}

// TestReadOneColumnSeparators: a one-column file whose name holds a
// semicolon, a tab or a comma (in quotes) is read as it is, one column,
// when its rows do not split as the header would by that separator: it is
// no file separated by it.
func TestReadOneColumnSeparators(t *testing.T) {
	for _, src := range []string{"a;b\n1\n2.5\n", "a;b\n1;2\n3\n", "\"a\tb\"\n1\n", "\"a,b\"\n1\n"} {
		read := ReadCSV
		if strings.Contains(src, ",") {
			read = ReadTSV
		}
		tab, err := read("d", strings.NewReader(src))
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if len(tab.Columns) != 1 || tab.Rows < 1 {
			t.Errorf("%q: %d columns, %d rows", src, len(tab.Columns), tab.Rows)
		}
	}
}

// TestReadTSV: a tab-separated file (R's write.table(sep = "\t"),
// pandas' to_csv(sep="\t")) reads as the same comma-separated one does:
// the same values, ints, missing cells, quoted cells holding commas, a
// byte-order mark and CRLF endings, and positions at its own columns.
func TestReadTSV(t *testing.T) {
	tsv, err := ReadTSV("d.tsv", strings.NewReader("\ufeffi\tj\tw\tnote\r\n0\t1\t0.5\t\"a, b\"\r\n2\t3\tNA\tc\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	csv, err := ReadCSV("d.csv", strings.NewReader("i,j,w,note\n0,1,0.5,\"a, b\"\n2,3,NA,c\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tsv.Rows != 2 || len(tsv.Columns) != 4 {
		t.Fatalf("rows %d cols %d, want 2 and 4", tsv.Rows, len(tsv.Columns))
	}
	for j, c := range tsv.Columns {
		d := csv.Columns[j]
		if c.Name != d.Name || c.Int != d.Int || !slices.EqualFunc(c.Values, d.Values, func(a, b float64) bool { return a == b || a != a && b != b }) || !slices.Equal(c.Missing, d.Missing) {
			t.Errorf("column %d: %+v, the CSV's %+v", j, c, d)
		}
	}
	if got := tsv.Column("w").Locate(1).String(); got != "d.tsv:3:5" {
		t.Errorf("w's second cell at %s, want d.tsv:3:5", got)
	}
	if err := tsv.Column("w").Err(); err == nil || !strings.Contains(err.Error(), `d.tsv:3:5: column "w": "NA" is read as a missing value`) {
		t.Errorf("w's error %v, want its missing cell at d.tsv:3:5", err)
	}
}

// TestReadTSVEmptyCells: an empty cell of a tab-separated file is a
// missing value of its own column, not merged with the tab after it into
// the next cell's (which made "1\t\t3" a row of two cells, and a tab
// after the last column two); space around a value is still trimmed.
func TestReadTSVEmptyCells(t *testing.T) {
	tsv, err := ReadTSV("d.tsv", strings.NewReader("x\ty\tz\n1\t\t3\n4\t 5\t6\n"))
	if err != nil {
		t.Fatal(err)
	}
	y := tsv.Column("y")
	if y == nil || len(y.Values) != 2 || !math.IsNaN(y.Values[0]) || y.Values[1] != 5 || !slices.Equal(y.Missing, []int{0}) {
		t.Fatalf("column y = %+v, want [NaN 5] with element 0 missing", y)
	}
	if z := tsv.Column("z"); z == nil || !slices.Equal(z.Values, []float64{3, 6}) {
		t.Errorf("column z = %+v, want [3 6]", z)
	}
}

// TestReadBOM: a leading UTF-8 byte-order mark (Excel's "CSV UTF-8", some
// editors' JSON) is skipped, so the first column keeps its name and the
// positions on line 1 count from the first visible character.
func TestReadBOM(t *testing.T) {
	tab, err := ReadCSV("d.csv", strings.NewReader("\ufeffy,z\r\n3,4\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Column("y"); c == nil || c.Values[0] != 3 || c.Pos.String() != "d.csv:2:1" {
		t.Errorf("column y = %+v (columns %v)", c, tab.Columns)
	}
	if _, err := ReadCSV("d.csv", strings.NewReader("\ufeffy,y\n1,2\n")); err == nil || !strings.HasPrefix(err.Error(), "d.csv:1:3: ") {
		t.Errorf("duplicate column error %v, want it at d.csv:1:3", err)
	}
	set, err := ReadJSON("d.json", strings.NewReader("\ufeff{\"y\": [1, 2]}"))
	if err != nil {
		t.Fatal(err)
	}
	if y := set["y"]; y == nil || y.Values[1] != 2 || y.Locate(1).String() != "d.json:1:11" {
		t.Errorf("y = %+v", y)
	}
}

func TestReadJSON(t *testing.T) {
	src := `{"J": 8,
 "y": [28, 8.5],
 "X": [[1, 2], [3, 4], [5, 6]]}`
	set, err := ReadJSON("d.json", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if j := set["J"]; j.Shape != nil || !j.Int || j.Values[0] != 8 {
		t.Errorf("J = %+v", j)
	}
	if y := set["y"]; len(y.Shape) != 1 || y.Shape[0] != 2 || y.Int {
		t.Errorf("y = %+v", y)
	}
	x := set["X"]
	if len(x.Shape) != 2 || x.Shape[0] != 3 || x.Shape[1] != 2 || x.Values[3] != 4 {
		t.Errorf("X = %+v", x)
	}
	if got := x.Locate(3).String(); got != "d.json:3:20" {
		t.Errorf("Locate(3) = %s, want d.json:3:20", got)
	}
}

// TestReadJSONEmptyRows: rows without elements make a matrix of zero
// columns, not a vector whose shape disagrees with its values.
func TestReadJSONEmptyRows(t *testing.T) {
	set, err := ReadJSON("d.json", strings.NewReader(`{"X": [[], []], "y": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if x := set["X"]; len(x.Shape) != 2 || x.Shape[0] != 2 || x.Shape[1] != 0 || len(x.Values) != 0 {
		t.Errorf("X = %+v, want a 2×0 matrix", x)
	}
	if y := set["y"]; len(y.Shape) != 1 || y.Shape[0] != 0 || len(y.Values) != 0 {
		t.Errorf("y = %+v, want a vector of 0 values", y)
	}
}

// TestReadCSVNoRows: a header without rows gives columns of no rows, as
// JSON's [] does (an empty held-out set of pairs), in CSV and TSV alike.
func TestReadCSVNoRows(t *testing.T) {
	for _, c := range []struct{ file, src string }{{"a.csv", "i,j\n"}, {"a.tsv", "i\tj\n"}} {
		var tab *Table
		var err error
		if strings.HasSuffix(c.file, ".csv") {
			tab, err = ReadCSV(c.file, strings.NewReader(c.src))
		} else {
			tab, err = ReadTSV(c.file, strings.NewReader(c.src))
		}
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if tab.Rows != 0 || len(tab.Columns) != 2 || tab.Columns[1].Name != "j" || len(tab.Columns[1].Shape) != 1 || tab.Columns[1].Shape[0] != 0 {
			t.Errorf("%s: %d rows, columns %+v; want i and j of no rows", c.file, tab.Rows, tab.Columns)
		}
	}
}

func TestReadErrors(t *testing.T) {
	cases := []struct {
		name, file, src, want string
	}{
		{"csv empty", "a.csv", "", "a.csv:1:1: empty CSV file"},
		{"csv UTF-16LE", "a.csv", "\xff\xfey\x00\r\x00\n\x001\x00\r\x00\n\x00", "a.csv:1:1: the file is UTF-16 encoded; save it as UTF-8\x00"},
		{"csv UTF-16BE", "a.csv", "\xfe\xff\x00y\x00\n\x001\x00\n", "a.csv:1:1: the file is UTF-16 encoded; save it as UTF-8\x00"},
		{"csv UTF-16LE without a mark", "a.csv", "y\x00,\x00z\x00\n\x001\x00,\x002\x00\n\x00", "a.csv:1:1: the file is UTF-16 encoded; save it as UTF-8\x00"},
		{"csv UTF-16BE without a mark", "a.csv", "\x00y\x00\n\x001\x00\n", "a.csv:1:1: the file is UTF-16 encoded; save it as UTF-8\x00"},
		{"csv UTF-32LE", "a.csv", "\xff\xfe\x00\x00y\x00\x00\x00\n\x00\x00\x00", "a.csv:1:1: the file is UTF-32 encoded; save it as UTF-8\x00"},
		{"csv gzip", "a.csv", "\x1f\x8b\x08\x00\x00\x00", "a.csv:1:1: the file is gzip-compressed: save the data as a CSV file (text)\x00"},
		{"csv xlsx", "a.csv", "PK\x03\x04\x14\x00\x06\x00", "a.csv:1:1: the file is a zip archive (an Excel .xlsx or OpenDocument .ods workbook?): save the data as a CSV file (text)\x00"},
		{"json binary", "a.json", "{\"y\": [1, \x00]}", "a.json:1:1: the file is binary, not text: save the data as a JSON file (text)\x00"},
		{"json UTF-16LE", "a.json", "\xff\xfe{\x00}\x00", "a.json:1:1: the file is UTF-16 encoded; save it as UTF-8\x00"},
		{"json UTF-16BE without a mark", "a.json", "\x00{\x00}", "a.json:1:1: the file is UTF-16 encoded; save it as UTF-8\x00"},
		{"csv ragged", "a.csv", "x,y\n1,2,3\n", "a.csv:2:1: this row has 3 cells, the header 2\x00"},
		{"csv ragged beside words", "a.csv", "x,name\n1,foo\n2,bar,baz\n", "a.csv:3:1: this row has 3 cells, the header 2\x00"},
		{"csv short row", "a.csv", "x,y,z\n1,2,3\n4,5\n", "a.csv:3:1: this row has 2 cells, the header 3\x00"},
		{"csv CR line endings", "a.csv", "x,y\r1,2\r3,4\r", "a.csv:1:1: the lines end with a carriage return alone"},
		{"csv pandas index", "a.csv", ",x\n0,1.5\n", "a.csv:1:1: column 1 has an empty name in the header (a row index, as pandas and R write by default? write the file with to_csv(..., index=False) in pandas, write.csv(..., row.names = FALSE) in R)"},
		{"csv R row names", "a.csv", "\"\",\"x\"\n\"1\",1.5\n", "a.csv:1:1: column 1 has an empty name in the header (a row index, as pandas and R write by default?"},
		{"csv one cell short", "a.csv", "x,y\n1,2\n3\n", "a.csv:3:1: this row has 1 cell, the header 2\x00"},
		// A file separated by semicolons, tabs in a .csv or commas in a
		// .tsv is one error at the header, whatever its rows hold.
		{"csv semicolons, decimal commas", "a.csv", "x;y\n1,5;2\n", `a.csv:1:2: the file is separated by semicolons and writes numbers with a decimal comma (1,5), as spreadsheets save "CSV" where the decimal mark is a comma; gpp reads comma-separated files with a decimal point (1.5): save it with commas between the cells and decimal points, as pandas does with pd.read_csv(FILE, sep=";", decimal=",")`},
		{"csv semicolons", "a.csv", "# note\nx;y\n1;2\n", `a.csv:2:2: the file is separated by semicolons, as spreadsheets save "CSV" where the decimal mark is a comma; gpp reads comma-separated files: save it with commas between the cells, as pandas does with pd.read_csv(FILE, sep=";").to_csv(NEW, index=False) and R with write.csv(read.csv2(FILE), NEW, row.names = FALSE)` + "\x00"},
		{"csv semicolons, a comma in a label", "a.csv", "g;x\nA;0.5\nParis, France;1.5\n", `a.csv:1:2: the file is separated by semicolons, as spreadsheets`},
		{"csv tabs", "a.csv", "x\ty\n1\t2\n", "a.csv:1:2: the file is separated by tabs; gpp reads comma-separated files: name it FILE.tsv, which gpp reads as tab-separated\x00"},
		{"tsv commas", "a.tsv", "x,y\n1,2\n", "a.tsv:1:2: the file is separated by commas; gpp reads a .tsv file as tab-separated: name it FILE.csv\x00"},
		// Latin-1 (Windows-1252) text is one error at its first byte that
		// is not UTF-8, in a label, a column the model may not read or
		// a comment.
		{"csv Latin-1 label", "a.csv", "g,x\nA,1\nLyc\xe9e,2\n", `a.csv:3:4: the file is not UTF-8: the byte 0xE9 here is no UTF-8 text (a Windows-1252 or Latin-1 file, as Excel's plain "CSV" saves one?); save it as "CSV UTF-8" (Excel), with the encoding UTF-8 (LibreOffice, an editor), or convert it: iconv -f WINDOWS-1252 -t UTF-8` + "\x00"},
		{"csv Latin-1 label first", "a.csv", "x,g\n1,\"Fran\xe7ais, Paris\"\n", `a.csv:2:8: the file is not UTF-8: the byte 0xE7 here`},
		{"csv Latin-1 comment", "a.csv", "# caf\xe9\nx\n1\n", `a.csv:1:6: the file is not UTF-8`},
		{"tsv Latin-1 after a BOM", "a.tsv", "\ufeffx\tnote\n1\tcaf\xe9\n", `a.tsv:2:6: the file is not UTF-8`},
		// Empty cells past the header's in a row: a comma after the
		// last column, at the caret.
		{"csv trailing comma in the rows", "a.csv", "x,y\n1,2,\n3,4,\n", "a.csv:2:4: this row has 3 cells, the header 2 (a comma at the end of the line, as spreadsheets write after the last column? remove it from the rows, or name the column in the header)\x00"},
		{"csv trailing comma, one column", "a.csv", "x\n1,\n", "a.csv:2:2: this row has 2 cells, the header 1 (a comma at the end of the line"},
		{"csv trailing comma after an empty cell", "a.csv", "x,y,z\n1,2,,\n", "a.csv:2:5: this row has 4 cells, the header 3 (a comma at the end of the line"},
		{"csv trailing comma and space", "a.csv", "x,y\n1,2 , \n", "a.csv:2:5: this row has 3 cells, the header 2 (a comma at the end of the line"},
		{"tsv trailing tabs in the rows", "a.tsv", "x\ty\n1\t2\t\t\n", "a.tsv:2:4: this row has 4 cells, the header 2 (a tab at the end of the line"},
		{"csv decimal commas", "a.csv", "x\n1\n-1,5\n", `a.csv:3:1: this row has 2 cells, the header 1 (decimal commas, as in -1,5? gpp reads numbers with a decimal point, -1.5)`},
		{"csv words in a one-column file", "a.csv", "x\n1,a\n", "a.csv:2:1: this row has 2 cells, the header 1\x00"},
		{"csv empty name", "a.csv", "x,,y\n0,1.5,2\n", "a.csv:1:3: column 2 has an empty name in the header\x00"},
		{"csv trailing comma", "a.csv", "x,\n0,\n", "a.csv:1:3: column 2 has an empty name in the header (a comma at the end of the line, as spreadsheets write after the last column? remove it, or name the column)"},
		{"csv trailing commas", "a.csv", "x, ,\n0,,\n", "a.csv:1:4: column 2 has an empty name in the header (a comma at the end of the line"},
		{"csv Excel sep=;", "a.csv", "sep=;\r\nx;y\r\n1;2\r\n", `a.csv:1:1: the file says its cells are separated by ";" (Excel's sep= line); gpp reads comma-separated files: save it as CSV with commas`},
		{"csv bad quote beside words", "a.csv", "x,name\n1,\"fo\"o\n", `a.csv:2:6: column "name": a quoted cell's closing " is followed by more text (extraneous or missing " in quoted-field): a " inside a quoted cell is written twice ("")` + "\x00"},
		// A misplaced quote names its cell's column (encoding/csv's
		// error said only "bare \" in non-quoted-field"), counting the
		// separators before it outside quotes; not in the header.
		{"csv bare quote", "a.csv", "y\n1\n2\"x\"\n3\n", `a.csv:3:2: column "y": a " inside a cell that does not start with one (bare " in non-quoted-field): quote the whole cell and double each " in it (2"x is written "2""x"), or remove the "` + "\x00"},
		{"csv bare quote after a quoted comma", "a.csv", "g,x,y\n\"a,b\",1,2\"\n", `a.csv:2:10: column "y": a " inside a cell`},
		{"tsv bare quote", "a.tsv", "x\ty\n1\t2\"\n", `a.tsv:2:4: column "y": a " inside a cell`},
		{"csv bare quote in the header", "a.csv", "x,y\"\n1,2\n", `a.csv:1:4: a " inside a cell that does not start with one`},
		{"csv unclosed quote", "a.csv", "x,name\n1,\"foo\n", "a.csv:2:7: the file ends inside a quoted cell of the row on line 2: a \" is never closed\x00"},
		{"csv unclosed quote over lines", "a.csv", "x,name\n1,\"foo\nbar\r\n\n", "a.csv:3:4: the file ends inside a quoted cell of the row on line 2: a \" is never closed\x00"},
		{"tsv unclosed quote", "a.tsv", "x\tname\n1\t\"foo", "a.tsv:2:7: the file ends inside a quoted cell of the row on line 2: a \" is never closed\x00"},
		{"csv dup header", "a.csv", "x,x\n1,2\n", `a.csv:1:3: column name "x" appears twice`},
		{"csv numeric header", "a.csv", "1,2\n1,2\n", `a.csv:1:1: the header cell "1" is a number`},
		{"tsv empty", "a.tsv", "", "a.tsv:1:1: empty TSV file"},
		{"tsv tab after the last column", "a.tsv", "x\ty\t\n1\t2\t\n", "a.tsv:1:5: column 3 has an empty name in the header (a tab at the end of the line"},
		{"tsv short row", "a.tsv", "x\ty\n1\t2\n3\n", "a.tsv:3:1: this row has 1 cell, the header 2\x00"},
		{"tsv Excel sep=,", "a.tsv", "sep=,\nx\ty\n1\t2\n", `a.tsv:1:1: the file says its cells are separated by "," (Excel's sep= line); gpp reads a .tsv file as tab-separated: name it FILE.csv` + "\x00"},
		{"csv Excel sep=tab", "a.csv", "sep=\t\nx\ty\n1\t2\n", `a.csv:1:1: the file says its cells are separated by "\t" (Excel's sep= line); gpp reads comma-separated files: name it FILE.tsv` + "\x00"},
		{"json empty", "a.json", "  ", "a.json:1:1: empty JSON file"},
		{"json not object", "a.json", "[1,2]", `a.json:1:1: expected a JSON object mapping names to values, found "["`},
		{"json syntax", "a.json", "{\"X\": [1,2}", "a.json:1:11: invalid JSON"},
		{"json syntax in an unused value", "a.json", "{\"X\": 1, \"note\": {\"a\": [1,}}", "a.json:1:27: invalid JSON: invalid character '}' looking for beginning of value"},
		{"json truncated", "a.json", "{\"X\": [1,", "unexpected end of JSON input"},
		{"json trailing data", "a.json", "{\"X\": 1}\n{\"X\": 2}", "a.json:2:1: unexpected data after the JSON object"},
		{"json trailing comma", "a.json", "{\"X\": 1},", "a.json:1:9: unexpected data after the JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if strings.HasSuffix(c.file, ".csv") {
				_, err = ReadCSV(c.file, strings.NewReader(c.src))
			} else if strings.HasSuffix(c.file, ".tsv") {
				_, err = ReadTSV(c.file, strings.NewReader(c.src))
			} else {
				_, err = ReadJSON(c.file, strings.NewReader(c.src))
			}
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error()+"\x00", c.want) { // a want ending in \x00 must end the error
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
		})
	}
}

// TestReadJSONAtoms: CmdStan's JSON reads the bare atoms NaN, Infinity and
// -Infinity (cmdstanpy's json.dump writes them) and the strings "NaN",
// "Inf", "+inf", "-Infinity", ...: a NaN is a missing value and an
// infinity an error at its position, as in a CSV cell; the same words
// inside strings are text.
func TestReadJSONAtoms(t *testing.T) {
	src := "{\"note\": \"NaN, \\\"Infinity\\\"\", \"y\": [1.5, NaN,\n  2],\n \"X\": [[NaN, 4], [5, NaN]], \"s\": NaN}"
	set, err := ReadJSON("d.json", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	y := set["y"]
	if y.Err() == nil || len(y.Values) != 3 || y.Values[0] != 1.5 || y.Values[2] != 2 || !slices.Equal(y.Missing, []int{1}) {
		t.Errorf("y = %+v, want [1.5, missing, 2]", y)
	}
	if err := y.Err(); !strings.HasPrefix(err.Error(), `d.json:1:42: "y": NaN, a missing value`) {
		t.Errorf("y: error %v", err)
	}
	if got := y.Locate(1).String(); got != "d.json:1:42" {
		t.Errorf("y's NaN at %s, want d.json:1:42", got)
	}
	if x := set["X"]; len(x.Shape) != 2 || x.Values[1] != 4 || x.Values[2] != 5 || !slices.Equal(x.Missing, []int{0, 3}) {
		t.Errorf("X = %+v, want [[missing, 4], [5, missing]]", x)
	}
	if s := set["s"]; s.Shape != nil || !slices.Equal(s.Missing, []int{0}) {
		t.Errorf("s = %+v, want a missing scalar", s)
	}
	if note := set["note"]; note.Err() == nil || !strings.Contains(note.Err().Error(), `the string "NaN, \"Infinity\""`) {
		t.Errorf("note: error %v, want the string kept", note.Err())
	}
	for _, c := range []struct{ src, want string }{
		{`{"y": [1, Infinity]}`, `d.json:1:11: "y": "Infinity": infinite values are not allowed in data`},
		{`{"y": [1,-Infinity ]}`, `d.json:1:10: "y": "-Infinity": infinite values`},
		{"{\"y\":\n-Infinity}", `d.json:2:1: "y": "-Infinity": infinite values`},
		{`{"y": [1, "+inf"]}`, `d.json:1:11: "y": "+inf": infinite values`},
		{`{"y": [[1, "-Inf"]]}`, `d.json:1:12: "y": "-Inf": infinite values`},
		{`{"y": "Infinity"}`, `d.json:1:7: "y": "Infinity": infinite values`},
		{`{"y": "+-inf"}`, `d.json:1:7: "y": expected a number, found the string "+-inf"`},
	} {
		set, err := ReadJSON("d.json", strings.NewReader(c.src))
		if err != nil {
			t.Fatalf("ReadJSON(%q): %v", c.src, err)
		}
		if err := set["y"].Err(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ReadJSON(%q): y's error\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// TestReadJSONSyntaxPos: a syntax error is at the offending byte of the
// file, wherever it lies: inside a value, between values, on a later line,
// in a nested array, in a value the model does not read.
func TestReadJSONSyntaxPos(t *testing.T) {
	cases := []struct{ src, want string }{
		{`{"x":[1,2,3],"y":[2,NA,6.1]}`, "d.json:1:21: invalid JSON: invalid character 'N' looking for beginning of value"},
		{`{"x":[1,2,3],"y":[2,-,6.1]}`, "d.json:1:22: invalid JSON: invalid character ',' in numeric literal"},
		{`{"x":[1,2,3],"y":[2,3.9,6.1],"z":[1,2,NA]}`, "d.json:1:39: invalid JSON: invalid character 'N'"},
		{"{\"x\":[1,2,3],\n\"y\":[2,\nNA,6.1]}", "d.json:3:1: invalid JSON: invalid character 'N'"},
		// CmdStan's bare NaN and infinities are values (TestReadJSONAtoms),
		// but only whole and in a value's place; a syntax error after one
		// is still at its own byte.
		{`{"x":[1,NaNa]}`, "d.json:1:9: invalid JSON: invalid character 'N' looking for beginning of value"},
		{`{"x":[1,-Inf]}`, "d.json:1:10: invalid JSON: invalid character 'I' in numeric literal"},
		{`{NaN: [1]}`, "d.json:1:2: invalid JSON: invalid character 'N' looking for beginning of object key string"},
		{`{"x": [1], NaN : [2]}`, "d.json:1:12: invalid JSON: invalid character 'N' looking for beginning of object key string"},
		{`{"x": [1], "y": {"a": 1, NaN }}`, "d.json:1:26: invalid JSON: invalid character 'N' looking for beginning of object key string"},
		{`{"x":[NaN,Infinity,-Infinity}`, "d.json:1:29: invalid JSON: invalid character '}' after array element"},
		{"{\n  \"x\": [1, 2, 3],\n  \"y\": [2, 3.9, 6.1e],\n  \"z\": 1\n}\n", "d.json:3:21: invalid JSON: invalid character ']' in exponent of numeric literal"},
		{"{\n  \"X\": [\n    [1, 2],\n    [3, tru]\n  ]\n}\n", "d.json:4:12: invalid JSON: invalid character ']' in literal true (expecting 'e')"},
		{`{"X": [[1, 2], [3 4]]}`, "d.json:1:19: invalid JSON: invalid character '4' after array element"},
		{`{"x": [1, 2, 3,], "y": [1]}`, "d.json:1:16: invalid JSON: invalid character ']' looking for beginning of value"},
		{`{"x": [1, 2], "y": [1],}`, "d.json:1:24: invalid JSON: invalid character '}' looking for beginning of object key string"},
		{`{"x" [1]}`, "d.json:1:6: invalid JSON: invalid character '[' after object key"},
		{`{"x": [1, 2]}}`, "d.json:1:14: unexpected data after the JSON object"},
		// A file that ends too soon: just past its last character, not on
		// the empty line after it, with what is left open.
		{"{\"x\": [1, 2,\n 3", "d.json:2:3: unexpected end of JSON input: the '[' opened at 1:7 is not closed"},
		{"{\"x\": [1, 2,\n \"ab", "d.json:2:5: unexpected end of JSON input: the string that starts at 2:2 is not closed"},
		{"{\"x\": [1, 2]\n\n", "d.json:1:13: unexpected end of JSON input: the '{' opened at 1:1 is not closed"},
		{"{\"x\": \"a\\\"b", "d.json:1:12: unexpected end of JSON input: the string that starts at 1:7 is not closed"},
		{"{\"x\": [\"]\", 1 \r\n", "d.json:1:14: unexpected end of JSON input: the '[' opened at 1:7 is not closed"},
		{"{\"x\": \"a\tb\"}", `d.json:1:9: invalid JSON: invalid character '\t' in string literal`},
		{"{\"note\": \"caf\xc3\xa9\", \"x\": [1, +2]}", "d.json:1:28: invalid JSON: invalid character '+' looking for beginning of value"},
	}
	for _, c := range cases {
		_, err := ReadJSON("d.json", strings.NewReader(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ReadJSON(%q):\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// TestReadValueErrors: a cell or value that is no number of the array's
// shape does not fail the read; it is the error of its column or key
// (Array.Err), and of a matrix of all columns, at its position.
func TestReadValueErrors(t *testing.T) {
	cases := []struct {
		name, file, src string
		key             string // the column or key; "" for all columns as a matrix
		want            string
	}{
		{"csv non-numeric", "a.csv", "x,y\n1,2\n3,abc\n", "y", `a.csv:3:3: column "y": "abc" is not a number`},
		{"csv nan", "a.csv", "x\n1\nNaN\n", "x", `a.csv:3:1: column "x": "NaN" is read as a missing value`},
		{"csv inf", "a.csv", "x\n-Inf\n", "x", `a.csv:2:1: column "x": "-Inf": infinite values are not allowed in data`},
		{"csv empty cell", "a.csv", "x,y\n1,\n", "y", `a.csv:2:3: column "y": empty cell`},
		// A blank line in a one-column file is a missing value (pandas
		// writes NaN so); the CSV reader skipped it and N was one short.
		{"csv blank line, one column", "a.csv", "y\n1.0\n\n2.0\n", "y", `a.csv:3:1: column "y": line 3 is blank, an empty cell in a one-column file`},
		{"csv blank last line, one column", "a.csv", "y\r\n1.0\r\n2.0\r\n\r\n", "y", `a.csv:4:1: column "y": line 4 is blank`},
		{"csv missing value", "a.csv", "x\n1\nNA\n", "x", `a.csv:3:1: column "x": "NA" is read as a missing value`},
		{"csv semicolons, ragged", "a.csv", "x;y\n1;2\n3\n", "x;y", `a.csv:2:1: column "x;y": "1;2" is not a number (the file looks separated by ";"; gpp reads comma-separated files)`},
		{"csv tabs, ragged", "a.csv", "x\ty\n1\t2\n3\n", "", `(the file looks separated by "\t"; gpp reads comma-separated files: name it FILE.tsv)`},
		{"tsv commas, ragged", "a.tsv", "x,y\n1,2\n3\n", "x,y", `a.tsv:2:1: column "x,y": "1,2" is not a number (the file looks separated by ","; gpp reads a .tsv file as tab-separated: name it FILE.csv)`},
		{"tsv decimal comma", "a.tsv", "x\ty\n1,5\t2\n", "x", `a.tsv:2:1: column "x": "1,5" is not a number (a decimal comma? write 1.5)`},
		{"tsv missing value", "a.tsv", "x\ty\n1\tNA\n", "y", `a.tsv:2:3: column "y": "NA" is read as a missing value`},
		{"csv underscore", "a.csv", "x\n1_5\n", "x", `a.csv:2:1: column "x": "1_5" is not a number`},
		{"csv hex float", "a.csv", "x\n0x1p4\n", "x", `a.csv:2:1: column "x": "0x1p4" is not a number`},
		{"csv out of range", "a.csv", "x\n-1e400\n", "x", `a.csv:2:1: column "x": "-1e400" is out of range`},
		{"csv word", "a.csv", "x\nmany\n", "x", `a.csv:2:1: column "x": "many" is not a number` + "\x00"},
		{"csv first of a column", "a.csv", "x\n1\nNA\nfoo\n", "x", `a.csv:3:1: column "x": "NA"`},
		{"csv matrix, first in the file", "a.csv", "a,b,c\n1,2,x\n3,y,4\n", "", `a.csv:2:5: column "c": "x" is not a number`},
		{"csv Unicode minus", "a.csv", "x\n\u22121.5\n", "x", `a.csv:2:1: column "x": "−1.5" is not a number (the minus sign − of typeset text? write -1.5)`},
		{"csv Arabic-Indic digits", "a.csv", "x\n-١٢.٥\n", "x", `a.csv:2:1: column "x": "-١٢.٥" is not a number (digits of another script? write -12.5)`},
		{"csv Stata missing", "a.csv", "x\n1\n.\n", "x", `a.csv:3:1: column "x": "." is not a number (a missing value, as Stata, SAS and NONMEM write it? write NA or leave the cell empty)`},
		{"csv thousands", "a.csv", "x\n\"-12,345.5\"\n", "x", `a.csv:2:1: column "x": "-12,345.5" is not a number (a thousands separator? write -12345.5)`},
		{"csv quoted decimal comma", "a.csv", "x,y\n1,\"2,75\"\n", "y", `a.csv:2:3: column "y": "2,75" is not a number (a decimal comma? write 2.75)`},
		{"csv words with a comma", "a.csv", "x,y\n1,\"a,b\"\n", "y", `a.csv:2:3: column "y": "a,b" is not a number` + "\x00"},
		{"csv true beside numbers", "a.csv", "x\n1\nyes\n", "x", `a.csv:3:1: column "x": "yes" is not a number` + "\x00"},
		{"json string value", "a.json", "{\"N\": \"ten\"}", "N", `a.json:1:7: "N": expected a number, found the string "ten"`},
		{"json object value", "a.json", "{\"N\": {\"a\": [1]}}", "N", `a.json:1:7: "N": expected a number, found "{"`},
		{"json ragged", "a.json", "{\"X\": [[1,2],[3]]}", "X", `a.json:1:14: "X": row 2 has 1 elements, the rows before it 2`},
		{"json null", "a.json", "{\"X\": [1,null]}", "X", `a.json:1:10: "X": null, a missing value`},
		{"json number then row", "a.json", "{\"X\": [1, [2]]}", "X", `a.json:1:11: "X" mixes numbers and arrays`},
		{"json empty row then number", "a.json", "{\"X\": [[], 2]}", "X", `a.json:1:12: "X" mixes numbers and arrays`},
		{"json object in a row", "a.json", "{\"X\": [[1, {\"b\": [2]}], [3, 4]]}", "X", `a.json:1:12: "X": expected a number, found "{"`},
		{"json 3-D array", "a.json", "{\"A\": [[[1, 2]], [[3, 4]]]}", "A", `a.json:1:9: "A": expected a number, found "[" (an array of three or more dimensions: data are scalars, vectors and matrices)`},
		{"json logical", "a.json", "{\"k\": [1, false]}", "k", `a.json:1:11: "k": expected a number, found false (a logical? write 1 and 0, as cmdstanr's write_stan_json does)`},
		{"json out of range", "a.json", "{\"x\": [1, 1e400]}", "x", `a.json:1:11: "x": "1e400" is out of range`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var a *Array
			if read := map[string]func(string, io.Reader) (*Table, error){".csv": ReadCSV, ".tsv": ReadTSV}[filepath.Ext(c.file)]; read != nil {
				tab, err := read(c.file, strings.NewReader(c.src))
				if err != nil {
					t.Fatal(err)
				}
				if a = tab.Matrix("X"); c.key != "" {
					a = tab.Column(c.key)
				}
			} else {
				set, err := ReadJSON(c.file, strings.NewReader(c.src))
				if err != nil {
					t.Fatal(err)
				}
				a = set[c.key]
			}
			if a == nil {
				t.Fatalf("no data %q in %s", c.key, c.file)
			}
			err := a.Err()
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error()+"\x00", c.want) { // a want ending in \x00 must end the error
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
		})
	}
}

// TestReadExcelSep: Excel's "sep=," line before the header of a .csv (and
// its "sep=" and a tab before a .tsv's) is skipped, and the lines keep
// their numbers in positions.
func TestReadExcelSep(t *testing.T) {
	for _, c := range []struct {
		file, src string
		read      func(string, io.Reader) (*Table, error)
	}{
		{"d.csv", "sep=,\r\nx,y\r\n1,2\r\n3,abc\r\n", ReadCSV},
		{"d.tsv", "sep=\t\r\nx\ty\r\n1\t2\r\n3\tabc\r\n", ReadTSV},
	} {
		tab, err := c.read(c.file, strings.NewReader(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if x := tab.Column("x"); x == nil || len(tab.Columns) != 2 || !slices.Equal(x.Values, []float64{1, 3}) || x.Pos.String() != c.file+":3:1" {
			t.Fatalf("%s: columns %+v, want x = [1, 3] from %s:3:1", c.file, tab.Columns, c.file)
		}
		if err := tab.Column("y").Err(); err == nil || !strings.HasPrefix(err.Error(), c.file+`:4:3: column "y": "abc"`) {
			t.Errorf("%s: y: error %v, want it at %s:4:3", c.file, err, c.file)
		}
	}
}

// TestReadLogical: the logical cells of R's write.csv (TRUE, FALSE) and
// pandas' to_csv (True, False) are the ints 1 and 0, as int<lower=0,
// upper=1> data of a Bernoulli read them, where they were not numbers.
func TestReadLogical(t *testing.T) {
	tab, err := ReadCSV("d.csv", strings.NewReader("k,y,b\nTRUE,1.5,True\nFALSE,2,false\n\"TRUE\",3,NA\n"))
	if err != nil {
		t.Fatal(err)
	}
	if k := tab.Column("k"); k.Err() != nil || !k.Int || !slices.Equal(k.Values, []float64{1, 0, 1}) {
		t.Errorf("k = %+v, want the ints 1, 0, 1", k)
	}
	if y := tab.Column("y"); y.Int || y.Values[2] != 3 {
		t.Errorf("y = %+v", y)
	}
	b := tab.Column("b")
	if !b.Int || b.Values[0] != 1 || b.Values[1] != 0 || !slices.Equal(b.Missing, []int{2}) {
		t.Errorf("b = %+v, want 1, 0 and a missing value", b)
	}
}

// TestReadUnused: a column of words and keys of any JSON type sit beside
// the numbers; the numbers read as ever and the rest of the file goes on.
func TestReadUnused(t *testing.T) {
	tab, err := ReadCSV("d.csv", strings.NewReader("x,y,name\n1,2,foo\n2,3.9,bar\n3,6.1,\n"))
	if err != nil {
		t.Fatal(err)
	}
	if x, y := tab.Column("x"), tab.Column("y"); x.Err() != nil || y.Err() != nil || !x.Int || y.Values[2] != 6.1 || y.Locate(2).String() != "d.csv:4:3" {
		t.Errorf("x = %+v, y = %+v", x, y)
	}
	if err := tab.Column("name").Err(); err == nil || !strings.HasPrefix(err.Error(), `d.csv:2:5: column "name": "foo" is not a number`) {
		t.Errorf("name: error %v", err)
	}
	src := `{"extra": "hello", "flag": true, "none": null, "meta": {"a": [1, {"b": []}], "c": "d"},
 "x": [1, 2, 3], "rows": [[1, "a"], [2]], "y": [2, 3.9, 6.1], "mixed": [1, [2]], "names": ["a", "b"]}`
	set, err := ReadJSON("d.json", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if x, y := set["x"], set["y"]; x.Err() != nil || y.Err() != nil || x.Values[2] != 3 || y.Shape[0] != 3 || y.Locate(1).String() != "d.json:2:52" {
		t.Errorf("x = %+v, y = %+v", x, y)
	}
	for _, k := range []string{"extra", "flag", "none", "meta", "rows", "mixed", "names"} {
		if a := set[k]; a == nil || a.Err() == nil {
			t.Errorf("%s = %+v, want a value with an error", k, a)
		}
	}
}

// TestReadMultilineCell: a quoted cell may hold a newline (a note written
// over two lines); the cells after it are located on the line where they
// are, not on the line where the row starts.
func TestReadMultilineCell(t *testing.T) {
	for _, tc := range []struct{ file, src string }{
		{"d.csv", "note,y,z\n\"a\nb\",x,3\n\"c\",4,5\n"},
		{"d.tsv", "note\ty\tz\n\"a\nb\"\tx\t3\n\"c\"\t4\t5\n"},
	} {
		read := ReadCSV
		if strings.HasSuffix(tc.file, ".tsv") {
			read = ReadTSV
		}
		tab, err := read(tc.file, strings.NewReader(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		want := tc.file + `:3:4: column "y": "x" is not a number`
		if err := tab.Column("y").Err(); err == nil || err.Error() != want {
			t.Errorf("%s: y's error %v, want %s", tc.file, err, want)
		}
		for _, c := range []struct {
			col  string
			i    int
			want string
		}{{"z", 0, "3:6"}, {"z", 1, "4:7"}, {"note", 0, "2:1"}} {
			if got := tab.Column(c.col).Locate(c.i).String(); got != tc.file+":"+c.want {
				t.Errorf("%s: %s[%d] at %s, want %s:%s", tc.file, c.col, c.i, got, tc.file, c.want)
			}
		}
		if got := tab.Matrix("X").Locate(2).String(); got != tc.file+":3:6" {
			t.Errorf("%s: the matrix's element 2 at %s, want %s:3:6", tc.file, got, tc.file)
		}
	}
}

// TestBindCSVNoRows: a file of no rows bound to a matrix gives it no rows
// and its row count 0, as JSON's [] does: an EPM's empty held-out pairs.
func TestBindCSVNoRows(t *testing.T) {
	info := checked(t, "data links: int[E, 2]\ndata unknown: int[M, 2]\n")
	bound, err := Bind(info, []Input{csvInput(t, "links", "links.csv", "i,j\n0,1\n1,2\n"), csvInput(t, "unknown", "empty.csv", "i,j\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u, m := bound["unknown"], bound["M"]; u == nil || len(u.Shape) != 2 || u.Shape[0] != 0 || u.Shape[1] != 2 || m == nil || m.Values[0] != 0 {
		t.Errorf("unknown %+v, M %+v: want a 0 × 2 matrix and M = 0", u, m)
	}
}
