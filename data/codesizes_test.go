package data

import (
	"strconv"
	"strings"
	"testing"
)

// TestBindCodeSizes: an int size that no input gives is bound from the
// largest value of the numeric ids it bounds above, + c for upper=S-c (S
// = 20 from ids 0..19 under upper=S-1, and from Stan's 1..20 under
// upper=S), with a note naming the codes in range that no row holds and
// 0-based ids that look 1-based; the largest over two columns bounded by
// one S; labels, --set and a JSON key win.
func TestBindCodeSizes(t *testing.T) {
	ids := func(name string, vals ...int) string {
		var s strings.Builder
		s.WriteString(name + "\n")
		for _, v := range vals {
			s.WriteString(strconv.Itoa(v) + "\n")
		}
		return s.String()
	}
	span := func(lo, hi int) []int {
		var out []int
		for k := lo; k <= hi; k++ {
			out = append(out, k)
		}
		return out
	}
	zeroBased := "data S: int\ndata subj: int<lower=0, upper=S-1>[N]\n"
	stan := "data S: int\ndata subj: int<lower=1, upper=S>[N]\n"
	for _, c := range []struct {
		name, model string
		in          []Input
		sets        map[string]string
		want        float64
		note        string // "" for none
	}{
		{"0-based", zeroBased, []Input{csvInput(t, "", "d.csv", ids("subj", append(span(0, 19), 19, 0)...))}, nil,
			20, "d.csv: S = 20 from the largest value of subj (19) + 1"},
		{"Stan's 1-based", stan, []Input{csvInput(t, "", "d.csv", ids("subj", span(1, 20)...))}, nil,
			20, "d.csv: S = 20 from the largest value of subj (20)"},
		{"upper=S-2", "data S: int\ndata subj: int<lower=0, upper=S - 2>[N]\n", []Input{csvInput(t, "", "d.csv", ids("subj", 0, 1, 2))}, nil,
			4, "d.csv: S = 4 from the largest value of subj (2) + 2"},
		{"gaps", zeroBased, []Input{csvInput(t, "", "d.csv", ids("subj", 0, 1, 2, 4, 5, 6, 8, 9))}, nil,
			10, "d.csv: S = 10 from the largest value of subj (9) + 1; codes 3, 7 have no rows: terms indexed by subj say nothing of their groups; give S if there are groups past code 9 too"},
		{"one gap", stan, []Input{csvInput(t, "", "d.csv", ids("subj", 1, 3))}, nil,
			3, "d.csv: S = 3 from the largest value of subj (3); code 2 has no rows: terms indexed by subj say nothing of its group; give S if there are groups past code 3 too"},
		{"many gaps", zeroBased, []Input{csvInput(t, "", "d.csv", ids("subj", 0, 1, 2, 3, 4, 5, 6, 13))}, nil,
			14, "d.csv: S = 14 from the largest value of subj (13) + 1; codes 7, 8, 9, 10, 11, … (6 in all) have no rows: terms indexed by subj say nothing of their groups; give S if there are groups past code 13 too"},
		{"1-based ids under lower=0", zeroBased, []Input{csvInput(t, "", "d.csv", ids("subj", span(1, 20)...))}, nil,
			21, "d.csv: S = 21 from the largest value of subj (20) + 1; code 0 has no rows: terms indexed by subj say nothing of its group; categories and indices are 0-based and these run from 1 to 20, as Stan's 1-based ids do: give 0-based ids, or declare `subj` int<lower=1, upper=S> and write subj - 1 where the model reads it as a category or an index"},
		{"0-based ids with 0 missing among others", zeroBased, []Input{csvInput(t, "", "d.csv", ids("subj", 1, 3, 3))}, nil,
			4, "d.csv: S = 4 from the largest value of subj (3) + 1; codes 0, 2 have no rows: terms indexed by subj say nothing of their groups; give S if there are groups past code 3 too"},
		{"two columns", "data S: int\ndata subj: int<lower=0, upper=S-1>[N]\ndata item: int<lower=0, upper=S-1>[N]\n",
			[]Input{csvInput(t, "", "d.csv", "subj,item\n0,4\n1,5\n2,6\n3,8\n")}, nil,
			9, "d.csv: S = 9 from the largest value of item (8) + 1 (subj's is 3); code 7 has no rows: terms indexed by subj or item say nothing of its group; give S if there are groups past code 8 too"},
		{"--set wins", zeroBased, []Input{csvInput(t, "", "d.csv", ids("subj", 0, 1, 2))}, map[string]string{"S": "25"},
			25, "d.csv: S = 25 (given: codes 0 to 24); codes 3, 4, 5, 6, 7, … (22 in all) have no rows: terms indexed by subj say nothing of their groups"},
		{"a huge given size", zeroBased, []Input{csvInput(t, "", "d.csv", ids("subj", 0, 1, 2))}, map[string]string{"S": "300000000"},
			3e8, "d.csv: S = 300000000 (given: codes 0 to 299999999); codes 3, 4, 5, 6, 7, … (299999997 in all) have no rows: terms indexed by subj say nothing of their groups"},
		{"a JSON key wins", zeroBased, []Input{csvInput(t, "", "d.csv", ids("subj", 0, 1, 2)), jsonInput(t, "s.json", `{"S": 7}`)}, nil,
			7, "d.csv: S = 7 (given: codes 0 to 6); codes 3, 4, 5, 6 have no rows: terms indexed by subj say nothing of their groups"},
		{"labels win", zeroBased, []Input{csvInput(t, "", "d.csv", "subj\nann\nbob\n")}, nil,
			2, `d.csv: column "subj": 2 labels coded 0 to 1 in sorted order (ann 0, bob 1); S = 2 from their count`},
		{"data it sizes win", zeroBased + "data w: real[S]\n", []Input{csvInput(t, "", "d.csv", ids("subj", 0, 1)), jsonInput(t, "w.json", `{"w": [1, 2, 3, 4]}`)}, nil,
			4, "d.csv: S = 4 (given: codes 0 to 3); codes 2, 3 have no rows: terms indexed by subj say nothing of their groups"},
		{"--set filled", zeroBased, []Input{csvInput(t, "", "d.csv", ids("subj", 0, 1, 2))}, map[string]string{"S": "3"},
			3, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := checked(t, c.model)
			bound, err := Bind(info, c.in, c.sets)
			if err != nil {
				t.Fatal(err)
			}
			if s := bound["S"]; s == nil || s.Values[0] != c.want {
				t.Fatalf("S = %+v, want %g", s, c.want)
			}
			notes := LevelNotes(info, bound, false)
			switch {
			case c.note == "" && len(notes) != 0:
				t.Errorf("notes %q, want none", notes)
			case c.note != "" && (len(notes) != 1 || notes[0] != c.note):
				t.Errorf("notes %q\nwant %q", notes, c.note)
			}
			sizes := CodeSizes(info, bound)
			fromCodes := strings.Contains(c.note, "largest value")
			if fromCodes != (sizes["S"] == int(c.want)) || !fromCodes && sizes != nil {
				t.Errorf("CodeSizes %v", sizes)
			}
		})
	}
	// S is checked against its own bounds
	info := checked(t, "data S: int<lower=5>\ndata subj: int<lower=0, upper=S-1>[N]\n")
	if _, err := Bind(info, []Input{csvInput(t, "", "d.csv", ids("subj", 0, 2))}, nil); err == nil || !strings.Contains(err.Error(), "S: value 3 is not >= 5; `S`, the largest value of subj (2) + 1") {
		t.Errorf("S below its lower bound: %v", err)
	}
	// an id in error is the one error: S, which it would have given, is
	// not a second 'no data for S'
	for _, c := range []struct{ ids, want string }{
		{ids("subj", 0, -3), "d.csv:3:1: subj: value -3 is not >= 0"},
		{"subj\n0\n1.5\n", "d.csv:3:1: subj: 1.5 is not an integer"},
	} {
		_, err := Bind(info, []Input{csvInput(t, "", "d.csv", c.ids)}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "no data for `S`") {
			t.Errorf("%q: %v\nwant only %s", c.ids, err, c.want)
		}
	}
	// ids with more codes in range empty than held are no codes: subject
	// numbers, or one huge id, would make S lay out mostly the prior
	for _, c := range []struct{ ids, want string }{
		{ids("subj", 101, 102, 103), "d.csv:4:1: subj: S would be 104 from the largest value of subj (103) + 1, but 101 of the 104 codes from 0 have no rows: subj is read as group codes 0 to S - 1, each its own element; recode it to the 3 ids it holds, write them as text (s101) to code them as labels, or give S (--set S=N) to keep these codes"},
		{ids("subj", 0, 1, 2000000000), "d.csv:4:1: subj: S would be 2000000001 from the largest value of subj (2000000000) + 1, but 1999999998 of the 2000000001 codes from 0 have no rows"},
	} {
		if _, err := Bind(info, []Input{csvInput(t, "", "d.csv", c.ids)}, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v\nwant %s", c.ids, err, c.want)
		}
	}
	// an outcome's largest value is no count of its categories (a top
	// rating nobody gave): the values of a ~ bind no size
	info = checked(t, "data K: int\ndata y: int<lower=0, upper=K-1>[N]\nparam c: ordered[K-1] ~ Normal(0, 3)\ny ~ OrderedLogistic(0, c)\n")
	if _, err := Bind(info, []Input{csvInput(t, "", "d.csv", ids("y", 0, 1, 2, 1))}, nil); err == nil || !strings.Contains(err.Error(), "no data for `K` (int) (`y`, declared with upper=K - 1, is the value of a ~, whose largest value is not its number of categories: a category may go unobserved)") {
		t.Errorf("an outcome's values: %v", err)
	}
	// a column of no values gives none
	info = checked(t, zeroBased)
	if _, err := Bind(info, []Input{jsonInput(t, "d.json", `{"subj": []}`)}, nil); err == nil || !strings.Contains(err.Error(), "no data for `S` (int) (`subj`, declared with upper=S - 1, would give it by its labels' count or its largest value, but holds no value)") {
		t.Errorf("no ids: %v", err)
	}
	// an upper bound of another form binds nothing
	info = checked(t, "data S: int\ndata subj: int<lower=0, upper=S*2>[N]\n")
	if _, err := Bind(info, []Input{csvInput(t, "", "d.csv", ids("subj", 0, 2))}, nil); err == nil || !strings.Contains(err.Error(), "no data for `S`") {
		t.Errorf("upper=S*2: %v", err)
	}
}

// TestBindCodedCodeSizes: for new data given to a fit's model (gpp
// predict), a size the fit bound from its ids is the fit's when the new
// ids are fewer (a few of the groups: the params keep the fit's shape),
// and the new ids' when they reach past it (new groups, which predict
// --new-levels draws from the prior); with no ids at all, the fit's.
// Without the fit's sizes the new ids bind none; one huge new id is an
// error, not a huge S.
func TestBindCodedCodeSizes(t *testing.T) {
	info := checked(t, "data S: int\ndata subj: int<lower=0, upper=S-1>[N]\ndata y: real[N]\n")
	opt := map[string]bool{"y": true, "subj": true} // as when no output reads subj
	fit := map[string]int{"S": 20}
	for _, c := range []struct {
		name string
		in   []Input
		want float64
		note string
	}{
		{"a few groups", []Input{csvInput(t, "", "new.csv", "subj\n2\n5\n5\n")}, 20,
			"new.csv: S = 20 from the fit (the largest value of its ids; here subj's is 5)"},
		{"new groups", []Input{csvInput(t, "", "new.csv", "subj\n2\n25\n")}, 26,
			"new.csv: S = 26 from the largest value of subj (25) + 1, above the fit's 20: the groups after its are new"},
		{"no ids", []Input{jsonInput(t, "new.json", `{"N": 0}`)}, 20,
			"S = 20 from the fit (the largest value of its ids)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bound, err := BindCoded(info, c.in, nil, opt, map[string]Levels{}, fit)
			if err != nil {
				t.Fatal(err)
			}
			if s := bound["S"]; s == nil || s.Values[0] != c.want {
				t.Fatalf("S = %+v, want %g", s, c.want)
			}
			if notes := LevelNotes(info, bound, true); len(notes) != 1 || notes[0] != c.note {
				t.Errorf("notes %q\nwant %q", notes, c.note)
			}
		})
	}
	// codes past the fit's of which more have no rows than have some are
	// no new groups (one huge id would lay out a huge S)
	if _, err := BindCoded(info, []Input{csvInput(t, "", "new.csv", "subj\n2\n2000000\n")}, nil, opt, map[string]Levels{}, fit); err == nil || !strings.Contains(err.Error(), "new.csv:3:1: subj: S would be 2000001 from the largest value of subj (2000000) + 1, but 1999980 of the 1999981 codes from 20 have no rows") {
		t.Errorf("a huge new id: %v", err)
	}
	// without the fit's sizes (S was given to the fit, or the fit is
	// older), a few of the groups' ids are no count of them
	if _, err := BindCoded(info, []Input{csvInput(t, "", "new.csv", "subj\n2\n5\n")}, nil, opt, map[string]Levels{}, nil); err == nil || !strings.Contains(err.Error(), "no data for `S` (int) (the ids of `subj` give no size for a fit's model: the fit recorded none)") {
		t.Errorf("no fit sizes: %v", err)
	}
}
