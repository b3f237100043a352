package jsapi

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/jsapi/links"
	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// linksClass holds the natives behind LinkExtractor, followAll({ css }), enqueueLinks and
// CrawlSpider (spiders.js). The JS side passes options already normalised to plain data:
// patterns as [source, flags] pairs or { glob } objects.
type linksClass struct{ st *vmState }

// strs reads an optional list of strings (nil when missing).
func strs(rt *goja.Runtime, v goja.Value, what string) ([]string, error) {
	if isNil(v) {
		return nil, nil
	}
	out, err := stringList(rt, v, what)
	return out, asTypeError(err)
}

// patterns compiles an optional [[source, flags] | { glob }, ...].
func patterns(rt *goja.Runtime, v goja.Value, what string) ([]links.Matcher, error) {
	if isNil(v) {
		return nil, nil
	}
	obj := v.ToObject(rt)
	n := int(obj.Get("length").ToInteger())
	out := make([]links.Matcher, 0, n)
	for i := 0; i < n; i++ {
		p := obj.Get(strconv.Itoa(i)).ToObject(rt)
		var m links.Matcher
		var err error
		if g := p.Get("glob"); g != nil && !goja.IsUndefined(g) {
			m, err = links.CompileGlob(g.String())
		} else {
			m, err = links.CompileJS(p.Get("0").String(), p.Get("1").String())
		}
		if err != nil {
			return nil, typeError("%s: %v", what, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// results unwraps a SelectorList (or a Selector, or an array of Selectors) into selector
// results.
func results(v goja.Value, what string) ([]selector.Result, error) {
	switch x := v.Export().(type) {
	case *jsList:
		return x.res, nil
	case *jsSelector:
		return []selector.Result{x.r}, nil
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, typeError("%s must be a SelectorList", what)
	}
	var out []selector.Result
	n := int(obj.Get("length").ToInteger())
	for i := 0; i < n; i++ {
		s, ok := obj.Get(strconv.Itoa(i)).Export().(*jsSelector)
		if !ok {
			return nil, typeError("%s must be a SelectorList", what)
		}
		out = append(out, s.r)
	}
	return out, nil
}

// flag reads a boolean option of o (false when missing).
func flag(o *goja.Object, k string) bool {
	v := o.Get(k)
	return v != nil && v.ToBoolean()
}

// NewLinkExtractor(options) compiles a LinkExtractor's options once.
func (x linksClass) NewLinkExtractor(c goja.FunctionCall) (goja.Value, error) {
	rt := x.st.rt
	o := c.Argument(0).ToObject(rt)
	e := &links.Extractor{Canonicalize: flag(o, "canonicalize"), Unique: flag(o, "unique"), KeepFragments: flag(o, "keepFragments")}
	var err error
	for _, p := range []struct {
		dst        *[]links.Matcher
		key, label string
	}{{&e.Allow, "allow", "LinkExtractor allow"}, {&e.Deny, "deny", "LinkExtractor deny"}, {&e.RestrictText, "restrictText", "LinkExtractor restrictText"}} {
		if *p.dst, err = patterns(rt, o.Get(p.key), p.label); err != nil {
			return nil, err
		}
	}
	for _, l := range []struct {
		dst *[]string
		key string
	}{{&e.AllowDomains, "allowDomains"}, {&e.DenyDomains, "denyDomains"}, {&e.Tags, "tags"}, {&e.Attrs, "attrs"}, {&e.DenyTags, "denyTags"}, {&e.DenyAttrs, "denyAttrs"}} {
		if *l.dst, err = strs(rt, o.Get(l.key), l.key); err != nil {
			return nil, err
		}
	}
	if v := o.Get("denyExtensions"); !isNil(v) {
		exts, err := strs(rt, v, "denyExtensions")
		if err != nil {
			return nil, err
		}
		e.DenyExtensions = append([]string{}, exts...)
	}
	qs, err := strs(rt, o.Get("restrictCss"), "restrictCss")
	if err != nil {
		return nil, err
	}
	for _, q := range qs {
		cq, err := selector.Compile(q)
		if err != nil {
			return nil, typeError("LinkExtractor restrictCss: %v", err)
		}
		e.RestrictCSS = append(e.RestrictCSS, cq)
	}
	if x.st.s.schemes != nil {
		e.Schemes = x.st.s.downloadSchemes()
	}
	e.Prepare()
	return rt.ToValue(e), nil
}

// extractor returns the LinkExtractor that is v.
func extractor(v goja.Value) (*links.Extractor, error) {
	e, ok := v.Export().(*links.Extractor)
	if !ok {
		return nil, typeError("not a LinkExtractor")
	}
	return e, nil
}

// ExtractLinks(extractor, response, roots | null, processValue | undefined, linkProto)
// runs a LinkExtractor on a response: Link objects with linkProto as prototype.
func (x linksClass) ExtractLinks(c goja.FunctionCall) (goja.Value, error) {
	rt := x.st.rt
	e, err := extractor(c.Argument(0))
	if err != nil {
		return nil, err
	}
	h, err := handleArg(c, 1)
	if err != nil {
		return nil, err
	}
	var roots []selector.Result
	r, restricted := c.Argument(2).(*goja.Object)
	if restricted {
		n := int(r.Get("length").ToInteger())
		for i := 0; i < n; i++ {
			rs, err := results(r.Get(strconv.Itoa(i)), "restrictXpaths results")
			if err != nil {
				return nil, err
			}
			roots = append(roots, rs...)
		}
	}
	var process links.ProcessFunc
	if fn, ok := goja.AssertFunction(c.Argument(3)); ok {
		process = func(v string) (string, bool) {
			out, err := fn(goja.Undefined(), rt.ToValue(v))
			if err != nil {
				throwJS(rt, "Error", err) // rethrows the JS exception through Extract
			}
			if isNil(out) {
				return "", false
			}
			if b, isBool := out.Export().(bool); isBool && !b {
				return "", false
			}
			return out.String(), true
		}
	}
	proto, _ := c.Argument(4).(*goja.Object)
	doc, err := x.st.document(h)
	if err != nil {
		return nil, err
	}
	page, err := h.pageURL()
	if err != nil {
		return nil, err
	}
	ls, invalid := e.ExtractCounted(doc, page, h.urlEncoding(), roots, restricted, process)
	if invalid > 0 {
		if x.st.s.crawler != nil {
			x.st.s.crawler.Stats().Inc(skippedExtract, int64(invalid))
		}
		x.st.s.logger.Debug(fmt.Sprintf("LinkExtractor: skipped %d link(s) on %s that are not valid URLs", invalid, page))
	}
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
	return rt.NewArray(out...), nil
}

// LinkMatches(extractor, url) reports whether the extractor's allow and deny rules
// accept url.
func (x linksClass) LinkMatches(c goja.FunctionCall) (goja.Value, error) {
	e, err := extractor(c.Argument(0))
	if err != nil {
		return nil, err
	}
	return x.st.rt.ToValue(e.Matches(c.Argument(1).String())), nil
}

// baseOption returns spec.baseUrl parsed, or def.
func baseOption(spec *goja.Object, def *url.URL) *url.URL {
	if b := spec.Get("baseUrl"); !isNil(b) {
		if bu, err := url.Parse(b.String()); err == nil {
			return bu
		}
	}
	return def
}

// PageLinks(response, spec) → absolute URLs for followAll({ css, xpath }) and
// enqueueLinks: spec { css?, list?, urls?, include?, exclude?, strategy?, baseUrl?,
// dropFragments, unique, limit }.
func (x linksClass) PageLinks(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	rt := x.st.rt
	s := x.st.s
	spec := c.Argument(1).ToObject(rt)
	page, err := h.pageURL()
	if err != nil {
		return nil, err
	}
	var rs []selector.Result
	var base *url.URL
	if u := spec.Get("urls"); !isNil(u) {
		base = baseOption(spec, page)
		us, err := strs(rt, u, "urls")
		if err != nil {
			return nil, err
		}
		rs = make([]selector.Result, 0, len(us))
		for _, s := range us {
			rs = append(rs, selector.Result{Kind: selector.KindAttr, Value: s})
		}
	} else {
		d, err := x.st.document(h)
		if err != nil {
			return nil, err
		}
		if l := spec.Get("list"); !isNil(l) {
			if rs, err = results(l, "the selection"); err != nil {
				return nil, err
			}
		} else {
			q, err := selector.Compile(spec.Get("css").String())
			if err != nil {
				return nil, asTypeError(err)
			}
			rs = q.Select(d.Root())
		}
		base = baseOption(spec, links.BaseURL(d, page))
	}
	found, skipped, invalid := links.Hrefs(rs, base, h.urlEncoding(), s.downloadSchemes(), flag(spec, "dropFragments"), flag(spec, "unique"))
	if invalid > 0 {
		// As followAll(hrefs): skipped, the page's other links kept, and counted.
		if s.crawler != nil {
			s.crawler.Stats().Inc(skippedInvalid, int64(invalid))
		}
		s.logger.Debug(fmt.Sprintf("skipped %d links on %s that are not valid URLs", invalid, h.resp.URL))
	}
	if skipped > 0 {
		// As response.follow: counted, and noted at DEBUG (once per call here).
		if s.crawler != nil {
			s.crawler.Stats().Inc(skippedScheme, int64(skipped))
		}
		s.logger.Debug(fmt.Sprintf("skipped %d links on %s that cannot be downloaded (empty or \"#...\" href, or a scheme not in DOWNLOAD_SCHEMES)", skipped, h.resp.URL))
	}
	var strategy links.Strategy = links.All
	if v := spec.Get("strategy"); v != nil && !goja.IsUndefined(v) {
		var ok bool
		if strategy, ok = links.ParseStrategy(v.String()); !ok {
			return nil, typeError(`enqueueLinks(): unknown strategy %q: use "same-hostname", "same-domain", "same-origin" or "all"`, v.String())
		}
	}
	include, err := patterns(rt, spec.Get("include"), "enqueueLinks() globs/regexps")
	if err != nil {
		return nil, err
	}
	exclude, err := patterns(rt, spec.Get("exclude"), "enqueueLinks() exclude")
	if err != nil {
		return nil, err
	}
	limit := -1
	if l := spec.Get("limit"); !isNil(l) {
		limit = int(l.ToInteger())
	}
	out := make([]any, 0, len(found))
	for _, u := range found {
		if limit >= 0 && len(out) >= limit {
			break
		}
		str := u.String()
		if !strategy.Allows(page, u) || len(include) > 0 && !links.Any(include, str) || links.Any(exclude, str) {
			continue
		}
		out = append(out, str)
	}
	return rt.NewArray(out...), nil
}
