"""Scrapy's side of the broad-crawl bench (issue 26): the same crawl as jscrawl bench --hosts.

Serve the site with `jscrawl bench --hosts N --pages P --serve-only` (it prints the port),
then run, with Debian's python3-scrapy (2.8.0):

    /usr/bin/python3 scripts/broad_scrapy.py PORT N [aware] [KEY=VALUE ...]

and stop the site with Ctrl-C: it prints the span, the limit and the gaps it saw. `aware`
uses Scrapy's DownloaderAwarePriorityQueue instead of the default scheduler queue;
KEY=VALUE overrides a setting (an integer or a float when it reads as one), as
CONCURRENT_REQUESTS=64.
Settings as the bench's defaults: CONCURRENT_REQUESTS=16, CONCURRENT_REQUESTS_PER_DOMAIN=1,
DOWNLOAD_DELAY=1, RANDOMIZE_DOWNLOAD_DELAY=False, ROBOTSTXT_OBEY=False.
"""

import sys

import scrapy
from scrapy.crawler import CrawlerProcess


def host_addr(i):
    """Host i (0-based) as jscrawl's broadsite names it: 127.0.1.1 on to 127.0.1.254, then 127.0.2.1."""
    return "127.0.%d.%d" % (1 + i // 254, 1 + i % 254)


class BroadSpider(scrapy.Spider):
    name = "broad"

    def __init__(self, port, hosts, **kw):
        super().__init__(**kw)
        self.port, self.hosts = int(port), int(hosts)

    def start_requests(self):
        for i in range(self.hosts):
            yield scrapy.Request("http://%s:%d/page/0" % (host_addr(i), self.port))

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href)


if __name__ == "__main__":
    port, hosts = sys.argv[1], sys.argv[2]
    settings = {
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        "DOWNLOAD_DELAY": 1,
        "RANDOMIZE_DOWNLOAD_DELAY": False,
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
    }
    for arg in sys.argv[3:]:
        if arg == "aware":
            settings["SCHEDULER_PRIORITY_QUEUE"] = "scrapy.pqueues.DownloaderAwarePriorityQueue"
            continue
        key, _, value = arg.partition("=")
        for kind in (int, float):
            try:
                value = kind(value)
                break
            except ValueError:
                pass
        settings[key] = value
    process = CrawlerProcess(settings)
    process.crawl(BroadSpider, port=port, hosts=hosts)
    process.start()
