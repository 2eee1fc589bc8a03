package data

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// icarHead declares an ICAR model's edge list and phi on N nodes.
const icarHead = "data N: int\ndata node1: int[E]\ndata node2: int[E]\nparam phi: sum_to_zero_vector[N]\n"

// grid3 is the 3 × 3 lattice's 12 edges, node = 3·row + col.
func grid3() [][2]int {
	var e [][2]int
	for r := range 3 {
		for c := range 3 {
			if c < 2 {
				e = append(e, [2]int{3*r + c, 3*r + c + 1})
			}
			if r < 2 {
				e = append(e, [2]int{3*r + c, 3*r + c + 3})
			}
		}
	}
	return e
}

// edgeCSV writes edges as node1,node2 with a header: edge k on line k + 2.
func edgeCSV(edges [][2]int) string {
	var b strings.Builder
	b.WriteString("node1,node2\n")
	for _, e := range edges {
		fmt.Fprintf(&b, "%d,%d\n", e[0], e[1])
	}
	return b.String()
}

// graphWarnings binds the edge list and N = n to the model and returns
// GraphWarnings.
func graphWarnings(t *testing.T, src string, n int, edges [][2]int) []string {
	t.Helper()
	f, info := checkedFile(t, src)
	in := []Input{csvInput(t, "", "e.csv", edgeCSV(edges)), jsonInput(t, "n.json", fmt.Sprintf(`{"N": %d}`, n))}
	bound, err := Bind(info, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	return GraphWarnings(f, info, bound)
}

// TestGraphWarnings: the edge list of an ICAR difference whose square
// enters the target (dot_self, sum of square, square in a loop over the
// edges) is checked: a self-loop and a repeated edge (either orientation)
// are warned of at their cells, a node in no edge and a graph of several
// components at the term; a clean grid, listed either way round, and
// differences that are no ICAR term are not.
func TestGraphWarnings(t *testing.T) {
	dot := icarHead + "target += -0.5 * dot_self(phi[node1] - phi[node2])\n"
	loop := icarHead + "for e in 0:E {\n  target += -0.5 * square(phi[node1[e]] - phi[node2[e]])\n}\n"
	sumSq := icarHead + "target += -0.5 * sum(square(phi[node1] - phi[node2]))\n"
	g := grid3()
	flipped := slices.Clone(g)
	for i := 0; i < len(flipped); i += 3 {
		flipped[i] = [2]int{flipped[i][1], flipped[i][0]}
	}
	selfLoop := slices.Clone(g)
	selfLoop[3] = [2]int{4, 4} // line 5
	dup := append(slices.Clone(g), [2]int{g[0][1], g[0][0]})
	without8 := slices.DeleteFunc(slices.Clone(g), func(e [2]int) bool { return e[0] == 8 || e[1] == 8 })
	var split [][2]int // rows 0–1 and row 2 apart
	for _, e := range g {
		if (e[0] < 6) == (e[1] < 6) {
			split = append(split, e)
		}
	}
	oneBased := slices.Clone(selfLoop)
	for i := range oneBased {
		oneBased[i] = [2]int{oneBased[i][0] + 1, oneBased[i][1] + 1}
	}
	shifted := icarHead + "target += -0.5 * dot_self(phi[node1 - 1] - phi[node2 - 1])\n"
	for _, c := range []struct {
		name, src string
		edges     [][2]int
		want      []string // each in its own warning, in order; … joins two parts
	}{
		{"clean grid", dot, g, nil},
		{"clean grid, some reversed", dot, flipped, nil},
		{"self-loop", dot, selfLoop, []string{"e.csv:5:1: self-loop: the pair node1[3], node2[3] joins phi[4] to itself"}},
		{"1-based ids shifted", shifted, oneBased, []string{"e.csv:5:1: self-loop: the pair node1[3], node2[3] joins phi[4] to itself"}},
		{"1-based ids shifted, clean", shifted, slices.Concat(oneBased[:3], oneBased[4:], [][2]int{{2, 5}}), nil},
		{"self-loop in a loop", loop, selfLoop, []string{"e.csv:5:1: self-loop"}},
		{"duplicate reversed", dot, dup, []string{"e.csv:14:1: duplicate edge: the pair node1[12], node2[12] lists 1-0 again (first at e.csv:2:1 as the pair node1[0], node2[0], reversed)"}},
		{"duplicate, sum of squares", sumSq, append(slices.Clone(g), g[5]), []string{"e.csv:14:1: duplicate edge"}},
		{"isolated", dot, without8, []string{"m.gpp:5:27: phi[8] is in no edge of node1/node2"}},
		{"two components", dot, split, []string{"m.gpp:5:27: the graph of node1/node2 has 2 connected components (of 6, 3 nodes)…one sum-to-zero constraint per component"}},
		{"no square", icarHead + "target += -0.5 * sum(phi[node1] - phi[node2])\n", selfLoop, nil},
		{"output", icarHead + "output d = dot_self(phi[node1] - phi[node2])\n", selfLoop, nil},
		{"two params", icarHead + "param psi: real[N] ~ Normal(0, 1)\ntarget += -0.5 * dot_self(phi[node1] - psi[node2])\n", selfLoop, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			warns := graphWarnings(t, c.src, 9, c.edges)
			if len(c.want) == 0 {
				if len(warns) > 0 {
					t.Fatalf("warnings %q, want none", warns)
				}
				return
			}
			if len(warns) != len(c.want) {
				t.Fatalf("warnings %q,\nwant %d holding %q", warns, len(c.want), c.want)
			}
			for i, w := range c.want {
				if pre, post, two := strings.Cut(w, "…"); two {
					if !strings.Contains(warns[i], pre) || !strings.Contains(warns[i], post) {
						t.Errorf("warning %q,\nwant one holding %q and %q", warns[i], pre, post)
					}
				} else if !strings.Contains(warns[i], w) {
					t.Errorf("warning %q,\nwant one holding %q", warns[i], w)
				}
			}
		})
	}
}

// adjHead declares a GeoBUGS neighbour list: node i's neighbours are
// adj[start[i]], ..., adj[start[i] + num[i] - 1].
const adjHead = "data N: int\ndata adj: int[M]\ndata num: int[N]\ndata start: int[N]\ndata owner: int[M]\nparam phi: sum_to_zero_vector[N]\n"

// neighbourJSON writes the neighbour list of edges on n nodes, each pair
// from both ends, with owner (the node each entry of adj belongs to);
// drop leaves out the entry of adj listing that directed pair.
func neighbourJSON(n int, edges [][2]int, drop [2]int) string {
	nb := make([][]int, n)
	for _, e := range edges {
		for _, p := range [][2]int{e, {e[1], e[0]}} {
			if p != drop {
				nb[p[0]] = append(nb[p[0]], p[1])
			}
		}
	}
	var adj, num, start, owner []string
	for i, list := range nb {
		start = append(start, fmt.Sprint(len(adj)))
		num = append(num, fmt.Sprint(len(list)))
		for _, j := range list {
			adj = append(adj, fmt.Sprint(j))
			owner = append(owner, fmt.Sprint(i))
		}
	}
	return fmt.Sprintf("{\"N\": %d,\n\"adj\": [%s],\n\"num\": [%s],\n\"start\": [%s],\n\"owner\": [%s]}", n, strings.Join(adj, ", "), strings.Join(num, ", "), strings.Join(start, ", "), strings.Join(owner, ", "))
}

// TestGraphWarningsNeighbourList: a neighbour list, by segment in a loop
// over the nodes or as phi[owner] - phi[adj], lists each pair from both
// ends; a clean one gives no warning (no pair is a repeat), a pair listed
// from one end only and a node with no neighbours are warned of.
func TestGraphWarningsNeighbourList(t *testing.T) {
	seg := adjHead + "for i in 0:N {\n  target += -0.25 * dot_self(phi[i] - phi[segment(adj, start[i], num[i])])\n}\n"
	own := adjHead + "target += -0.25 * dot_self(phi[owner] - phi[adj])\n"
	g := grid3()
	without8 := slices.DeleteFunc(slices.Clone(g), func(e [2]int) bool { return e[0] == 8 || e[1] == 8 })
	for _, c := range []struct {
		name, src string
		edges     [][2]int
		drop      [2]int
		want      []string
	}{
		{"segment, clean", seg, g, [2]int{-1, -1}, nil},
		{"owner, clean", own, g, [2]int{-1, -1}, nil},
		{"segment, one way", seg, g, [2]int{1, 0}, []string{"n.json:2:9: adj[0] lists 1 as a neighbour of 0, but 0 is not listed as a neighbour of 1"}},
		{"owner, one way", own, g, [2]int{1, 0}, []string{"n.json:5:11: the pair owner[0], adj[0] lists 1 as a neighbour of 0, but 0 is not listed"}},
		{"segment, isolated", seg, without8, [2]int{-1, -1}, []string{"m.gpp:8:30: phi[8] is in no edge of adj (by start and num)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, info := checkedFile(t, c.src)
			bound, err := Bind(info, []Input{jsonInput(t, "n.json", neighbourJSON(9, c.edges, c.drop))}, nil)
			if err != nil {
				t.Fatal(err)
			}
			warns := GraphWarnings(f, info, bound)
			if len(warns) != len(c.want) {
				t.Fatalf("warnings %q,\nwant %d holding %q", warns, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(warns[i], w) {
					t.Errorf("warning %q,\nwant one holding %q", warns[i], w)
				}
			}
		})
	}
}
