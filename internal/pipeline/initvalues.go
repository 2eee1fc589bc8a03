package pipeline

// A start given as the params' values (CmdStan's inits): gpp sample and
// gpp fit's --init FILE.json and the model package's Inits share it, so
// that the same values start the same chains and fits, with the same
// checks and messages. It lives here rather than in infer/sgvb because it
// reads data.Arrays, whose positions place its errors, and tells data
// from params by the checked file.

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// Start is a start given as some params' values.
type Start struct {
	U     []float64 // the unconstrained point, at the given coordinates
	Given []bool    // the coordinates of U that the values give
	// LatInit holds, per latent, the start a fit's factor takes from the
	// values (compile.Latent.Init: the values on the latent's support,
	// coordinates for a matrix or zero-sum latent); nil where not given.
	LatInit [][]float64
	Named   []string // the params given, in the model's order
}

// All reports whether the values give every coordinate.
func (s *Start) All() bool { return !slices.Contains(s.Given, false) }

// Missing returns the params of m, the model the values were mapped to,
// that the values do not give, in the model's order.
func (s *Start) Missing(m *compile.Model) []string {
	var out []string
	for _, lat := range m.Latents {
		if !slices.Contains(s.Named, lat.Name) {
			out = append(out, lat.Name)
		}
	}
	return out
}

// InitValues maps named values to the unconstrained coordinates of the
// params of l's model. Each error is at its value's place: a name that is
// not a param (data, or unknown: the params listed) at keyPos(name) (nil:
// the value's Pos), a value of the wrong shape, an element that is
// missing, not a finite number or outside its param's support or bounds.
// Messages begin with prefix ("--init: " for gpp's flag). Names are taken
// in the order of their positions, then by name.
func (l *Loaded) InitValues(vals map[string]*data.Array, prefix string, keyPos func(name string) ast.Pos) (*Start, error) {
	m := l.Model
	u, err := sgvb.NewUnconstrained(Target{M: m}, Latents(m))
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	var params []string
	for i, lat := range m.Latents {
		index[lat.Name] = i
		params = append(params, lat.Name)
	}
	keys := slices.Sorted(maps.Keys(vals))
	slices.SortStableFunc(keys, func(a, b string) int { // in the file's order
		pa, pb := vals[a].Pos, vals[b].Pos
		return cmp.Or(cmp.Compare(pa.Line, pb.Line), cmp.Compare(pa.Col, pb.Col))
	})
	var errs ast.ErrorList
	x := make([]float64, u.TargetDim())
	v := &Start{U: make([]float64, u.Dim()), Given: make([]bool, u.Dim()), LatInit: make([][]float64, len(m.Latents))}
	for _, name := range keys {
		a := vals[name]
		i, ok := index[name]
		if !ok {
			what := "not a param of the model"
			if _, isData := l.Data[name]; isData || l.Info.DataVar(name) != nil {
				what = "data, not a param: an init file gives params' values"
			}
			at := a.Pos
			if keyPos != nil {
				at = keyPos(name)
			}
			errs = append(errs, &ast.Error{Pos: at, Msg: fmt.Sprintf("%s%q is %s (the params: %s)", prefix, name, what, strings.Join(params, ", "))})
			continue
		}
		if err := a.Err(); err != nil {
			errs = append(errs, asPosErr(prefix, err, a.Pos))
			continue
		}
		lat := &m.Latents[i]
		shape := lat.Shape
		if lat.Value != nil {
			shape = lat.Value
		}
		if !slices.Equal(a.Shape, shape) {
			errs = append(errs, &ast.Error{Pos: a.Pos, Msg: fmt.Sprintf("%s%q is %s: the param is %s", prefix, name, shapeText(a.Shape), shapeText(shape))})
			continue
		}
		if len(a.Missing) > 0 {
			k := a.Missing[0]
			errs = append(errs, &ast.Error{Pos: a.Locate(k), Msg: fmt.Sprintf("%s%s is missing (NaN or null): an init is a finite number", prefix, compile.ElemName(name, shape, k))})
			continue
		}
		xx := x[lat.Offset : lat.Offset+lat.Size]
		if err := u.ValueCoords(i, a.Values, xx); err != nil {
			var ve *sgvb.ValueError
			if !errors.As(err, &ve) {
				errs = append(errs, &ast.Error{Pos: a.Pos, Msg: prefix + err.Error()})
				continue
			}
			errs = append(errs, &ast.Error{Pos: a.Locate(ve.Elem), Msg: fmt.Sprintf("%s%s is %v, outside %s's support: want %s", prefix, compile.ElemName(name, shape, ve.Elem), ve.Value, name, ve.Want)})
			continue
		}
		v.LatInit[i] = u.LatentInit(i, xx)
		off, n := u.LatentRange(i)
		for j := off; j < off+n; j++ {
			v.Given[j] = true
		}
		v.Named = append(v.Named, name)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(v.Named, func(a, b string) int { return cmp.Compare(index[a], index[b]) })
	full := make([]float64, u.Dim())
	u.UCoords(x, full)
	for j, g := range v.Given {
		if g {
			v.U[j] = full[j]
		}
	}
	return v, nil
}

// asPosErr returns err as a positioned error after prefix, at pos if it
// has none.
func asPosErr(prefix string, err error, pos ast.Pos) *ast.Error {
	var pe *ast.Error
	if errors.As(err, &pe) {
		return &ast.Error{Pos: pe.Pos, Msg: prefix + pe.Msg}
	}
	return &ast.Error{Pos: pos, Msg: prefix + err.Error()}
}

// shapeText describes a value's shape: "a number", "a vector of 3", "a 2×3 array".
func shapeText(shape []int) string {
	switch len(shape) {
	case 0:
		return "a number"
	case 1:
		return fmt.Sprintf("a vector of %d", shape[0])
	}
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	return "a " + strings.Join(dims, "×") + " array"
}

// StartAt writes a chain's start into u: s's values where given (s nil:
// none), the other coordinates uniform on (−r, r) from rng, drawn again
// while the log density is not finite (sgvb's InitAt); with r = 2 and no
// values, Stan's starts.
func (s *Start) StartAt(d *sgvb.Unconstrained, rng *rand.Rand, r float64, u []float64) error {
	var given []bool
	if s != nil {
		copy(u, s.U)
		given = s.Given
	}
	return d.InitAt(rng, r, given, u)
}

// SetInit makes the values the start of a fit of m: each given param's
// factor starts with its location at the value (compile.Latent.Init, the
// start a constant prior's mean gives, which gpp fit --init path's
// locations also use), its spread at the default. For a normal factor on
// the unconstrained scale (a real, matrix or zero-sum param, and every
// param under --fullrank or a lognormal factor's log) that is Stan's
// ADVI: the mean at the init's coordinates; a gamma factor's mean is the
// value itself. It returns the function that puts m's starts back (a
// model that outlives the fit: the REPL's, the model package's).
func (s *Start) SetInit(m *compile.Model) (restore func()) {
	old := make([][]float64, len(m.Latents))
	for i, init := range s.LatInit {
		old[i] = m.Latents[i].Init
		if init != nil {
			m.Latents[i].Init = init
		}
	}
	return func() {
		for i := range old {
			m.Latents[i].Init = old[i]
		}
	}
}
