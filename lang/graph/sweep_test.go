package graph

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/dottest"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// model is one model text of the repository and where it came from.
type model struct{ name, src string }

// docModel finds the models written in the docs: ```gpp blocks and the
// here-documents of shell blocks.
var docModel = regexp.MustCompile("(?s)```gpp\n(.*?)```|<<'?EOF'?\n(.*?)\nEOF\n")

// repoModels returns every model text of the repository: each .gpp file
// (its chunks, where it is a checker test split at lines of ---) and each
// model in README.md and docs/*.md.
func repoModels(tb testing.TB) []model {
	tb.Helper()
	var out []model
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		isDoc := filepath.Ext(path) == ".md" && (filepath.Dir(path) == root || filepath.Dir(path) == filepath.Join(root, "docs"))
		if filepath.Ext(path) != ".gpp" && !isDoc {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if isDoc {
			for i, m := range docModel.FindAllStringSubmatch(string(b), -1) {
				out = append(out, model{fmt.Sprintf("%s#%d", rel, i+1), m[1] + m[2]})
			}
			return nil
		}
		for i, chunk := range strings.Split(string(b), "\n---\n") {
			out = append(out, model{fmt.Sprintf("%s#%d", rel, i+1), chunk})
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// checkGraph parses and checks src and, when it checks, graphs it and
// tests the graph's invariants, returning false for a model that does not
// check. A panic in Build or WriteDOT is an error.
func checkGraph(t *testing.T, name, src string) (ok bool) {
	t.Helper()
	f, err := parser.ParseFile(name, []byte(src))
	if err != nil {
		return false
	}
	info, err := check.Check(f, nil)
	if err != nil {
		return false
	}
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", name, r)
		}
	}()
	g := Build(f, info, &Options{Name: name})
	var dot bytes.Buffer
	if err := g.WriteDOT(&dot); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := dottest.Check(dot.String()); err != nil {
		t.Errorf("%s: bad DOT: %v\n%s", name, err, dot.String())
	}
	if err := invariants(g, f, info); err != nil {
		t.Errorf("%s: %v\n%s", name, err, dot.String())
	}
	f2, _ := parser.ParseFile(name, []byte(src))
	info2, _ := check.Check(f2, nil)
	var again bytes.Buffer
	Build(f2, info2, &Options{Name: name}).WriteDOT(&again)
	if !bytes.Equal(dot.Bytes(), again.Bytes()) {
		t.Errorf("%s: a second Build wrote other DOT:\n%s\nthen:\n%s", name, dot.String(), again.String())
	}
	return true
}

// invariants checks what every graph must hold: each param a param node,
// each observed data an observed node, node IDs unique, edges between
// nodes without self edges or duplicates, each node with dims in exactly
// one plate of its dims and scalars in none.
func invariants(g *Graph, f *ast.File, info *check.Info) error {
	byID := map[string]*Node{}
	for _, n := range g.Nodes {
		if byID[n.ID] != nil {
			return fmt.Errorf("node %q twice", n.ID)
		}
		byID[n.ID] = n
	}
	for _, l := range info.Latents {
		if n := byID[l.Name]; n == nil || n.Kind != Param {
			return fmt.Errorf("param %s is no param node", l.Name)
		}
	}
	var err error
	ast.Inspect(f, func(n ast.Node) bool {
		s, ok := n.(*ast.TildeStmt)
		if !ok || err != nil {
			return err == nil
		}
		e := ast.Unparen(s.LHS)
		if ix, ok := e.(*ast.IndexExpr); ok {
			e = ast.Unparen(ix.X)
		}
		if id, ok := e.(*ast.Ident); ok {
			if sym := info.Uses[id]; sym != nil && sym.Kind == check.Data {
				if n := byID[sym.Name]; n == nil || n.Kind != Observed {
					err = fmt.Errorf("observed data %s is no observed node", sym.Name)
				}
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	seen := map[Edge]bool{}
	for _, e := range g.Edges {
		switch {
		case e.From < 0 || e.To < 0 || e.From >= len(g.Nodes) || e.To >= len(g.Nodes):
			return fmt.Errorf("edge %v: an end is no node", e)
		case e.From == e.To:
			return fmt.Errorf("self edge on %s", g.Nodes[e.From].ID)
		case seen[e]:
			return fmt.Errorf("edge %s -> %s twice", g.Nodes[e.From].ID, g.Nodes[e.To].ID)
		}
		seen[e] = true
	}
	plated := make([]int, len(g.Nodes))
	for _, p := range g.Plates {
		for _, i := range p.Nodes {
			plated[i]++
			if got := plateKey(g.Nodes[i].Dims); got != p.ID {
				return fmt.Errorf("%s of dims %s in plate %q", g.Nodes[i].ID, got, p.ID)
			}
		}
	}
	for i, n := range g.Nodes {
		if want := min(len(plateDims(n.Dims)), 1); plated[i] != want {
			return fmt.Errorf("%s of dims %v in %d plates, want %d", n.ID, n.Dims, plated[i], want)
		}
	}
	return nil
}

// TestGraphEveryModel graphs every model of the repository that checks
// and tests the graph's invariants and its DOT.
func TestGraphEveryModel(t *testing.T) {
	models := repoModels(t)
	checked := 0
	bySource := map[string]int{} // the models graphed by directory, for the log
	for _, m := range models {
		if checkGraph(t, m.name, m.src) {
			checked++
			bySource[filepath.Dir(m.name)]++
		}
	}
	examples, _ := filepath.Glob("../../examples/*.gpp")
	if checked < len(examples) {
		t.Fatalf("%d models checked, fewer than the %d examples: the walk missed them", checked, len(examples))
	}
	t.Logf("%d of %d model texts check and were graphed: %v", checked, len(models), bySource)
}
