package selector

// This file decodes a response body to text: the encoding from the byte order mark, the
// Content-Type, a <meta> declaration or the bytes themselves (Scrapy: TextResponse's
// encoding detection).

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
)

// DecodeText returns body decoded to UTF-8. The encoding comes from, in order: a byte order
// mark, the charset of contentType as Fetch extracts it (the last of comma-joined values
// wins, keeping an earlier charset of the same type), a <meta charset> or <meta
// http-equiv> found by the HTML standard's prescan of the first 1024 bytes (inside
// <script> and <style> too) or, after those, by the parser (not inside them), with the
// Encoding Standard's labels, so iso-8859-1 means windows-1252. Without any, it is UTF-8, unless body is not valid UTF-8, when it is
// windows-1252 (as Scrapy's auto-detection falls back to cp1252). Invalid UTF-8 sequences
// become U+FFFD and a leading byte order mark is dropped.
func DecodeText(body []byte, contentType string) string {
	enc, name, valid := detect(body, contentType)
	if name == "utf-8" {
		body = bytes.TrimPrefix(body, utf8BOM)
		if valid || utf8.Valid(body) {
			return string(body)
		}
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	b, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		// Decoders for HTML encodings replace bad input instead of failing; be safe anyway.
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	return strings.TrimPrefix(string(b), "\uFEFF")
}

// Encoding returns the WHATWG name of the encoding DecodeText uses for body ("utf-8",
// "windows-1252", "shift_jis", ...), as Scrapy's response.encoding.
func Encoding(body []byte, contentType string) string {
	_, name, _ := detect(body, contentType)
	return name
}

// utf8BOM is UTF-8's byte order mark.
var utf8BOM = []byte("\xef\xbb\xbf")

// plainUTF8 reports whether DecodeText(body, contentType) is body unchanged: UTF-8 with no
// byte order mark and no invalid sequence.
func plainUTF8(body []byte, contentType string) bool {
	if bytes.HasPrefix(body, utf8BOM) {
		return false
	}
	_, name, valid := detect(body, contentType)
	return name == "utf-8" && (valid || utf8.Valid(body))
}

// detect is the encoding choice of DecodeText, the one place it is made (sniff.go): a byte
// order mark (the Encoding Standard's BOM sniff), the Content-Type charset (Fetch's
// "extract a MIME type"), the HTML prescan of the first 1024 bytes, a later <meta> the
// parser would act on (parserMeta), else UTF-8 when body is
// valid UTF-8 and windows-1252 when not. valid is true when it had to check that body is
// valid UTF-8 to choose, so the caller need not again.
func detect(body []byte, contentType string) (enc encoding.Encoding, name string, valid bool) {
	if name, n := bomSniff(body); n > 0 {
		return lookupLabelMust(name), name, false
	}
	if enc, name := headerCharset(contentType); enc != nil {
		return enc, name, false
	}
	if enc, name := prescan(body); enc != nil {
		return enc, name, false
	}
	if enc, name := parserMeta(body); enc != nil {
		return enc, name, false
	}
	if utf8.Valid(body) {
		return encoding.Nop, "utf-8", true
	}
	return lookupLabelMust("windows-1252"), "windows-1252", false
}

// containsFold reports whether b contains the lower-case ASCII word w in any case. A w
// that starts with a byte without case ('<') is looked for with IndexByte, which skips
// the text between candidates at memchr speed.
func containsFold[T string | []byte](b T, w string) bool {
	if w == "" {
		return true
	}
	for i := 0; i+len(w) <= len(b); i++ {
		if c := w[0]; c < 'a' || c > 'z' {
			j := indexByte(b[i:], c)
			if j < 0 {
				return false
			}
			i += j
			if i+len(w) > len(b) {
				return false
			}
		}
		j := 0
		for ; j < len(w); j++ {
			if lower(b[i+j]) != w[j] {
				break
			}
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// indexByte is strings.IndexByte or bytes.IndexByte for b.
func indexByte[T string | []byte](b T, c byte) int {
	switch x := any(b).(type) {
	case string:
		return strings.IndexByte(x, c)
	case []byte:
		return bytes.IndexByte(x, c)
	}
	return -1
}
