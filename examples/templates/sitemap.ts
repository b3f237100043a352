// SPIDER_NAME.ts: a jscrawl SitemapSpider: crawls the pages a site's sitemaps list
// (Scrapy's SitemapSpider). A robots.txt URL works too: its Sitemap: lines are followed.
//
//   jscrawl run --demo SPIDER_NAME.ts -o items.jsonl     (tries it on the built-in demo site)
import { SitemapSpider, type Response, type SitemapEntry, type SpiderTest } from "jscrawl";

interface Book {
  title: string;
  price: string;
  url: string;
}

// Snapshot tests: `jscrawl test SPIDER_NAME.ts --record` records each case's crawl (here of
// `jscrawl demo` at its default address) to __snapshots__/SPIDER_NAME/; `jscrawl test
// SPIDER_NAME.ts` then replays it offline after each edit and compares the items.
export const tests: SpiderTest[] = [{ name: "demo", args: { baseUrl: "http://127.0.0.1:8000" } }];

export default class SPIDER_CLASS extends SitemapSpider {
  name = "SPIDER_NAME";
  allowedDomains = ["127.0.0.1"];
  baseUrl = "http://127.0.0.1:8000"; // -a baseUrl=... overrides it; --demo sets it
  customSettings = {
    CONCURRENT_REQUESTS: 16,
    ROBOTSTXT_OBEY: true,
    // Past 2 GiB of memory (a callback that keeps allocating) the crawl closes with
    // finish_reason memusage_exceeded and exit code 1; set it to your machine.
    MEMUSAGE_LIMIT_MB: 2048,
  };

  // [regex, callback]: the first that matches a URL of a sitemap gets it; URLs no rule
  // matches are skipped.
  sitemapRules: [RegExp | string, string][] = [[/\/catalogue\/[^/]+_\d+\/index\.html$/, "parseBook"]];
  // Which sitemaps of a sitemap index to read (all by default).
  sitemapFollow = [/books/];

  // -a arguments are set after the constructor, so URLs built from them are set here.
  setup() {
    this.sitemapUrls = [`${this.baseUrl}/robots.txt`];
  }

  // Entries of sitemap indexes and sitemaps pass here first: keep the recent ones.
  sitemapFilter(entries: SitemapEntry[]) {
    return entries.filter((e) => !e.lastmod || e.lastmod >= "2026-01-01");
  }

  parseBook(response: Response): Book {
    return {
      title: response.css("h1::text").get(""),
      price: response.css(".product_main .price_color::text").get(""),
      url: response.url,
    };
  }
}
