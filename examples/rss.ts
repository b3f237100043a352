// rss.ts: an XMLFeedSpider reading the demo bookstore's RSS feed, one item per <item>.
//
//   jscrawl run --demo examples/rss.ts -o books.jsonl
import { XMLFeedSpider, type Response, type Selector } from "jscrawl";

interface FeedBook {
  id: number;
  title: string;
  price: number;
  category: string;
  date: string;
  url: string;
}

export default class RssSpider extends XMLFeedSpider {
  name = "rss";
  customSettings = { ROBOTSTXT_OBEY: true };
  allowedDomains = ["127.0.0.1"];
  baseUrl = "http://127.0.0.1:8000"; // -a baseUrl=... overrides it; --demo sets it
  itertag = "item"; // the element parseNode gets, streamed from the feed

  setup() {
    this.startUrls = [`${this.baseUrl}/feeds/books.rss`];
  }

  // node is a Selector on one <item>; names are lower case and keep their prefix.
  parseNode(response: Response, node: Selector): FeedBook {
    return {
      id: Number(node.css("guid::text").get("").replace("book-", "")),
      title: node.css("title::text").get(""),
      price: Number(node.css("price::text").get("").replace("£", "")),
      category: node.css("category::text").get(""),
      date: node.css("dc\\:date::text").get(""),
      url: node.css("link::text").get(""),
    };
  }
}
