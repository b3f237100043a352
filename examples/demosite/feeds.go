package demosite

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"net/http"
	"strconv"
)

// The machine-readable listings of the demo site, for SitemapSpider, XMLFeedSpider and
// CSVFeedSpider:
//
//	/sitemap.xml                  a sitemap index (robots.txt names it in a Sitemap: line)
//	/sitemaps/books.xml.gz        gzipped urlset: every book's detail page, with lastmod
//	/sitemaps/categories.xml.gz   gzipped urlset: every category's first listing page
//	/sitemaps/quotes.xml          urlset: the author pages
//	/feeds/books.rss              RSS 2.0: every book (title, link, price, category)
//	/feeds/books.csv              CSV: id,title,price,rating,category,url

// bookLastmod gives each book a fixed lastmod: book N was updated on day N of 2026.
func bookLastmod(id int) string {
	return fmt.Sprintf("2026-%02d-%02d", (id-1)/28+1, (id-1)%28+1)
}

func xmlText(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// origin returns the scheme and host the request came to, for absolute URLs.
func origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func writeXML(w http.ResponseWriter, ct string, b []byte) {
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(b)
}

func gzipBytes(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return out.Bytes()
}

const sitemapNS = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`

func (s *site) sitemapIndex(w http.ResponseWriter, r *http.Request) {
	o := origin(r)
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<sitemapindex " + sitemapNS + ">\n")
	fmt.Fprintf(&b, "  <sitemap><loc>%s/sitemaps/books.xml.gz</loc><lastmod>%s</lastmod></sitemap>\n", o, bookLastmod(len(s.cat.books)))
	fmt.Fprintf(&b, "  <sitemap><loc>%s/sitemaps/categories.xml.gz</loc><lastmod>2026-01-01</lastmod></sitemap>\n", o)
	fmt.Fprintf(&b, "  <sitemap><loc>%s/sitemaps/quotes.xml</loc><lastmod>2025-06-01</lastmod></sitemap>\n", o)
	b.WriteString("</sitemapindex>\n")
	writeXML(w, "application/xml", b.Bytes())
}

// sitemap serves one child sitemap; the .gz ones are gzip files (not Content-Encoding).
func (s *site) sitemap(w http.ResponseWriter, r *http.Request) {
	o := origin(r)
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<urlset " + sitemapNS + ">\n")
	name := r.PathValue("name")
	switch name {
	case "books.xml.gz":
		for _, bk := range s.cat.books {
			fmt.Fprintf(&b, "  <url><loc>%s%s</loc><lastmod>%s</lastmod><changefreq>monthly</changefreq></url>\n", o, xmlText(bk.URL()), bookLastmod(bk.ID))
		}
	case "categories.xml.gz":
		for _, c := range s.cat.categories {
			fmt.Fprintf(&b, "  <url><loc>%s/catalogue/%s</loc><changefreq>weekly</changefreq></url>\n", o, xmlText(c.Path()))
		}
	case "quotes.xml":
		for _, a := range s.cat.authors {
			fmt.Fprintf(&b, "  <url><loc>%s/quotes/author/%s/</loc></url>\n", o, xmlText(a.Slug))
		}
	default:
		http.NotFound(w, r)
		return
	}
	b.WriteString("</urlset>\n")
	if name == "quotes.xml" {
		writeXML(w, "application/xml", b.Bytes())
		return
	}
	writeXML(w, "application/gzip", gzipBytes(b.Bytes()))
}

func (s *site) rss(w http.ResponseWriter, r *http.Request) {
	o := origin(r)
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>` + "\n" +
		"<title>Books to Scrape (demo): new books</title>\n<link>" + o + "/</link>\n<description>Every book of the demo store</description>\n")
	for _, bk := range s.cat.books {
		fmt.Fprintf(&b, "<item><title>%s</title><link>%s%s</link><guid isPermaLink=\"false\">book-%d</guid><category>%s</category><price>%s</price><dc:date>%s</dc:date></item>\n",
			xmlText(bk.Title), o, xmlText(bk.URL()), bk.ID, xmlText(bk.Category.Name), xmlText(bk.Price()), bookLastmod(bk.ID))
	}
	b.WriteString("</channel></rss>\n")
	writeXML(w, "application/rss+xml; charset=utf-8", b.Bytes())
}

func (s *site) csv(w http.ResponseWriter, r *http.Request) {
	o := origin(r)
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write([]string{"id", "title", "price", "rating", "category", "url"})
	for _, bk := range s.cat.books {
		_ = cw.Write([]string{strconv.Itoa(bk.ID), bk.Title, fmt.Sprintf("%d.%02d", bk.Pence/100, bk.Pence%100),
			strconv.Itoa(bk.Rating), bk.Category.Name, o + bk.URL()})
	}
	cw.Flush()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}
