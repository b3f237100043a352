package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

func parseCommand() *cli.Command {
	return &cli.Command{
		Name:      "parse",
		Usage:     "download a URL, run one spider callback on it and print what it yields",
		ArgsUsage: "URL",
		Description: `Scrapy's parse command: downloads URL through the crawler (the spider's settings and
downloader middlewares apply), calls the spider method --callback with the response and
writes one JSON line per yielded value to stdout:

   {"item": {...}}
   {"request": {"url": "...", "method": "GET", "callback": "parse"}}

With --depth N the requests yielded are followed too, N levels in all (depth 1, the
default, is just URL); their callbacks' outputs are printed as well. Item pipelines run only
with --pipelines; the items printed are then the pipelines' results (dropped items are not
printed). The spider's start() is not called. With --browser (or --wait-for) URL is
rendered in headless Chromium and the callback gets the rendered DOM (meta.browser; a
browser key in --meta gives all the options, and wins). Logs go to stderr (WARNING and
above unless -L says otherwise). The exit code is 1 when the callback threw or never ran (a failed download
or a status the spider does not handle: -s HTTPERROR_ALLOW_ALL=true passes every status).

Examples:
   jscrawl parse https://example.com/page-1 --spider spider.ts
   jscrawl parse https://example.com/item/3 --spider spider.ts --callback parseItem --cbkwargs '{"id": 3}'
   jscrawl parse https://example.com/ --spider spider.ts --depth 2 -a category=travel
   jscrawl parse https://example.com/ --spider spider.ts --meta '{"page": 1}' --pipelines
   jscrawl parse https://example.com/shop --spider spider.ts --wait-for 'article.product'`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "spider", Usage: "the spider `FILE` (.ts, .js) (required)"},
			&cli.StringFlag{Name: "callback", Aliases: []string{"c"}, Value: "parse", Usage: "spider method to call with the response (`NAME`)"},
			&cli.IntFlag{Name: "depth", Aliases: []string{"d"}, Value: 1, Usage: "levels of requests to follow (`N`; 1: only URL)"},
			&cli.StringFlag{Name: "meta", Aliases: []string{"m"}, Usage: "request meta as a `JSON` object"},
			&cli.StringFlag{Name: "cbkwargs", Usage: "keyword arguments of the callback as a `JSON` object (its second argument)"},
			&cli.BoolFlag{Name: "pipelines", Usage: "run the spider's item pipelines"},
			&cli.BoolFlag{Name: "noitems", Usage: "do not print items"},
			&cli.BoolFlag{Name: "nolinks", Usage: "do not print requests (they are still followed with --depth)"},
		}, append(browserFlags(), spiderFlags("WARNING")...)...),
		Action: parseAction,
	}
}

func parseAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("parse needs exactly one URL (got %d): jscrawl parse URL --spider spider.ts [--callback NAME]", c.NArg())
	}
	rawURL := c.Args().First()
	if c.String("spider") == "" {
		return usageError("parse needs the spider: jscrawl parse %s --spider spider.ts [--callback NAME]", rawURL)
	}
	depth := c.Int("depth")
	if depth < 1 {
		return usageError("--depth %d: want 1 or more (1 parses only the URL)", depth)
	}
	meta, err := jsonObjectFlag(c, "meta")
	if err != nil {
		return err
	}
	cbkwargs, err := jsonObjectFlag(c, "cbkwargs")
	if err != nil {
		return err
	}
	ls, err := readFlags(c, loadOptions{logLevel: "WARNING"})
	if err != nil {
		return err
	}
	defer ls.Close()
	if err := ls.load(c.String("spider")); err != nil {
		return err
	}
	ps := &parseSpider{
		Spider: ls.spider,
		start: &types.Request{URL: rawURL, Callback: c.String("callback"), Meta: ls.withBrowser(meta), CbKwargs: cbkwargs,
			DontFilter: true},
		depth:     depth,
		pipelines: c.Bool("pipelines"),
		out:       &jsonLineWriter{w: ls.stdout, noItems: c.Bool("noitems"), noLinks: c.Bool("nolinks")},
	}
	var opts []engine.Option
	if ps.pipelines {
		opts = append(opts, engine.WithPipelines(ls.spider.Pipelines()...))
		opts = append(opts, engine.WithPipelines(printPipeline{ps.out}))
	}
	eng, err := ls.engineFor(ps, opts...)
	if err != nil {
		return err
	}
	ctx, stop := stopOnSignal(c)
	defer stop()
	if err := eng.Run(ctx); err != nil {
		return cli.Exit(fmt.Sprintf("parse could not run: %v", err), 1)
	}
	switch {
	case ctx.Err() != nil:
		return cli.Exit("parse: interrupted", 130)
	case ps.out.err != nil:
		return cli.Exit(fmt.Sprintf("parse: write: %v", ps.out.err), 1)
	case !ps.parsed.Load():
		return cli.Exit(fmt.Sprintf("parse: %s() never ran for %s: the download failed or its status is not handled "+
			"(see the log above; -L INFO says more, -s HTTPERROR_ALLOW_ALL=true passes every status)", ps.start.CallbackName(), rawURL), 1)
	case ls.stats.Int("spider_exceptions/count") > 0:
		return cli.Exit("parse: the callback threw (see the log above)", 1)
	}
	return nil
}

// jsonObjectFlag parses a flag holding a JSON object into an Item (nil when unset).
func jsonObjectFlag(c *cli.Context, name string) (types.Item, error) {
	s := c.String(name)
	if s == "" {
		return nil, nil
	}
	it, err := parseJSONObject(s)
	if err != nil {
		return nil, usageError("--%s %s: %v (want a JSON object such as '{\"page\": 1}')", name, s, err)
	}
	return it, nil
}

// parseJSONObject decodes a JSON object keeping its key order; numbers become int64 when
// integral, else float64.
func parseJSONObject(s string) (types.Item, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := decodeJSONValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text after the object")
	}
	it, ok := v.(types.Item)
	if !ok {
		return nil, errors.New("not an object")
	}
	return it, nil
}

func decodeJSONValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			it := types.Item{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeJSONValue(dec)
				if err != nil {
					return nil, err
				}
				it.Set(kt.(string), v)
			}
			_, err := dec.Token()
			return it, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeJSONValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		return t.Float64()
	default:
		return t, nil
	}
}

// parseSpider drives a jsapi.Spider for the parse command: its start request is the given
// URL and callback, and it prints what callbacks yield, following requests only while
// they are less than depth levels deep. Name, AllowedDomains, Open and Close are the
// wrapped spider's.
type parseSpider struct {
	*jsapi.Spider
	start     *types.Request
	depth     int
	pipelines bool
	out       *jsonLineWriter
	parsed    atomic.Bool // the start URL's callback ran
}

// Start emits the one start request.
func (p *parseSpider) Start(_ context.Context, emit engine.Emit) error {
	emit(types.Output{Request: p.start})
	return nil
}

// Parse runs the callback and records its outputs.
func (p *parseSpider) Parse(ctx context.Context, resp *types.Response, emit engine.Emit) error {
	if resp.Request.Depth == 0 {
		p.parsed.Store(true)
	}
	return p.Spider.Parse(ctx, resp, p.record(resp.Request.Depth+1, emit))
}

// Errback runs the errback and records its outputs.
func (p *parseSpider) Errback(ctx context.Context, f *types.Failure, emit engine.Emit) error {
	return p.Spider.Errback(ctx, f, p.record(f.Request.Depth+1, emit))
}

// record prints each output of a callback at level (1: the URL's) and passes on the items
// to pipelines (with --pipelines) and the requests to follow (above the depth limit).
func (p *parseSpider) record(level int, emit engine.Emit) engine.Emit {
	return func(o types.Output) {
		switch {
		case o.Request != nil:
			p.out.write("request", requestJSON{URL: o.Request.URL, Method: o.Request.HTTPMethod(), Callback: o.Request.CallbackName()})
			if level < p.depth {
				emit(o)
			}
		case o.Item != nil:
			if p.pipelines {
				emit(o) // printed by printPipeline, after the spider's pipelines
			} else {
				p.out.write("item", o.Item)
			}
		}
	}
}

type requestJSON struct {
	URL      string `json:"url"`
	Method   string `json:"method"`
	Callback string `json:"callback"`
}

// jsonLineWriter writes {"kind": value} lines; safe for concurrent use. The first write
// error is kept in err.
type jsonLineWriter struct {
	mu               sync.Mutex
	w                io.Writer
	err              error
	noItems, noLinks bool // --noitems, --nolinks
}

func (j *jsonLineWriter) write(kind string, v any) {
	if (kind == "item" && j.noItems) || (kind == "request" && j.noLinks) {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{kind: v}); err != nil {
		b.Reset()
		fmt.Fprintf(&b, "{%q: {\"error\": %q}}\n", kind, err.Error())
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.w.Write(b.Bytes()); err != nil && j.err == nil {
		j.err = err
	}
}

// printPipeline is the last pipeline of parse --pipelines: it prints the item.
type printPipeline struct{ out *jsonLineWriter }

// ProcessItem prints the item and passes it on.
func (p printPipeline) ProcessItem(_ context.Context, item types.Item) (types.Item, error) {
	p.out.write("item", item)
	return item, nil
}

// Interface guards
var (
	_ engine.Spider   = (*parseSpider)(nil)
	_ engine.Opener   = (*parseSpider)(nil)
	_ io.Closer       = (*parseSpider)(nil)
	_ engine.Pipeline = printPipeline{}
)
