package links

// This file parses and matches the bracket expressions of globs ("[a-z]", "[!x]", POSIX
// "[:alpha:]" classes).

import (
	"strings"
	"unicode"
)

// charClass is a bracket expression.
type charClass struct {
	negate bool
	ranges [][2]rune
	is     []func(rune) bool // POSIX classes matched positively
	isNot  []func(rune) bool // POSIX classes matched as their complement ([:graph:])
}

func (c *charClass) has(r rune) bool {
	for _, rg := range c.ranges {
		if rg[0] <= r && r <= rg[1] {
			return true
		}
	}
	for _, f := range c.is {
		if f(r) {
			return true
		}
	}
	for _, f := range c.isNot {
		if !f(r) {
			return true
		}
	}
	return false
}

func (c *charClass) match(r rune, noCase bool) bool {
	hit := c.has(r)
	if !hit && noCase {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if c.has(f) {
				hit = true
				break
			}
		}
	}
	return hit != c.negate
}

func inTable(ts ...*unicode.RangeTable) func(rune) bool {
	return func(r rune) bool { return unicode.IsOneOf(ts, r) }
}

func anyOf(fs ...func(rune) bool) func(rune) bool {
	return func(r rune) bool {
		for _, f := range fs {
			if f(r) {
				return true
			}
		}
		return false
	}
}

func runeIn(s string) func(rune) bool { return func(r rune) bool { return strings.ContainsRune(s, r) } }

// posixClasses are minimatch's bracket classes; graph is matched as a complement.
var posixClasses = []struct {
	name string
	f    func(rune) bool
	not  bool
}{
	{"[:alnum:]", inTable(unicode.L, unicode.Nl, unicode.Nd), false},
	{"[:alpha:]", inTable(unicode.L, unicode.Nl), false},
	{"[:ascii:]", func(r rune) bool { return r <= 0x7f }, false},
	{"[:blank:]", anyOf(inTable(unicode.Zs), runeIn("\t")), false},
	{"[:cntrl:]", inTable(unicode.Cc), false},
	{"[:digit:]", inTable(unicode.Nd), false},
	{"[:graph:]", inTable(unicode.Z, unicode.C), true},
	{"[:lower:]", inTable(unicode.Ll), false},
	{"[:print:]", inTable(unicode.C), false}, // sic: minimatch 10 matches \p{C}
	{"[:punct:]", inTable(unicode.P), false},
	{"[:space:]", anyOf(inTable(unicode.Z), runeIn("\t\r\n\v\f")), false},
	{"[:upper:]", inTable(unicode.Lu), false},
	{"[:word:]", inTable(unicode.L, unicode.Nl, unicode.Nd, unicode.Pc), false},
	{"[:xdigit:]", runeIn("ABCDEFabcdef0123456789"), false},
}

// parseClass parses the bracket expression at rs[pos] == '['. ok is false when it is not
// closed (the "[" is then literal). A class of one plain character is a literal; a class
// that can match nothing is nNever.
func parseClass(rs []rune, pos int) (gnode, int, bool) {
	cls := &charClass{}
	i := pos + 1
	sawStart, escaping := false, false
	var rangeStart rune
	hasRangeStart := false
	end := -1
	never := false
loop:
	for i < len(rs) {
		c := rs[i]
		if (c == '!' || c == '^') && i == pos+1 {
			cls.negate = true
			i++
			continue
		}
		if c == ']' && sawStart && !escaping {
			end = i + 1
			break
		}
		sawStart = true
		if c == '\\' && !escaping {
			escaping = true
			i++
			continue
		}
		if c == '[' && !escaping {
			for _, pc := range posixClasses {
				if strings.HasPrefix(string(rs[i:min(len(rs), i+len(pc.name))]), pc.name) {
					if hasRangeStart {
						never = true
						break loop
					}
					i += len(pc.name)
					if pc.not {
						cls.isNot = append(cls.isNot, pc.f)
					} else {
						cls.is = append(cls.is, pc.f)
					}
					continue loop
				}
			}
		}
		escaping = false
		if hasRangeStart {
			if c >= rangeStart {
				cls.ranges = append(cls.ranges, [2]rune{rangeStart, c})
			}
			hasRangeStart = false
			i++
			continue
		}
		if i+1 < len(rs) && rs[i+1] == '-' {
			if i+2 < len(rs) && rs[i+2] == ']' {
				cls.ranges = append(cls.ranges, [2]rune{c, c}, [2]rune{'-', '-'})
				i += 2
				continue
			}
			rangeStart, hasRangeStart = c, true
			i += 2
			continue
		}
		cls.ranges = append(cls.ranges, [2]rune{c, c})
		i++
	}
	if never {
		return gnode{kind: nNever}, len(rs), true
	}
	if end < 0 {
		return gnode{}, 0, false
	}
	if len(cls.ranges) == 0 && len(cls.is) == 0 && len(cls.isNot) == 0 {
		return gnode{kind: nNever}, end, true
	}
	if !cls.negate && len(cls.is) == 0 && len(cls.isNot) == 0 && len(cls.ranges) == 1 && cls.ranges[0][0] == cls.ranges[0][1] {
		return gnode{kind: nLit, r: cls.ranges[0][0]}, end, true
	}
	return gnode{kind: nClass, class: cls}, end, true
}
