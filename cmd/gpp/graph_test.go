package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGraphErrorsAsCheck: a model or data error is gpp check's, message
// and exit code, with nothing on stdout and no --out file made.
func TestGraphErrorsAsCheck(t *testing.T) {
	for _, args := range [][]string{
		{"testdata/bad.gpp"},
		{"testdata/check_binomial_cell.gpp", "testdata/check_binomial_cell.csv"},
		{"testdata/check_data_bounds.gpp", "testdata/check_data_bounds.csv", "--set", "U=3"},
		{"../../examples/gpfa.gpp", "testdata/no_such_file.csv"},
	} {
		t.Run(args[0], func(t *testing.T) {
			var cout, cerr, gout, gerr bytes.Buffer
			ccode := run(append([]string{"check"}, args...), strings.NewReader(""), &cout, &cerr)
			out := filepath.Join(t.TempDir(), "m.dot")
			gcode := run(append([]string{"graph", "--out", out}, args...), strings.NewReader(""), &gout, &gerr)
			if ccode != exitError || gcode != ccode {
				t.Errorf("exit %d, gpp check's %d (want %d)", gcode, ccode, exitError)
			}
			if gerr.String() != cerr.String() || gerr.Len() == 0 {
				t.Errorf("stderr:\n%s\nwant gpp check's:\n%s", gerr.String(), cerr.String())
			}
			if gout.Len() != 0 {
				t.Errorf("stdout not empty:\n%s", gout.String())
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out file made after an error (stat: %v)", err)
			}
		})
	}
}

// TestGraphOut: --out writes what stdout would get, and nothing else; a
// picture's extension is a usage error that makes no file.
func TestGraphOut(t *testing.T) {
	var want, stderr bytes.Buffer
	if code := run([]string{"graph", "../../examples/sv.gpp"}, strings.NewReader(""), &want, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	dir := t.TempDir()
	for _, name := range []string{"m.dot", "m.gv", "m.DOT"} {
		var stdout bytes.Buffer
		out := filepath.Join(dir, name)
		if code := run([]string{"graph", "--out", out, "../../examples/sv.gpp"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("--out %s: exit %d: %s", name, code, stderr.String())
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) || stdout.Len() != 0 {
			t.Errorf("--out %s wrote:\n%s\nstdout %q; want the DOT of stdout:\n%s", name, got, stdout.String(), want.String())
		}
	}
	for _, name := range []string{"m.png", "m.svg", "m"} {
		out := filepath.Join(dir, name)
		var stdout, stderr bytes.Buffer
		code := run([]string{"graph", "--out", out, "../../examples/sv.gpp"}, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), "| dot -Tpng") {
			t.Errorf("--out %s: exit %d, stderr %q; want %d and the hint to pipe into dot", name, code, stderr.String(), exitUsage)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--out %s: file made (stat: %v)", name, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("files left in the --out directory: %v, want the three graphs only", entries)
	}
}

// TestGraphGoldensWellFormed runs the DOT checker on the stdout of every
// graph golden that succeeds, and checks that each bundled example has one.
func TestGraphGoldensWellFormed(t *testing.T) {
	files, err := filepath.Glob("testdata/graph_*.golden")
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]bool{}
	for _, path := range files {
		g := parseGolden(t, path)
		if g.exit != exitOK || !strings.HasPrefix(g.stdout, "digraph ") {
			continue
		}
		if err := checkDOT(g.stdout); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		checked[g.args[1]] = true
	}
	examples, _ := filepath.Glob("../../examples/*.gpp")
	for _, ex := range examples {
		if !checked[ex] {
			t.Errorf("no graph golden for %s", ex)
		}
	}
}

func TestCheckDOT(t *testing.T) {
	good := "digraph \"m\" {\n\t\"a\" [label = \"a\\n~ Normal\", shape = ellipse];\n\tsubgraph \"cluster_N\" {\n\t\tlabel = \"N\";\n\t\t\"b\" [label = \"b\", shape = box];\n\t}\n\t\"a\" -> \"b\";\n}\n"
	if err := checkDOT(good); err != nil {
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
		if err := checkDOT(bad); err == nil {
			t.Errorf("DOT accepted:\n%s", bad)
		}
	}
}

// checkDOT checks the DOT that gpp graph writes: one digraph, braces
// balanced, every node declared once with a quoted ID and attributes, every
// subgraph a quoted cluster, every edge between declared nodes, every
// string's escapes \\, \" or \n.
func checkDOT(src string) error {
	toks, err := dotTokens(src)
	if err != nil {
		return err
	}
	p := &dotParser{toks: toks, nodes: map[string]bool{}}
	if !p.word("digraph") || !p.quoted() || !p.punct("{") {
		return fmt.Errorf("want digraph \"NAME\" { at the start")
	}
	if err := p.body(); err != nil {
		return err
	}
	if p.i != len(p.toks) {
		return fmt.Errorf("text after the closing brace: %q", p.toks[p.i].text)
	}
	for _, e := range p.edges {
		if !p.nodes[e[0]] || !p.nodes[e[1]] {
			return fmt.Errorf("edge %q -> %q: an end is no declared node", e[0], e[1])
		}
	}
	return nil
}

type dotToken struct {
	text   string
	quoted bool
}

func dotTokens(src string) ([]dotToken, error) {
	var toks []dotToken
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				switch src[j] {
				case '\n':
					return nil, fmt.Errorf("newline in a string at byte %d", j)
				case '\\':
					if j+1 >= len(src) || !strings.ContainsRune(`\"n`, rune(src[j+1])) {
						return nil, fmt.Errorf("bad escape in a string at byte %d", j)
					}
					j++
				}
				b.WriteByte(src[j])
			}
			if j >= len(src) {
				return nil, fmt.Errorf("unterminated string at byte %d", i)
			}
			toks = append(toks, dotToken{b.String(), true})
			i = j + 1
		case strings.HasPrefix(src[i:], "->"):
			toks = append(toks, dotToken{"->", false})
			i += 2
		case strings.ContainsRune("{}[]=;,", rune(c)):
			toks = append(toks, dotToken{string(c), false})
			i++
		default:
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("unexpected %q at byte %d", c, i)
			}
			toks = append(toks, dotToken{src[i:j], false})
			i = j
		}
	}
	return toks, nil
}

type dotParser struct {
	toks  []dotToken
	i     int
	nodes map[string]bool
	edges [][2]string
}

func (p *dotParser) peek() (dotToken, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return dotToken{}, false
}

func (p *dotParser) punct(s string) bool {
	if t, ok := p.peek(); ok && !t.quoted && t.text == s {
		p.i++
		return true
	}
	return false
}

func (p *dotParser) word(s string) bool { return p.punct(s) }

func (p *dotParser) quoted() bool {
	if t, ok := p.peek(); ok && t.quoted {
		p.i++
		return true
	}
	return false
}

// value is a quoted string or a bare word as an attribute's value.
func (p *dotParser) value() bool {
	t, ok := p.peek()
	if ok && (t.quoted || !strings.ContainsAny(t.text, "{}[]=;,") && t.text != "->") {
		p.i++
		return true
	}
	return false
}

// body parses statements up to and including the closing brace.
func (p *dotParser) body() error {
	for {
		t, ok := p.peek()
		switch {
		case !ok:
			return fmt.Errorf("unbalanced braces: the input ends inside a graph")
		case !t.quoted && t.text == "}":
			p.i++
			return nil
		case !t.quoted && t.text == "subgraph":
			p.i++
			id, _ := p.peek()
			if !p.quoted() || !strings.HasPrefix(id.text, "cluster_") || !p.punct("{") {
				return fmt.Errorf("want subgraph \"cluster_...\" {")
			}
			if err := p.body(); err != nil {
				return err
			}
		case t.quoted:
			p.i++
			if p.punct("->") {
				to, _ := p.peek()
				if !p.quoted() || !p.punct(";") {
					return fmt.Errorf("edge from %q: want a quoted ID and ;", t.text)
				}
				p.edges = append(p.edges, [2]string{t.text, to.text})
				continue
			}
			if p.nodes[t.text] {
				return fmt.Errorf("node %q declared twice", t.text)
			}
			p.nodes[t.text] = true
			if !p.punct("[") {
				return fmt.Errorf("node %q: want [attributes]", t.text)
			}
			for {
				if !p.value() || !p.punct("=") || !p.value() {
					return fmt.Errorf("node %q: want NAME = VALUE in its attributes", t.text)
				}
				if p.punct("]") {
					break
				}
				if !p.punct(",") {
					return fmt.Errorf("node %q: want , or ] after an attribute", t.text)
				}
			}
			if !p.punct(";") {
				return fmt.Errorf("node %q: want ; after the attributes", t.text)
			}
		default: // a graph attribute: NAME = VALUE;
			p.i++
			if !p.punct("=") || !p.value() || !p.punct(";") {
				return fmt.Errorf("want NAME = VALUE; or a quoted node ID, got %q", t.text)
			}
		}
	}
}

// TestReplGraph: :graph prints gpp graph's DOT of the session's model, its
// plates sized once the data are loaded.
func TestReplGraph(t *testing.T) {
	lines := []string{"data y: int<lower=0>[N]", "param mu: real ~ Normal(0, 1)", "y ~ Poisson(exp(mu))"}
	path := filepath.Join(t.TempDir(), "model.gpp")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, withData := range []bool{false, true} {
		args := []string{"graph", path}
		if withData {
			args = append(args, "testdata/repl_counts.csv")
		}
		var want, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &want, &stderr); code != exitOK {
			t.Fatalf("gpp graph: exit %d: %s", code, stderr.String())
		}
		r, out, errb := newTestRepl()
		typeIn(r, lines...)
		if withData {
			typeIn(r, ":data testdata/repl_counts.csv")
		}
		out.Reset()
		typeIn(r, ":graph")
		if out.String() != want.String() || r.failed {
			t.Errorf("data %v: :graph printed:\n%s\nwant gpp graph's:\n%s\nerrors: %s", withData, out.String(), want.String(), errb.String())
		}
		if label := `label = "N (10)"`; strings.Contains(out.String(), label) != withData {
			t.Errorf("data %v: plate label %s shown: %v", withData, label, !withData)
		}
	}
}
