package data

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/shareddata"
)

// TestReadRDump: the forms R's dump(), rstan's stan_rdump and Stan's
// example-models write — bare and quoted names, <- and =, integers with L,
// sequences, c(...), structure(..., .Dim = ...) listed column by column,
// NA, TRUE/FALSE, empty vectors, comments — read to the arrays ReadJSON
// would give, each element located where it is written.
func TestReadRDump(t *testing.T) {
	src := `# Rats (BUGS), abridged
"N" <-
3L
T = 2
x <- c(8.0, 15)
y <-
structure(c(151, 145, 147, 199, 199, 214), .Dim = c(3L, 2L))
k <- 1:4
down <- 3:1
z <- c(1.5, NA, -2.5e-1); w <- c(TRUE, F)
e <- integer(0)
n <- c(a = 1L, b = 2L)
u <- structure(c(1, 2), .Dim = 2L, .Dimnames = list(c("a", "b")))
one <- c(4)
`
	set, err := ReadRDump("d.R", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, shape []int, vals []float64, isInt bool) {
		t.Helper()
		a := set[name]
		if a == nil {
			t.Errorf("%s: not read", name)
			return
		}
		if err := a.Err(); err != nil && len(a.Missing) == 0 {
			t.Errorf("%s: %v", name, err)
		}
		same := len(a.Values) == len(vals)
		for i := range vals {
			same = same && (a.Values[i] == vals[i] || math.IsNaN(a.Values[i]) && math.IsNaN(vals[i]))
		}
		if !slices.Equal(a.Shape, shape) || !same || a.Int != isInt {
			t.Errorf("%s = shape %v values %v int %v, want %v %v %v", name, a.Shape, a.Values, a.Int, shape, vals, isInt)
		}
	}
	check("N", nil, []float64{3}, true)
	check("T", nil, []float64{2}, true)
	check("x", []int{2}, []float64{8, 15}, false)
	check("y", []int{3, 2}, []float64{151, 199, 145, 199, 147, 214}, true)
	check("k", []int{4}, []float64{1, 2, 3, 4}, true)
	check("down", []int{3}, []float64{3, 2, 1}, true)
	check("z", []int{3}, []float64{1.5, math.NaN(), -0.25}, false)
	check("w", []int{2}, []float64{1, 0}, true)
	check("e", []int{0}, []float64{}, true)
	check("n", []int{2}, []float64{1, 2}, true)
	check("u", []int{2}, []float64{1, 2}, true) // integers as written, as JSON reads [1, 2]
	check("one", []int{1}, []float64{4}, true)
	if z := set["z"]; !slices.Equal(z.Missing, []int{1}) || z.Err() == nil || z.Err().Error() != `d.R:10:13: "z": NA, a missing value` {
		t.Errorf("z: missing %v, error %v", z.Missing, z.Err())
	}
	// y[1, 1] = 199 is the file's 5th number: row-major index 3
	for i, want := range map[int]string{0: "d.R:7:13", 1: "d.R:7:28", 3: "d.R:7:33", 5: "d.R:7:38"} {
		if got := set["y"].Locate(i).String(); got != want {
			t.Errorf("y element %d at %s, want %s", i, got, want)
		}
	}
	if got := set["N"].Pos.String(); got != "d.R:3:1" {
		t.Errorf("N at %s, want d.R:3:1", got)
	}
}

// TestReadRDumpErrors: invalid syntax ends the read at its position; a
// value that is not numbers (an infinity, a string, three dimensions, a
// .Dim that disagrees with the values) is kept as its array's error, as
// ReadJSON keeps it, so that names the model does not read do no harm.
func TestReadRDumpErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"empty", "# nothing\n", "d.R:1:1: empty R dump file: expected NAME <- VALUE statements"},
		{"no assignment", "y c(1, 2)\n", "d.R:1:3: expected <- after y, found `c`"},
		{"unclosed c", "y <- c(1, 2\nz <- 3\n", "d.R:2:1: expected `,` or `)` in c(...), found `z`"},
		{"unknown call", "y <- matrix(1:4, 2)\n", "d.R:1:6: matrix(...): an R dump file's values are numbers, c(...), a:b and structure(c(...), .Dim = c(n, m))"},
		{"list", "y <- list(a = 1)\n", "d.R:1:6: list(...): a list or data frame is not one value; dump its columns under names of their own"},
		{"data frame", "d <-\nstructure(list(x = c(1, 2), g = 1:2), class = \"data.frame\", row.names = c(NA, -2L))\n", "d.R:2:11: list(...): a list or data frame is not one value"},
		{"unknown name", "y <- c(1, x)\n", "d.R:1:11: expected a number, found `x`"},
		{"twice", "y <- 1\ny <- 2\n", "d.R:2:1: y is assigned twice"},
		{"unclosed quote", "\"y <- 1\n", "d.R:1:1: the name opened here has no closing \""},
		{"stray character", "y <- 1 * 2\n", "d.R:1:8: unexpected '*' in an R dump file"},
		{"binary", "\x1f\x8b\x08\x00\x00\x00", "d.R:1:1: the file is gzip-compressed: an R dump file is text"},
	} {
		_, err := ReadRDump("d.R", strings.NewReader(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: ReadRDump(%q):\n got %v\nwant %s", c.name, c.src, err, c.want)
		}
	}
	for _, c := range []struct{ name, src, want string }{
		{"infinity", "y <- c(1, -Inf)\n", `d.R:1:11: "y": "-Inf": infinite values are not allowed in data`},
		{"string", "y <- c(1, \"a\")\n", `d.R:1:11: "y": expected a number, found the string "a"`},
		{"three dimensions", "y <- structure(1:8, .Dim = c(2L, 2L, 2L))\n", `d.R:1:21: "y": .Dim = c(2L, 2L, 2L): an array of three or more dimensions (data are scalars, vectors and matrices)`},
		{"dims disagree", "y <- structure(1:5, .Dim = c(2L, 3L))\n", `d.R:1:21: "y": .Dim = c(2L, 3L) holds 6 elements, but the values are 5`},
		{"fractional sequence", "y <- 1.5:3\n", `d.R:1:6: "y": a sequence a:b takes two integers (of at most 2^53 in magnitude)`},
		{"sequence past 2^53", "y <- 1e17:100000000000000016\n", `d.R:1:6: "y": a sequence a:b takes two integers (of at most 2^53 in magnitude)`},
		{"hexadecimal", "y <- 0x10\n", `d.R:1:6: "y": "0x10" is not a number`},
	} {
		set, err := ReadRDump("d.R", strings.NewReader(c.src+"ok <- 1\n"))
		if err != nil {
			t.Errorf("%s: %v, want the error kept with y", c.name, err)
			continue
		}
		if got := set["y"].Err(); got == nil || got.Error() != c.want {
			t.Errorf("%s: y's error %v\nwant %s", c.name, got, c.want)
		}
		if set["ok"].Err() != nil || set["ok"].Values[0] != 1 {
			t.Errorf("%s: the value after y was not read", c.name)
		}
	}
}

// TestReadRDumpSameAsJSON: each posteriordb data set, written as R's
// dump() writes it (vectors as c(...), matrices as structure(c(...), .Dim
// = c(n, m)) column by column, integers with L), reads to the arrays its
// JSON gives: the same shapes, values, int-ness and missing cells.
func TestReadRDumpSameAsJSON(t *testing.T) {
	root := shareddata.Path(t, "posteriordb")
	files, _ := filepath.Glob(filepath.Join(root, "*", "data.json"))
	if len(files) == 0 {
		t.Skipf("no posteriordb data.json under %s", root)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		js, err := ReadJSON(f, strings.NewReader(string(src)))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for name, a := range js {
			fmt.Fprintf(&b, "%s <-\n%s\n", name, rDumpText(a))
		}
		rd, err := ReadRDump("data.R", strings.NewReader(b.String()))
		if err != nil {
			t.Fatalf("%s as R dump: %v\n%s", f, err, b.String())
		}
		for name, a := range js {
			r := rd[name]
			if r == nil || !slices.Equal(r.Shape, a.Shape) || r.Int != a.Int || !slices.Equal(r.Missing, a.Missing) ||
				!slices.EqualFunc(r.Values, a.Values, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }) {
				t.Errorf("%s: %s reads otherwise from R dump: %+v, JSON %+v", f, name, r, a)
			}
		}
	}
}

// rDumpText writes a as R's dump() does.
func rDumpText(a *Array) string {
	num := func(i int) string {
		if a.isMissing(i) {
			return "NA"
		}
		s := strconv.FormatFloat(a.Values[i], 'g', -1, 64)
		if a.Int {
			s += "L"
		}
		return s
	}
	switch len(a.Shape) {
	case 0:
		return num(0)
	case 1:
		var el []string
		for i := range a.Values {
			el = append(el, num(i))
		}
		return "c(" + strings.Join(el, ", ") + ")"
	}
	r, c := a.Shape[0], a.Shape[1]
	var el []string
	for j := range c {
		for i := range r {
			el = append(el, num(i*c+j))
		}
	}
	return fmt.Sprintf("structure(c(%s), .Dim = c(%dL, %dL))", strings.Join(el, ", "), r, c)
}

// TestBindRDump: R has no scalars, so an R value of one element, bare or
// c(...), binds a scalar and a vector of one element alike (a size too);
// JSON's 2.5 for a vector stays an error (TestBind's "JSON scalar for a
// vector"). A matrix binds row by row from R's column order.
func TestBindRDump(t *testing.T) {
	info := checked(t, "data N: int\ndata K: int\ndata y: real[N]\ndata s: real\ndata X: real[N, K]\n")
	set, err := ReadRDump("d.R", strings.NewReader("N <- c(1L)\ny <- 2.5\ns <- c(0.5)\nX <- structure(c(1, 2), .Dim = c(1L, 2L))\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Bind(info, []Input{{File: "d.R", JSON: set}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if y := out["y"]; !slices.Equal(y.Shape, []int{1}) || y.Values[0] != 2.5 {
		t.Errorf("y = %+v, want the vector [2.5]", y)
	}
	if s := out["s"]; s.Shape != nil || s.Values[0] != 0.5 {
		t.Errorf("s = %+v, want the scalar 0.5", s)
	}
	if x := out["X"]; !slices.Equal(x.Shape, []int{1, 2}) || !slices.Equal(x.Values, []float64{1, 2}) {
		t.Errorf("X = %+v", x)
	}
	if n, k := out["N"].Values[0], out["K"].Values[0]; n != 1 || k != 2 {
		t.Errorf("N = %v, K = %v", n, k)
	}
	// two elements are a vector, not a scalar
	set, err = ReadRDump("d.R", strings.NewReader("s <- c(1, 2)\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Bind(checked(t, "data s: real\n"), []Input{{File: "d.R", JSON: set}}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "d.R:1:6: s has a vector of 2 values, but `s` is declared real at m.gpp:1:6") {
		t.Errorf("a vector for a scalar: %v", err)
	}
}

// FuzzReadRDump: any input reads without a panic, ends in an error with a
// position or gives arrays whose values fill their shape and whose error,
// if any, is positioned in the file.
func FuzzReadRDump(f *testing.F) {
	for _, s := range []string{
		"N <- 3L\ny <- c(1, NA, 2)\n",
		"X <- structure(c(1, 2, 3, 4, 5, 6), .Dim = c(2L, 3L))\n",
		"k <- 1:10; z = -3:-1\n'w' <- c(TRUE, F)\n",
		"e <- integer(0)\nu <- structure(1:2, .Dim = 2L, .Dimnames = list(c(\"a\", \"b\")))\n",
		"y <- c(a = 1, b = -Inf)\n",
	} {
		f.Add(s)
	}
	rExpandMax = 1 << 16 // each input fast; TestReadRDumpExpandLimit checks the limit
	f.Fuzz(func(t *testing.T, src string) {
		set, err := ReadRDump("d.R", strings.NewReader(src))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "d.R:") {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		for name, a := range set {
			if e := a.Err(); e != nil {
				if !strings.HasPrefix(e.Error(), "d.R:") {
					t.Fatalf("%s: error without a position: %v", name, e)
				}
				continue
			}
			n := 1
			for _, d := range a.Shape {
				n *= d
			}
			if n != len(a.Values) {
				t.Fatalf("%s: shape %v holds %d values, has %d", name, a.Shape, n, len(a.Values))
			}
			for i := range a.Values {
				_ = a.Locate(i)
			}
		}
	})
}

// TestReadRDumpExpandLimit: sequences and integer(n) may not make more
// than rExpandMax numbers in one file: a line of text cannot ask for
// gigabytes.
func TestReadRDumpExpandLimit(t *testing.T) {
	_, err := ReadRDump("d.R", strings.NewReader("a <- 1:10\nb <- integer(1000000000000)\n"))
	if want := "d.R:2:6: this file's sequences and integer(n) would make more than 67108864 numbers"; err == nil || err.Error() != want {
		t.Errorf("integer(1000000000000): %v, want %s", err, want)
	}
	defer func(m int) { rExpandMax = m }(rExpandMax)
	rExpandMax = 1000
	if _, err := ReadRDump("d.R", strings.NewReader("a <- 1:500\nb <- -1:-500\n")); err != nil {
		t.Errorf("1000 numbers: %v", err)
	}
	_, err = ReadRDump("d.R", strings.NewReader("a <- 1:500\nb <- -1:-501\n"))
	if want := "d.R:2:6: this file's sequences and integer(n) would make more than 1000 numbers"; err == nil || err.Error() != want {
		t.Errorf("1001 numbers: %v, want %s", err, want)
	}
}

// TestReadRDumpNegatedLogical: a sign before TRUE negates it as R does
// (-TRUE is -1L, - -TRUE is 1L, -FALSE is 0L).
func TestReadRDumpNegatedLogical(t *testing.T) {
	set, err := ReadRDump("d.R", strings.NewReader("b <- c(-TRUE, - -T, -FALSE, +TRUE)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b := set["b"]; !slices.Equal(b.Values, []float64{-1, 1, 0, 1}) || !b.Int {
		t.Errorf("b = %v (int %v), want [-1 1 0 1] (int)", b.Values, b.Int)
	}
}
