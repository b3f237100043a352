// SPIDER_NAME.ts: a jscrawl CrawlSpider: rules say which links to follow and which pages to
// scrape (Scrapy's CrawlSpider).
//
//   jscrawl run --demo SPIDER_NAME.ts -o items.jsonl     (tries it on the built-in demo site)
import { CrawlSpider, type Response, type SpiderTest } from "jscrawl";

interface Product {
  title: string;
  price: string;
  url: string;
}

// Snapshot tests: `jscrawl test SPIDER_NAME.ts --record` records each case's crawl (here of
// `jscrawl demo` at its default address) to __snapshots__/SPIDER_NAME/; `jscrawl test
// SPIDER_NAME.ts` then replays it offline after each edit and compares the items.
export const tests: SpiderTest[] = [{ name: "demo", args: { baseUrl: "http://127.0.0.1:8000" } }];

export default class SPIDER_CLASS extends CrawlSpider {
  name = "SPIDER_NAME";
  allowedDomains = ["127.0.0.1"];
  baseUrl = "http://127.0.0.1:8000"; // -a baseUrl=... overrides it; --demo sets it
  customSettings = {
    CONCURRENT_REQUESTS: 16,
    DOWNLOAD_DELAY: 0,
    ROBOTSTXT_OBEY: true,
    // Past 2 GiB of memory (a callback that keeps allocating) the crawl closes with
    // finish_reason memusage_exceeded and exit code 1; set it to your machine.
    MEMUSAGE_LIMIT_MB: 2048,
  };

  // The first rule that extracts a link wins. Without a callback a rule follows the links
  // of the pages it reaches; with one it does not, unless follow: true.
  rules = [
    // the next listing page
    { link: { restrictCss: "li.next" } },
    // every product of a listing, scraped by parseProduct
    { link: { restrictCss: "article.product_pod h3" }, callback: "parseProduct" },
  ];

  // -a arguments are set after the constructor, so URLs built from them are set here.
  setup() {
    this.startUrls = [`${this.baseUrl}/catalogue/page-1.html`];
  }

  // A detail page: one item.
  parseProduct(response: Response): Product {
    return {
      title: response.css("h1::text").get(""),
      price: response.css(".price_color::text").get(""),
      url: response.url,
    };
  }
}
