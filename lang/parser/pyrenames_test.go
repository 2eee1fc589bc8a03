package parser

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gpplang/gpp/stdlib"
)

// TestPyRenamesNameKnownCalls checks that each call the module-prefix hints
// suggest is a gpp function with that many arguments (np.maximum was
// "maximum in gpp", which has none; math.max(a, 0) was "max", which takes
// one), and that a prefixed name gpp lacks is not called gpp's.
func TestPyRenamesNameKnownCalls(t *testing.T) {
	re := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*\(`)
	checked := 0
	for key, hint := range pyRenames {
		for _, m := range re.FindAllStringIndex(hint, -1) {
			name := hint[m[0] : m[1]-1]
			if name == key {
				continue // the Python call being explained
			}
			depth, args, empty := 0, 1, true
			for _, r := range hint[m[1]:] {
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
				args = 0 // f() takes none
			}
			checked++
			if f := stdlib.LookupFunc(name); f == nil || len(f.Args) != args {
				t.Errorf("pyRenames[%q] suggests %s with %d arguments, which gpp does not know: %s", key, name, args, hint)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d suggested calls", checked)
	}
	for _, c := range []struct{ name, fn string }{{"np.maximum", "maximum"}, {"np.foo", "foo"}, {"np.log", "log"}} {
		got := moduleHint(c.name, c.fn)
		if claims := strings.Contains(got, " is "+c.fn+" in gpp"); claims != (stdlib.LookupFunc(c.fn) != nil) {
			t.Errorf("moduleHint(%s) = %q: it names %s as gpp's, which gpp %s", c.name, got, c.fn, map[bool]string{true: "lacks", false: "has"}[claims])
		}
	}
}
