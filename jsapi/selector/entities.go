package selector

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// entityRe is w3lib's _ent_re: a named, decimal or hexadecimal character reference whose
// semicolon is optional.
var entityRe = regexp.MustCompile(`(?i)&(?:([a-z\d]+)|#(\d+)|#x([a-f\d]+))(;?)`)

// ReplaceEntities replaces the character references in s by their characters, except
// &lt; and &amp;, as parsel's re() does (w3lib.html.replace_entities with keep=["lt",
// "amp"]): the semicolon is optional, an unknown reference with a semicolon is removed and
// one without is kept, and references to 0x80–0x9F mean their windows-1252 characters.
func ReplaceEntities(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	return entityRe.ReplaceAllStringFunc(s, func(m string) string {
		g := entityRe.FindStringSubmatch(m)
		semicolon := g[4] != ""
		num := int64(-1)
		switch {
		case g[2] != "":
			num, _ = strconv.ParseInt(g[2], 10, 32)
		case g[3] != "":
			num, _ = strconv.ParseInt(g[3], 16, 32)
		default:
			name := g[1]
			if l := strings.ToLower(name); l == "lt" || l == "amp" {
				return m
			}
			if r, ok := namedEntity(name); ok {
				return r
			}
			if r, ok := namedEntity(strings.ToLower(name)); ok {
				return r
			}
		}
		if num >= 0x80 && num <= 0x9f {
			return string(charmap.Windows1252.DecodeByte(byte(num)))
		}
		if num > 0 && num <= utf8.MaxRune && utf8.ValidRune(rune(num)) {
			return string(rune(num))
		}
		if semicolon {
			return ""
		}
		return m
	})
}

// namedEntity returns the text of the entity called name, using the HTML5 table of the
// standard library (a superset of the HTML 4 names w3lib knows).
func namedEntity(name string) (string, bool) {
	ref := "&" + name + ";"
	s := html.UnescapeString(ref)
	if s == ref || strings.ContainsAny(s, "&;") {
		return "", false
	}
	return s, true
}
