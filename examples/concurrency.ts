// concurrency.ts: many slow downloads at once. One callback fetches N pages of the demo
// site's slow endpoint (/delay?ms=...) with Promise.all; they overlap, so 100 downloads of
// 1 s each take about one second, against about 100 s when awaited one by one
// (-a sequential=true). Each inline download still goes through the engine's downloader,
// so CONCURRENT_REQUESTS and CONCURRENT_REQUESTS_PER_DOMAIN bound how many overlap.
//
//   jscrawl run --demo examples/concurrency.ts -o -
//   jscrawl run --demo examples/concurrency.ts -a n=20 -a sequential=true -o -
import { Request, Spider } from "jscrawl";

export default class ConcurrencySpider extends Spider {
  name = "concurrency";
  baseUrl = "http://127.0.0.1:8000";
  // Spider arguments (-a) arrive as strings.
  n = "100";
  ms = "1000";
  sequential = "false";
  customSettings = { CONCURRENT_REQUESTS: 100, CONCURRENT_REQUESTS_PER_DOMAIN: 100, ROBOTSTXT_OBEY: true };

  async *start() {
    yield new Request(`${this.baseUrl}/`, { callback: this.fanOut });
  }

  async fanOut() {
    const urls = Array.from({ length: Number(this.n) }, (_, i) => `${this.baseUrl}/delay?ms=${this.ms}&i=${i}`);
    const started = Date.now();
    let statuses: number[];
    if (this.sequential === "true") {
      statuses = [];
      for (const url of urls) statuses.push((await fetch(url)).status); // one after another
    } else {
      statuses = (await Promise.all(urls.map((url) => fetch(url)))).map((r) => r.status); // all at once
    }
    const seconds = (Date.now() - started) / 1000;
    this.logger.info(`${urls.length} downloads of ${this.ms} ms took ${seconds.toFixed(2)} s`);
    return { downloads: statuses.length, ok: statuses.filter((s) => s === 200).length, sequential: this.sequential === "true", seconds };
  }
}
