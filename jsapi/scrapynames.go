package jsapi

// Scrapy's snake_case spider names, which Load refuses with the camelCase name jscrawl reads.

import (
	"fmt"
	"strings"

	"github.com/dop251/goja"
)

// scrapyNames maps the snake_case names of Scrapy's spider attributes and methods to what
// jscrawl reads instead; base, when set, is the jscrawl base class whose hook it is (a
// method of that name in another spider is the spider's own business). jscrawl spells
// them camelCase and does not read the snake_case ones, so a spider ported as written
// would silently lose them: Load refuses them.
var scrapyNames = []struct{ scrapy, jscrawl, base string }{
	{"start_urls", "startUrls", ""},
	{"start_requests", "start (async *start() { yield ... })", ""},
	{"custom_settings", "customSettings", ""},
	{"allowed_domains", "allowedDomains", ""},
	{"parse_start_url", "parseStartUrl", ""},
	{"handle_httpstatus_list", "meta: { handleHttpStatusList: [...] } on the requests, or customSettings: { HTTPERROR_ALLOWED_CODES: [...] }", ""},
	{"handle_httpstatus_all", "meta: { handleHttpStatusAll: true } on the requests, or customSettings: { HTTPERROR_ALLOW_ALL: true }", ""},
	{"download_delay", "customSettings: { DOWNLOAD_DELAY: ... }", ""},
	{"sitemap_urls", "sitemapUrls", ""},
	{"sitemap_rules", "sitemapRules", ""},
	{"sitemap_follow", "sitemapFollow", ""},
	{"sitemap_alternate_links", "sitemapAlternateLinks", ""},
	{"sitemap_filter", "sitemapFilter", "SitemapSpider"},
	{"process_results", "processResults", "CrawlSpider"},
	{"process_results", "processResults", "XMLFeedSpider"},
	{"process_results", "processResults", "CSVFeedSpider"},
	{"adapt_response", "adaptResponse", "XMLFeedSpider"},
	{"adapt_response", "adaptResponse", "CSVFeedSpider"},
	{"parse_node", "parseNode", "XMLFeedSpider"},
	{"parse_row", "parseRow", "CSVFeedSpider"},
}

// checkScrapyNames refuses a spider that has one of Scrapy's snake_case names (own or
// from its classes), naming jscrawl's for each; on the loop.
func (st *vmState) checkScrapyNames() error {
	var bad []string
	for _, n := range scrapyNames {
		v := st.spider.Get(n.scrapy)
		if v == nil || goja.IsUndefined(v) {
			continue
		}
		if n.base != "" {
			base, ok := st.exports.Get(n.base).(*goja.Object)
			if !ok || !st.rt.InstanceOf(st.spider, base) {
				continue
			}
		}
		bad = append(bad, n.scrapy+": use "+n.jscrawl)
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("the spider uses Scrapy's names, which jscrawl does not read (it spells them camelCase): %s", strings.Join(bad, "; "))
}
