package pipeline

import (
	"path/filepath"
	"strings"

	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/graph"
)

// Graph builds the graph of the checked model (lang/graph), named by the
// model file's base name without its extension, with the sizes of its plates and the counts of its missing values where
// the data are bound: gpp graph's, the REPL's :graph and the Go API's.
func (l *Loaded) Graph() *graph.Graph {
	name := strings.TrimSuffix(filepath.Base(l.Path), filepath.Ext(l.Path))
	opt := &graph.Options{Name: name, Sizes: map[string]int{}, Missing: map[string]int{}}
	for _, d := range l.Info.Data {
		if a := l.Data[d.Name]; a != nil && d.Elem == check.Int && len(d.Dims) == 0 && len(a.Values) == 1 {
			opt.Sizes[d.Name] = int(a.Values[0])
		}
	}
	if l.Model != nil {
		for data, mc := range l.Model.MissingCells() {
			opt.Missing[data] = len(mc.Cells)
		}
	}
	return graph.Build(l.File, l.Info, opt)
}
