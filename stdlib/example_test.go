package stdlib_test

import (
	"fmt"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/stdlib"
)

func ExampleLookupFunc() {
	f := stdlib.LookupFunc("sqrt")
	fmt.Println(f.Signature(), "→", f.ShapeDoc())
	fmt.Println(f.Support.Result([]dist.Support{dist.Positive}), f.Support.Result([]dist.Support{dist.Real}))
	// Output:
	// sqrt(x) → same shape as the argument
	// positive real
}

func ExampleLookupDist() {
	d := stdlib.LookupDist("Gamma")
	fmt.Println(d.Signature(), d.Support, d.ParamsDoc())
	// Output:
	// Gamma(shape, rate) positive shape: positive, rate: positive
}
