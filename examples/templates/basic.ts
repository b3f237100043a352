// SPIDER_NAME.ts: a jscrawl spider that reads a paginated listing.
//
//   jscrawl run --demo SPIDER_NAME.ts -o items.jsonl     (tries it on the built-in demo site)
//   jscrawl run SPIDER_NAME.ts -a baseUrl=https://example.com -o items.jsonl
import { Request, Spider, type Response, type SpiderTest } from "jscrawl";

// Snapshot tests: `jscrawl test SPIDER_NAME.ts --record` records each case's crawl (here of
// `jscrawl demo` at its default address) to __snapshots__/SPIDER_NAME/; `jscrawl test
// SPIDER_NAME.ts` then replays it offline after each edit and compares the items.
export const tests: SpiderTest[] = [{ name: "demo", args: { baseUrl: "http://127.0.0.1:8000" }, testKey: "text" }];

export default class SPIDER_CLASS extends Spider {
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

  async *start() {
    yield new Request(`${this.baseUrl}/quotes/`);
  }

  // Every quote of a page, then the next page (callback defaults to parse).
  async *parse(response: Response) {
    for (const quote of response.css("div.quote")) {
      yield {
        text: quote.css("span.text::text").get(""),
        author: quote.css("small.author::text").get(""),
        tags: quote.css("div.tags a.tag::text").getall(),
      };
    }
    const next = response.css("li.next a::attr(href)").get();
    if (next) yield response.follow(next);
  }
}
