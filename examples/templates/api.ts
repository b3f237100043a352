// SPIDER_NAME.ts: a jscrawl spider that reads a paginated JSON API and fetches details
// inline, several at once.
//
//   jscrawl run --demo SPIDER_NAME.ts -o items.jsonl     (tries it on the built-in demo site)
import { Request, Spider, type Response, type SpiderTest } from "jscrawl";

interface Page {
  books: { id: number; title: string; api: string }[];
  next: string | null;
}

// Snapshot tests: `jscrawl test SPIDER_NAME.ts --record` records each case's crawl (here of
// `jscrawl demo` at its default address) to __snapshots__/SPIDER_NAME/; `jscrawl test
// SPIDER_NAME.ts` then replays it offline after each edit and compares the items.
export const tests: SpiderTest[] = [{ name: "demo", args: { baseUrl: "http://127.0.0.1:8000" }, testKey: "id" }];

export default class SPIDER_CLASS extends Spider {
  name = "SPIDER_NAME";
  allowedDomains = ["127.0.0.1"];
  baseUrl = "http://127.0.0.1:8000";
  customSettings = {
    CONCURRENT_REQUESTS: 16,
    ROBOTSTXT_OBEY: true,
    // Past 2 GiB of memory (a callback that keeps allocating) the crawl closes with
    // finish_reason memusage_exceeded and exit code 1; set it to your machine.
    MEMUSAGE_LIMIT_MB: 2048,
  };

  async *start() {
    yield new Request(`${this.baseUrl}/api/books?page=1`);
  }

  async *parse(response: Response) {
    const page: Page = await response.json();
    // The details of one page, downloaded in parallel (each with a 10 s time limit).
    const details = await Promise.all(
      page.books.map((b) => fetch(response.urljoin(b.api), { signal: AbortSignal.timeout(10_000) })),
    );
    for (const d of details) {
      const book = await d.json();
      yield { id: book.id, title: book.title, price: book.price, stock: book.stock };
    }
    if (page.next) yield response.follow(page.next);
  }
}
