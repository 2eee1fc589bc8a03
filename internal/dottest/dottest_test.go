package dottest

import (
	"strings"
	"testing"
)

// TestCheckDOT: Check accepts well-formed DOT of lang/graph's shape and
// refuses each kind of breakage it is there to catch.
func TestCheckDOT(t *testing.T) {
	good := "digraph \"m\" {\n\t\"a\" [label = \"a\\n~ Normal\", shape = ellipse];\n\tsubgraph \"cluster_N\" {\n\t\tlabel = \"N\";\n\t\t\"b\" [label = \"b\", shape = box];\n\t}\n\t\"a\" -> \"b\";\n}\n"
	if err := Check(good); err != nil {
		t.Fatalf("good DOT refused: %v\n%s", err, good)
	}
	for _, c := range []struct{ from, to string }{
		{"\t\"a\" -> \"b\";\n}", "\t\"a\" -> \"c\";\n}"},                       // an edge to no node
		{"\t}\n\t\"a\" -> \"b\";", "\t\"a\" -> \"b\";"},                        // unbalanced braces
		{"\"b\" [label", "b [label"},                                           // an unquoted ID
		{"label = \"N\"", "label = \"N\\q\""},                                  // a bad escape
		{"\"a\" [label = \"a", "\"a\" [label = \"a\"\""},                       // a stray quote
		{"\t\"a\" -> \"b\";\n", "\t\"a\" -> \"b\";\n\"b\" [label = \"x\"];\n"}, // a node twice
		{"subgraph \"cluster_N\"", "subgraph \"N\""},                           // not a cluster
	} {
		bad := strings.Replace(good, c.from, c.to, 1)
		if bad == good {
			t.Fatalf("mutation %q did not apply", c.from)
		}
		if err := Check(bad); err == nil {
			t.Errorf("DOT accepted:\n%s", bad)
		}
	}
}
