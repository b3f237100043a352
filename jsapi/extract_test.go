package jsapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// extractServer serves the pages of the extraction tests:
//
//	/shop         HTML with products, entities and three JSON-LD blocks (an @graph, an
//	              invalid one and an array)
//	/sitemap.xml  a sitemap (default namespace, xhtml:link alternates, an xml-stylesheet
//	              processing instruction), application/xml
//	/feed         an RSS feed with atom: and dc: elements, application/rss+xml
//	/api          JSON
func extractServer(t *testing.T) *server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/shop", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html><head><title>Shop</title>
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"Acme"},{"@type":"WebSite","url":"https://acme.test/"}]}</script>
<script type="application/ld+json">{"@type": "Product", "name": "broken",}</script>
<script type="application/LD+JSON">[{"@context":"https://schema.org","@type":"Product","name":"Widget","offers":{"price":"9.99"}}]</script>
<script type="application/json" id="data">{"user":{"name":"ann","tags":["a","b"]}}</script>
</head><body>
<article class="product_pod"><h3><a href="/w/1" title="Widget &amp; Co">Widget</a></h3><p class="price">Price: £9.99 (was £12.50)</p></article>
<article class="product_pod"><h3><a href="/w/2" title="Gadget">Gadget</a></h3><p class="price">Price: £19.00</p></article>
<p id="dates">2024-01-02 and 2025-12-31</p>
<p id="ent">Tom &amp; Jerry &amp;eacute;t&amp;eacute; &amp;lt;3 &amp;#169;</p>
</body></html>`)
	})
	mux.HandleFunc("/sitemap.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?>
<?xml-stylesheet type="text/xsl" href="/sitemap.xsl"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><loc>https://acme.test/a</loc><lastmod>2024-01-02</lastmod><xhtml:link rel="alternate" hreflang="de" href="https://acme.test/de/a"/></url>
<url><loc>https://acme.test/b</loc></url>
</urlset>`)
	})
	mux.HandleFunc("/feed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
		fmt.Fprint(w, `<?xml version="1.0"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>Feed</title><atom:link href="https://acme.test/feed" rel="self"/>
<item><title>One</title><link>https://acme.test/1</link><pubDate>Mon, 01 Jan 2024</pubDate><dc:creator>Ann</dc:creator></item>
<item><title>Two</title><link>https://acme.test/2</link><pubDate>Tue, 02 Jan 2024</pubDate></item>
</channel></rss>`)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"items":[{"id":1,"name":"a","price":2.5},{"id":2,"name":"b","price":10}],"next":null,"total":2}`)
	})
	s := &server{Server: enginetest.StartWith(t, mux).Server, met: make(chan struct{})}
	return s
}

func TestXPathInSpider(t *testing.T) {
	t.Parallel()
	srv := extractServer(t)
	res := crawl(t, srv, spec{src: `import { Selector, SelectorList } from "jscrawl";
export default class S {
  name = "xpath";
  startUrls = ["BASE/shop"];
  parse(r) {
    let invalid = null;
    try { r.xpath("//a["); } catch (e) { invalid = e.name + ": " + e.message; }
    const pods = r.xpath("//article[@class='product_pod']");
    return {
      titles: r.xpath("//article[@class='product_pod']//h3/a/@title").getall(),
      text: r.xpath("//h3/a/text()").getall(),
      count: r.xpath("count(//article)").get(),
      bool: r.xpath("count(//article) = 2").get(),
      falseBool: r.xpath("boolean(//table)").get(),
      str: r.xpath("normalize-space(//p[@class='price'])").get(),
      none: r.xpath("//table").get(),
      noneDefault: r.xpath("//table").get("n/a"),
      cssThenXpath: r.css("article").xpath("./h3/a/@href").getall(),
      xpathThenCss: pods.css("p.price::text").getall(),
      mixed: r.css("article")[1].xpath(".//a").css("::attr(href)").get(),
      isList: pods instanceof SelectorList && pods[0] instanceof Selector,
      attrib: r.xpath("//h3/a")[0].attrib,
      listAttrib: r.xpath("//h3/a").attrib,
      element: r.xpath("//h3/a")[1].get(),
      onText: r.xpath("//h3/a/text()").xpath(".").getall(),
      selectorXpath: r.selector.xpath("//title/text()").get(),
      fromText: new Selector({ text: "<ul><li>1</li><li>2</li></ul>" }).xpath("//li/text()").getall(),
      fromResponse: new Selector(r) === r.selector,
      invalid,
    };
  }
}`})
	got := res.lines(t)
	want := []string{`{"titles":["Widget & Co","Gadget"],"text":["Widget","Gadget"],"count":"2.0","bool":"1","falseBool":"0",` +
		`"str":"Price: £9.99 (was £12.50)","none":null,"noneDefault":"n/a","cssThenXpath":["/w/1","/w/2"],` +
		`"xpathThenCss":["Price: £9.99 (was £12.50)","Price: £19.00"],"mixed":"/w/2","isList":true,` +
		`"attrib":{"href":"/w/1","title":"Widget & Co"},"listAttrib":{"href":"/w/1","title":"Widget & Co"},` +
		`"element":"<a href=\"/w/2\" title=\"Gadget\">Gadget</a>","onText":[],"selectorXpath":"Shop",` +
		`"fromText":["1","2"],"fromResponse":true,"invalid":"TypeError: XPath error: Invalid expression in //a["}`}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestXPathVariablesInSpider: xpath(expr, namespaces, variables) binds $name to a string,
// number or boolean, as parsel's keyword arguments of xpath() do; a variable the
// expression uses and the call does not give is a TypeError.
func TestXPathVariablesInSpider(t *testing.T) {
	t.Parallel()
	srv := extractServer(t)
	res := crawl(t, srv, spec{src: `export default class S {
  name = "xpathvars";
  startUrls = ["BASE/shop"];
  parse(r) {
    let missing = null;
    try { r.xpath("//a[@title=$t]"); } catch (e) { missing = e.name + ": " + e.message; }
    return {
      byTitle: r.xpath("//a[@title=$t]/text()", null, { t: "Gadget" }).get(),
      byNumber: r.xpath("//article[$n]//h3/a/text()", null, { n: 2 }).get(),
      count: r.xpath("count(//article) = $c", null, { c: 2 }).get(),
      bool: r.xpath("$yes and count(//table) = 0", null, { yes: true }).get(),
      onList: r.css("article").xpath(".//a[@title=$t]/@href", undefined, { t: "Widget & Co" }).getall(),
      withNs: r.selector.xpath("string($s)", {}, { s: "x" }).get(),
      missing,
    };
  }
}`})
	got := res.lines(t)
	want := []string{`{"byTitle":"Gadget","byNumber":"Gadget","count":"1","bool":"1","onList":["/w/1"],"withNs":"x",` +
		`"missing":"TypeError: XPath error: Undefined variable in //a[@title=$t]"}`}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestXPathNamespacesInSpider(t *testing.T) {
	t.Parallel()
	srv := extractServer(t)
	res := crawl(t, srv, spec{src: `import { Selector } from "jscrawl";
export default class S {
  name = "ns";
  startUrls = ["BASE/sitemap.xml", "BASE/feed"];
  parse(r) {
    if (r.url.endsWith("/feed")) {
      return {
        feed: r.xpath("//item/title/text()").getall(),
        links: r.xpath("//item/link/text()").getall(),
        pubDate: r.xpath("//item[1]/pubDate/text()").get(),
        atom: r.xpath("//atom:link/@href", { atom: "http://www.w3.org/2005/Atom" }).get(),
        css: r.css("item > link::text").getall(),
      };
    }
    const plain = r.xpath("//loc/text()").getall();
    let undefinedPrefix = null;
    try { r.xpath("//s:loc"); } catch (e) { undefinedPrefix = e.message; }
    r.selector.registerNamespace("s", "http://www.sitemaps.org/schemas/sitemap/0.9");
    const registered = r.xpath("//s:url/s:loc/text()").getall();
    const inherited = r.css("url").xpath("s:lastmod/text()").getall();
    const other = new Selector({ text: "<a xmlns='urn:x'><b>1</b></a>", type: "xml" });
    other.registerNamespace("x", "urn:x");
    const otherB = other.xpath("//x:b/text()").get();
    const pi = r.xpath("/processing-instruction('xml-stylesheet')");
    const stylesheet = [pi.get(), pi.xpath("string()").get(), r.xpath("name(/node()[1])").get()];
    r.selector.removeNamespaces();
    return {
      plain, undefinedPrefix, registered, inherited, otherB, stylesheet,
      removed: r.xpath("//url/loc/text()").getall(),
      alternate: r.xpath("//link/@href").get(),
      css: r.css("url > loc::text").getall(),
      serialised: r.xpath("//url[2]").get(),
    };
  }
}`, settings: map[string]string{"CONCURRENT_REQUESTS": "1"}})
	got := res.lines(t)
	slices.Sort(got)
	want := []string{
		`{"feed":["One","Two"],"links":["https://acme.test/1","https://acme.test/2"],"pubDate":"Mon, 01 Jan 2024",` +
			`"atom":"https://acme.test/feed","css":["https://acme.test/1","https://acme.test/2"]}`,
		`{"plain":[],"undefinedPrefix":"XPath error: Undefined namespace prefix in //s:loc",` +
			`"registered":["https://acme.test/a","https://acme.test/b"],"inherited":["2024-01-02"],"otherB":"1",` +
			`"stylesheet":["<?xml-stylesheet type=\"text/xsl\" href=\"/sitemap.xsl\"?>","type=\"text/xsl\" href=\"/sitemap.xsl\"","xml-stylesheet"],` +
			`"removed":["https://acme.test/a","https://acme.test/b"],"alternate":"https://acme.test/de/a",` +
			`"css":["https://acme.test/a","https://acme.test/b"],"serialised":"<url><loc>https://acme.test/b</loc></url>"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRegexInSpider(t *testing.T) {
	t.Parallel()
	srv := extractServer(t)
	res := crawl(t, srv, spec{src: `export default class S {
  name = "re";
  startUrls = ["BASE/shop"];
  parse(r) {
    const prices = r.css("p.price::text");
    const dates = r.css("#dates::text");
    return {
      whole: prices.re(/£[\d.]+/),
      group: prices.re(/£([\d.]+)/),
      groups: dates.re(/(\d{4})-(\d\d)-(\d\d)/),
      named: dates.re(/(?<year>\d{4})-(?<month>\d\d)/),
      extract: dates.re(/(?<extract>\d{4})-(\d\d)/),
      extractPython: dates.re("(?P<extract>\\d{4})-12"),
      string: prices.re("£(\\d+)\\."),
      flags: prices.re(/PRICE/gi),
      stickyIgnored: prices.re(/\d+/y),
      noFlag: prices.re(/PRICE/),
      optionalGroup: dates.re(/(\d{4})(x)?/),
      empty: dates.re(/z*/).length,
      first: prices.reFirst(/£([\d.]+)/),
      firstDefault: prices.reFirst(/€(\d+)/, "none"),
      firstNull: prices.reFirst(/€(\d+)/),
      selectorRe: prices[1].re(/\d+/),
      selectorFirst: prices[1].reFirst(/x/, 0),
      entities: r.css("#ent::text").re(/^(.*)$/),
      entitiesOff: r.css("#ent::text").re(/^(.*)$/, false),
      entitiesFirst: r.css("#ent::text").reFirst(/&(\w+);/),
      onElement: r.css("h3 a").re(/title="([^"]+)"/),
    };
  }
}`})
	got := res.lines(t)
	want := []string{`{"whole":["£9.99","£12.50","£19.00"],"group":["9.99","12.50","19.00"],` +
		`"groups":["2024","01","02","2025","12","31"],"named":["2024","01","2025","12"],"extract":["2024"],` +
		`"extractPython":["2025"],"string":["9","12","19"],"flags":["Price","Price"],"stickyIgnored":["9","99","12","50","19","00"],` +
		`"noFlag":[],"optionalGroup":["2024","","2025",""],"empty":26,"first":"9.99","firstDefault":"none","firstNull":null,` +
		`"selectorRe":["19","00"],"selectorFirst":0,"entities":["Tom & Jerry été &lt;3 ©"],` +
		`"entitiesOff":["Tom & Jerry &eacute;t&eacute; &lt;3 &#169;"],"entitiesFirst":"eacute","onElement":["Widget &amp; Co","Gadget"]}`}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestJMESPathAndJSONLD(t *testing.T) {
	t.Parallel()
	srv := extractServer(t)
	res := crawl(t, srv, spec{src: `export default class S {
  name = "json";
  startUrls = ["BASE/api", "BASE/shop"];
  parse(r) {
    if (r.url.endsWith("/api")) {
      let invalid = null;
      try { r.jmespath("items[?"); } catch (e) { invalid = e.name; }
      return {
        names: r.jmespath("items[*].name"),
        cheap: r.jmespath("items[?price < ` + "`5`" + `].id"),
        total: r.jmespath("total"),
        next: r.jmespath("next"),
        missing: r.jmespath("nothing"),
        first: r.jmespath("items[0]"),
        again: r.jmespath("items[1].price"),
        invalid,
      };
    }
    let notJSON = null;
    try { r.jmespath("a"); } catch (e) { notJSON = e.name; }
    const ld = r.jsonLd();
    r.jsonLd(); // a second call counts the invalid block no more
    return {
      ld,
      embedded: r.css("script#data::text")[0].jmespath("user.tags[-1]"),
      embeddedElement: r.css("script#data")[0].jmespath("user.name"),
      notJSON,
    };
  }
}`, settings: map[string]string{"CONCURRENT_REQUESTS": "1"}})
	got := res.lines(t)
	slices.Sort(got)
	want := []string{
		`{"ld":[{"@context":"https://schema.org","@type":"Organization","name":"Acme"},` +
			`{"@context":"https://schema.org","@type":"WebSite","url":"https://acme.test/"},` +
			`{"@context":"https://schema.org","@type":"Product","name":"Widget","offers":{"price":"9.99"}}],` +
			`"embedded":"b","embeddedElement":"ann","notJSON":"TypeError"}`,
		`{"names":["a","b"],"cheap":[1],"total":2,"next":null,"missing":null,"first":{"id":1,"name":"a","price":2.5},"again":10,"invalid":"TypeError"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if n := res.stats["jsonld/invalid"]; n != int64(1) {
		t.Errorf("jsonld/invalid = %v (%T), want 1", n, n)
	}
}
