// browser.ts: pages that need a browser. The demo site's /js/ pages build their content with
// JavaScript from its JSON API, so a plain download gets an empty shell. A request with the
// browser option is rendered in headless Chromium instead, and the callback reads the
// rendered DOM with the usual selectors; everything else (robots.txt, slots, retries,
// stats, feeds) is the same engine as for plain requests.
//
//   jscrawl run --demo examples/browser.ts -o browser.jsonl
//
// - the catalogue: each listing waits for its products to appear (waitFor), then follows
//   the detail pages (rendered too) and the next listing;
// - the infinite scroll: includePage keeps the page open for the callback, which scrolls
//   until the last quotes have loaded;
// - the "load more" button: the callback clicks it until it goes away.
//
// It needs Chromium (apt-get install chromium); BROWSER_EXECUTABLE names another binary.
import { Request, Spider, type Response } from "jscrawl";

/** A book's detail page. */
interface Book {
  kind: "book";
  id: number;
  title: string;
  price: number;
  rating: number;
  stock: number;
  upc: string;
  category: string;
  url: string;
}

/** A quote of the infinite scroll. */
interface Quote {
  kind: "quote";
  text: string;
  author: string;
  tags: string[];
}

/** A book of the "load more" list. */
interface Listed {
  kind: "listed";
  id: number;
  title: string;
  price: number;
  url: string;
}

const ratings = ["Zero", "One", "Two", "Three", "Four", "Five"];

/** price turns "£52.98" into 52.98. */
function price(text: string | null | undefined): number {
  return Number((text ?? "").replace(/[^0-9.]/g, ""));
}

export default class BrowserSpider extends Spider {
  name = "browser";
  allowedDomains = ["127.0.0.1"];
  baseUrl = "http://127.0.0.1:8000"; // -a baseUrl=... overrides it; --demo sets it
  // Four pages render at once (the default); images, fonts and media are not loaded (the
  // default blockResources), which the listings' covers would otherwise cost.
  customSettings = { BROWSER_CONCURRENCY: 4, ROBOTSTXT_OBEY: true };

  async *start() {
    // The products arrive from the API after the page's load event: wait for them.
    yield new Request(`${this.baseUrl}/js/catalogue/page-1.html`, { browser: { waitFor: "article.product_pod" } });
    yield new Request(`${this.baseUrl}/js/scroll/`, {
      callback: this.parseScroll,
      browser: { waitFor: "div.quote", includePage: true },
    });
    yield new Request(`${this.baseUrl}/js/more/`, {
      callback: this.parseMore,
      browser: { waitFor: "li.book", includePage: true },
    });
  }

  // A rendered listing: the links exist only in the rendered DOM, and follow() keeps them
  // browser requests.
  async *parse(response: Response) {
    for (const href of response.css("article.product_pod h3 a::attr(href)").getall()) {
      yield response.follow(href, { callback: this.parseBook, browser: { waitFor: "article.product_page h1" } });
    }
    const next = response.css("li.next a::attr(href)").get();
    if (next) yield response.follow(next, { browser: { waitFor: "article.product_pod" } });
  }

  parseBook(response: Response): Book {
    const book = response.css("article.product_page");
    return {
      kind: "book",
      id: Number(book.attrib["data-id"]),
      title: book.css("h1::text").get(""),
      price: price(book.css(".price_color::text").get()),
      rating: ratings.indexOf(book.css(".star-rating::attr(class)").get("").replace("star-rating ", "")),
      stock: Number(book.css(".availability::text").re(/\d+/)[0]),
      upc: book.css("td.upc::text").get(""),
      category: response.css(".breadcrumb .category::text").get(""),
      url: response.url,
    };
  }

  // Infinite scroll: response.page is the open page. Each scroll to the bottom makes the
  // site load 10 more quotes; scroll() stops when the page has not grown after `delay` ms,
  // so on a slow site wait for the new entries before scrolling again. page.evaluate()
  // runs a function's source in the page and returns its JSON result; page.response() is
  // a Response over the DOM as it is now. The page closes when this callback ends.
  async *parseScroll(response: Response) {
    const page = response.page!;
    const end = "() => document.querySelector('#the-end') !== null";
    for (let i = 0; i < 20 && !(await page.evaluate(end)); i++) {
      const shown: number = await page.evaluate("() => document.querySelectorAll('div.quote').length");
      await page.scroll({ times: 1, delay: 0 });
      await page.waitForSelector(`div.quote:nth-child(${shown + 1})`, { timeout: 10000 });
    }
    const done = await page.response();
    for (const q of done.css("div.quote")) {
      yield {
        kind: "quote",
        text: q.css("span.text::text").get(""),
        author: q.css("small.author::text").get(""),
        tags: q.css("a.tag::text").getall(),
      } satisfies Quote;
    }
  }

  // "Load more": click the button, wait for the next entry, until the button goes away.
  async *parseMore(response: Response) {
    const page = response.page!;
    for (let clicks = 0; clicks < 20; clicks++) {
      const shown: number = await page.evaluate("() => document.querySelectorAll('li.book').length");
      if (!(await page.evaluate("() => document.querySelector('#load-more') !== null"))) break;
      await page.click("#load-more");
      await page.waitForSelector(`li.book:nth-child(${shown + 1})`, { timeout: 10000 });
    }
    const done = await page.response();
    for (const li of done.css("li.book")) {
      yield {
        kind: "listed",
        id: Number(li.attrib["data-id"]),
        title: li.css("a::attr(title)").get(""),
        price: price(li.css(".price_color::text").get()),
        url: done.urljoin(li.css("a::attr(href)").get("")),
      } satisfies Listed;
    }
  }
}
