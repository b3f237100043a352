// The crawl of BenchmarkBrowser (browser_bench_linux_test.go) in Crawlee's PlaywrightCrawler:
// the demo site's rendered catalogue, 5 listings and their 100 detail pages, each waited
// for as the jscrawl spider does. Crawlee's defaults otherwise (browser pool, fingerprints,
// sessions), with its storage in memory.
//
//   node crawlee.mjs BASE_URL CONCURRENCY blocked|all
//
// Run from a folder where `npm install crawlee playwright` was done
// (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1; Chromium is BROWSER_EXECUTABLE or /usr/bin/chromium).
// It prints one JSON line: {"pages": N, "items": N}.
import { Configuration, PlaywrightCrawler } from "crawlee";

const [base, conc, resources] = process.argv.slice(2);
const n = Number(conc);
let pages = 0;
let items = 0;
const crawler = new PlaywrightCrawler(
  {
    minConcurrency: n,
    maxConcurrency: n,
    maxRequestRetries: 0,
    launchContext: {
      launchOptions: {
        executablePath: process.env.BROWSER_EXECUTABLE || "/usr/bin/chromium",
        headless: true,
        args: ["--no-sandbox"],
      },
    },
    // jscrawl blocks images, fonts and media by default: the same by URL here.
    preNavigationHooks:
      resources === "all"
        ? []
        : [async ({ blockRequests }) => blockRequests({ urlPatterns: [".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".woff", ".woff2", ".ttf", ".mp4", ".webm", ".mp3"] })],
    async requestHandler({ page, request, enqueueLinks }) {
      pages++;
      if (request.label === "BOOK") {
        await page.waitForSelector("article.product_page h1");
        const title = await page.textContent("article.product_page h1");
        if (title) items++;
        return;
      }
      await page.waitForSelector("article.product_pod");
      await enqueueLinks({ selector: "article.product_pod h3 a", label: "BOOK" });
      await enqueueLinks({ selector: "li.next a" });
    },
  },
  new Configuration({ persistStorage: false, purgeOnStart: true }),
);
await crawler.run([`${base}/js/catalogue/page-1.html`]);
console.log(JSON.stringify({ pages, items }));
