package model

import (
	"fmt"
	"maps"
	"math"

	"github.com/gpplang/gpp/internal/pipeline"
)

// Starts: CmdStanPy's inits=. The values map to a start as gpp sample's
// and gpp fit's --init FILE.json map a file of them
// (pipeline.Loaded.InitValues), with the same checks and messages, at
// the option's name in place of the file (Inits, ChainInits[i]).

// initsFile stands for the file of Inits in positions and messages.
const initsFile = "Inits"

// StartOption says where Sample's chains or Fit's q start.
type StartOption func(*startConfig)

type startConfig struct {
	inits  map[string]any   // Inits
	chains []map[string]any // ChainInits
	radius *float64         // InitRadius
	set    int              // how many of Inits and ChainInits were given
}

// Inits starts every chain of Sample, or Fit's q, at the params' values
// it names (CmdStanPy's inits=dict, gpp's --init FILE.json), given as
// DataValues gives data: Go numbers, slices, slices of rows (a matrix) or
// gonum vectors and matrices, by param name; a matrix param's value is
// its K×K matrix. Sample draws the coordinates of the params it does not
// name as without it (InitRadius). Fit starts each named param's factor
// with its location at the value (compile.Latent.Init, as gpp fit --init
// FILE.json does), for that fit only: the Model keeps its own starts. A
// name that is not a param, a value of the wrong shape, an element that
// is not finite or outside its param's support, and (for Sample) values
// that give every param where the log density is not finite, are errors
// naming the element, as gpp's --init gives them.
func Inits(values map[string]any) StartOption {
	return func(c *startConfig) {
		c.inits = maps.Clone(values)
		if c.inits == nil {
			c.inits = map[string]any{}
		}
		c.set++
	}
}

// ChainInits starts chain c of Sample at the values of inits[c], as
// Inits starts every chain (CmdStanPy's inits=[dict per chain]); a nil or
// empty map starts its chain as without inits. There must be one map per
// chain: len(inits) is nuts.Settings.Chains (nuts.DefaultChains for 0).
// Fit and FitRestarts have one start and refuse it.
func ChainInits(inits []map[string]any) StartOption {
	return func(c *startConfig) {
		c.chains = make([]map[string]any, len(inits))
		for i, v := range inits {
			c.chains[i] = maps.Clone(v)
		}
		c.set++
	}
}

// InitRadius sets Sample's random starts (CmdStan's init=r, CmdStanPy's
// inits=r): each unconstrained coordinate not given by Inits or
// ChainInits uniform on (−r, r), drawn again while the log density is not
// finite; r = 0 starts them at 0. The default is Stan's 2, gpp sample's
// --init-radius. r must be finite and ≥ 0. Fit and FitRestarts refuse it.
func InitRadius(r float64) StartOption {
	return func(c *startConfig) { c.radius = &r }
}

// startOptions applies opts for the method named what ("Sample", "Fit",
// "FitRestarts").
func startOptions(what string, opts []StartOption) (*startConfig, error) {
	c := &startConfig{}
	for _, o := range opts {
		o(c)
	}
	switch {
	case c.set > 1 || c.inits != nil && c.chains != nil:
		return nil, fmt.Errorf("model: %s: give Inits or ChainInits once", what)
	case c.radius != nil && (*c.radius < 0 || math.IsNaN(*c.radius) || math.IsInf(*c.radius, 0)):
		return nil, fmt.Errorf("model: InitRadius(%v): want a finite number ≥ 0", *c.radius)
	case what != "Sample" && c.chains != nil:
		return nil, fmt.Errorf("model: %s has one start: give Inits, not ChainInits", what)
	case what != "Sample" && c.radius != nil:
		return nil, fmt.Errorf("model: %s starts q, not random draws: InitRadius is Sample's", what)
	}
	return c, nil
}

// start maps the Go values of one start, at file, to the params' start
// (nil for no values).
func (m *Model) start(file string, values map[string]any) (*pipeline.Start, error) {
	if len(values) == 0 {
		return nil, nil
	}
	arrays, err := valueArrays(file, "inits", values)
	if err != nil {
		return nil, err
	}
	return m.l.InitValues(arrays, "", nil)
}
