package xpath1

// This file evaluates the primary expressions and the operators: literals, variables,
// or/and, arithmetic, union and the comparisons of §3.4.

import (
	"math"
)

func (e *numberExpr) eval(*evaluator, focus) Value { return NumberValue(e.v) }
func (e *stringExpr) eval(*evaluator, focus) Value { return StringValue(e.v) }

func (e *varExpr) eval(ev *evaluator, _ focus) Value {
	if ev.env != nil {
		if v, ok := ev.env.Variables[e.name]; ok {
			return v
		}
	}
	ev.fail(ErrUndefinedVariable)
	return Value{}
}

func (e *orExpr) eval(ev *evaluator, f focus) Value {
	return BooleanValue(toBoolean(e.l.eval(ev, f)) || toBoolean(e.r.eval(ev, f)))
}

func (e *andExpr) eval(ev *evaluator, f focus) Value {
	return BooleanValue(toBoolean(e.l.eval(ev, f)) && toBoolean(e.r.eval(ev, f)))
}

func (e *negExpr) eval(ev *evaluator, f focus) Value {
	return NumberValue(-ev.toNumber(e.e.eval(ev, f)))
}

func (e *arithExpr) eval(ev *evaluator, f focus) Value {
	a, b := ev.toNumber(e.l.eval(ev, f)), ev.toNumber(e.r.eval(ev, f))
	switch e.op {
	case '+':
		return NumberValue(a + b)
	case '-':
		return NumberValue(a - b)
	case '*':
		return NumberValue(a * b)
	case 'd':
		return NumberValue(a / b)
	}
	return NumberValue(math.Mod(a, b)) // mod: the sign of the dividend, as Java's %
}

func (e *unionExpr) eval(ev *evaluator, f focus) Value {
	a, b := e.l.eval(ev, f), e.r.eval(ev, f)
	if a.Type != TypeNodeSet || b.Type != TypeNodeSet {
		ev.fail(ErrInvalidType)
	}
	switch {
	case len(a.Nodes) == 0:
		return b
	case len(b.Nodes) == 0:
		return a
	}
	return NodeSetValue(ev.merge(a.Nodes, b.Nodes))
}

// merge returns the union of two node-sets in document order, in one pass.
func (ev *evaluator) merge(a, b []Node) []Node {
	out := make([]Node, 0, len(a)+len(b))
	if ev.compare(a[len(a)-1], b[0]) < 0 {
		return append(append(out, a...), b...)
	}
	if ev.compare(b[len(b)-1], a[0]) < 0 {
		return append(append(out, b...), a...)
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := ev.compare(a[i], b[j]); {
		case c < 0:
			out = append(out, a[i])
			i++
		case c > 0:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

func (e *cmpExpr) eval(ev *evaluator, f focus) Value {
	return BooleanValue(ev.compareValues(e.op, e.l.eval(ev, f), e.r.eval(ev, f)))
}

func (ev *evaluator) compareValues(op string, a, b Value) bool {
	an, bn := a.Type == TypeNodeSet, b.Type == TypeNodeSet
	switch {
	case an && bn:
		// True if some node of a and some node of b compare true on their string-values.
		if len(a.Nodes) == 0 || len(b.Nodes) == 0 {
			return false
		}
		if op == "=" || op == "!=" {
			bs := make([]string, len(b.Nodes))
			for i, n := range b.Nodes {
				bs[i] = ev.stringOf(n)
			}
			for _, n := range a.Nodes {
				s := ev.stringOf(n)
				for _, t := range bs {
					if (s == t) == (op == "=") {
						return true
					}
				}
			}
			return false
		}
		bf := make([]float64, len(b.Nodes))
		for i, n := range b.Nodes {
			bf[i] = parseNumber(ev.stringOf(n))
		}
		for _, n := range a.Nodes {
			x := parseNumber(ev.stringOf(n))
			for _, y := range bf {
				if compareNumbers(op, x, y) {
					return true
				}
			}
		}
		return false
	case an || bn:
		ns, other, swapped := a, b, false
		if bn {
			ns, other, swapped = b, a, true
		}
		if other.Type == TypeBoolean {
			x, y := toBoolean(ns), other.Bool
			if swapped {
				x, y = y, x
			}
			return compareAtoms(op, BooleanValue(x), BooleanValue(y))
		}
		for _, n := range ns.Nodes {
			s := StringValue(ev.stringOf(n))
			var ok bool
			if other.Type == TypeNumber {
				s = NumberValue(parseNumber(s.Str))
			}
			if swapped {
				ok = compareAtoms(op, other, s)
			} else {
				ok = compareAtoms(op, s, other)
			}
			if ok {
				return true
			}
		}
		return false
	}
	return compareAtoms(op, a, b)
}

// compareAtoms compares two values that are not node-sets.
func compareAtoms(op string, a, b Value) bool {
	if op == "=" || op == "!=" {
		eq := false
		switch {
		case a.Type == TypeBoolean || b.Type == TypeBoolean:
			eq = toBoolean(a) == toBoolean(b)
		case a.Type == TypeNumber || b.Type == TypeNumber:
			eq = atomNumber(a) == atomNumber(b)
		default:
			eq = a.Str == b.Str
		}
		return eq == (op == "=")
	}
	return compareNumbers(op, atomNumber(a), atomNumber(b))
}

// atomNumber converts a value that is not a node-set to a number, as number() does.
func atomNumber(v Value) float64 {
	switch v.Type {
	case TypeNumber:
		return v.Num
	case TypeBoolean:
		if v.Bool {
			return 1
		}
		return 0
	}
	return parseNumber(v.Str)
}

func compareNumbers(op string, a, b float64) bool {
	switch op {
	case "=":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	}
	return a >= b
}
