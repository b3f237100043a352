// SPIDER_NAME.ts: a jscrawl spider that follows a listing to detail pages.
//
//   jscrawl run --demo SPIDER_NAME.ts -o items.jsonl     (tries it on the built-in demo site)
import { Request, Spider, type Response } from "jscrawl";

interface Product {
  title: string;
  price: string;
  url: string;
}

export default class SPIDER_CLASS extends Spider {
  name = "SPIDER_NAME";
  allowedDomains = ["127.0.0.1"];
  baseUrl = "http://127.0.0.1:8000";
  customSettings = { CONCURRENT_REQUESTS: 16, DOWNLOAD_DELAY: 0, ROBOTSTXT_OBEY: true };

  async *start() {
    yield new Request(`${this.baseUrl}/catalogue/page-1.html`);
  }

  // A listing: every product, then the next listing page.
  async *parse(response: Response) {
    yield* response.followAll(response.css("article.product_pod h3 a"), { callback: this.parseProduct });
    const next = response.css("li.next a::attr(href)").get();
    if (next) yield response.follow(next);
  }

  // A detail page: one item.
  async *parseProduct(response: Response): AsyncGenerator<Product> {
    yield {
      title: response.css("h1::text").get(""),
      price: response.css(".price_color::text").get(""),
      url: response.url,
    };
  }
}
