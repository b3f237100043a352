package jsapi_test

import (
	"strings"
	"testing"
)

const rssFeed = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:media="http://search.yahoo.com/mrss/">
<channel>
  <title>Shop news</title>
  <link>http://shop.test/</link>
  <item>
    <title>First &amp; best</title>
    <link>http://shop.test/news/1</link>
    <pubDate>Mon, 05 Jan 2026 10:00:00 GMT</pubDate>
    <dc:creator>Ann</dc:creator>
    <description><![CDATA[<p>Hello <b>world</b></p>]]></description>
    <media:content url="http://shop.test/1.jpg" medium="image"/>
  </item>
  <item>
    <title>Second</title>
    <link>http://shop.test/news/2</link>
    <dc:creator>Bob</dc:creator>
  </item>
</channel>
</rss>`

const atomFeed = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Atom</title>
  <entry><title>A1</title><link href="http://shop.test/a/1"/><id>urn:1</id></entry>
  <entry><title>A2</title><link href="http://shop.test/a/2"/><id>urn:2</id></entry>
</feed>`

const csvFeed = "id,name,price\n1,\"Book, red\",3.50\n2,\"Say \"\"hi\"\"\",4\n3,short\n4,Pen,1\n"

func TestXMLFeedSpider(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{"/feed.rss": rssFeed, "/atom.xml": atomFeed, "/broken.xml": rssFeed[:strings.Index(rssFeed, "<title>Second")]})
	for _, tc := range []struct {
		name, fields string
		urls         string
		want         []string
	}{
		{"rss items", `itertag = "item";`, `"BASE/feed.rss"`, []string{
			`{"title":"First & best","link":"http://shop.test/news/1","creator":"Ann","media":"http://shop.test/1.jpg","desc":"<p>Hello <b>world</b></p>","processed":true}`,
			`{"title":"Second","link":"http://shop.test/news/2","creator":"Bob","media":null,"desc":null,"processed":true}`,
		}},
		{"default itertag is item, iterator xml", `iterator = "xml";`, `"BASE/feed.rss"`, []string{
			`{"title":"First & best","link":"http://shop.test/news/1","creator":"Ann","media":"http://shop.test/1.jpg","desc":"<p>Hello <b>world</b></p>","processed":true}`,
			`{"title":"Second","link":"http://shop.test/news/2","creator":"Bob","media":null,"desc":null,"processed":true}`,
		}},
		{"prefixed itertag with namespaces", `itertag = "dc:creator"; namespaces = [["dc", "http://purl.org/dc/elements/1.1/"]] as [string, string][];`, `"BASE/feed.rss"`, []string{
			`{"node":"<dc:creator>Ann</dc:creator>","processed":true}`,
			`{"node":"<dc:creator>Bob</dc:creator>","processed":true}`,
		}},
		{"atom entries in a default namespace", `itertag = "entry";`, `"BASE/atom.xml"`, []string{
			`{"title":"A1","href":"http://shop.test/a/1","processed":true}`,
			`{"title":"A2","href":"http://shop.test/a/2","processed":true}`,
		}},
		{"broken feed keeps the nodes before the error", `itertag = "item";`, `"BASE/broken.xml"`, []string{
			`{"title":"First & best","link":"http://shop.test/news/1","creator":"Ann","media":"http://shop.test/1.jpg","desc":"<p>Hello <b>world</b></p>","processed":true}`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `import { XMLFeedSpider, Selector, type Response } from "jscrawl";
export default class Feed extends XMLFeedSpider {
  name = "feed";
  startUrls = [` + tc.urls + `];
  ` + tc.fields + `
  *parseNode(response: Response, node: Selector) {
    if (!(node instanceof Selector)) throw new Error("node is not a Selector");
    if (this.itertag === "dc:creator") { yield { node: node.get() }; return; }
    if (this.itertag === "entry") { yield { title: node.css("title::text").get(), href: node.css("link::attr(href)").get() }; return; }
    yield {
      title: node.css("title::text").get(),
      link: node.css("link::text").get(),
      creator: node.css("dc\\:creator::text").get(),
      media: node.css("media\\:content::attr(url)").get(),
      desc: node.css("description::text").get(),
    };
  }
  processResults(response: Response, results: any[]) { return results.map((r) => ({ ...r, processed: true })); }
}`})
			equalLines(t, "items", res.sorted(t), tc.want, res.log)
		})
	}
}

func TestCSVFeedSpider(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{"/data.csv": csvFeed, "/semi.csv": "a;b\n'x;1';'it''s'\n", "/noheader.csv": "1|one\n2|two\n"})
	for _, tc := range []struct {
		name, fields, url string
		want              []string
		warn              string
	}{
		{"first row is the header", ``, "BASE/data.csv", []string{
			`{"id":"1","name":"Book, red","price":"3.50"}`, `{"id":"2","name":"Say \"hi\"","price":"4"}`, `{"id":"4","name":"Pen","price":"1"}`,
		}, "ignoring row 4 (length: 2, should be: 3)"},
		{"delimiter and quotechar", `delimiter = ";"; quotechar = "'";`, "BASE/semi.csv", []string{`{"a":"x;1","b":"it's"}`}, ""},
		{"headers", `delimiter = "|"; headers = ["n", "word"];`, "BASE/noheader.csv", []string{`{"n":"1","word":"one"}`, `{"n":"2","word":"two"}`}, ""},
		{"adaptResponse", `adaptResponse(r: Response) { return r.replace({ body: "n,word\n" + r.body.replace(/\|/g, ",") }); }`, "BASE/noheader.csv",
			[]string{`{"n":"1","word":"one"}`, `{"n":"2","word":"two"}`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `import { CSVFeedSpider, type Response } from "jscrawl";
export default class Csv extends CSVFeedSpider {
  name = "csv";
  startUrls = ["` + tc.url + `"];
  ` + tc.fields + `
  async parseRow(response: Response, row: Record<string, string>) { return row; }
}`})
			equalLines(t, "items", res.sorted(t), tc.want, res.log)
			if tc.warn != "" && !strings.Contains(res.log, tc.warn) {
				t.Errorf("no warning %q\n%s", tc.warn, res.log)
			}
		})
	}
}
