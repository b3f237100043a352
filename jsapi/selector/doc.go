// Package selector implements parsel-compatible CSS and XPath selection over
// golang.org/x/net/html trees: the engine behind response.css(...) and response.xpath(...)
// in spiders (Scrapy: parsel.Selector and parsel.SelectorList). It knows nothing about
// goja; package jsapi binds it to JS.
//
// A page is parsed once with [Parse] (HTML) or [ParseXML] (XML, namespaces kept) into a
// [Document] and then queried many times with [Select] (or a compiled [Query]) and [XPath]
// (or a compiled [XPathQuery], or [Document.XPath]). Both languages work on the same tree,
// so their results chain in either order. Results are [Result] values that point into the
// shared, read-only tree without copying: an element, a text node or an attribute value, or
// a string computed by an XPath expression. Compiled CSS and XPath expressions are cached
// by their text.
//
// The tree is also a github.com/PuerkitoBio/goquery Document ([Document.Goquery]) over the
// same nodes. CSS queries without pseudo-elements run through goquery's
// Selection.FindMatcher with the cached compiled query as the Matcher ([Query.Matcher] gives
// it for use with goquery directly), so their results are goquery's nodes; queries with
// ::text or ::attr() yield text and attribute values, which a goquery Selection cannot hold,
// and run in the package's own single walk of the tree. Either way compound selectors are
// cascadia's, and parsel's scoping below holds.
//
// XPath is XPath 1.0 as implemented by jscrawl's own engine (package xpath1), over the
// document's tree through xpath1.HTML or this package's XML model, with parsel's extension
// functions (has-class and the EXSLT re: and set: functions); see [XPathQuery.Select] for how results map to parsel's. Get writes HTML as
// lxml does (void elements without a slash). [Regex] is Python's re for re() and the
// EXSLT functions.
//
// # Semantics (as parsel, which translates CSS to XPath with the prefix descendant-or-self::)
//
//   - A query is evaluated from each context element E in descendant-or-self mode: the
//     leftmost compound selector may match E itself ("div" run on a div includes it), but
//     never an ancestor of E ("body p" run on a p inside body matches nothing).
//   - "X::text" yields the text-node children of every X. "X::attr(name)" yields the value
//     of attribute name of every X that has it. Names compare ASCII case-insensitively, as
//     lxml lower-cases them; a namespaced one takes its prefix: ::attr("xlink:href").
//   - "X ::text" and "X *::text" (a descendant combinator followed by a bare "*" or by
//     nothing) yield the text children of X and of all its descendants, that is every text
//     node below X; likewise "X ::attr(a)" yields a from X and all its descendants. This is
//     parsel's translation ("X/descendant-or-self::*/text()"), so "div *::text" includes the
//     div's own text too.
//   - A bare "::text" or "*::text" yields every text node below the context, and a bare
//     "::attr(a)" the attribute a of the context and all its descendants.
//   - Comma groups are a union: results come once each, in document order (an attribute
//     comes after its element and before the element's children; attributes of one element
//     in their document order).
//   - Selecting from a list concatenates the results of each element in it; text and
//     attribute results are skipped, as parsel returns nothing for css() on a string result.
//
// # Known differences from parsel
//
// Documents are parsed by the HTML5 algorithm of golang.org/x/net/html (with scripting off,
// so <noscript> content is markup, as in lxml), not by libxml2: whitespace-only text nodes
// that libxml2 drops may be present. The <tbody> the HTML5 parser inserts into a table
// written without one is removed again, so tables are seen as written, as by lxml
// ("//table/tr" and "table > tr" match; a <tbody> in the source stays). CSS pseudo-classes are cascadia's; :has() and friends match with
// cascadia's (unscoped) semantics inside their argument.
package selector
