// inline.ts: awaits downloads inside a callback. For each book on the first catalogue page it
// fetches the book's JSON from the demo API and its HTML detail page at the same time, and
// merges both into one item.
//
//   jscrawl run --demo examples/inline.ts -o inline.jsonl
import { Request, Spider, type Response, type Selector } from "jscrawl";

/** What /api/books/<id> answers (a subset). */
interface ApiBook {
  id: number;
  price: number;
  rating: number;
  stock: number;
  category: string;
}

/** One merged item. */
interface Book extends ApiBook {
  title: string;
  description: string;
  url: string;
}

export default class InlineSpider extends Spider {
  name = "inline";
  allowedDomains = ["127.0.0.1"];
  baseUrl = "http://127.0.0.1:8000";
  customSettings = { ROBOTSTXT_OBEY: true };

  async *start() {
    yield new Request(`${this.baseUrl}/catalogue/page-1.html`);
  }

  // An async callback may return an array of items; the books are fetched in parallel.
  async parse(response: Response): Promise<Book[]> {
    return Promise.all([...response.css("article.product_pod h3 a")].map((a) => this.merge(response, a)));
  }

  async merge(response: Response, link: Selector): Promise<Book> {
    const href: string = link.attrib.href; // "the-quiet-harbour_7/index.html"
    const id = href.match(/_(\d+)\/index\.html$/)![1];
    // fetch() and crawler.download() both go through the engine's downloader (its limits,
    // retries and stats), not through the scheduler; both resolve to a Response.
    const [api, page] = await Promise.all([
      fetch(response.urljoin(`/api/books/${id}`)),
      this.crawler.download(new Request(response.urljoin(href))),
    ]);
    if (api.status !== 200) throw new Error(`API answered ${api.status} for book ${id}`);
    const book: ApiBook = await api.json();
    return {
      id: book.id,
      title: link.attrib.title,
      price: book.price,
      rating: book.rating,
      stock: book.stock,
      category: book.category,
      description: page.css("#product_description + p::text").get(""),
      url: page.url,
    };
  }
}
