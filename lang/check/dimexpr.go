package check

import (
	"strconv"
	"strings"
)

// derivedDim is the size written as text, a data-dependent expression such
// as "N + M - N" (a slice c[N:] of append_row(a, b)), in its simplest form:
// a linear expression of sizes is written with like terms collected and
// constants folded ("M"), and a constant one is a number. Text that is not
// linear in its names (N * M, N / 2, a call) is kept as written.
func derivedDim(text string) Dim {
	lin, ok := parseLinear(text)
	if !ok {
		return Dim{N: -1, Name: text, Derived: true}
	}
	if lin.constant() {
		if lin.c >= 0 && lin.c <= MaxInt {
			return knownDim(int(lin.c))
		}
		return Dim{N: -1, Name: text, Derived: true}
	}
	return Dim{N: -1, Name: lin.String(), Derived: true}
}

// constant reports whether every name's terms cancel.
func (l linear) constant() bool {
	for _, n := range l.names {
		if l.coef[n] != 0 {
			return false
		}
	}
	return true
}

// linear is c + Σ coef[name]·name, the names in order of first appearance.
type linear struct {
	names []string
	coef  map[string]int64
	c     int64
}

func (l *linear) add(m linear, sign int64) {
	for _, n := range m.names {
		if _, ok := l.coef[n]; !ok {
			l.names = append(l.names, n)
		}
		l.coef[n] += sign * m.coef[n]
		if c := l.coef[n]; c > maxLinearCoef || c < -maxLinearCoef {
			panic(errNotLinear{})
		}
	}
	l.c += sign * m.c
	if l.c > maxLinearCoef || l.c < -maxLinearCoef {
		panic(errNotLinear{})
	}
}

// String writes the terms with a positive coefficient first (so that
// "M - N" is not "-N + M"), then the negative ones, then the constant;
// names whose terms cancel are left out.
func (l linear) String() string {
	var b strings.Builder
	term := func(k int64, name string) {
		a := k
		if a < 0 {
			a = -a
		}
		switch {
		case b.Len() == 0 && k < 0:
			b.WriteString("-")
		case b.Len() > 0 && k < 0:
			b.WriteString(" - ")
		case b.Len() > 0:
			b.WriteString(" + ")
		}
		switch {
		case name == "":
			b.WriteString(strconv.FormatInt(a, 10))
		case a == 1:
			b.WriteString(name)
		default:
			b.WriteString(strconv.FormatInt(a, 10) + " * " + name)
		}
	}
	for _, pos := range []bool{true, false} {
		for _, n := range l.names {
			if k := l.coef[n]; k != 0 && (k > 0) == pos {
				term(k, n)
			}
		}
	}
	if l.c != 0 || b.Len() == 0 {
		term(l.c, "")
	}
	return b.String()
}

// parseLinear reads text made of names, integers, +, -, * and parentheses
// as a linear expression; ok is false for anything else (a product of two
// names, a division, a call, an index) and for coefficients past 2^31, so
// that overflow cannot change a size.
func parseLinear(text string) (l linear, ok bool) {
	p := &linParser{s: text}
	defer func() {
		if r := recover(); r != nil {
			if _, giveUp := r.(errNotLinear); !giveUp {
				panic(r)
			}
			ok = false
		}
	}()
	l = p.sum()
	p.space()
	if p.i != len(p.s) {
		return linear{}, false
	}
	return l, true
}

type linParser struct {
	s string
	i int
}

// errNotLinear is the panic by which linParser gives up.
type errNotLinear struct{}

const maxLinearCoef = 1 << 31

func (p *linParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *linParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *linParser) sum() linear {
	l := p.product()
	for {
		switch p.peek() {
		case '+':
			p.i++
			l.add(p.product(), 1)
		case '-':
			p.i++
			l.add(p.product(), -1)
		default:
			return l
		}
	}
}

func (p *linParser) product() linear {
	l := p.unary()
	for p.peek() == '*' {
		p.i++
		r := p.unary()
		switch {
		case len(l.names) == 0:
			l, r = r, l
		case len(r.names) != 0:
			panic(errNotLinear{})
		}
		l = scale(l, r.c)
	}
	return l
}

func scale(l linear, k int64) linear {
	out := linear{coef: map[string]int64{}, c: l.c * k}
	for _, n := range l.names {
		out.names = append(out.names, n)
		out.coef[n] = l.coef[n] * k
		if c := out.coef[n]; c > maxLinearCoef || c < -maxLinearCoef {
			panic(errNotLinear{})
		}
	}
	if out.c > maxLinearCoef || out.c < -maxLinearCoef {
		panic(errNotLinear{})
	}
	return out
}

func (p *linParser) unary() linear {
	if p.peek() == '-' {
		p.i++
		return scale(p.unary(), -1)
	}
	return p.atom()
}

func (p *linParser) atom() linear {
	l := linear{coef: map[string]int64{}}
	switch c := p.peek(); {
	case c == '(':
		p.i++
		l = p.sum()
		if p.peek() != ')' {
			panic(errNotLinear{})
		}
		p.i++
	case c >= '0' && c <= '9':
		j := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		v, err := strconv.ParseInt(p.s[j:p.i], 10, 64)
		if err != nil || v > maxLinearCoef {
			panic(errNotLinear{})
		}
		l.c = v
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		j := p.i
		for p.i < len(p.s) && (p.s[p.i] == '_' || p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= 'A' && p.s[p.i] <= 'Z' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
			p.i++
		}
		name := p.s[j:p.i]
		l.names = []string{name}
		l.coef[name] = 1
	default:
		panic(errNotLinear{})
	}
	// A name or number followed by what this grammar does not know (a
	// call's "(", an index's "[", a literal's "." or "e") is not linear:
	// the caller finds the text unread and gives up.
	return l
}
