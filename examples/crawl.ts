// crawl.ts: a CrawlSpider on the demo bookstore: from the home page's category sidebar to
// each category's listings (and their next pages), and from the listings to every book.
//
//   jscrawl run --demo examples/crawl.ts -o books.jsonl
//   jscrawl run --demo examples/crawl.ts -a category=travel -o travel.jsonl
import { CrawlSpider, LinkExtractor, type Link, type Response } from "jscrawl";

interface Book {
  title: string;
  price: number;
  category: string;
  listing: string; // the link's text on the listing
  url: string;
}

export default class BookCrawlSpider extends CrawlSpider {
  name = "bookcrawl";
  allowedDomains = ["127.0.0.1"];
  customSettings = { CONCURRENT_REQUESTS: 32, ROBOTSTXT_OBEY: true };
  baseUrl = "http://127.0.0.1:8000"; // -a baseUrl=... overrides it; --demo sets it
  category = ""; // e.g. -a category=travel

  // Read when the crawl starts. The first rule that extracts a link wins; a rule without a
  // callback follows the links of the pages it reaches.
  rules = [
    // category listings from the sidebar, and the next pages of a listing
    {
      link: { restrictCss: [".side_categories ul ul", "li.next"], allow: /\/category\/books\// },
      processLinks: "onlyCategory",
    },
    // the books of a listing
    { link: new LinkExtractor({ restrictCss: "article.product_pod h3" }), callback: "parseBook" },
  ];

  // -a arguments are set after the constructor, so URLs built from them are set here.
  setup() {
    this.startUrls = [`${this.baseUrl}/`];
  }

  // With -a category=..., keeps that category's sidebar link (and the next pages).
  onlyCategory(links: Link[]): Link[] {
    if (!this.category) return links;
    return links.filter((l) => l.text.toLowerCase() === this.category.toLowerCase() || /page-\d+\.html$/.test(l.url));
  }

  parseBook(response: Response): Book {
    return {
      title: response.css("h1::text").get(""),
      price: Number(response.css(".product_main .price_color::text").get("").replace("£", "")),
      category: response.css(".breadcrumb li:nth-child(3) a::text").get(""),
      listing: String(response.meta.link_text ?? ""),
      url: response.url,
    };
  }
}
