package xpath1

import (
	"math"
	"strconv"
	"strings"
)

// Type is the type of an XPath value (XPath 1.0 §1: node-set, boolean, number, string).
type Type uint8

// The value types. TypeAny is only a Function's Result: not known in advance.
const (
	TypeAny Type = iota
	TypeNodeSet
	TypeString
	TypeNumber
	TypeBoolean
)

// String returns the type's name as XPath spells it.
func (t Type) String() string {
	switch t {
	case TypeNodeSet:
		return "node-set"
	case TypeString:
		return "string"
	case TypeNumber:
		return "number"
	case TypeBoolean:
		return "boolean"
	}
	return "any"
}

// Value is an XPath value: the field that Type names holds it. A node-set's Nodes are in
// document order without duplicates (extension functions returning node-sets must keep
// that; SortNodes helps).
type Value struct {
	Type  Type
	Nodes []Node
	Str   string
	Num   float64
	Bool  bool
}

// NodeSetValue returns a node-set value of nodes, which must be in document order without
// duplicates.
func NodeSetValue(nodes []Node) Value { return Value{Type: TypeNodeSet, Nodes: nodes} }

// StringValue returns a string value.
func StringValue(s string) Value { return Value{Type: TypeString, Str: s} }

// NumberValue returns a number value.
func NumberValue(f float64) Value { return Value{Type: TypeNumber, Num: f} }

// BooleanValue returns a boolean value.
func BooleanValue(b bool) Value { return Value{Type: TypeBoolean, Bool: b} }

// FormatNumber converts a number to a string as XPath's string() does in libxml2, so in
// lxml and parsel: NaN, Infinity, -Infinity, 0 for both zeros, integers below 2^31 in
// full, and other numbers with 15 significant digits, trailing zeros dropped, in
// exponent notation ("1.23456789012346e+19", "1e-06") when their magnitude is above 1e9
// or below 1e-5. (XPath 1.0 §4.2 wants as many digits as needed and never an exponent;
// parsel's users get libxml2's strings.)
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	case f > math.MinInt32 && f < math.MaxInt32 && f == math.Trunc(f):
		return strconv.Itoa(int(f))
	}
	a := math.Abs(f)
	if a > 1e9 || a < 1e-5 {
		s := strconv.FormatFloat(f, 'e', 14, 64)
		e := strings.IndexByte(s, 'e')
		return trimZeros(s[:e]) + s[e:]
	}
	place := int(math.Log10(a)) // truncated toward zero, as C's (int) cast
	frac := 15 - place
	if place > 0 {
		frac--
	}
	return trimZeros(strconv.FormatFloat(f, 'f', frac, 64))
}

// trimZeros drops the trailing zeros of a decimal fraction, and its point if nothing is
// left after it.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// parseNumber converts a string to a number as XPath's number() does (§4.4): optional
// whitespace, an optional minus, digits with an optional decimal point (and, as in
// libxml2, an optional exponent), optional whitespace; anything else is NaN.
func parseNumber(s string) float64 {
	s = strings.Trim(s, " \t\n\r")
	t := strings.TrimPrefix(s, "-")
	if t == "" || t == "." {
		return math.NaN()
	}
	dot, digits := false, false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' && !dot:
			dot = true
		case digits && exponentLen(t[i:]) == len(t)-i:
			i = len(t)
		default:
			return math.NaN()
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// Out of range: ParseFloat gives ±Inf with the error, which is XPath's value too.
		return f
	}
	return f
}

// ParseNumber converts a string to a number as XPath's number() does (NaN when it is not
// an XPath Number).
func ParseNumber(s string) float64 { return parseNumber(s) }
