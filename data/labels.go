package data

import (
	"fmt"
	"strings"

	"github.com/gpplang/gpp/lang/check"
)

// Coded lists the codings of the columns of labels of a successful Bind,
// by data declaration in order, for the output files (a fit's levels,
// which gpp predict codes new data by).
func Coded(info *check.Info, bound map[string]*Array) map[string]Levels {
	var out map[string]Levels
	for _, d := range info.Data {
		if a := bound[d.Name]; a != nil && a.Levels != nil {
			if out == nil {
				out = map[string]Levels{}
			}
			out[d.Name] = *a.Levels
		}
	}
	return out
}

// LevelNotes returns a note for each column of labels that a successful
// Bind coded, saying how: `radon.csv: column "county": 85 labels coded 0
// to 84 in sorted order (AITKIN 0, ANOKA 1, BECKER 2, …, YELLOW MEDICINE
// 84)`. Of BindCoded's, fit says so: the codes are the fit's, of the labels
// the column holds.
func LevelNotes(info *check.Info, bound map[string]*Array, fit bool) []string {
	const most = 5
	var notes []string
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || a.Levels == nil {
			continue
		}
		lv := a.Levels
		where := fmt.Sprintf("%s: column %q", lv.File, lv.Column)
		if lv.Column != d.Name {
			where += fmt.Sprintf(" (`%s`)", d.Name)
		}
		bounds := ""
		if len(lv.Bounds) > 0 { // int data bound from the labels' count (boundByLabels)
			whose := "their"
			if fit {
				whose = "the fit's"
			}
			if lv.New > 0 {
				whose = "the fit's and the new labels'"
			}
			bounds = "; " + strings.Join(lv.Bounds, ", ") + " from " + whose + " count"
		}
		if !fit {
			notes = append(notes, fmt.Sprintf("%s: %d label%s coded %d to %d in sorted order (%s)%s", where, len(lv.Labels), plural(len(lv.Labels)), lv.First, lv.First+len(lv.Labels)-1, listCodes(*lv, lv.Labels, most), bounds))
			continue
		}
		seen := map[string]bool{}
		var here []string // the fit's labels that the column holds, in code order
		for i, v := range a.Values {
			if !a.isMissing(i) {
				seen[lv.Labels[int(v)-lv.First]] = true
			}
		}
		for _, s := range lv.Labels {
			if seen[s] {
				here = append(here, s)
			}
		}
		fitted := fmt.Sprintf("the fit coded its %d", len(lv.Labels)-lv.New)
		if lv.New > 0 {
			fitted += fmt.Sprintf(", %d new after them", lv.New)
		}
		notes = append(notes, fmt.Sprintf("%s: %d label%s coded as %s (%s)%s", where, len(here), plural(len(here)), fitted, listCodes(*lv, here, most), bounds))
	}
	return notes
}

// SizeLabels maps each int data size that a successful Bind bound from a
// column's labels (boundByLabels) to the labels, when the size is their
// count: then element k of an axis of that length is Labels[k], under
// lower=0, upper=J-1 (code k indexes element k) and under Stan's lower=1,
// upper=J (code k+1, which the model indexes with as code − 1). A size
// bound otherwise (lower=1, upper=J-1 makes J one more than the count,
// with element 0 coded by no label) is left out: its elements keep their
// numbers. Summaries name the elements of such axes by label.
func SizeLabels(info *check.Info, bound map[string]*Array) map[string][]string {
	var out map[string][]string
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || a.Levels == nil {
			continue
		}
		for _, s := range a.Levels.Sizes {
			j := bound[s]
			if j == nil || len(j.Values) != 1 || j.Values[0] != float64(len(a.Levels.Labels)) {
				continue
			}
			if out == nil {
				out = map[string][]string{}
			}
			out[s] = a.Levels.Labels
		}
	}
	return out
}
