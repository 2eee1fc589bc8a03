package graph

import (
	"bufio"
	"io"
	"strings"
)

// attrs are each kind's DOT node attributes, after PyMC's
// model_to_graphviz: free random variables as ellipses, observed ones
// filled grey, deterministics as boxes, data as rounded boxes, potentials
// as octagons.
var attrs = [...]string{
	Param:     "shape = ellipse",
	Observed:  "shape = ellipse, style = filled, fillcolor = lightgrey",
	Data:      "shape = box, style = rounded",
	Let:       "shape = box",
	Output:    "shape = box, style = dashed",
	Replicate: "shape = ellipse, style = dashed",
	Potential: "shape = octagon",
}

// WriteDOT writes the graph in Graphviz's DOT language: the nodes outside
// any plate, then each plate as a cluster subgraph, then the edges, every
// ID quoted. The same graph gives the same bytes.
func (g *Graph) WriteDOT(w io.Writer) error {
	bw := bufio.NewWriter(w)
	name := g.Name
	if name == "" {
		name = "model"
	}
	bw.WriteString("digraph " + Quote(name) + " {\n")
	inPlate := make([]bool, len(g.Nodes))
	for _, p := range g.Plates {
		for _, i := range p.Nodes {
			inPlate[i] = true
		}
	}
	for i, n := range g.Nodes {
		if !inPlate[i] {
			writeNode(bw, "\t", n)
		}
	}
	for _, p := range g.Plates {
		bw.WriteString("\tsubgraph " + Quote("cluster_"+p.ID) + " {\n")
		bw.WriteString("\t\tlabel = " + Quote(p.Label) + ";\n")
		bw.WriteString("\t\tlabeljust = r;\n\t\tlabelloc = b;\n\t\tstyle = rounded;\n")
		for _, i := range p.Nodes {
			writeNode(bw, "\t\t", g.Nodes[i])
		}
		bw.WriteString("\t}\n")
	}
	for _, e := range g.Edges {
		bw.WriteString("\t" + Quote(g.Nodes[e.From].ID) + " -> " + Quote(g.Nodes[e.To].ID) + ";\n")
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

func writeNode(w *bufio.Writer, indent string, n *Node) {
	lines := make([]string, len(n.Label))
	for i, l := range n.Label {
		lines[i] = escape(l)
	}
	w.WriteString(indent + Quote(n.ID) + " [label = \"" + strings.Join(lines, `\n`) + "\", " + attrs[n.Kind] + "];\n")
}

// Quote writes s as a DOT double-quoted ID: backslashes and quotes
// escaped, newlines as \n.
func Quote(s string) string { return `"` + escape(s) + `"` }

// escaper escapes a DOT string's backslashes, quotes and newlines.
var escaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escape(s string) string { return escaper.Replace(s) }
