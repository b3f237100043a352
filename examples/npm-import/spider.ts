// npm-import/spider.ts: imports an npm package from ./node_modules. esbuild bundles it into
// the spider (its "module" entry, index.mjs, is preferred over "main").
//
//   jscrawl run --demo examples/npm-import/spider.ts -o slugs.jsonl
import { Request, Spider, type Response } from "jscrawl";
import slugify from "slugify-lite";

export default class SlugSpider extends Spider {
  name = "slugs";
  customSettings = { ROBOTSTXT_OBEY: true };
  allowedDomains = ["127.0.0.1"];
  baseUrl = "http://127.0.0.1:8000";

  async *start() {
    yield new Request(`${this.baseUrl}/catalogue/page-1.html`);
  }

  *parse(response: Response) {
    for (const link of response.css("article.product_pod h3 a")) {
      const title: string = link.attrib.title;
      yield { title, slug: slugify(title) };
    }
  }
}
