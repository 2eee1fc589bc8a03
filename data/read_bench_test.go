package data

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// writeBigCSV writes a CSV file of rows rows into dir: a column of 50
// labels, cols-2 real columns and a real outcome, as a user trial's file
// of 1e6 rows was, with numbers from a seeded source.
func writeBigCSV(b *testing.B, dir string, rows, cols int) string {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	buf.WriteString("g")
	for j := 0; j < cols-2; j++ {
		fmt.Fprintf(&buf, ",c%d", j)
	}
	buf.WriteString(",y\n")
	for range rows {
		fmt.Fprintf(&buf, "School %d", rng.IntN(50))
		for j := 0; j < cols-1; j++ {
			buf.WriteByte(',')
			buf.WriteString(strconv.FormatFloat(rng.Float64(), 'f', 5, 64))
		}
		buf.WriteByte('\n')
	}
	path := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReadCSV reads a CSV file of 100000 rows and 30 columns (one of
// labels), as gpp reads a data file: from its contents in memory.
//
//	go test ./data -run '^$' -bench ReadCSV -benchmem
func BenchmarkReadCSV(b *testing.B) {
	src, err := os.ReadFile(writeBigCSV(b, b.TempDir(), 100000, 30))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadCSV("big.csv", bytes.NewReader(src)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseCSVKeep reads the file of BenchmarkReadCSV as gpp does for
// a model that reads 3 of its 30 columns (ParseCSV with keep).
//
//	go test ./data -run '^$' -bench ParseCSVKeep -benchmem
func BenchmarkParseCSVKeep(b *testing.B) {
	src, err := os.ReadFile(writeBigCSV(b, b.TempDir(), 100000, 30))
	if err != nil {
		b.Fatal(err)
	}
	keep := func(c string) bool { return c == "g" || c == "c0" || c == "y" }
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCSV("big.csv", src, keep); err != nil {
			b.Fatal(err)
		}
	}
}
