package tools

import (
	"math"
	"math/big"
	"strconv"
)

// JSON Schema compares numbers by their mathematical value, and the
// arguments keep the model's literal (json.Number) so that an identifier
// such as 9007199254740993 is not rounded on its way to the tool. The
// validator therefore compares literals exactly: as int64 when both sides
// are plain integers (the common case, no allocation), else as rationals.

// maxExactExponent and maxExactDigits bound the rationals built from a
// literal: 1e1000000000 is valid JSON, and making it exact would take
// gigabytes. Past them the value is compared as a float64, which saturates
// to ±Inf or 0 and so still orders correctly against any bound a schema
// can sensibly state.
const (
	maxExactExponent = 1000
	maxExactDigits   = 1000
)

// number is a JSON number literal with its value.
type number struct {
	lit    string
	i      int64    // the value when isInt
	r      *big.Rat // the value when neither isInt nor approx
	f      float64  // the value when approx
	isInt  bool
	approx bool
}

// parseNumber reads a JSON number literal; ok is false for anything else.
func parseNumber(lit string) (number, bool) {
	if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return number{lit: lit, i: i, isInt: true}, true
	}
	if !isJSONNumber(lit) {
		return number{}, false
	}
	if e := exponentOf(lit); len(lit) > maxExactDigits || e > maxExactExponent || e < -maxExactExponent {
		// A range error still yields ±Inf or ±0, which is what is wanted.
		f, _ := strconv.ParseFloat(lit, 64)
		return number{lit: lit, f: f, approx: true}, true
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return number{}, false
	}
	return number{lit: lit, r: r}, true
}

// exponentOf returns the exponent written in a JSON number literal,
// saturated far beyond the bounds above.
func exponentOf(lit string) int {
	for i := 0; i < len(lit); i++ {
		if lit[i] == 'e' || lit[i] == 'E' {
			neg := false
			j := i + 1
			if j < len(lit) && (lit[j] == '+' || lit[j] == '-') {
				neg = lit[j] == '-'
				j++
			}
			e := 0
			for ; j < len(lit); j++ {
				if e < 1<<30 {
					e = e*10 + int(lit[j]-'0')
				}
			}
			if neg {
				return -e
			}
			return e
		}
	}
	return 0
}

// isIntegralLiteral reports whether a valid JSON number literal denotes an
// integer ("2.0", "1e3" and "1.5e1" do), from its digits alone.
func isIntegralLiteral(lit string) bool {
	i := 0
	if lit[0] == '-' {
		i++
	}
	mantissaNonZero := false
	trailingZeros := 0 // of all mantissa digits, integer and fraction parts
	fracDigits := 0
	inFrac := false
	for ; i < len(lit) && lit[i] != 'e' && lit[i] != 'E'; i++ {
		c := lit[i]
		if c == '.' {
			inFrac = true
			continue
		}
		if inFrac {
			fracDigits++
		}
		if c == '0' {
			trailingZeros++
		} else {
			mantissaNonZero = true
			trailingZeros = 0
		}
	}
	if !mantissaNonZero {
		return true
	}
	// The value is digits × 10^(exp − fracDigits); it is an integer when
	// the digits' trailing zeros make up for a negative power.
	shift := exponentOf(lit) - fracDigits
	return shift >= 0 || trailingZeros >= -shift
}

func (n number) float() float64 {
	switch {
	case n.isInt:
		return float64(n.i)
	case n.approx:
		return n.f
	}
	f, _ := n.r.Float64()
	return f
}

func (n number) rat() *big.Rat {
	if n.isInt {
		return new(big.Rat).SetInt64(n.i)
	}
	return n.r
}

// cmpNumber returns -1, 0 or +1 as a is less than, equal to or greater
// than b.
func cmpNumber(a, b number) int {
	switch {
	case a.isInt && b.isInt:
		switch {
		case a.i < b.i:
			return -1
		case a.i > b.i:
			return 1
		}
		return 0
	case a.approx || b.approx:
		fa, fb := a.float(), b.float()
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	}
	return a.rat().Cmp(b.rat())
}

// isMultipleOf reports whether v is an integer multiple of m (m > 0).
func isMultipleOf(v, m number) bool {
	switch {
	case v.isInt && m.isInt:
		return v.i%m.i == 0
	case v.approx || m.approx:
		q := v.float() / m.float()
		return !math.IsInf(q, 0) && !math.IsNaN(q) && q == math.Trunc(q)
	}
	return new(big.Rat).Quo(v.rat(), m.rat()).IsInt()
}

// canonicalNumber writes a number so that equal values read the same
// (1, 1.0 and 1e0 all give "1").
func canonicalNumber(n number) string {
	switch {
	case n.isInt:
		return strconv.FormatInt(n.i, 10)
	case n.approx:
		return "~" + strconv.FormatFloat(n.f, 'g', -1, 64)
	}
	return n.r.RatString()
}
