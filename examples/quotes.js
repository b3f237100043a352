// quotes.js: the demo site's quotes section, in plain JavaScript with a plain-object spider.
// Yields one { text, author, tags } item per quote and one { author, born, location } item
// per author page.
//
//   jscrawl run --demo examples/quotes.js -o quotes.jsonl
import { Request } from "jscrawl";

export default {
  name: "quotes",
  allowedDomains: ["127.0.0.1"],
  baseUrl: "http://127.0.0.1:8000", // -a baseUrl=... (set for you by --demo)
  customSettings: { ROBOTSTXT_OBEY: true }, // the default, stated: /private/ is never fetched

  *start() {
    yield new Request(`${this.baseUrl}/quotes/`);
  },

  *parse(response) {
    for (const quote of response.css("div.quote")) {
      const author = quote.css("small.author::text").get();
      yield {
        text: quote.css("span.text::text").get(),
        author,
        tags: quote.css("div.tags a.tag::text").getall(),
      };
      // Every author is linked from several quotes; the duplicate filter fetches each once.
      const about = quote.css("span a::attr(href)").get();
      yield response.follow(about, { callback: "parseAuthor", cbKwargs: { author } });
    }
    const next = response.css("li.next a::attr(href)").get();
    if (next) yield response.follow(next);
  },

  // cbKwargs arrive as the second argument.
  *parseAuthor(response, { author }) {
    const name = response.css("h3.author-title::text").get("").trim();
    if (name !== author) this.logger.warn(`author page ${response.url} is for ${name}, not ${author}`);
    yield {
      author: name,
      born: response.css(".author-born-date::text").get(),
      location: response.css(".author-born-location::text").get("").replace(/^in /, ""),
    };
  },
};
