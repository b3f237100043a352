// books.ts: crawls the demo bookstore, every book of the catalogue or of one category.
//
//   jscrawl run --demo examples/books.ts -o books.jsonl
//   jscrawl run --demo examples/books.ts -a category=travel -o travel.csv
//   jscrawl demo &   jscrawl run examples/books.ts -o books.jsonl   (baseUrl defaults to :8000)
import { Request, Spider, type Response } from "jscrawl";

/** One scraped book. */
interface Book {
  title: string;
  price: number; // in pounds
  rating: number; // 1..5
  availability: string;
  upc: string;
  category: string;
  url: string;
}

const RATINGS: Record<string, number> = { One: 1, Two: 2, Three: 3, Four: 4, Five: 5 };

export default class BooksSpider extends Spider {
  name = "books";
  allowedDomains = ["127.0.0.1"];
  customSettings = { CONCURRENT_REQUESTS: 32, ROBOTSTXT_OBEY: true };

  // Spider arguments (-a key=value) are set after the constructor, so they override these
  // defaults; that is why the start URL is built in start(), not in a class field.
  baseUrl = "http://127.0.0.1:8000";
  category = ""; // e.g. -a category=travel

  async *start() {
    const firstPage = `${this.baseUrl}/catalogue/page-1.html`;
    // Without a callback a request goes to parse().
    yield new Request(firstPage, { callback: this.category ? this.parseSidebar : this.parse });
  }

  // Finds the category's listing in the sidebar and crawls it instead of the whole catalogue.
  *parseSidebar(response: Response) {
    for (const link of response.css(".side_categories ul ul a")) {
      if (link.css("::text").get("").trim().toLowerCase() === this.category.toLowerCase()) {
        yield response.follow(link.attrib.href);
        return;
      }
    }
    this.logger.error(`no category named "${this.category}"`);
  }

  // A listing page: every book, then the next page.
  *parse(response: Response) {
    const books = response.css("article.product_pod h3 a::attr(href)").getall();
    yield* response.followAll(books, { callback: this.parseBook });
    const next = response.css("li.next a::attr(href)").get();
    if (next) yield response.follow(next);
  }

  *parseBook(response: Response): Generator<Book> {
    const info: Record<string, string> = {}; // the product table: UPC, Availability, ...
    for (const tr of response.css("table tr")) info[tr.css("th::text").get("")] = tr.css("td::text").get("");
    yield {
      title: response.css("h1::text").get(""),
      price: Number(response.css(".product_main .price_color::text").get("").replace("£", "")),
      rating: RATINGS[response.css(".product_main .star-rating").attrib.class.split(" ")[1]],
      availability: info["Availability"],
      upc: info["UPC"],
      category: response.css(".breadcrumb li:nth-child(3) a::text").get(""),
      url: response.url,
    };
  }
}
