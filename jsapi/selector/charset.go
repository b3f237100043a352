package selector

// This file decodes a response body to text: the encoding from the byte order mark, the
// Content-Type, a <meta> declaration or the bytes themselves (Scrapy: TextResponse's
// encoding detection).

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// DecodeText returns body decoded to UTF-8. The encoding comes from, in order: a byte order
// mark, the charset parameter of contentType, a <meta charset> or <meta http-equiv> in the
// first 1024 bytes (golang.org/x/net/html/charset, with WHATWG labels, so iso-8859-1 means
// windows-1252). Without any, it is UTF-8, unless body is not valid UTF-8, when it is
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

// detect is the encoding choice of DecodeText, the one place it is made. valid is true
// when it had to check that body is valid UTF-8 to choose, so the caller need not again.
func detect(body []byte, contentType string) (enc encoding.Encoding, name string, valid bool) {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain && name == "windows-1252" && !metaCharset(body) {
		// DetermineEncoding's default guess, made from the first 1024 bytes only.
		if utf8.Valid(body) {
			return enc, "utf-8", true
		}
	}
	return enc, name, false
}

// metaCharset reports whether the first 1024 bytes of body declare an encoding in a <meta>
// element, which DetermineEncoding's answer alone does not tell.
func metaCharset(body []byte) bool {
	if len(body) > 1024 {
		body = body[:1024]
	}
	if !containsFold(body, "charset") {
		return false
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return false
		case html.StartTagToken, html.SelfClosingTagToken:
			tag, hasAttr := z.TagName()
			if string(tag) != "meta" {
				continue
			}
			var httpEquiv, content bool
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "charset":
					if e, _ := charset.Lookup(string(v)); e != nil {
						return true
					}
				case "http-equiv":
					httpEquiv = strings.EqualFold(string(v), "content-type")
				case "content":
					content = containsFold(v, "charset")
				}
			}
			if httpEquiv && content {
				return true
			}
		}
	}
}

// containsFold reports whether b contains the lower-case ASCII word w in any case.
func containsFold[T string | []byte](b T, w string) bool {
	for i := 0; i+len(w) <= len(b); i++ {
		j := 0
		for ; j < len(w); j++ {
			c := b[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[j] {
				break
			}
		}
		if j == len(w) {
			return true
		}
	}
	return false
}
