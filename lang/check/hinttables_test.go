package check

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gpplang/gpp/stdlib"
)

// hintCall is a call written in a hint: a name and its number of arguments.
type hintCall struct {
	name string
	args int
}

var hintCallRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*\(`)

// notCalls are names a hint writes with parentheses that are not gpp
// calls: P(y > 0) a probability, target() named as what gpp lacks.
var notCalls = map[string]bool{"P": true, "target": true}

// hintCalls returns the calls a hint tells the user to write: every
// NAME(...) except another language's, named after "Stan's", "R's",
// "PyMC's", "brms's" and the like ("Stan's neg_binomial(alpha, beta)") or
// after a module's "." (brms's inverse.gaussian), and except the foreign
// names the table explains (keys of table, as stanKey spells them).
func hintCalls(text string, table map[string]string) []hintCall {
	var calls []hintCall
	for _, m := range hintCallRe.FindAllStringIndex(text, -1) {
		before := strings.TrimRight(text[:m[0]], " ")
		name := text[m[0] : m[1]-1]
		_, foreign := table[name]
		if _, k := table[stanKey(name)]; k {
			foreign = true
		}
		if foreign || notCalls[name] || strings.HasSuffix(before, "'s") || strings.HasSuffix(text[:m[0]], ".") {
			continue
		}
		depth, args, empty := 0, 1, true
		for _, r := range text[m[1]:] {
			if depth == 0 && r == ')' {
				break
			}
			switch r {
			case '(', '[':
				depth++
			case ')', ']':
				depth--
			case ',':
				if depth == 0 {
					args++
				}
			}
			if r != ' ' {
				empty = false
			}
		}
		if empty {
			args = 0
		}
		calls = append(calls, hintCall{name, args})
	}
	return calls
}

// hintCallOK reports whether c is a call gpp knows with that many
// arguments: a function, a distribution or logpdf and its kin.
func hintCallOK(c hintCall) bool {
	if f := stdlib.LookupFunc(c.name); f != nil {
		return len(f.Args) == c.args
	}
	if d := stdlib.LookupDist(c.name); d != nil {
		least := 0
		for _, p := range d.Params {
			if !p.Optional {
				least++
			}
		}
		return c.args >= least && c.args <= len(d.Params)
	}
	switch c.name {
	case "logpdf", "logcdf", "logccdf", "icdf":
		return c.args == 2
	}
	return false
}

// TestHintTablesNameKnownCalls walks the tables of names gpp writes
// otherwise and checks that each call they suggest is one gpp knows with
// that many arguments (np.maximum was "maximum in gpp", which has none,
// and math.max(a, 0) "max", which takes one argument).
func TestHintTablesNameKnownCalls(t *testing.T) {
	tables := map[string]map[string]string{
		"stanSpellings": stanSpellings, "stanNotes": stanNotes, "otherDists": otherDists,
		"stanLacks": stanLacks, "zeroInflatedNames": zeroInflatedNames, "stanGLMs": stanGLMs,
	}
	reparams := map[string]string{}
	for k, r := range stanReparams {
		reparams[k] = r.gpp
	}
	tables["stanReparams"] = reparams
	tables["consts"] = map[string]string{"zeroInflated": zeroInflated}
	checked := 0
	for table, m := range tables {
		for key, hint := range m {
			for _, c := range hintCalls(hint, m) {
				checked++
				if !hintCallOK(c) {
					t.Errorf("%s[%q] suggests %s with %d arguments, which gpp does not know: %s", table, key, c.name, c.args, hint)
				}
			}
		}
	}
	for key, g := range stanDists {
		name, _, _ := strings.Cut(g, " ")
		if g != "" && stdlib.LookupDist(name) == nil {
			t.Errorf("stanDists[%q] = %q is no distribution of gpp's", key, g)
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("checked only %d suggested calls: the walk lost its tables", checked)
	}
}
