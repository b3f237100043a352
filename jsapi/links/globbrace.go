package links

// This file expands the braces of a glob before it is parsed, as brace-expansion (minimatch's
// dependency) does: alternatives "{a,b}" and sequences "{1..3}", "{a..c}", "{01..10..2}".

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// braceExpand expands braces as brace-expansion (minimatch's dependency) does. Escaped
// characters stay escaped, for the glob parser.
func braceExpand(p string) []string {
	if !hasBracePair(p) {
		return []string{p}
	}
	out := expandBraces(p)
	if len(out) > maxBraceExpansions {
		out = out[:maxBraceExpansions]
	}
	return out
}

// hasBracePair reports whether p has a "{" later closed by a "}" with no "{" between
// (minimatch's test before expanding).
func hasBracePair(p string) bool {
	open := false
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '{':
			open = true
		case '}':
			if open {
				return true
			}
		}
	}
	return false
}

// balanced finds the outermost balanced, unescaped "{...}" that closes first.
func balanced(p string) (start, end int, ok bool) {
	var stack []int
	best := -1
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			stack = append(stack, i)
		case '}':
			if len(stack) == 0 {
				continue
			}
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return s, i, true
			}
			if best < 0 || s < start {
				start, end, best = s, i, 0
			}
		}
	}
	return start, end, best == 0
}

// commaParts splits a brace body at its top-level, unescaped commas.
func commaParts(body string) []string {
	var parts []string
	depth, last := 0, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, body[last:i])
				last = i + 1
			}
		}
	}
	return append(parts, body[last:])
}

func expandBraces(p string) []string {
	s, e, ok := balanced(p)
	if !ok {
		return []string{p}
	}
	pre, body, post := p[:s], p[s+1:e], p[e+1:]
	posts := []string{""}
	if post != "" {
		posts = expandBraces(post)
	}
	if strings.HasSuffix(pre, "$") {
		out := make([]string, 0, len(posts))
		for _, q := range posts {
			out = append(out, pre+"{"+body+"}"+q)
		}
		return out
	}
	var alts []string
	if seq, ok := braceSequence(body); ok {
		alts = seq
	} else {
		parts := commaParts(body)
		if len(parts) < 2 {
			// Not an option list. As brace-expansion: "{a},b}" is "{a\\},b}".
			if closesLater(post) {
				return expandBraces(pre + "{" + body + "\\}" + post)
			}
			// Otherwise this "{" is literal; expand what follows it.
			rest := expandBraces(p[s+1:])
			out := make([]string, 0, len(rest))
			for _, q := range rest {
				out = append(out, pre+"{"+q)
			}
			return out
		}
		for _, part := range parts {
			alts = append(alts, expandBraces(part)...)
			if len(alts) > maxBraceExpansions {
				break
			}
		}
	}
	out := make([]string, 0, len(alts)*len(posts))
	for _, a := range alts {
		for _, q := range posts {
			out = append(out, pre+a+q)
			if len(out) > maxBraceExpansions {
				return out
			}
		}
	}
	return out
}

// closesLater reports whether post has a "," (not followed by another) and then a "}".
func closesLater(post string) bool {
	for i := 0; i < len(post); i++ {
		if post[i] == ',' && (i+1 == len(post) || post[i+1] != ',') && strings.Contains(post[i+1:], "}") {
			return true
		}
	}
	return false
}

// braceSequence expands "1..5", "05..1..2", "a..e" and "a..z..3".
func braceSequence(body string) ([]string, bool) {
	f := strings.Split(body, "..")
	if len(f) != 2 && len(f) != 3 {
		return nil, false
	}
	step := 1
	if len(f) == 3 {
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, false
		}
		step = max(n, -n, 1)
	}
	x, errX := strconv.Atoi(f[0])
	y, errY := strconv.Atoi(f[1])
	var out []string
	if errX == nil && errY == nil {
		width := 0
		if padded(f[0]) || padded(f[1]) {
			width = max(len(f[0]), len(f[1]))
		}
		for v := x; ; {
			out = append(out, pad(v, width))
			if v == y || len(out) > maxBraceExpansions {
				return out, true
			}
			if x < y {
				if v += step; v > y {
					return out, true
				}
			} else if v -= step; v < y {
				return out, true
			}
		}
	}
	a, na := utf8.DecodeRuneInString(f[0])
	b, nb := utf8.DecodeRuneInString(f[1])
	if na != len(f[0]) || nb != len(f[1]) || !isASCIILetter(a) || !isASCIILetter(b) {
		return nil, false
	}
	for v := a; ; {
		if v != '\\' {
			out = append(out, string(v))
		}
		if v == b {
			return out, true
		}
		if a < b {
			if v += rune(step); v > b {
				return out, true
			}
		} else if v -= rune(step); v < b {
			return out, true
		}
	}
}

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

func padded(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

func pad(v, width int) string {
	s := strconv.Itoa(max(v, -v))
	if n := width - len(s); n > 0 && v < 0 {
		s = strings.Repeat("0", n-1) + s
	} else if n > 0 {
		s = strings.Repeat("0", n) + s
	}
	if v < 0 {
		return "-" + s
	}
	return s
}
