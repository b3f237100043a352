package main

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

func fetchCommand() *cli.Command {
	return &cli.Command{
		Name:      "fetch",
		Usage:     "download a URL with the crawler's downloader and print the body",
		ArgsUsage: "URL",
		Description: `Downloads URL as a spider would (USER_AGENT, DEFAULT_REQUEST_HEADERS, redirects, retries,
DOWNLOAD_TIMEOUT) and writes the body to stdout, after content decoding (gzip, deflate, br)
and without charset conversion. Logs go to stderr (WARNING and above unless -L says otherwise).

A response of any status is printed and the exit code is 0, as Scrapy's fetch; a download
that fails (DNS, refused connection, timeout) exits with 1 and says why.

Examples:
   jscrawl fetch https://example.com/ > page.html
   jscrawl fetch --headers https://example.com/
   jscrawl fetch -s USER_AGENT=mybot/1.0 -s DOWNLOAD_TIMEOUT=10 https://example.com/
   jscrawl fetch --no-redirect http://example.com/old-page
   jscrawl fetch --browser https://example.com/app   (the HTML Chromium rendered)
   jscrawl fetch --wait-for 'article.product' https://example.com/shop   (once the products are there)
   jscrawl fetch --spider spider.ts https://example.com/   (the spider's settings and middlewares)`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "headers", Usage: "print the status line and the response headers instead of the body"},
			&cli.BoolFlag{Name: "no-redirect", Usage: "do not follow redirects (REDIRECT_ENABLED=false)"},
			&cli.StringFlag{Name: "spider", Usage: "download as the spider `FILE` would: its customSettings and downloader middlewares apply"},
		}, append(browserFlags(), spiderFlags("WARNING")...)...),
		Action: fetchAction,
	}
}

func fetchAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("fetch needs exactly one URL (got %d): jscrawl fetch https://example.com/", c.NArg())
	}
	rawURL := c.Args().First()
	opts := loadOptions{logLevel: "WARNING"}
	if c.Bool("no-redirect") {
		opts.set = map[string]any{types.RedirectEnabled: false}
	}
	ls, err := readFlags(c, opts)
	if err != nil {
		return err
	}
	defer ls.Close()
	if err := ls.load(c.String("spider")); err != nil {
		return err
	}
	eng, err := ls.newEngine()
	if err != nil {
		return err
	}

	defer func() { _ = eng.CloseHandlers() }() // Run is not called: close a Chromium --browser started

	ctx, stop := stopOnSignal(c)
	defer stop()
	resp, err := eng.Download(ctx, &types.Request{URL: rawURL, Meta: ls.withBrowser(nil)})
	if err != nil {
		if ctx.Err() != nil {
			return cli.Exit("fetch: interrupted", 130)
		}
		return cli.Exit(fmt.Sprintf("%v%s", err, fetchHint(err, ls.browser != nil, ls.settings.StringList(types.ReplayFiles))), 1)
	}
	if resp.Status < 200 || resp.Status > 299 {
		ls.logger.Warn(fmt.Sprintf("%s answered with status %d", resp.URL, resp.Status))
	}
	if c.Bool("headers") {
		_, err = fmt.Fprint(ls.stdout, formatHeaders(resp))
	} else {
		_, err = ls.stdout.Write(resp.Body)
	}
	if err != nil {
		return cli.Exit(fmt.Sprintf("fetch: write: %v", err), 1)
	}
	return nil
}

// fetchHint is what fetch adds to the error of a failed download: where to look, and the
// timeout setting of the download (BROWSER_TIMEOUT for a browser). An error that says how
// to fix itself (no Chromium found) gets none; a miss of a replay (replayed: the
// archives) names the archives and the ways on, not the network.
func fetchHint(err error, browser bool, replayed []string) string {
	var de *engine.DownloadError
	if errors.As(err, &de) && de.Name == engine.NameBrowserNotFound {
		return ""
	}
	if errors.As(err, &de) && de.Name == engine.NameNotInArchive {
		return fmt.Sprintf(" (replaying %s: the archive has no response to this URL; "+
			"check the URL against the crawl that recorded it, or add --replay-fallback to download what it lacks)", strings.Join(replayed, ", "))
	}
	timeout := types.DownloadTimeout
	if browser {
		timeout = types.BrowserTimeout
	}
	return fmt.Sprintf(" (is the URL right and the site reachable? -s %s=SECONDS allows more time)", timeout)
}

// formatHeaders renders the status line ("HTTP/1.1 200 OK", without the protocol when it
// is unknown) and the headers, one "Name: value" a line in name order.
func formatHeaders(resp *types.Response) string {
	s := fmt.Sprintf("%d %s\n", resp.Status, http.StatusText(resp.Status))
	if resp.Protocol != "" {
		s = resp.Protocol + " " + s
	}
	keys := make([]string, 0, len(resp.Headers))
	for k := range resp.Headers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range resp.Headers[k] {
			s += k + ": " + v + "\n"
		}
	}
	return s
}
