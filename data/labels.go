package data

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/gpplang/gpp/internal/textenc"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
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
// Bind coded, and for each size bound from the largest value of numeric
// ids (`data.csv: S = 20 from the largest value of subj (19) + 1`),
// saying how: `radon.csv: column "county": 85 labels coded 0 to 84 in
// sorted order (AITKIN 0, ANOKA 1, BECKER 2, …, YELLOW MEDICINE
// 84)`. Of BindCoded's, fit says so: the codes are the fit's, of the labels
// the column holds.
func LevelNotes(info *check.Info, bound map[string]*Array, fit bool) []string {
	const most = 5
	var notes []string
	for _, d := range info.Data {
		a := bound[d.Name]
		if a != nil && a.codesNote != "" { // a size bound from numeric ids (boundByCodes)
			notes = append(notes, a.codesNote)
		}
		if a == nil || a.Levels == nil {
			continue
		}
		lv := a.Levels
		where := columnWhere(lv, d.Name)
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
			order := "in sorted order"
			if lv.Given {
				order = "in the order --levels gives"
			}
			if len(lv.With) > 0 { // coded together (labelGroup)
				order += ", shared with " + columnWords(lv.With)
			}
			notes = append(notes, fmt.Sprintf("%s: %d label%s coded %d to %d %s (%s)%s", where, len(lv.Labels), plural(len(lv.Labels)), lv.First, lv.First+len(lv.Labels)-1, order, listCodes(*lv, lv.Labels, most), bounds))
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
	if !fit {
		notes = append(notes, givenSizeNotes(info, bound)...)
	}
	return notes
}

// givenSizeNotes notes, for each int size S that an input gave (--set,
// a JSON key, a matrix's shape) and that numeric group ids bound above
// (upper=S or S − c), the codes in range that no id holds, as the note of
// an S bound from the ids does (boundByCodes): --set S=25 over subjects
// 0..19 leaves five groups that the ids' terms say nothing of, a typo
// or new groups meant for prediction. Labelled columns have their own
// warning (labelAxisWarnings).
func givenSizeNotes(info *check.Info, bound map[string]*Array) []string {
	type ids struct {
		names []string
		held  map[int]bool
		lo, c int
		file  string
	}
	bySize := map[string]*ids{}
	var order []string
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || a.Levels != nil || d.Elem != check.Int || len(d.Dims) != 1 || d.Observed {
			continue
		}
		name, c := sizeBound(d)
		j := bound[name]
		if name == "" || j == nil || j.codesNote != "" || len(j.Values) != 1 {
			continue // bound from the ids (their note says it) or not a size
		}
		g := bySize[name]
		if g == nil {
			g = &ids{held: map[int]bool{}, c: c}
			if d.Lower != nil {
				g.lo = int(*d.Lower)
			}
			g.file = a.Pos.File
			bySize[name] = g
			order = append(order, name)
		}
		g.names = append(g.names, d.Name)
		a.holdCodes(g.held)
	}
	var notes []string
	for _, name := range order {
		g := bySize[name]
		hi := int(bound[name].Values[0]) - g.c
		empty, n := emptyCodes(g.held, g.lo, hi)
		if n == 0 || len(g.held) == 0 {
			continue
		}
		where := g.file
		if where != "" {
			where += ": "
		}
		notes = append(notes, fmt.Sprintf("%s%s = %d (given: codes %d to %d); %s", where, name, hi+g.c, g.lo, hi, noRows(strings.Join(g.names, " or "), empty, n)))
	}
	return notes
}

// CodeSizes maps each int data size that a successful Bind bound from
// the largest value of the numeric ids it bounds above (upper=S or S − c,
// no input giving S) to its value, nil if none: a fit records them, so
// that new data holding a few of the groups bind the fit's S, not one of
// their own (gpp predict).
func CodeSizes(info *check.Info, bound map[string]*Array) map[string]int {
	var out map[string]int
	for _, d := range info.Data {
		if a := bound[d.Name]; a != nil && a.codesNote != "" {
			if out == nil {
				out = map[string]int{}
			}
			out[d.Name] = int(a.Values[0])
		}
	}
	return out
}

// SizeLabels maps each int data size that a successful Bind bound from a
// column's labels (boundByLabels) to the labels, when the size is their
// count: then element k of an axis of that length is Labels[k], under
// lower=0, upper=J-1 (code k indexes element k) and under Stan's lower=1,
// upper=J (code k+1, which the model indexes with as code − 1). A size
// bound otherwise (lower=1, upper=J-1 makes J one more than the count,
// with element 0 coded by no label) is left out: its elements keep their
// numbers. A size an input gave (--set, a matrix's shape) is labelled when
// the codes fill its axis exactly, as if the labels had given it.
// Summaries name the elements of such axes by label.
func SizeLabels(info *check.Info, bound map[string]*Array) map[string][]string {
	var out map[string][]string
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || a.Levels == nil {
			continue
		}
		sizes := a.Levels.Sizes
		if s, c := sizeBound(d); s != "" && !slices.Contains(sizes, s) {
			// a size an input gave (a matrix's shape, --set) that the
			// codes fill exactly, as the labels' count would have
			if j := bound[s]; j != nil && len(j.Values) == 1 && j.Values[0] == float64(a.Levels.First+len(a.Levels.Labels)-1+c) {
				sizes = append(slices.Clip(sizes), s)
			}
		}
		for _, s := range sizes {
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

// LevelOrderWarnings warns of each column of three or more labels that a
// successful Bind coded in sorted order (not in an order the user gave)
// whose codes the model reads as more than names of groups: as the
// outcome of an ordered family (OrderedLogistic, OrderedProbit), the value
// of another family but a categorical one (a user density's too), or a
// number in arithmetic. Byte
// order is no order of meaning ("Agree" before "Disagree" before
// "Neutral"), so such a fit silently answers another question. Indexing
// (`a[county]`) and a categorical outcome are order-free and not warned
// of here, unless data are matched to the codes by position
// (categoryDataWarnings). Each warning names the column, its coding, the
// first such use in the model and how to give the order. The other
// warnings of labels come first: two labels (indicatorWarnings,
// twoLabelWarnings), near labels, an axis the codes do not fill, data
// matched to categories, rare near labels.
func LevelOrderWarnings(file *ast.File, info *check.Info, bound map[string]*Array) []string {
	warns := append(indicatorWarnings(info, bound), twoLabelWarnings(file, info, bound)...)
	warns = append(warns, nearLabelWarnings(info, bound)...)
	warns = append(warns, labelAxisWarnings(file, info, bound)...)
	warns = append(warns, rowLabelWarnings(file, info, bound)...)
	warns = append(warns, categoryDataWarnings(file, info, bound)...)
	warns = append(warns, rareLabelWarnings(info, bound)...)
	return append(warns, orderedUseWarnings(file, info, bound, sortedCodings(info, bound, 3), true, func(d *check.DataVar, lv *Levels, u codeUse) string {
		return fmt.Sprintf("%s: its %d labels are coded in sorted (byte) order, %s, and %s reads the codes %s, where their order is their meaning: give the order with --levels %s=LABEL,LABEL,... (lowest first), or give the column as numbers", columnWhere(lv, d.Name), len(lv.Labels), listCodes(*lv, lv.Labels, 10), u.pos, u.what, d.Name)
	})...)
}

// orderedUseWarnings returns msg's warning for each column of coded, in
// the order declared, that the model reads in order (orderedUses).
func orderedUseWarnings(file *ast.File, info *check.Info, bound map[string]*Array, coded map[*check.Symbol]*check.DataVar, ordinal bool, msg func(d *check.DataVar, lv *Levels, u codeUse) string) []string {
	first := orderedUses(file, info, coded, ordinal)
	var warns []string
	for _, d := range info.Data {
		if u, ok := first[info.Lookup(d.Name)]; ok {
			warns = append(warns, msg(d, bound[d.Name].Levels, u))
		}
	}
	return warns
}

// codeUse is where the model first reads a coded column's codes as more
// than names of groups, and how (orderedUses).
type codeUse struct {
	pos  ast.Pos
	what string
}

// orderedUses returns, for each column of coded, the first place where
// the model reads its codes in order: as a number in arithmetic, as the
// value of a family but a categorical one (a user density's too) and,
// with ordinal, as an ordered outcome. Indexing by the codes, group_sum's
// group codes and a categorical outcome are order-free.
func orderedUses(file *ast.File, info *check.Info, coded map[*check.Symbol]*check.DataVar, ordinal bool) map[*check.Symbol]codeUse {
	first := map[*check.Symbol]codeUse{}
	if len(coded) == 0 || file == nil {
		return first
	}
	// reads records the coded columns e reads, through the lets it reads,
	// but not as indices or as group_sum's group codes (groupSum).
	reads := func(e ast.Node, pos ast.Pos, what string) {
		seen := map[*check.Symbol]bool{}
		var walk func(n ast.Node) bool
		walk = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.IndexExpr:
				ast.Inspect(n.X, walk)
				return false
			case *ast.CallExpr:
				if groupSum(info, n) {
					ast.Inspect(n.Args[0], walk)
					ast.Inspect(n.Args[2], walk)
					return false
				}
			case *ast.Ident:
				s := info.Uses[n]
				if s == nil || seen[s] {
					return true
				}
				seen[s] = true
				if _, ok := first[s]; !ok && coded[s] != nil {
					first[s] = codeUse{pos, what}
				}
				if ls, ok := s.Decl.(*ast.LetStmt); ok && s.Kind == check.Let {
					ast.Inspect(ls.Value, walk)
				}
			}
			return true
		}
		ast.Inspect(e, walk)
	}
	// value is the observed value of the family call names: an ordered
	// outcome, a categorical one (order-free) or another family's value,
	// a user density's (NAME_lpmf, not in the stdlib) too.
	value := func(e ast.Expr, call *ast.CallExpr) {
		switch d := stdlib.LookupDist(call.Fun.Name); {
		case d == nil:
			reads(e, e.Pos(), "as the value of the user density "+call.Fun.Name)
		case d.Shape == stdlib.DistCategorical:
		case d.Shape == stdlib.DistOrdinal:
			if ordinal {
				reads(e, e.Pos(), "as the ordered outcome of "+d.Name)
			}
		default:
			reads(e, e.Pos(), "as the value of "+d.Name)
		}
	}
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DataDecl, *ast.ConstDecl, *ast.LetStmt, *ast.FnDecl:
			return false // a let is reached from what reads it
		case *ast.TildeStmt:
			value(n.LHS, n.Dist)
			ast.Inspect(n.Dist, visit)
			if n.Trunc != nil {
				ast.Inspect(n.Trunc, visit)
			}
			return false
		case *ast.CallExpr:
			if groupSum(info, n) {
				ast.Inspect(n.Args[0], visit) // group codes, as indices, are order-free
				ast.Inspect(n.Args[2], visit)
				return false
			}
			if f := info.Calls[n]; f != nil && f.Shape == stdlib.LogPDF && len(n.Args) == 2 {
				if call, ok := ast.Unparen(n.Args[1]).(*ast.CallExpr); ok {
					value(n.Args[0], call)
					ast.Inspect(call, visit)
					return false
				}
			}
		case *ast.IndexExpr:
			ast.Inspect(n.X, visit) // indexing by the codes is order-free
			return false
		case *ast.Ident:
			reads(n, n.NamePos, "as numbers")
		}
		return true
	}
	ast.Inspect(file, visit)
	return first
}

// groupSum reports whether call is group_sum(x, g, K), whose group codes
// g name groups, as indices do, in no order.
func groupSum(info *check.Info, call *ast.CallExpr) bool {
	f := info.Calls[call]
	return f != nil && f.Shape == stdlib.GroupSum && len(call.Args) == 3
}

// axisSize returns the size of an axis of dimension dim: its known size,
// or the value of the bound size data item it names; ok is false for a
// derived size or one not bound.
func axisSize(dim check.Dim, bound map[string]*Array) (int, bool) {
	if dim.Known() {
		return dim.N, true
	}
	v := bound[dim.Name]
	if dim.Derived || v == nil || len(v.Values) != 1 {
		return 0, false
	}
	return int(v.Values[0]), true
}

// sortedCodings returns the data items coded from at least least labels
// in sorted order (no --levels), by their symbols.
func sortedCodings(info *check.Info, bound map[string]*Array, least int) map[*check.Symbol]*check.DataVar {
	coded := map[*check.Symbol]*check.DataVar{}
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || a.Levels == nil || a.Levels.Given || len(a.Levels.Labels) < least {
			continue
		}
		if s := info.Lookup(d.Name); s != nil && s.Kind == check.Data {
			coded[s] = d
		}
	}
	return coded
}

// labelAxisWarnings warns of each column of labels coded in sorted order
// that indexes an axis (beta'[word], the index the data name alone) longer
// than its codes reach: the words of a vocabulary of V = 1000 written as
// "w0" ... "w999", 940 of them in the file, are coded 0 to 939 by their
// places in byte order ("w10" is 2), not by the numbers they spell, and
// the last 60 entries of the axis get no datum; the fit runs, silently on
// another vocabulary. Once per column, at the first such index.
func labelAxisWarnings(file *ast.File, info *check.Info, bound map[string]*Array) []string {
	if file == nil {
		return nil
	}
	var warns []string
	done := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		e, ok := n.(*ast.IndexExpr)
		if !ok {
			return true
		}
		shape := info.Types[e.X].Shape
		for axis, ix := range e.Indices {
			id, ok := ast.Unparen(ix).(*ast.Ident)
			if !ok || axis >= len(shape) || done[id.Name] {
				continue
			}
			a := bound[id.Name]
			if s := info.Uses[id]; s == nil || s.Kind != check.Data || a == nil || a.Levels == nil || a.Levels.Given || len(a.Levels.Bounds) > 0 {
				continue
			}
			size, ok := axisSize(shape[axis], bound)
			if !ok {
				continue
			}
			lv := a.Levels
			if end := lv.First + len(lv.Labels); end >= size || lv.First < 0 {
				continue
			}
			done[id.Name] = true
			where := columnWhere(lv, id.Name)
			warns = append(warns, fmt.Sprintf("%s: its %d labels are coded %d to %d in sorted (byte) order, %s, but `%s` indexes an axis of %d (%s) at %s: the codes are the labels' places in that order, not numbers the labels may spell, and %d entries of the axis get no label; give the column as numbers, or the labels' order with --levels %s=LABEL,LABEL,...",
				where, len(lv.Labels), lv.First, lv.First+len(lv.Labels)-1, listCodes(*lv, lv.Labels, 4), id.Name, size, shape[axis], ix.Pos(), size-lv.First-len(lv.Labels), id.Name))
		}
		return true
	})
	return warns
}

// indicatorWarnings warns of each column of two labels that a successful
// Bind coded in sorted order for an indicator, an int declared with
// bounds [0, 1] or [1, 2] (a censoring flag `cens` of labels event and
// right): byte order decides which label is 1, and the other way round the
// fit silently answers another question. The warning says which label
// became which code and how to say so (--levels), which silences it.
// Labels that say which is which (no and yes: naturalPair) are not warned
// of; a column the model reads as numbers is IndicatorLabels's error.
func indicatorWarnings(info *check.Info, bound map[string]*Array) []string {
	var warns []string
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || !indicator(d) || !twoSorted(a) {
			continue
		}
		lv := a.Levels
		where := columnWhere(lv, d.Name)
		l0, l1 := lv.Labels[0], lv.Labels[1]
		warns = append(warns, fmt.Sprintf("%s: `%s` is declared %s, an indicator, and its labels are coded in sorted (byte) order: %s is %d and %s is %d; if %s is not the one that %d means, the fit is silently wrong: say which with --levels %s=%s,%s (the label coded %d first)",
			where, d.Name, d.TypeString(), textenc.QuoteLabel(l0), lv.First, textenc.QuoteLabel(l1), lv.First+1, textenc.QuoteLabel(l1), lv.First+1, d.Name, l0, l1, lv.First))
	}
	return warns
}

// indicator reports whether d is declared an indicator: bounds [0, 1], or
// Stan's [1, 2].
func indicator(d *check.DataVar) bool {
	if d.Lower == nil || d.Upper == nil {
		return false
	}
	lo, hi := *d.Lower, *d.Upper
	return lo == 0 && hi == 1 || lo == 1 && hi == 2
}

// twoSorted reports whether a is a column of two labels coded in sorted
// order whose order does not say which is which (not naturalPair).
func twoSorted(a *Array) bool {
	lv := a.Levels
	return lv != nil && !lv.Given && len(lv.Labels) == 2 && !naturalPair(lv.Labels[0], lv.Labels[1])
}

// naturalPair reports whether labels l0 and l1, in that order, are a
// negative and its positive (no and yes, N and Y, off and on), which
// sorted order codes 0 and 1 as their words mean. True and false are read
// as 1 and 0 already (logicalText); pairs whose meaning depends on the
// field (fail and pass, alive and dead, C and F) are not natural.
func naturalPair(l0, l1 string) bool {
	pos, ok := map[string]string{"no": "yes", "n": "y", "f": "t", "off": "on", "negative": "positive", "neg": "pos", "absent": "present"}[strings.ToLower(l0)]
	return ok && strings.ToLower(l1) == pos
}

// twoLabelWarnings warns of each column of two labels coded in sorted
// order, not declared an indicator (indicatorWarnings), that the model
// reads in order: as numbers in arithmetic or as a family's value (not an
// ordered one, which two labels either way round fit alike, mirrored).
// Which label is 1 is then the model's meaning: a Minitab censoring column
// of F (failure) and C (censored) coded C 0, F 1 and read as
// `cens .* logccdf(...)` fits the failures as censored, silently. The
// warning names the column, its coding, the use and the --levels that
// swaps it or keeps it.
func twoLabelWarnings(file *ast.File, info *check.Info, bound map[string]*Array) []string {
	coded := map[*check.Symbol]*check.DataVar{}
	for s, d := range sortedCodings(info, bound, 2) {
		if a := bound[d.Name]; twoSorted(a) && !indicator(d) {
			coded[s] = d
		}
	}
	return orderedUseWarnings(file, info, bound, coded, false, func(d *check.DataVar, lv *Levels, u codeUse) string {
		l0, l1 := lv.Labels[0], lv.Labels[1]
		return fmt.Sprintf("%s: its 2 labels are coded in sorted (byte) order, %s, and %s reads the codes %s, where which label is %d is their meaning: if %d means %s, say so with --levels %s=%s,%s (the label coded %d first); --levels %s=%s,%s keeps this coding and silences this warning; or give the column as numbers",
			columnWhere(lv, d.Name), listCodes(*lv, lv.Labels, 2), u.pos, u.what, lv.First+1, lv.First+1, textenc.QuoteLabel(l0), d.Name, l1, l0, lv.First, d.Name, l0, l1)
	})
}

// nearLabelWarnings warns of two labels of a coding that are one text
// but for case, spaces and punctuation ("Man City" beside "ManCity", a
// typo in one cell): they are coded as two groups, which a model fits
// apart. Each pair is warned of once per coding, for the first column
// that holds it: once for the columns coded together (Levels.With), and
// again for a column coded apart that holds it too.
func nearLabelWarnings(info *check.Info, bound map[string]*Array) []string {
	var warns []string
	seen := map[[3]string]bool{}
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || a.Levels == nil {
			continue
		}
		lv := a.Levels
		cols := append([]string{lv.Column}, lv.With...)
		slices.Sort(cols)
		coding := strings.Join(cols, "\x00") // the same for each column of a group
		first := map[string]string{}
		for _, l := range lv.Labels {
			k := labelKey(l)
			o, ok := first[k]
			if !ok || k == "" {
				first[k] = l
				continue
			}
			pair := [3]string{coding, o, l}
			if seen[pair] {
				continue
			}
			seen[pair] = true
			where := fmt.Sprintf("%s: column %q", lv.File, lv.Column)
			if len(lv.With) > 0 {
				where += " (coded with " + columnWords(lv.With) + ")"
			}
			warns = append(warns, fmt.Sprintf("%s: labels %q and %q differ only in case, spaces or punctuation, yet are coded as two groups (%s): if they name one, write them alike", where, o, l, listCodes(*lv, []string{o, l}, 2)))
		}
	}
	return warns
}

// labelKey is label s lower-cased, its letters and digits alone: labels
// of one key differ only in case, spaces and punctuation.
func labelKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// columnWhere is where a note or warning on coding lv of declaration
// name starts: the file and column, and the name where it differs.
func columnWhere(lv *Levels, name string) string {
	where := fmt.Sprintf("%s: column %q", lv.File, lv.Column)
	if lv.Column != name {
		where += fmt.Sprintf(" (`%s`)", name)
	}
	return where
}

// columnWords names columns for a note: `column "away"`, `columns "a",
// "b"`.
func columnWords(cols []string) string {
	if len(cols) == 1 {
		return fmt.Sprintf("column %q", cols[0])
	}
	return "columns " + strings.Join(quoteAll(cols), ", ")
}

// categoryDataWarnings warns of each column of labels coded in sorted
// order whose codes are categories that data are matched to by position:
// the value of a categorical family (Categorical, CategoricalLogit) whose
// argument reads, directly or through lets, a data item with an axis of
// the categories' count, or an index into such an axis of an expression
// that reads one. A mode choice of walk, car, bus, train, coded bus 0,
// car 1, train 2, walk 3, beside prices in columns price.1..price.4 in
// the order walk, car, bus, train, pairs choice 0 (bus) with walk's
// price: the fit runs, silently on other alternatives. Parameters alone
// (an A/B test's p[variant]) are order-free and not warned of, nor is an
// order --levels gave. Once per column, at the first such use.
func categoryDataWarnings(file *ast.File, info *check.Info, bound map[string]*Array) []string {
	if file == nil {
		return nil
	}
	coded := sortedCodings(info, bound, 2)
	if len(coded) == 0 {
		return nil
	}
	// counts are the numbers of categories of coded column d: its labels',
	// and its declared bounds' when they allow more (a category no row
	// chose).
	counts := func(d *check.DataVar) []int {
		lv := bound[d.Name].Levels
		out := []int{len(lv.Labels)}
		if d.Upper != nil {
			if k := int(*d.Upper) - lv.First + 1; k > len(lv.Labels) {
				out = append(out, k)
			}
		}
		return out
	}
	// reader names a data item that e reads with an axis of one of the
	// counts (not of the column's rows, which would be ambiguous), other
	// than a column of labels (an index, not values per category).
	// A data item read only as group_sum(x, g, K) with g a column of
	// labels coded as d is (mrp's group_sum(prev, sname, S), sname the
	// label of each prev) is matched by label, not by position.
	reader := func(e ast.Node, d *check.DataVar, ks []int, rows int) string {
		var name string
		keyed := func(g ast.Expr) bool {
			id, ok := ast.Unparen(g).(*ast.Ident)
			if !ok {
				return false
			}
			a := bound[id.Name]
			return a != nil && a.Levels != nil && sameCoding(a.Levels, bound[d.Name].Levels)
		}
		readsUnkeyed(info, e, keyed, func(s *check.Symbol) bool {
			a := bound[s.Name]
			if s.Kind != check.Data || a == nil || a.Levels != nil {
				return false
			}
			for _, n := range a.Shape {
				if slices.Contains(ks, n) && n != rows {
					name = s.Name
					return true
				}
			}
			return false
		})
		return name
	}
	// codedIn is the coded column that e reads, or nil.
	codedIn := func(e ast.Node, indices bool) *check.DataVar {
		var d *check.DataVar
		info.VisitReads(e, indices, func(s *check.Symbol) bool {
			d = coded[s]
			return d != nil
		})
		return d
	}
	var warns []string
	done := map[*check.DataVar]bool{}
	// warn warns of d, whose codes index (how) at pos data name; size,
	// when name is a vector along an axis of that size and d's codes
	// start at 0, is the group count of the keyed idiom it suggests too.
	warn := func(d *check.DataVar, pos ast.Pos, how, name, size string) {
		done[d] = true
		lv := bound[d.Name].Levels
		typ := "`" + name + "`"
		v := info.DataVar(name)
		if v != nil {
			typ += " (" + v.TypeString() + ")"
		}
		k := len(lv.Labels)
		key := ""
		if v != nil && len(v.Dims) == 1 && size != "" && lv.First == 0 && d.UpperExpr != nil {
			lab := name + "_label"
			key = fmt.Sprintf(", or match it by label: beside `%s`, a column of the label of each entry (`data %s: int<lower=0, upper=%s>[%s]`, coded with `%s`), and group_sum(%s, %s, %s) in place of `%s`",
				name, lab, ast.FormatExpr(d.UpperExpr), v.Dims[0], d.Name, name, lab, size, name)
		}
		warns = append(warns, fmt.Sprintf("%s: its %d labels are coded %d to %d in sorted (byte) order, %s, and %s at %s, which reads %s: its entries along the axis of %d are matched to the codes by position, the first to %s, the last to %s; if they are in another order (the file's columns %s.1, %s.2, ..., say), give it with --levels %s=LABEL,LABEL,... (the label of `%s`'s first entry first)%s",
			columnWhere(lv, d.Name), k, lv.First, lv.First+k-1, listCodes(*lv, lv.Labels, 10), how, pos, typ, k, textenc.QuoteLabel(lv.Labels[0]), textenc.QuoteLabel(lv.Labels[k-1]), name, name, d.Name, name, key))
	}
	// value checks a categorical family's value e and argument call.
	value := func(e ast.Expr, call *ast.CallExpr) {
		dd := stdlib.LookupDist(call.Fun.Name)
		if dd == nil || dd.Shape != stdlib.DistCategorical {
			return
		}
		d := codedIn(e, false)
		if d == nil || done[d] {
			return
		}
		if name := reader(call, d, counts(d), len(bound[d.Name].Values)); name != "" {
			warn(d, e.Pos(), "they are the categories of "+dd.Name, name, "")
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TildeStmt:
			value(n.LHS, n.Dist)
		case *ast.CallExpr:
			if f := info.Calls[n]; f != nil && f.Shape == stdlib.LogPDF && len(n.Args) == 2 {
				if call, ok := ast.Unparen(n.Args[1]).(*ast.CallExpr); ok {
					value(n.Args[0], call)
				}
			}
		case *ast.IndexExpr:
			shape := info.Types[n.X].Shape
			for axis, ix := range n.Indices {
				d := codedIn(ix, true)
				if d == nil || done[d] || axis >= len(shape) {
					continue
				}
				size, ok := axisSize(shape[axis], bound)
				ks := counts(d)
				if !ok || !slices.Contains(ks, size) {
					continue
				}
				if name := reader(n.X, d, ks, len(bound[d.Name].Values)); name != "" {
					warn(d, ix.Pos(), "they index the axis of "+shape[axis].String()+" of `"+ast.FormatExpr(n.X)+"`", name, shape[axis].String())
				}
			}
		}
		return true
	})
	return warns
}

// rareLabelWarnings warns of a label of a coding seen in few rows (once,
// or in at most 1 % of the other's rows) that is one edit (a character
// inserted, deleted or replaced) from a label seen in at least five times
// as many, "Dd" in one row among "D"'s six: a typo in one cell, which
// becomes a group of its own. Guards against ids and codes that differ by
// one character by design: an edit of a digit (word ids w1 and w10, firm_01
// and firm_011, years) is not warned of, nor a replaced character of a
// label shorter than 4 (codes A and B, US and UK), nor a character
// inserted into a label shorter than 4 unless it doubles its neighbour
// ("Dd", not "AB"). Once per pair of a coding (its columns together), at
// the rare label's first cell; --levels, which lists the labels, is
// taken as meaning them.
func rareLabelWarnings(info *check.Info, bound map[string]*Array) []string {
	type cell struct {
		a *Array
		i int
	}
	type coding struct {
		lv    *Levels
		name  string // the first declaration coded so, for --levels
		count map[string]int
		first map[string]cell
	}
	var codings []*coding
	byKey := map[string]*coding{}
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || a.Levels == nil || a.Levels.Given {
			continue
		}
		lv := a.Levels
		cols := append([]string{lv.Column}, lv.With...)
		slices.Sort(cols)
		key := lv.File + "\x00" + strings.Join(cols, "\x00")
		c := byKey[key]
		if c == nil {
			c = &coding{lv: lv, name: d.Name, count: map[string]int{}, first: map[string]cell{}}
			byKey[key] = c
			codings = append(codings, c)
		}
		seen := map[string]bool{} // labels met in this column
		for i, v := range a.Values {
			k := int(v) - lv.First
			if a.isMissing(i) || k < 0 || k >= len(lv.Labels) {
				continue
			}
			s := lv.Labels[k]
			if !seen[s] { // its first cell here: the coding's first if before another column's
				seen[s] = true
				if f, ok := c.first[s]; !ok || a.Locate(i).Before(f.a.Locate(f.i)) {
					c.first[s] = cell{a, i}
				}
			}
			c.count[s]++
		}
	}
	var warns []string
	for _, c := range codings {
		for _, r := range c.lv.Labels {
			n := c.count[r]
			if n == 0 {
				continue
			}
			for _, f := range c.lv.Labels {
				m := c.count[f]
				if f == r || m < 5 || m < 5*n || n > 1 && 100*n > m || labelKey(f) == labelKey(r) || !typoOf(r, f) {
					continue
				}
				at := c.first[r]
				lv := at.a.Levels // the rare label's column's, of one coding
				where := fmt.Sprintf("%s: column %q", at.a.Locate(at.i), lv.Column)
				if len(lv.With) > 0 {
					where += " (coded with " + columnWords(lv.With) + ")"
				}
				warns = append(warns, fmt.Sprintf("%s: label %q, in %d row%s, is one character from %q, in %d, yet is coded as a group of its own (%s): if it is a typo, write it as %q; if it is a group, give the labels with --levels %s=LABEL,LABEL,...",
					where, r, n, plural(n), f, m, listCodes(*c.lv, []string{f, r}, 2), f, c.name))
				break
			}
		}
	}
	return warns
}

// typoOf reports whether label r is one edit from label f that reads as a
// typo, not as another id or code (rareLabelWarnings's guards): one
// character replaced, both of at least 4, or inserted or deleted, the
// shorter of at least 4 or the character doubling its neighbour; never a
// digit.
func typoOf(r, f string) bool {
	a, b := []rune(r), []rune(f)
	if len(a) < len(b) {
		a, b = b, a // a the longer
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	switch len(a) - len(b) {
	case 0: // replaced: the rest alike
		if i == len(a) || !slices.Equal(a[i+1:], b[i+1:]) {
			return false
		}
		return len(b) >= 4 && !unicode.IsDigit(a[i]) && !unicode.IsDigit(b[i])
	case 1: // a[i] inserted
		if !slices.Equal(a[i+1:], b[i:]) || unicode.IsDigit(a[i]) {
			return false
		}
		near := func(j int) bool {
			return j >= 0 && j < len(a) && j != i && unicode.ToLower(a[j]) == unicode.ToLower(a[i])
		}
		return len(b) >= 4 || near(i-1) || near(i+1)
	}
	return false
}

// sameCoding reports whether codings a and b give each code one label.
func sameCoding(a, b *Levels) bool {
	return b != nil && a.First == b.First && slices.Equal(a.Labels, b.Labels)
}

// readsUnkeyed calls f on each symbol that e reads, following lets, as
// check.Info.VisitReads does without indices, but not into a call
// group_sum(x, g, K) whose codes g are keyed (matched by label): until f
// returns true.
func readsUnkeyed(info *check.Info, e ast.Node, keyed func(g ast.Expr) bool, f func(*check.Symbol) bool) {
	info.VisitReadsSkip(e, false, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return false
		}
		fn := info.Calls[call]
		return fn != nil && fn.Shape == stdlib.GroupSum && len(call.Args) == 3 && keyed(call.Args[1])
	}, f)
}
