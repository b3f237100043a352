package selector

// This file is the encoding sniffing of the web platform, written from the standards:
// the Encoding Standard's "get an encoding" and BOM sniff, Fetch's "extract a MIME type"
// (with MIME Sniffing's "parse a MIME type") for the Content-Type charset, and the HTML
// standard's "prescan a byte stream to determine its encoding". golang.org/x/net/html/charset
// is not used for these: its prescan runs the HTML tokenizer, so a <meta charset> inside
// <script> or <style> is skipped (the prescan treats every tag alike), and it reads one
// Content-Type with mime.ParseMediaType, so "text/html;charset=utf-8, text/html" has none.

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
)

// prescanLimit is how many bytes the prescan reads: the 1024 the HTML standard encourages.
const prescanLimit = 1024

// lookupLabel is the Encoding Standard's "get an encoding": label, with ASCII whitespace
// around it removed, matched case-insensitively against the standard's labels. It returns
// the encoding and its name ("utf-8", "windows-1252", "utf-16le"...), or nil.
func lookupLabel(label string) (encoding.Encoding, string) {
	label = strings.Trim(label, "\t\n\f\r ")
	if label == "" {
		return nil, ""
	}
	enc, err := htmlindex.Get(label)
	if err != nil {
		return nil, ""
	}
	name, err := htmlindex.Name(enc)
	if err != nil {
		return nil, ""
	}
	return enc, name
}

// bomSniff is the Encoding Standard's BOM sniff: the name of the encoding a byte order mark
// at the start of b gives ("utf-8", "utf-16be", "utf-16le") and its length, or "", 0.
// There is no UTF-32: "\xff\xfe\x00\x00" is UTF-16LE's mark.
func bomSniff(b []byte) (name string, n int) {
	switch {
	case bytes.HasPrefix(b, utf8BOM):
		return "utf-8", 3
	case bytes.HasPrefix(b, []byte{0xfe, 0xff}):
		return "utf-16be", 2
	case bytes.HasPrefix(b, []byte{0xff, 0xfe}):
		return "utf-16le", 2
	}
	return "", 0
}

// httpWS reports whether c is HTTP whitespace (tab, space, CR, LF).
func httpWS(c byte) bool { return c == '\t' || c == ' ' || c == '\r' || c == '\n' }

// tokenByte reports whether c is an HTTP token code point.
func tokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// quotedByte reports whether c is an HTTP quoted-string token code point.
func quotedByte(c byte) bool { return c == '\t' || (0x20 <= c && c <= 0x7e) || c >= 0x80 }

// mimeType is a parsed MIME type: its essence and its parameters, names in lower case.
type mimeType struct {
	essence string
	params  map[string]string
}

// parseMIMEType is MIME Sniffing's "parse a MIME type" on s; ok is false for failure.
func parseMIMEType(s string) (mt mimeType, ok bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r < 0x80 && httpWS(byte(r)) })
	slash := strings.IndexByte(s, '/')
	if slash <= 0 || !allBytes(s[:slash], tokenByte) {
		return mt, false
	}
	typ, i := s[:slash], slash+1
	end := strings.IndexByte(s[i:], ';')
	if end < 0 {
		end = len(s)
	} else {
		end += i
	}
	sub := strings.TrimRightFunc(s[i:end], func(r rune) bool { return r < 0x80 && httpWS(byte(r)) })
	if sub == "" || !allBytes(sub, tokenByte) {
		return mt, false
	}
	mt = mimeType{essence: strings.ToLower(typ + "/" + sub), params: map[string]string{}}
	i = end
	for i < len(s) {
		i++ // the ';'
		for i < len(s) && httpWS(s[i]) {
			i++
		}
		j := i
		for i < len(s) && s[i] != ';' && s[i] != '=' {
			i++
		}
		name := strings.ToLower(s[j:i])
		if i < len(s) {
			if s[i] == ';' {
				continue
			}
			i++ // the '='
		}
		if i >= len(s) {
			break
		}
		var value string
		if s[i] == '"' {
			value, i = quotedString(s, i)
			for i < len(s) && s[i] != ';' {
				i++
			}
		} else {
			j := i
			for i < len(s) && s[i] != ';' {
				i++
			}
			value = strings.TrimRightFunc(s[j:i], func(r rune) bool { return r < 0x80 && httpWS(byte(r)) })
			if value == "" {
				continue
			}
		}
		if _, dup := mt.params[name]; name != "" && allBytes(name, tokenByte) && allBytes(value, quotedByte) && !dup {
			mt.params[name] = value
		}
	}
	return mt, true
}

// quotedString is Fetch's "collect an HTTP quoted string" with extract-value set, from the
// '"' at s[i]: the value and the position after it.
func quotedString(s string, i int) (string, int) {
	var b strings.Builder
	i++
	for {
		j := i
		for i < len(s) && s[i] != '"' && s[i] != '\\' {
			i++
		}
		b.WriteString(s[j:i])
		if i >= len(s) {
			break
		}
		c := s[i]
		i++
		if c == '\\' {
			if i >= len(s) {
				b.WriteByte('\\')
				break
			}
			b.WriteByte(s[i])
			i++
			continue
		}
		break
	}
	return b.String(), i
}

// splitHeader is Fetch's "get, decode, and split" of one combined header value: the values
// between commas outside quoted strings, tabs and spaces removed around them.
func splitHeader(v string) []string {
	var out []string
	var cur strings.Builder
	i := 0
	for {
		j := i
		for i < len(v) && v[i] != '"' && v[i] != ',' {
			i++
		}
		cur.WriteString(v[j:i])
		if i < len(v) {
			if v[i] == '"' {
				_, k := quotedString(v, i)
				cur.WriteString(v[i:k])
				if i = k; i < len(v) {
					continue
				}
			} else {
				i++ // the ','
			}
		}
		out = append(out, strings.Trim(cur.String(), "\t "))
		cur.Reset()
		if i >= len(v) {
			return out
		}
	}
}

// headerCharset is the encoding Fetch's "extract a MIME type" and "legacy extract an
// encoding" give for a Content-Type header value (several headers joined by ", "): the
// encoding and its name, or nil. Of the values that parse, the last one wins, and a value
// of the same essence as the one before without a charset takes the charset of the first
// value of that essence: "text/html;charset=utf-8, text/html" is UTF-8.
func headerCharset(contentType string) (encoding.Encoding, string) {
	if contentType == "" {
		return nil, ""
	}
	var last *mimeType
	var essence string
	var charset *string
	for _, v := range splitHeader(contentType) {
		mt, ok := parseMIMEType(v)
		if !ok || mt.essence == "*/*" {
			continue
		}
		last = &mt
		c, has := mt.params["charset"]
		switch {
		case mt.essence != essence:
			charset, essence = nil, mt.essence
			if has {
				charset = &c
			}
		case !has && charset != nil:
			mt.params["charset"] = *charset
		}
	}
	if last == nil {
		return nil, ""
	}
	c, has := last.params["charset"]
	if !has {
		return nil, ""
	}
	return lookupLabel(c)
}

// allBytes reports whether every byte of s satisfies f.
func allBytes(s string, f func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return true
}

// prescan is the HTML standard's "prescan a byte stream to determine its encoding" over the
// first 1024 bytes of b: the encoding and name a UTF-16 XML declaration or a <meta>
// declares, or nil. Comments are skipped and every other tag is read alike, so a <meta>
// inside <script> or <style> counts, as in browsers.
func prescan(b []byte) (encoding.Encoding, string) {
	if len(b) > prescanLimit {
		b = b[:prescanLimit]
	}
	switch {
	case bytes.HasPrefix(b, []byte("<\x00?\x00x\x00")):
		return lookupLabel("utf-16le")
	case bytes.HasPrefix(b, []byte("\x00<\x00?\x00x")):
		return lookupLabel("utf-16be")
	}
	p := &prescanner{b: b}
	for p.i < len(b) {
		rest := b[p.i:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			// To the first '>' preceded by "--", which may be those of "<!--".
			k := bytes.Index(b[p.i+2:], []byte("-->"))
			if k < 0 {
				return nil, ""
			}
			p.i += 2 + k + 2
		case len(rest) >= 6 && asciiFold(rest[:5], "<meta") && (spaceByte(rest[5]) || rest[5] == '/'):
			p.i += 5
			enc, name, ok := p.meta()
			if !ok {
				return nil, ""
			}
			if enc != nil {
				return enc, name
			}
		case len(rest) >= 2 && rest[0] == '<' && (asciiLetter(rest[1]) || (rest[1] == '/' && len(rest) >= 3 && asciiLetter(rest[2]))):
			for p.i < len(b) && !spaceByte(b[p.i]) && b[p.i] != '>' {
				p.i++
			}
			for {
				_, _, found, ok := p.attr()
				if !ok {
					return nil, ""
				}
				if !found {
					break
				}
			}
		case len(rest) >= 2 && rest[0] == '<' && (rest[1] == '!' || rest[1] == '/' || rest[1] == '?'):
			k := bytes.IndexByte(rest[1:], '>')
			if k < 0 {
				return nil, ""
			}
			p.i += 1 + k
		}
		p.i++ // "next byte"
	}
	return nil, ""
}

// parserMeta is the encoding the HTML parser's "change the encoding" gives when the
// prescan found none, the confidence being tentative: the first <meta> start tag the
// tokenizer sees (so not one in a comment, <script>, <style> or other raw text), anywhere
// in b, with a charset attribute that names an encoding, or http-equiv="Content-Type" and a
// content that does. Browsers then reparse the document in that encoding; nil when there is
// none.
func parserMeta(b []byte) (encoding.Encoding, string) {
	if len(b) <= prescanLimit || !containsFold(b[prescanLimit-len("<meta"):], "<meta") {
		return nil, "" // the prescan saw every byte, or no <meta> follows
	}
	z := html.NewTokenizer(bytes.NewReader(b))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil, ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tag, more := z.TagName()
			if string(tag) != "meta" {
				continue
			}
			var charset, equiv, content []byte
			var hasCharset, hasContent bool
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "charset":
					if !hasCharset {
						charset, hasCharset = v, true
					}
				case "http-equiv":
					if equiv == nil {
						equiv = v
					}
				case "content":
					if !hasContent {
						content, hasContent = v, true
					}
				}
			}
			var enc encoding.Encoding
			var name string
			if hasCharset {
				enc, name = lookupLabel(string(charset))
			}
			if enc == nil && hasContent && asciiFold(equiv, "content-type") {
				enc, name = contentCharset(strings.ToLower(string(content)))
			}
			switch name {
			case "":
				continue
			case "utf-16be", "utf-16le":
				return lookupLabelMust("utf-8"), "utf-8"
			case "x-user-defined":
				return lookupLabelMust("windows-1252"), "windows-1252"
			}
			return enc, name
		}
	}
}

// prescanner is the position of the prescan in b.
type prescanner struct {
	b []byte
	i int
}

// meta reads the attributes of a <meta> tag, from the space or slash after its name, and
// returns what it declares (nil when nothing usable). ok is false when the bytes ran out,
// which ends the prescan.
func (p *prescanner) meta() (enc encoding.Encoding, name string, ok bool) {
	seen := map[string]bool{}
	var gotPragma, charsetSet bool // charsetSet: charset is no longer null (maybe failure)
	needPragma := 0                // 0: null, 1: true, 2: false
	for {
		k, v, found, ok := p.attr()
		if !ok {
			return nil, "", false
		}
		if !found {
			break
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		switch k {
		case "http-equiv":
			if v == "content-type" {
				gotPragma = true
			}
		case "content":
			if e, n := contentCharset(v); e != nil && !charsetSet {
				enc, name, needPragma, charsetSet = e, n, 1, true
			}
		case "charset":
			enc, name = lookupLabel(v)
			needPragma, charsetSet = 2, true
		}
	}
	if needPragma == 0 || (needPragma == 1 && !gotPragma) || enc == nil {
		return nil, "", true
	}
	switch name {
	case "utf-16be", "utf-16le":
		return lookupLabelMust("utf-8"), "utf-8", true
	case "x-user-defined":
		return lookupLabelMust("windows-1252"), "windows-1252", true
	}
	return enc, name, true
}

// lookupLabelMust is lookupLabel's encoding for a label known to exist.
func lookupLabelMust(label string) encoding.Encoding {
	enc, _ := lookupLabel(label)
	return enc
}

// attr is the prescan's "get an attribute": name and value in lower case, found false when
// the tag ends ('>') first, and ok false when the bytes run out first.
func (p *prescanner) attr() (name, value string, found, ok bool) {
	b := p.b
	for p.i < len(b) && (spaceByte(b[p.i]) || b[p.i] == '/') {
		p.i++
	}
	if p.i >= len(b) {
		return "", "", false, false
	}
	if b[p.i] == '>' {
		return "", "", false, true
	}
	var n, v []byte
	for {
		if p.i >= len(b) {
			return "", "", false, false
		}
		c := b[p.i]
		if c == '=' && len(n) > 0 {
			p.i++
			goto value
		}
		if spaceByte(c) {
			break
		}
		if c == '/' || c == '>' {
			return string(n), "", true, true
		}
		n = append(n, lower(c))
		p.i++
	}
	for p.i < len(b) && spaceByte(b[p.i]) {
		p.i++
	}
	if p.i >= len(b) {
		return "", "", false, false
	}
	if b[p.i] != '=' {
		return string(n), "", true, true
	}
	p.i++
value:
	for p.i < len(b) && spaceByte(b[p.i]) {
		p.i++
	}
	if p.i >= len(b) {
		return "", "", false, false
	}
	switch c := b[p.i]; c {
	case '"', '\'':
		for {
			p.i++
			if p.i >= len(b) {
				return "", "", false, false
			}
			if b[p.i] == c {
				p.i++
				return string(n), string(v), true, true
			}
			v = append(v, lower(b[p.i]))
		}
	case '>':
		return string(n), "", true, true
	default:
		v = append(v, lower(c))
		p.i++
	}
	for {
		if p.i >= len(b) {
			return "", "", false, false
		}
		c := b[p.i]
		if spaceByte(c) || c == '>' {
			return string(n), string(v), true, true
		}
		v = append(v, lower(c))
		p.i++
	}
}

// contentCharset is the HTML standard's "algorithm for extracting a character encoding from
// a meta element", on the (lower-cased) value of its content attribute.
func contentCharset(s string) (encoding.Encoding, string) {
	i := 0
	for {
		k := strings.Index(s[i:], "charset")
		if k < 0 {
			return nil, ""
		}
		i += k + len("charset")
		for i < len(s) && spaceByte(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '=' {
			break
		}
	}
	i++
	for i < len(s) && spaceByte(s[i]) {
		i++
	}
	if i >= len(s) {
		return nil, ""
	}
	if c := s[i]; c == '"' || c == '\'' {
		k := strings.IndexByte(s[i+1:], c)
		if k < 0 {
			return nil, ""
		}
		return lookupLabel(s[i+1 : i+1+k])
	}
	j := i
	for j < len(s) && !spaceByte(s[j]) && s[j] != ';' {
		j++
	}
	return lookupLabel(s[i:j])
}

// spaceByte reports whether c is one of the prescan's spaces (tab, LF, FF, CR, space).
func spaceByte(c byte) bool { return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' ' }

func asciiLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// asciiFold reports whether b is the lower-case ASCII word w in any case.
func asciiFold(b []byte, w string) bool {
	if len(b) != len(w) {
		return false
	}
	for i := range b {
		if lower(b[i]) != w[i] {
			return false
		}
	}
	return true
}
