package feeds

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// Entry is one <url> of a urlset or one <sitemap> of a sitemap index (Scrapy: the dicts
// scrapy.utils.sitemap.Sitemap yields). Fields absent from the XML are "".
type Entry struct {
	Loc        string
	LastMod    string
	ChangeFreq string
	Priority   string
	Alternate  []string // hrefs of <xhtml:link rel="alternate"> children
}

// The sitemap types, from the root element's local name.
const (
	URLSet       = "urlset"
	SitemapIndex = "sitemapindex"
)

// ErrTooLarge is the error of a gzipped sitemap that decompresses to more than the limit.
var ErrTooLarge = errors.New("decompressed sitemap exceeds the size limit")

// ErrTokenTooLarge is the error of a sitemap with a piece of XML (text, a tag, a
// comment) larger than maxToken, which the decoder would hold whole.
var ErrTokenTooLarge = fmt.Errorf("sitemap has a piece of XML larger than %d bytes", maxToken)

// The bounds that keep a sitemap's reading in constant memory, whatever its size:
// encoding/xml holds one token (a run of text, a tag, a comment) at a time, so a run of
// whitespace is cut to maxSpaceRun (whitespace that long means nothing in a sitemap),
// and a token larger than maxToken (a URL is at most a few KB) stops the reading.
const (
	maxSpaceRun = 4 << 10
	maxToken    = 1 << 20
	readBuf     = 32 << 10
)

// IsGzip reports whether b starts with the gzip magic number.
func IsGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// SitemapReader streams the entries of one sitemap document. It is not safe for concurrent
// use.
type SitemapReader struct {
	dec   *xml.Decoder
	guard *tokenGuard
	typ   string
	err   error
	done  bool
}

// NewSitemapReader starts reading body, gunzipping it on the fly when it starts with the
// gzip magic number (at most maxSize decompressed bytes, then ErrTooLarge; 0: no limit),
// and reads up to the root element. Type tells the root's local name. A body with no root
// element gives a reader whose Type is "" and whose Err says why. Reading holds a bounded
// amount of memory besides body, however large the decompressed sitemap: see maxToken.
func NewSitemapReader(body []byte, maxSize int64) *SitemapReader {
	var r io.Reader = bytes.NewReader(body)
	if IsGzip(body) {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return &SitemapReader{err: fmt.Errorf("gunzip: %w", err), done: true}
		}
		r = zr
		if maxSize > 0 {
			r = &limitReader{r: zr, n: maxSize, max: maxSize}
		}
	}
	g := &tokenGuard{r: &squeezeSpace{r: r}}
	s := &SitemapReader{guard: g}
	s.dec = newDecoder(bufio.NewReaderSize(g, readBuf))
	for {
		tok, err := s.token()
		if err != nil {
			s.fail(err)
			return s
		}
		if se, ok := tok.(xml.StartElement); ok {
			s.typ = se.Name.Local
			return s
		}
	}
}

// token returns the decoder's next token and lets the guard know where the next one
// starts.
func (s *SitemapReader) token() (xml.Token, error) {
	tok, err := s.dec.Token()
	s.guard.mark = s.dec.InputOffset()
	return tok, err
}

// newDecoder returns a lenient decoder: unknown entities and stray "&" (common in sitemap
// URLs) are kept as text, as lxml's recovering parser does.
func newDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		return charsetReader(label, input)
	}
	return d
}

// limitReader fails with ErrTooLarge past n bytes.
type limitReader struct {
	r      io.Reader
	n, max int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, fmt.Errorf("%w (%d bytes, DOWNLOAD_MAXSIZE)", ErrTooLarge, l.max)
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// squeezeSpace cuts each run of XML whitespace in r to maxSpaceRun bytes.
type squeezeSpace struct {
	r   io.Reader
	run int // length of the whitespace run the last byte read is in
}

func (q *squeezeSpace) Read(p []byte) (int, error) {
	for {
		n, err := q.r.Read(p)
		w := 0
		for _, c := range p[:n] {
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				q.run++
				if q.run > maxSpaceRun {
					continue
				}
			} else {
				q.run = 0
			}
			p[w] = c
			w++
		}
		if w > 0 || err != nil || n == 0 {
			return w, err
		}
	}
}

// tokenGuard fails with ErrTokenTooLarge once the decoder has taken more than maxToken
// bytes (and a read buffer) past mark, the input offset where its current token starts.
type tokenGuard struct {
	r    io.Reader
	n    int64 // bytes read
	mark int64
}

func (g *tokenGuard) Read(p []byte) (int, error) {
	if g.n-g.mark > maxToken+readBuf {
		return 0, ErrTokenTooLarge
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	return n, err
}

// Type returns the root element's local name: URLSet, SitemapIndex, or something else for
// a document that is not a sitemap.
func (s *SitemapReader) Type() string { return s.typ }

// Err returns the error that stopped the reading early (broken XML, a gzip error,
// ErrTooLarge), or nil.
func (s *SitemapReader) Err() error { return s.err }

func (s *SitemapReader) fail(err error) {
	s.done = true
	if !errors.Is(err, io.EOF) || s.typ != "" {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		s.err = err
	}
}

// Next appends up to max entries (each with a non-empty Loc) to buf and returns it; an
// empty result means the end (check Err).
func (s *SitemapReader) Next(buf []Entry, max int) []Entry {
	for !s.done && len(buf) < max {
		tok, err := s.token()
		if err != nil {
			s.fail(err)
			break
		}
		switch tok.(type) {
		case xml.StartElement:
			// a child of the root: <url> or <sitemap> (any name, as Scrapy)
			e, err := s.entry()
			if err != nil {
				s.fail(err)
				if e.Loc != "" {
					buf = append(buf, e)
				}
				return buf
			}
			if e.Loc != "" {
				buf = append(buf, e)
			}
		case xml.EndElement:
			// the root closed
			s.done = true
		}
	}
	return buf
}

// entry reads the children of one entry element up to its end.
func (s *SitemapReader) entry() (Entry, error) {
	var e Entry
	for {
		tok, err := s.token()
		if err != nil {
			return e, err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return e, nil
		case xml.StartElement:
			if t.Name.Local == "link" {
				var href, rel string
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "href":
						href = a.Value
					case "rel":
						rel = a.Value
					}
				}
				if href != "" && (rel == "" || strings.EqualFold(rel, "alternate")) {
					e.Alternate = append(e.Alternate, strings.TrimSpace(href))
				}
				if err := s.skip(); err != nil {
					return e, err
				}
				continue
			}
			text, err := s.text()
			if err != nil {
				return e, err
			}
			switch t.Name.Local {
			case "loc":
				e.Loc = text
			case "lastmod":
				e.LastMod = text
			case "changefreq":
				e.ChangeFreq = text
			case "priority":
				e.Priority = text
			}
		}
	}
}

// skip reads up to the end of the current element (xml.Decoder.Skip, token by token
// for the guard).
func (s *SitemapReader) skip() error {
	depth := 0
	for {
		tok, err := s.token()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			if depth == 0 {
				return nil
			}
			depth--
		}
	}
}

// text returns the trimmed character data of the current element, skipping nested
// elements, and consumes its end.
func (s *SitemapReader) text() (string, error) {
	var b strings.Builder
	depth := 0
	for {
		tok, err := s.token()
		if err != nil {
			return strings.TrimSpace(b.String()), err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if depth == 0 {
				if b.Len()+len(t) > maxToken {
					return "", ErrTokenTooLarge
				}
				b.Write(t)
			}
		case xml.StartElement:
			depth++
		case xml.EndElement:
			if depth == 0 {
				return strings.TrimSpace(b.String()), nil
			}
			depth--
		}
	}
}

// RobotsSitemaps returns the URLs of the Sitemap: lines of a robots.txt, joined to base
// (Scrapy: sitemap_urls_from_robots).
func RobotsSitemaps(robots string, base *url.URL) []string {
	var out []string
	for _, line := range strings.Split(robots, "\n") {
		line = strings.TrimLeft(line, " \t")
		if len(line) < 8 || !strings.EqualFold(line[:8], "sitemap:") {
			continue
		}
		v := strings.TrimSpace(line[8:])
		if i := strings.IndexByte(v, '#'); i >= 0 && strings.Contains(v[:i], " ") {
			v = strings.TrimSpace(v[:i])
		}
		ref, err := url.Parse(v)
		if err != nil || v == "" {
			continue
		}
		if base != nil {
			ref = base.ResolveReference(ref)
		}
		out = append(out, ref.String())
	}
	return out
}
