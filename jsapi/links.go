package jsapi

import (
	"bytes"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/jsapi/feeds"
	"github.com/jscrawl/jscrawl/jsapi/links"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/types"
)

// The natives behind LinkExtractor, followAll({ css }), enqueueLinks and the SitemapSpider,
// XMLFeedSpider and CSVFeedSpider base classes (spiders.js). The prelude passes options
// already normalised to plain data: patterns as [source, flags] pairs or { glob } objects.

// sitemapBatch is how many sitemap entries one sitemapNext call returns.
const sitemapBatch = 1000

// linkNatives adds the link, sitemap and feed natives to n.
func (st *vmState) linkNatives(set func(string, func(goja.FunctionCall) goja.Value)) {
	rt := st.rt
	throwType := func(format string, args ...any) { throwJS(rt, "TypeError", fmt.Errorf(format, args...)) }
	resp := func(v goja.Value) *respHandle {
		h, ok := v.Export().(*respHandle)
		if !ok {
			throwType("not a jscrawl Response")
		}
		return h
	}
	doc := func(h *respHandle) *selector.Document {
		d, err := st.document(h)
		if err != nil {
			throwJS(rt, "Error", fmt.Errorf("parse %s: %w", h.resp.URL, err))
		}
		return d
	}
	pageURL := func(h *respHandle) *url.URL {
		u, err := url.Parse(h.resp.URL)
		if err != nil {
			throwType("invalid response URL %q", h.resp.URL)
		}
		return u
	}
	strs := func(v goja.Value, what string) []string {
		if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
			return nil
		}
		out, err := stringList(rt, v, what)
		if err != nil {
			throwJS(rt, "TypeError", err)
		}
		return out
	}
	// patterns compiles [[source, flags] | { glob }, ...].
	patterns := func(v goja.Value, what string) []links.Matcher {
		if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
			return nil
		}
		obj := v.ToObject(rt)
		n := int(obj.Get("length").ToInteger())
		out := make([]links.Matcher, 0, n)
		for i := 0; i < n; i++ {
			p := obj.Get(fmt.Sprint(i)).ToObject(rt)
			var m links.Matcher
			var err error
			if g := p.Get("glob"); g != nil && !goja.IsUndefined(g) {
				m, err = links.CompileGlob(g.String())
			} else {
				m, err = links.CompileJS(p.Get("0").String(), p.Get("1").String())
			}
			if err != nil {
				throwType("%s: %v", what, err)
			}
			out = append(out, m)
		}
		return out
	}
	// results unwraps SelectorLists (and Selectors) into selector results.
	results := func(v goja.Value, what string) []selector.Result {
		switch x := v.Export().(type) {
		case *jsList:
			return x.res
		case *jsSelector:
			return []selector.Result{x.r}
		}
		obj, ok := v.(*goja.Object)
		if !ok {
			throwType("%s must be a SelectorList", what)
		}
		var out []selector.Result
		n := int(obj.Get("length").ToInteger())
		for i := 0; i < n; i++ {
			s, ok := obj.Get(fmt.Sprint(i)).Export().(*jsSelector)
			if !ok {
				throwType("%s must be a SelectorList", what)
			}
			out = append(out, s.r)
		}
		return out
	}
	schemes := func() []string {
		if st.s.schemes == nil {
			return []string{"http", "https"}
		}
		out := make([]string, len(st.s.schemes))
		for i, s := range st.s.schemes {
			out[i] = strings.ToLower(s)
		}
		return out
	}
	bool_ := func(o *goja.Object, k string) bool {
		v := o.Get(k)
		return v != nil && v.ToBoolean()
	}

	// newLinkExtractor(options) compiles a LinkExtractor's options once.
	set("newLinkExtractor", func(c goja.FunctionCall) goja.Value {
		o := c.Argument(0).ToObject(rt)
		e := &links.Extractor{
			Allow:         patterns(o.Get("allow"), "LinkExtractor allow"),
			Deny:          patterns(o.Get("deny"), "LinkExtractor deny"),
			RestrictText:  patterns(o.Get("restrictText"), "LinkExtractor restrictText"),
			AllowDomains:  strs(o.Get("allowDomains"), "allowDomains"),
			DenyDomains:   strs(o.Get("denyDomains"), "denyDomains"),
			Tags:          strs(o.Get("tags"), "tags"),
			Attrs:         strs(o.Get("attrs"), "attrs"),
			DenyTags:      strs(o.Get("denyTags"), "denyTags"),
			DenyAttrs:     strs(o.Get("denyAttrs"), "denyAttrs"),
			Canonicalize:  bool_(o, "canonicalize"),
			Unique:        bool_(o, "unique"),
			KeepFragments: bool_(o, "keepFragments"),
		}
		if v := o.Get("denyExtensions"); v != nil && !goja.IsUndefined(v) && !goja.IsNull(v) {
			e.DenyExtensions = append([]string{}, strs(v, "denyExtensions")...)
		}
		for _, q := range strs(o.Get("restrictCss"), "restrictCss") {
			cq, err := selector.Compile(q)
			if err != nil {
				throwType("LinkExtractor restrictCss: %v", err)
			}
			e.RestrictCSS = append(e.RestrictCSS, cq)
		}
		if st.s.schemes != nil {
			e.Schemes = schemes()
		}
		e.Prepare()
		return rt.ToValue(e)
	})
	extractor := func(v goja.Value) *links.Extractor {
		e, ok := v.Export().(*links.Extractor)
		if !ok {
			throwType("not a LinkExtractor")
		}
		return e
	}
	// extractLinks(extractor, response, roots | null, processValue | undefined, linkProto)
	set("extractLinks", func(c goja.FunctionCall) goja.Value {
		e := extractor(c.Argument(0))
		h := resp(c.Argument(1))
		var roots []selector.Result
		r, restricted := c.Argument(2).(*goja.Object)
		if restricted {
			n := int(r.Get("length").ToInteger())
			for i := 0; i < n; i++ {
				roots = append(roots, results(r.Get(fmt.Sprint(i)), "restrictXpaths results")...)
			}
		}
		var process links.ProcessFunc
		if fn, ok := goja.AssertFunction(c.Argument(3)); ok {
			process = func(v string) (string, bool) {
				out, err := fn(goja.Undefined(), rt.ToValue(v))
				if err != nil {
					throwJS(rt, "Error", err)
				}
				if out == nil || goja.IsUndefined(out) || goja.IsNull(out) {
					return "", false
				}
				if b, isBool := out.Export().(bool); isBool && !b {
					return "", false
				}
				return out.String(), true
			}
		}
		proto, _ := c.Argument(4).(*goja.Object)
		ls := e.Extract(doc(h), pageURL(h), h.urlEncoding(), roots, restricted, process)
		out := make([]any, len(ls))
		for i, l := range ls {
			o := rt.NewObject()
			if proto != nil {
				_ = o.SetPrototype(proto)
			}
			_ = o.Set("url", l.URL)
			_ = o.Set("text", l.Text)
			_ = o.Set("fragment", l.Fragment)
			_ = o.Set("nofollow", l.NoFollow)
			out[i] = o
		}
		return rt.NewArray(out...)
	})
	set("linkMatches", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(extractor(c.Argument(0)).Matches(c.Argument(1).String()))
	})
	set("isHTMLResponse", func(c goja.FunctionCall) goja.Value { return rt.ToValue(isHTML(resp(c.Argument(0)).resp)) })

	// pageLinks(response, spec) → absolute URLs for followAll({ css, xpath }) and
	// enqueueLinks: spec { css?, list?, urls?, include?, exclude?, strategy?, baseUrl?,
	// dropFragments, unique, limit }.
	set("pageLinks", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0))
		spec := c.Argument(1).ToObject(rt)
		page := pageURL(h)
		var found []*url.URL
		var skipped int
		if u := spec.Get("urls"); u != nil && !goja.IsUndefined(u) && !goja.IsNull(u) {
			base := page
			if b := spec.Get("baseUrl"); b != nil && !goja.IsUndefined(b) && !goja.IsNull(b) {
				if bu, err := url.Parse(b.String()); err == nil {
					base = bu
				}
			}
			rs := make([]selector.Result, 0)
			for _, s := range strs(u, "urls") {
				rs = append(rs, selector.Result{Kind: selector.KindAttr, Value: s})
			}
			found, skipped = links.Hrefs(rs, base, h.urlEncoding(), schemes(), bool_(spec, "dropFragments"), bool_(spec, "unique"))
		} else {
			d := doc(h)
			var rs []selector.Result
			if l := spec.Get("list"); l != nil && !goja.IsUndefined(l) && !goja.IsNull(l) {
				rs = results(l, "the selection")
			} else {
				q, err := selector.Compile(spec.Get("css").String())
				if err != nil {
					throwType("%v", err)
				}
				rs = q.Select(d.Root())
			}
			base := links.BaseURL(d, page)
			if b := spec.Get("baseUrl"); b != nil && !goja.IsUndefined(b) && !goja.IsNull(b) {
				if bu, err := url.Parse(b.String()); err == nil {
					base = bu
				}
			}
			found, skipped = links.Hrefs(rs, base, h.urlEncoding(), schemes(), bool_(spec, "dropFragments"), bool_(spec, "unique"))
		}
		if skipped > 0 {
			// As response.follow: counted, and noted at DEBUG (once per call here).
			if st.s.crawler != nil {
				st.s.crawler.Stats().Inc(skippedScheme, int64(skipped))
			}
			st.s.logger.Debug(fmt.Sprintf("skipped %d links on %s that cannot be downloaded (empty or \"#...\" href, or a scheme not in DOWNLOAD_SCHEMES)", skipped, h.resp.URL))
		}
		var strategy links.Strategy = links.All
		if s := spec.Get("strategy"); s != nil && !goja.IsUndefined(s) {
			var ok bool
			if strategy, ok = links.ParseStrategy(s.String()); !ok {
				throwType(`enqueueLinks(): unknown strategy %q: use "same-hostname", "same-domain", "same-origin" or "all"`, s.String())
			}
		}
		include := patterns(spec.Get("include"), "enqueueLinks() globs/regexps")
		exclude := patterns(spec.Get("exclude"), "enqueueLinks() exclude")
		limit := -1
		if l := spec.Get("limit"); l != nil && !goja.IsUndefined(l) && !goja.IsNull(l) {
			limit = int(l.ToInteger())
		}
		out := make([]any, 0, len(found))
		for _, u := range found {
			if limit >= 0 && len(out) >= limit {
				break
			}
			s := u.String()
			if !strategy.Allows(page, u) || len(include) > 0 && !links.Any(include, s) || links.Any(exclude, s) {
				continue
			}
			out = append(out, s)
		}
		return rt.NewArray(out...)
	})

	// sitemapOpen(response) → a reader, or null when the body is not a sitemap (Scrapy:
	// SitemapSpider._get_sitemap_body).
	set("sitemapOpen", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0))
		if !isSitemapBody(h.resp) {
			return goja.Null()
		}
		var max int64
		if st.s.crawler != nil {
			max = int64(st.s.crawler.Settings().Int(types.DownloadMaxSize))
		}
		return rt.ToValue(feeds.NewSitemapReader(h.resp.Body, max))
	})
	sitemap := func(v goja.Value) *feeds.SitemapReader {
		r, ok := v.Export().(*feeds.SitemapReader)
		if !ok {
			throwType("not a sitemap reader")
		}
		return r
	}
	set("sitemapType", func(c goja.FunctionCall) goja.Value { return rt.ToValue(sitemap(c.Argument(0)).Type()) })
	set("sitemapError", func(c goja.FunctionCall) goja.Value {
		if err := sitemap(c.Argument(0)).Err(); err != nil {
			return rt.ToValue(err.Error())
		}
		return goja.Null()
	})
	var entryBuf []feeds.Entry
	// sitemapNext(reader) → up to sitemapBatch entries { loc, lastmod?, changefreq?,
	// priority?, alternate? }, or null at the end.
	set("sitemapNext", func(c goja.FunctionCall) goja.Value {
		entryBuf = sitemap(c.Argument(0)).Next(entryBuf[:0], sitemapBatch)
		if len(entryBuf) == 0 {
			return goja.Null()
		}
		out := make([]any, len(entryBuf))
		for i, e := range entryBuf {
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
				alt := make([]any, len(e.Alternate))
				for j, a := range e.Alternate {
					alt[j] = a
				}
				_ = o.Set("alternate", rt.NewArray(alt...))
			}
			out[i] = o
		}
		return rt.NewArray(out...)
	})
	set("robotsSitemaps", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0))
		out := feeds.RobotsSitemaps(h.body(), pageURL(h))
		vs := make([]any, len(out))
		for i, s := range out {
			vs[i] = s
		}
		return rt.NewArray(vs...)
	})

	// feedNodes(response, itertag, namespaces [[prefix, uri], ...]) → [SelectorList, error | null]
	set("feedNodes", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0))
		ns := map[string]string{}
		var pairs [][]string
		if v := c.Argument(2); !goja.IsUndefined(v) && !goja.IsNull(v) {
			if err := rt.ExportTo(v, &pairs); err != nil {
				throwType("namespaces must be [[prefix, uri], ...], got %s", describe(v))
			}
		}
		for _, p := range pairs {
			if len(p) != 2 {
				throwType("namespaces must be [[prefix, uri], ...]")
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
		return rt.NewArray(st.newList(rs), msg)
	})
	// csvRows(response, delimiter, quotechar, headers | null) → [rows, skipped, error | null]
	set("csvRows", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0))
		one := func(v goja.Value, def rune, what string) rune {
			if goja.IsUndefined(v) || goja.IsNull(v) {
				return def
			}
			s := v.String()
			if utf8.RuneCountInString(s) != 1 {
				throwType("%s must be one character, got %q", what, s)
			}
			r, _ := utf8.DecodeRuneInString(s)
			return r
		}
		delim := one(c.Argument(1), ',', "delimiter")
		quote := one(c.Argument(2), '"', "quotechar")
		headers := strs(c.Argument(3), "headers")
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
		return rt.NewArray(rt.NewArray(rows...), rt.NewArray(skipped...), msg)
	})
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
