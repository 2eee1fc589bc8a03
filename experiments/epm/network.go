package epm

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// Pair is an unordered node pair, stored with I < J (0-based ids).
type Pair struct{ I, J int }

// Network is an undirected binary network without self-loops.
type Network struct {
	Name  string
	N     int    // number of nodes, including isolated ones
	Links []Pair // each link once, I < J
}

// NumPairs returns N(N−1)/2, the number of node pairs.
func (g *Network) NumPairs() int { return g.N * (g.N - 1) / 2 }

// LoadNetwork reads the network called name (e.g. "nips234") from the
// shared networks folder dir: its node count from dir/index.csv (isolated
// nodes do not appear in an edge list) and its links from the edge list
// that index.csv names (header i,j; 0-based; i < j).
func LoadNetwork(dir, name string) (*Network, error) {
	rows, err := readCSV(filepath.Join(dir, "index.csv"))
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("epm: %s/index.csv is empty", dir)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, need := range []string{"name", "n_nodes", "n_edges", "file"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("epm: %s/index.csv has no column %q", dir, need)
		}
	}
	for _, r := range rows[1:] {
		if r[col["name"]] != name {
			continue
		}
		n, err1 := strconv.Atoi(r[col["n_nodes"]])
		e, err2 := strconv.Atoi(r[col["n_edges"]])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("epm: %s/index.csv: bad counts for %s", dir, name)
		}
		g, err := ReadEdgeList(filepath.Join(dir, r[col["file"]]), n)
		if err != nil {
			return nil, err
		}
		g.Name = name
		if len(g.Links) != e {
			return nil, fmt.Errorf("epm: %s has %d links, index.csv says %d", name, len(g.Links), e)
		}
		return g, nil
	}
	return nil, fmt.Errorf("epm: network %q not in %s/index.csv", name, dir)
}

// ReadEdgeList reads an undirected edge list (CSV, header i,j, 0-based ids)
// of a network with n nodes. It rejects self-loops, duplicates and ids
// outside [0, n); each link is stored with I < J.
func ReadEdgeList(path string, n int) (*Network, error) {
	rows, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || len(rows[0]) != 2 || rows[0][0] != "i" || rows[0][1] != "j" {
		return nil, fmt.Errorf("epm: %s: expected the header i,j", path)
	}
	g := &Network{N: n}
	seen := map[Pair]bool{}
	for k, r := range rows[1:] {
		i, err1 := strconv.Atoi(r[0])
		j, err2 := strconv.Atoi(r[1])
		switch {
		case err1 != nil || err2 != nil:
			return nil, fmt.Errorf("epm: %s:%d: ids must be integers", path, k+2)
		case i < 0 || j < 0 || i >= n || j >= n:
			return nil, fmt.Errorf("epm: %s:%d: id outside [0, %d)", path, k+2, n)
		case i == j:
			return nil, fmt.Errorf("epm: %s:%d: self-loop", path, k+2)
		}
		p := Pair{min(i, j), max(i, j)}
		if seen[p] {
			return nil, fmt.Errorf("epm: %s:%d: duplicate link %d-%d", path, k+2, p.I, p.J)
		}
		seen[p] = true
		g.Links = append(g.Links, p)
	}
	return g, nil
}

func readCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	var rows [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("epm: %s: %w", path, err)
		}
		rows = append(rows, rec)
	}
}
