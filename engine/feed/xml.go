package feed

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jscrawl/jscrawl/types"
)

// XML writes Scrapy's XmlItemExporter layout:
//
//	<?xml version="1.0" encoding="utf-8"?>
//	<items>
//	<item><name>Color TV</name><tags><value>a</value><value>b</value></tags></item>
//	</items>
//
// Arrays become <value> children and nested objects child elements. Text is escaped (&, <
// and >); a key that is not a valid XML name has its invalid characters replaced with "_".
// With Config.Indent above 0 each element is on its own indented line. It is not safe for
// concurrent use.
type XML struct {
	w       io.Writer
	fields  []string
	indent  int
	started bool
	closed  bool
	buf     bytes.Buffer
}

// NewXML returns an XML writer to w; it uses cfg.Fields and cfg.Indent.
func NewXML(w io.Writer, cfg Config) *XML {
	return &XML{w: w, fields: cfg.Fields, indent: cfg.Indent}
}

const xmlHeader = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items>\n"

// Export writes item as one <item> element, after the header when it is the first one.
func (x *XML) Export(item types.Item) error {
	if x.closed {
		return fmt.Errorf("xml feed: export after close")
	}
	x.buf.Reset()
	if !x.started {
		x.buf.WriteString(xmlHeader) // started only once written: the item may fail
	}
	x.writeIndent(1)
	x.buf.WriteString("<item>")
	x.newline()
	for _, f := range project(item, x.fields) {
		if err := x.writeField(f.Key, f.Value, 2); err != nil {
			return err
		}
	}
	x.writeIndent(1)
	x.buf.WriteString("</item>\n")
	if _, err := x.w.Write(x.buf.Bytes()); err != nil {
		return fmt.Errorf("write xml item: %w", err)
	}
	x.started = true
	return nil
}

// Close writes the closing </items> (and the header first when no item was exported).
func (x *XML) Close() error {
	if x.closed {
		return nil
	}
	x.closed = true
	trailer := "</items>\n"
	if !x.started {
		trailer = xmlHeader + trailer
	}
	if _, err := io.WriteString(x.w, trailer); err != nil {
		return fmt.Errorf("write xml trailer: %w", err)
	}
	return nil
}

// writeField writes one element as Scrapy's export_xml_field does.
func (x *XML) writeField(name string, v any, depth int) error {
	name = xmlName(name)
	x.writeIndent(depth)
	x.buf.WriteString("<" + name + ">")
	switch v := v.(type) {
	case types.Item:
		x.newline()
		for _, f := range v {
			if err := x.writeField(f.Key, f.Value, depth+1); err != nil {
				return err
			}
		}
		x.writeIndent(depth)
	case []any:
		x.newline()
		for _, e := range v {
			if err := x.writeField("value", e, depth+1); err != nil {
				return err
			}
		}
		x.writeIndent(depth)
	default:
		s, err := formatScalar(v)
		if err != nil {
			return fmt.Errorf("xml field %s: %w", name, err)
		}
		xmlEscape(&x.buf, s)
	}
	x.buf.WriteString("</" + name + ">")
	x.newline()
	return nil
}

func (x *XML) writeIndent(depth int) {
	if x.indent > 0 {
		x.buf.WriteString(strings.Repeat(" ", x.indent*depth))
	}
}

func (x *XML) newline() {
	if x.indent > 0 {
		x.buf.WriteByte('\n')
	}
}

// xmlEscape writes s with &, < and > escaped, as Python's XMLGenerator.characters does.
// Characters that XML 1.0 forbids become U+FFFD.
func xmlEscape(b *bytes.Buffer, s string) {
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case !xmlChar(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
}

// xmlChar reports whether r may appear in an XML 1.0 document.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// xmlName makes key a valid XML element name: invalid characters become "_", and a name
// that does not start with a letter or "_" gets a "_" in front.
func xmlName(key string) string {
	valid := func(r rune, first bool) bool {
		if r == '_' || r == ':' || unicode.IsLetter(r) {
			return true
		}
		return !first && (r == '-' || r == '.' || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
	}
	ok := key != ""
	for i, r := range key {
		if !valid(r, i == 0) {
			ok = false
			break
		}
	}
	if ok {
		return key
	}
	var b strings.Builder
	for i, r := range key {
		switch {
		case valid(r, i == 0):
			b.WriteRune(r)
		case i == 0 && valid(r, false):
			b.WriteByte('_')
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// Interface guards
var _ Exporter = (*XML)(nil)
