// Package dottest holds the tests' checker of the Graphviz DOT that
// lang/graph writes (gpp graph): the one validator that lang/graph's and
// cmd/gpp's tests share. It reads the subset of DOT that lang/graph
// writes, strictly, not DOT in general.
package dottest

import (
	"fmt"
	"strings"
)

// Check checks the DOT that gpp graph writes: one digraph, braces
// balanced, every node declared once with a quoted ID and attributes, every
// subgraph a quoted cluster, every edge between declared nodes, every
// string's escapes \\, \" or \n.
func Check(src string) error {
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
