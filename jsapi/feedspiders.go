package jsapi

import (
	"bytes"
	"errors"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/jsapi/feeds"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/types"
)

// sitemapBatch is how many sitemap entries one sitemapNext call returns.
const sitemapBatch = 1000

// feedsClass holds the natives behind the SitemapSpider, XMLFeedSpider and CSVFeedSpider
// base classes (spiders.js). Used on one loop.
type feedsClass struct {
	st       *vmState
	entryBuf []feeds.Entry // reused by SitemapNext
}

// SitemapOpen(response) → a reader, or null when the body is not a sitemap (Scrapy:
// SitemapSpider._get_sitemap_body).
func (x *feedsClass) SitemapOpen(h *respHandle, _ goja.FunctionCall) (goja.Value, error) {
	if !isSitemapBody(h.resp) {
		return goja.Null(), nil
	}
	var max int64
	if x.st.s.crawler != nil {
		max = int64(x.st.s.crawler.Settings().Int(types.DownloadMaxSize))
	}
	return x.st.rt.ToValue(feeds.NewSitemapReader(h.resp.Body, max)), nil
}

// sitemap returns the sitemap reader that is v.
func sitemap(v goja.Value) (*feeds.SitemapReader, error) {
	r, ok := v.Export().(*feeds.SitemapReader)
	if !ok {
		return nil, typeError("not a sitemap reader")
	}
	return r, nil
}

// SitemapType(reader) is "urlset" or "sitemapindex".
func (x *feedsClass) SitemapType(c goja.FunctionCall) (goja.Value, error) {
	r, err := sitemap(c.Argument(0))
	if err != nil {
		return nil, err
	}
	return x.st.rt.ToValue(r.Type()), nil
}

// SitemapError(reader) is why reading stopped early, or null.
func (x *feedsClass) SitemapError(c goja.FunctionCall) (goja.Value, error) {
	r, err := sitemap(c.Argument(0))
	if err != nil {
		return nil, err
	}
	if err := r.Err(); err != nil {
		return x.st.rt.ToValue(err.Error()), nil
	}
	return goja.Null(), nil
}

// SitemapTooLarge(reader) tells whether reading stopped at DOWNLOAD_MAXSIZE (the
// decompressed size of a gzipped sitemap).
func (x *feedsClass) SitemapTooLarge(c goja.FunctionCall) (goja.Value, error) {
	r, err := sitemap(c.Argument(0))
	if err != nil {
		return nil, err
	}
	return x.st.rt.ToValue(errors.Is(r.Err(), feeds.ErrTooLarge)), nil
}

// SitemapNext(reader) → up to sitemapBatch entries { loc, lastmod?, changefreq?,
// priority?, alternate? }, or null at the end.
func (x *feedsClass) SitemapNext(c goja.FunctionCall) (goja.Value, error) {
	rt := x.st.rt
	r, err := sitemap(c.Argument(0))
	if err != nil {
		return nil, err
	}
	x.entryBuf = r.Next(x.entryBuf[:0], sitemapBatch)
	if len(x.entryBuf) == 0 {
		return goja.Null(), nil
	}
	out := make([]any, len(x.entryBuf))
	for i, e := range x.entryBuf {
		o := rt.NewObject()
		_ = o.Set("loc", e.Loc)
		if e.LastMod != "" {
			_ = o.Set("lastmod", e.LastMod)
		}
		if e.ChangeFreq != "" {
			_ = o.Set("changefreq", e.ChangeFreq)
		}
		if e.Priority != "" {
			_ = o.Set("priority", e.Priority)
		}
		if len(e.Alternate) > 0 {
			_ = o.Set("alternate", stringArray(rt, e.Alternate))
		}
		out[i] = o
	}
	return rt.NewArray(out...), nil
}

// RobotsSitemaps(response) → the Sitemap: URLs of a robots.txt.
func (x *feedsClass) RobotsSitemaps(h *respHandle, _ goja.FunctionCall) (goja.Value, error) {
	page, err := h.pageURL()
	if err != nil {
		return nil, err
	}
	return stringArray(x.st.rt, feeds.RobotsSitemaps(h.body(), page)), nil
}

// FeedNodes(response, itertag, namespaces [[prefix, uri], ...]) → [SelectorList, error | null]
func (x *feedsClass) FeedNodes(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	rt := x.st.rt
	ns := map[string]string{}
	var pairs [][]string
	if v := c.Argument(2); !isNil(v) {
		if err := rt.ExportTo(v, &pairs); err != nil {
			return nil, typeError("namespaces must be [[prefix, uri], ...], got %s", describe(v))
		}
	}
	for _, p := range pairs {
		if len(p) != 2 {
			return nil, typeError("namespaces must be [[prefix, uri], ...]")
		}
		ns[p[0]] = p[1]
	}
	nodes, err := feeds.XMLNodes(h.resp.Body, c.Argument(1).String(), ns)
	rs := make([]selector.Result, len(nodes))
	for i, n := range nodes {
		rs[i] = selector.Result{Node: n, Kind: selector.KindElement}
	}
	var msg goja.Value = goja.Null()
	if err != nil {
		msg = rt.ToValue(err.Error())
	}
	return rt.NewArray(x.st.newList(rs), msg), nil
}

// oneChar reads a one-character option, def when missing.
func oneChar(v goja.Value, def rune, what string) (rune, error) {
	if isNil(v) {
		return def, nil
	}
	s := v.String()
	if utf8.RuneCountInString(s) != 1 {
		return 0, typeError("%s must be one character, got %q", what, s)
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r, nil
}

// CsvRows(response, delimiter, quotechar, headers | null) → [rows, skipped, error | null]
func (x *feedsClass) CsvRows(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	rt := x.st.rt
	delim, err := oneChar(c.Argument(1), ',', "delimiter")
	if err != nil {
		return nil, err
	}
	quote, err := oneChar(c.Argument(2), '"', "quotechar")
	if err != nil {
		return nil, err
	}
	headers, err := strs(rt, c.Argument(3), "headers")
	if err != nil {
		return nil, err
	}
	res := feeds.ReadCSV(h.body(), delim, quote, headers)
	rows := make([]any, len(res.Rows))
	for i, r := range res.Rows {
		o := rt.NewObject()
		for j, k := range res.Headers {
			_ = o.Set(k, r[j])
		}
		rows[i] = o
	}
	skipped := make([]any, len(res.Skipped))
	for i, s := range res.Skipped {
		skipped[i] = rt.NewArray(s.Line, s.Length, len(res.Headers))
	}
	var msg goja.Value = goja.Null()
	if res.Err != nil {
		msg = rt.ToValue(res.Err.Error())
	}
	return rt.NewArray(rt.NewArray(rows...), rt.NewArray(skipped...), msg), nil
}

// isSitemapBody reports whether a response holds a sitemap as Scrapy's SitemapSpider
// decides: an XML content type or body, gzip magic bytes, or a URL ending in .xml or
// .xml.gz.
func isSitemapBody(r *types.Response) bool {
	if feeds.IsGzip(r.Body) {
		return true
	}
	if mt, _, err := mime.ParseMediaType(r.Headers.Get("Content-Type")); err == nil &&
		(mt == "text/xml" || mt == "application/xml" || strings.HasSuffix(mt, "+xml")) {
		return true
	}
	u := r.URL
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if strings.HasSuffix(u, ".xml") || strings.HasSuffix(u, ".xml.gz") {
		return true
	}
	b := bytes.TrimLeft(r.Body[:min(len(r.Body), 512)], " \t\r\n\ufeff")
	return bytes.HasPrefix(b, []byte("<?xml")) || bytes.HasPrefix(b, []byte("<urlset")) || bytes.HasPrefix(b, []byte("<sitemapindex"))
}
