package check_test

import (
	"fmt"

	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

func ExampleCheck() {
	src := `data Y: real[N, D]
const K = 10
param prec: positive ~ Gamma(0.1, 0.1)
param W:    positive[D, K] ~ Gamma(0.1, 1)
param tau:  positive ~ Cauchy(0, 5)
Y ~ MvNormalRows(0, W * W' + I(D) / prec)
`
	f, err := parser.ParseFile("model.gpp", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	info, err := check.Check(f, &check.Config{Overrides: map[string]string{"K": "3"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range info.Latents {
		fmt.Println(l.Name, l.Dims, l.Family, l.PriorDist.Name, "truncated:", l.Truncated)
	}
	for _, d := range info.Data {
		if d.Implicit {
			fmt.Println(d.Name, d.TypeString(), d.Note())
		} else {
			fmt.Println(d.Name, d.TypeString())
		}
	}
	// Output:
	// prec scalar gamma Gamma truncated: false
	// W [D, K] gamma Gamma truncated: false
	// tau scalar gamma Cauchy truncated: true
	// Y real[N, D]
	// N int size: axis 0 of Y
	// D int size: axis 1 of Y
}

func ExampleCheck_errors() {
	src := `data y: real[N]
param mu: real
param s: real ~ Gamma(1, 1)
y ~ Normal(mu, s)
y ~ Nromal(mu, 1)
`
	f, _ := parser.ParseFile("model.gpp", []byte(src))
	_, err := check.Check(f, nil)
	fmt.Println(err)
	// Output:
	// model.gpp:3:17: Gamma has positive support, which does not contain the real support of `s` (declared real at model.gpp:3:7)
	// model.gpp:4:16: Normal expects a positive argument 2 (sigma); `s` is real (param declared at model.gpp:3:7)
	// model.gpp:5:5: unknown distribution `Nromal`; did you mean `Normal`?
}
