package model

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
	"github.com/gpplang/gpp/lang/graph"
)

// Model is a compiled model bound to its data: its log density on
// unconstrained coordinates, the transforms to and from the params'
// values, and fits. A Model holds buffers that its methods reuse, so it is
// not safe for concurrent use: give each goroutine its own Clone.
type Model struct {
	l      *pipeline.Loaded
	u      *sgvb.Unconstrained
	names  []string // ParamNames
	params []Param

	x, z  []float64          // the Target's coordinates and the params' values (len TargetDim)
	grad  []float64          // LogDensity's scratch gradient (len Dim)
	value []float64          // scratch for a matrix param's value (its largest)
	fac   []float64          // scratch for a corr or cov matrix's factor
	ev    *compile.Evaluator // Outputs', made at its first call
	dopts densityConfig      // the DensityOptions of the call under way
	sets  map[string]string  // Set's values, which a Predictor inherits
	files []string           // DataFiles' arguments, which SaveFit records
	// predict: compiled by Predictor, in predict mode (no log density)
	predict bool
}

// Param describes one param of the model (a declared param, or the
// missing values of data the model fits, NAME_missing).
type Param struct {
	Name string
	Pos  ast.Pos // where it is declared
	// Shape is the shape of its values (nil for a scalar): a matrix
	// param's K×K value, not its coordinates.
	Shape []int
	// Support is where its values lie before bounds apply (dist.Positive
	// for real<lower=0>, dist.Unit for one with two bounds).
	Support dist.Support
	// Family is the variational family gpp fit gives it by default
	// ("gamma", "normal", ...).
	Family string
	// Size is the number of its values, the product of Shape.
	Size int
	// Dim is the number of its unconstrained coordinates (K−1 a row of
	// a simplex[K]).
	Dim int
}

// Option sets how Load and Compile read data and constants.
type Option func(*config)

type config struct {
	files  []string
	values map[string]any
	sets   map[string]string
}

// DataFiles gives data files exactly as gpp fit's data arguments do:
// FILE.csv, FILE.json, FILE.R, NAME=FILE.csv or NAME=FILE.csv:a,b,c.
// Repeatable.
func DataFiles(paths ...string) Option {
	return func(c *config) { c.files = append(c.files, paths...) }
}

// DataValues gives data as Go values by name: a scalar, a slice or array
// of scalars (a vector) or a slice or array of such slices (a matrix, row
// by row), of any Go integer, float or bool type (int, int64, uint8,
// float32, a named type of one, ...), or a gonum mat.Vector (a vector) or
// mat.Matrix (a matrix). They bind as the same values in a JSON file
// would, with the same checks and messages; math.NaN() is a missing cell,
// which the model fits where it allows missing data. Integer types are
// ints, exact up to 2^53 in magnitude (gpp's limit, that of a float64: a
// larger one is an error, not rounded); a bool is the int 1 or 0, as 0/1
// data (Stan has no bool); a float32 is the float64 it holds exactly
// (float32(0.1) is 0.100000001490116...), and a float that is a whole
// number binds to an int declaration, as 2.0 does in JSON. A value of
// another type, a nil (a nil slice or a typed nil such as
// (*mat.Dense)(nil); give an empty slice for no values), or rows of
// unequal length, is an error naming the data and the Go type.
// Repeatable; a later value of a name replaces an earlier one.
func DataValues(values map[string]any) Option {
	return func(c *config) {
		if c.values == nil {
			c.values = map[string]any{}
		}
		maps.Copy(c.values, values)
	}
}

// Set sets a constant or scalar data, as gpp fit's --set NAME=VALUE.
func Set(name, value string) Option {
	return func(c *config) {
		if c.sets == nil {
			c.sets = map[string]string{}
		}
		c.sets[name] = value
	}
}

// Load reads, parses and checks the model file at path, binds its data
// and compiles it, as gpp fit does. Errors are the project's positioned
// errors (an ast.ErrorList or *ast.Error: file:line:col: message).
func Load(path string, opts ...Option) (*Model, error) {
	src, err := pipeline.ReadModel(path)
	if err != nil {
		return nil, err
	}
	return Compile(path, src, opts...)
}

// Compile is Load for model source held in memory; name stands for the
// file in error positions.
func Compile(name string, src []byte, opts ...Option) (m *Model, err error) {
	defer func() {
		// anything a user can cause is an error; a panic here is a bug in
		// gpp, reported rather than taking the caller down
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("%s: internal error in gpp: %v", name, r)
		}
	}()
	var c config
	for _, o := range opts {
		o(&c)
	}
	l, inputs, err := c.parse(name, src)
	if err != nil {
		return nil, err
	}
	if err := l.Bind(inputs, c.sets); err != nil {
		return nil, err
	}
	m, err = newModel(l)
	if m != nil {
		m.sets, m.files = c.sets, c.files
	}
	return m, err
}

// parse parses the model src of file name with c's consts and reads c's
// data files and values for it, as Compile and Predictor do.
func (c *config) parse(name string, src []byte) (*pipeline.Loaded, []data.Input, error) {
	l, err := pipeline.ParseSource(name, src, c.sets)
	if err != nil {
		return nil, nil, err
	}
	inputs, err := pipeline.ReadInputsFor(c.files, l.Sources, l.Info)
	if err != nil {
		return nil, nil, err
	}
	if c.values != nil {
		arrays, err := valueArrays(valuesFile, "data", c.values)
		if err != nil {
			return nil, nil, err
		}
		inputs = append(inputs, data.Input{File: valuesFile, JSON: arrays})
	}
	return l, inputs, nil
}

// newModel wraps a loaded model.
func newModel(l *pipeline.Loaded) (*Model, error) {
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
	if err != nil {
		return nil, err
	}
	m := &Model{l: l, u: u}
	big := 0
	for _, lat := range l.Model.Latents {
		p := Param{Name: lat.Name, Pos: lat.Pos, Shape: lat.Shape, Support: lat.Support, Family: lat.Family}
		if lat.Value != nil {
			p.Shape = lat.Value
		}
		p.Size = compile.ShapeLen(p.Shape)
		_, p.Dim = u.LatentRange(len(m.params)) // a simplex row has one fewer
		big = max(big, p.Size)
		m.params = append(m.params, p)
		for _, k := range compile.ColumnMajor(p.Shape) {
			m.names = append(m.names, compile.CSVName(p.Name, p.Shape, k))
		}
	}
	m.alloc(big)
	return m, nil
}

// alloc makes the model's scratch buffers.
func (m *Model) alloc(big int) {
	m.x, m.z = make([]float64, m.u.TargetDim()), make([]float64, m.u.TargetDim())
	m.grad = make([]float64, m.u.Dim())
	m.value, m.fac = make([]float64, big), make([]float64, big)
}

// Clone returns a copy of m with its own buffers, for another goroutine.
func (m *Model) Clone() *Model {
	l := *m.l
	l.Model = m.l.Model.Clone()
	// one clone of the compiled model serves the density and the fits,
	// as m's does
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
	if err != nil {
		panic("model: Clone: " + err.Error()) // m's model gave one
	}
	c := &Model{l: &l, u: u, names: m.names, params: m.params, sets: m.sets, files: m.files, predict: m.predict}
	c.alloc(len(m.value))
	return c
}

// Name is the model's file name, as given to Load or Compile.
func (m *Model) Name() string { return m.l.Path }

// Params describes the model's params in declaration order (the missing
// values of data that it fits come as params NAME_missing).
func (m *Model) Params() []Param {
	out := slices.Clone(m.params)
	for i := range out {
		out[i].Shape = slices.Clone(out[i].Shape)
	}
	return out
}

// ParamNames names the params' values as gpp's draws.csv and CmdStan do
// ("beta.2", "W.1.2"), in Constrain's order: param by param, each one's
// elements in column-major order.
func (m *Model) ParamNames() []string { return slices.Clone(m.names) }

// NumParams is the number of the params' values: len(ParamNames()),
// BridgeStan's param_num.
func (m *Model) NumParams() int { return len(m.names) }

// Dim is the number of unconstrained coordinates, the length of the u
// that LogDensity takes: BridgeStan's param_unc_num.
func (m *Model) Dim() int { return m.u.Dim() }

// Warnings are about data given but not used by the model (as gpp fit
// prints them).
func (m *Model) Warnings() []string { return slices.Clone(m.l.Warnings) }

// Graph is the model's graph, as gpp graph prints it (PyMC's
// model_to_graphviz): params, data, lets, outputs and target terms as
// nodes, an edge from each to what reads it, plates by dims with the data's
// sizes. Write it as Graphviz DOT with its WriteDOT method.
func (m *Model) Graph() *graph.Graph {
	return m.l.Graph()
}

// Notes say which missing data values the model fits as params: a data
// file's by line ("y: 2 missing values (y.csv lines 5, 9) are fitted as
// the latent y_missing"), a Go value's of DataValues by element, 0-based
// ("x: 1 missing value (x[1] of DataValues) is fitted ...").
func (m *Model) Notes() []string { return slices.Clone(m.l.Notes) }

// checkLen is the error of a slice of the wrong length.
func checkLen(what string, got, want int) error {
	if got != want {
		return fmt.Errorf("model: %s has %d elements, want %d", what, got, want)
	}
	return nil
}

// compiled is the compiled model (for Fit and Sample).
func (m *Model) compiled() *compile.Model { return m.l.Model }
