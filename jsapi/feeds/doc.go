// Package feeds reads the machine-readable listings spiders iterate: sitemaps (Scrapy:
// scrapy.utils.sitemap and SitemapSpider), XML feeds such as RSS and Atom (XMLFeedSpider)
// and CSV (CSVFeedSpider). Everything streams with encoding/xml's token Decoder or
// encoding/csv: a 50,000-URL sitemap is never held as a tree, and a gzipped one is
// decompressed as it is read. It knows nothing about goja; package jsapi binds it to JS.
package feeds
