package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check the contracts of a spider's callbacks (@url, @returns, @scrapes in their doc comments)",
		ArgsUsage: "SPIDER_FILE [CALLBACK...]",
		Description: `Scrapy's check command. A callback is tested when its /** */ doc comment has an @url tag:

   /**
    * @url https://books.example/catalogue/page-1.html
    * @returns items 20 20
    * @returns requests 1
    * @scrapes title price
    */
   async *parse(response) { ... }

check downloads each @url through the crawler (the spider's settings, -s, -a and its
downloader middlewares apply), calls the callback with the response, keeps what it yields
(no request is followed, no item reaches a pipeline or feed) and checks it:

   @url URL                    the URL to download (required)
   @cbKwargs {"id": 3}         the callback's keyword arguments, a JSON object (@cb_kwargs too)
   @meta {"page": 1}           the request's meta, a JSON object
   @returns items|requests [MIN [MAX]]
                               the number of items (or requests) yielded: at least MIN
                               (default 1) and at most MAX (default no limit); item and
                               request also work
   @scrapes FIELD...           every item yielded has these fields

It prints one line per checked contract, the failures and errors (a callback that threw, a
download that failed), and a summary; the exit code is 1 when a check failed. Other tags
(@param, a JSDoc @returns with a type) are left alone. The comments are read from the spider
file and its local imports. With CALLBACK names, only those are checked. Logs go to stderr
(WARNING and above unless -L says otherwise).

Examples:
   jscrawl check spider.ts
   jscrawl check spider.ts parseBook -a category=travel
   jscrawl check spider.ts -l`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "list", Aliases: []string{"l"}, Usage: "only list the callbacks with contracts, without checking them"},
		}, spiderFlags("WARNING")...),
		Action: checkAction,
	}
}

func checkAction(c *cli.Context) error {
	if c.NArg() < 1 {
		return usageError("check needs the spider file: jscrawl check spider.ts [CALLBACK...]")
	}
	file := c.Args().First()
	only := c.Args().Slice()[1:]
	ls, err := readFlags(c, loadOptions{logLevel: "WARNING"})
	if err != nil {
		return err
	}
	defer ls.Close()
	if err := ls.load(file); err != nil {
		return err
	}
	cases, err := readContracts(ls.inputs, ls.spider)
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", file, err), 1)
	}
	if len(only) > 0 {
		var picked []*contractCase
		for _, name := range only {
			i := slices.IndexFunc(cases, func(cc *contractCase) bool { return cc.method == name })
			if i < 0 {
				return usageError("%s: %s has no contracts (no /** */ comment with @url on a method of spider %s)", file, name, ls.spider.Name())
			}
			picked = append(picked, cases[i])
		}
		cases = picked
	}
	if c.Bool("list") {
		if len(cases) > 0 {
			fmt.Fprintln(ls.stdout, ls.spider.Name())
			for _, cc := range slices.SortedFunc(slices.Values(cases), func(a, b *contractCase) int { return strings.Compare(a.method, b.method) }) {
				fmt.Fprintf(ls.stdout, "  * %s\n", cc.method)
			}
		}
		return nil
	}
	cs := &checkSpider{Spider: ls.spider, cases: map[string]*contractCase{}}
	for _, cc := range cases {
		cs.order = append(cs.order, cc)
		if cc.err == nil {
			cs.cases[cc.method] = cc
		}
	}
	eng, err := ls.engineFor(cs)
	if err != nil {
		return err
	}
	ctx, stop := stopOnSignal(c)
	defer stop()
	start := time.Now()
	if len(cs.cases) > 0 {
		if err := eng.Run(ctx); err != nil {
			return cli.Exit(fmt.Sprintf("check could not run: %v", err), 1)
		}
		if ctx.Err() != nil {
			return cli.Exit("check: interrupted", 130)
		}
	}
	if !cs.report(ls.stdout, ls.spider.Name(), time.Since(start)) {
		return cli.Exit("", 1)
	}
	return nil
}

// contractCase is one callback's contracts: its request, its checks and, once the crawl
// ran, what the callback produced.
type contractCase struct {
	method   string
	url      string
	meta     types.Item
	cbKwargs types.Item
	checks   []contract
	err      error // a contract that could not be read: reported as an error

	mu       sync.Mutex
	ran      bool
	items    []types.Item
	requests int
	failure  string // "callback" or "errback": how it failed
	failErr  string
}

// contract is one post-hook: @returns or @scrapes.
type contract struct {
	tag   string                                                  // "returns", "scrapes"
	line  string                                                  // the tag's arguments, as written
	check func(items []types.Item, requests int) (failure string) // "": passed
}

// readContracts finds the callbacks whose doc comments have @url, in the spider file and
// its local imports (files is the entry first), and reads their contracts. A method named
// in several files takes its first comment with @url.
func readContracts(files []string, spider jsapi.Introspection) ([]*contractCase, error) {
	var cases []*contractCase
	seen := map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, doc := range runtime.DocComments(string(src)) {
			tags := docTags(doc.Text)
			if seen[doc.Name] || !slices.ContainsFunc(tags, func(t [2]string) bool { return t[0] == "url" }) || !spider.HasCallback(doc.Name) {
				continue
			}
			seen[doc.Name] = true
			cases = append(cases, parseContracts(doc.Name, tags))
		}
	}
	return cases, nil
}

// docTags returns the @tag lines of a doc comment as (tag, arguments) pairs.
func docTags(text string) [][2]string {
	var tags [][2]string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "@") {
			continue
		}
		tag, args, _ := strings.Cut(l[1:], " ")
		tags = append(tags, [2]string{tag, strings.TrimSpace(args)})
	}
	return tags
}

// parseContracts reads a callback's tags; a malformed contract sets the case's err.
func parseContracts(method string, tags [][2]string) *contractCase {
	cc := &contractCase{method: method}
	for _, t := range tags {
		tag, args := t[0], t[1]
		var err error
		switch tag {
		case "url":
			cc.url = args
			if args == "" {
				err = errors.New("@url needs a URL")
			}
		case "cbKwargs", "cb_kwargs":
			if cc.cbKwargs, err = parseJSONObject(args); err != nil {
				err = fmt.Errorf("@%s %s: %v (want a JSON object)", tag, args, err)
			}
		case "meta":
			if cc.meta, err = parseJSONObject(args); err != nil {
				err = fmt.Errorf("@meta %s: %v (want a JSON object)", args, err)
			}
		case "returns":
			var k contract
			k, err = returnsContract(args)
			if err == nil && k.check != nil {
				cc.checks = append(cc.checks, k)
			}
		case "scrapes":
			fields := strings.Fields(args)
			if len(fields) == 0 {
				err = errors.New("@scrapes needs field names")
				break
			}
			cc.checks = append(cc.checks, contract{tag: "scrapes", line: args, check: func(items []types.Item, _ int) string {
				for i, it := range items {
					var missing []string
					for _, f := range fields {
						if _, ok := it.Get(f); !ok {
							missing = append(missing, f)
						}
					}
					if len(missing) > 0 {
						return fmt.Sprintf("Missing fields: %s (item %d of %d)", strings.Join(missing, ", "), i+1, len(items))
					}
				}
				return ""
			}})
		}
		if err != nil && cc.err == nil {
			cc.err = err
		}
	}
	return cc
}

// returnsContract reads "@returns items|requests [MIN [MAX]]". A JSDoc @returns (a type or
// a description) is not a contract: its check is nil.
func returnsContract(args string) (contract, error) {
	f := strings.Fields(args)
	if len(f) == 0 {
		return contract{}, nil
	}
	kind := f[0]
	if kind != "item" && kind != "items" && kind != "request" && kind != "requests" {
		return contract{}, nil
	}
	if len(f) > 3 {
		return contract{}, fmt.Errorf("@returns %s: want @returns %s [MIN [MAX]]", args, kind)
	}
	bounds := []int{1, -1} // -1: no maximum
	for i, s := range f[1:] {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return contract{}, fmt.Errorf("@returns %s: %q is not a count", args, s)
		}
		bounds[i] = n
	}
	lo, hi := bounds[0], bounds[1]
	return contract{tag: "returns", line: args, check: func(items []types.Item, requests int) string {
		n := len(items)
		if strings.HasPrefix(kind, "request") {
			n = requests
		}
		if n >= lo && (hi < 0 || n <= hi) {
			return ""
		}
		expected := strconv.Itoa(lo) + ".." + "inf"
		switch {
		case lo == hi:
			expected = strconv.Itoa(lo)
		case hi >= 0:
			expected = strconv.Itoa(lo) + ".." + strconv.Itoa(hi)
		}
		return fmt.Sprintf("Returned %d %s, expected %s", n, kind, expected)
	}}, nil
}

// checkSpider drives a jsapi.Spider for the check command: its start requests are the
// contracts' (each to its callback), and it keeps what the callbacks produce instead of
// passing it on. Name, AllowedDomains, Open and Close are the wrapped spider's.
type checkSpider struct {
	*jsapi.Spider
	order []*contractCase          // every case, in the order found
	cases map[string]*contractCase // the cases to run, by callback
}

// checkErrback is the errback of the contracts' requests: checkSpider.Errback records the
// failure (no spider method of this name is called).
const checkErrback = "_checkFailed"

// Start emits one request per case.
func (cs *checkSpider) Start(_ context.Context, emit engine.Emit) error {
	for _, cc := range cs.order {
		if cc.err != nil {
			continue
		}
		emit(types.Output{Request: &types.Request{URL: cc.url, Callback: cc.method, Errback: checkErrback,
			Meta: cc.meta, CbKwargs: cc.cbKwargs, DontFilter: true}})
	}
	return nil
}

// Parse runs the callback and records its outputs (none is passed on).
func (cs *checkSpider) Parse(ctx context.Context, resp *types.Response, _ engine.Emit) error {
	cc := cs.cases[resp.Request.Callback]
	if cc == nil {
		return nil
	}
	var items []types.Item
	var requests int
	var mu sync.Mutex
	err := cs.Spider.Parse(ctx, resp, func(o types.Output) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case o.Request != nil:
			requests++
		case o.Item != nil:
			items = append(items, o.Item)
		}
	})
	mu.Lock()
	defer mu.Unlock()
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.ran, cc.items, cc.requests = true, items, requests
	if err != nil {
		cc.failure, cc.failErr = "callback", err.Error()
	}
	return nil
}

// Errback records the failure of a contract's request.
func (cs *checkSpider) Errback(_ context.Context, f *types.Failure, _ engine.Emit) error {
	if cc := cs.cases[f.Request.Callback]; cc != nil && f.Request.Errback == checkErrback {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		cc.ran, cc.failure, cc.failErr = true, "errback", f.Error()
	}
	return nil
}

// report writes one line per contract checked, the failures and errors, and the summary,
// as Scrapy's check (unittest's runner) does; it reports whether every check passed.
func (cs *checkSpider) report(w io.Writer, spider string, took time.Duration) bool {
	type problem struct{ kind, name, text string }
	var problems []problem
	run := 0
	line := func(name, status string) { fmt.Fprintf(w, "%s ... %s\n", name, status) }
	for _, cc := range cs.order {
		name := func(what string) string { return fmt.Sprintf("[%s] %s (%s)", spider, cc.method, what) }
		cc.mu.Lock()
		switch {
		case cc.err != nil:
			line(name("contract"), "ERROR")
			problems = append(problems, problem{"ERROR", name("contract"), cc.err.Error()})
		case !cc.ran:
			line(name("request"), "ERROR")
			problems = append(problems, problem{"ERROR", name("request"), fmt.Sprintf("the request to %s never reached the callback: it was dropped (offsite, robots.txt, a downloader middleware; see the log)", cc.url)})
		case cc.failure != "":
			line(name(cc.failure), "ERROR")
			problems = append(problems, problem{"ERROR", name(cc.failure), cc.failErr})
		default:
			for _, k := range cc.checks {
				run++
				n := name("@" + k.tag + " " + k.line)
				if failure := k.check(cc.items, cc.requests); failure != "" {
					line(n, "FAIL")
					problems = append(problems, problem{"FAIL", n, failure})
				} else {
					line(n, "ok")
				}
			}
		}
		cc.mu.Unlock()
	}
	sep1, sep2 := strings.Repeat("=", 70), strings.Repeat("-", 70)
	for _, p := range problems {
		fmt.Fprintf(w, "\n%s\n%s: %s\n%s\n%s\n", sep1, p.kind, p.name, sep2, p.text)
	}
	plural := "s"
	if run == 1 {
		plural = ""
	}
	fmt.Fprintf(w, "%s\nRan %d contract%s in %.3fs\n\n", sep2, run, plural, took.Seconds())
	var fails, errs int
	for _, p := range problems {
		if p.kind == "FAIL" {
			fails++
		} else {
			errs++
		}
	}
	if fails+errs == 0 {
		fmt.Fprintln(w, "OK")
		return true
	}
	var infos []string
	if fails > 0 {
		infos = append(infos, fmt.Sprintf("failures=%d", fails))
	}
	if errs > 0 {
		infos = append(infos, fmt.Sprintf("errors=%d", errs))
	}
	fmt.Fprintf(w, "FAILED (%s)\n", strings.Join(infos, ", "))
	return false
}

// Interface guards
var (
	_ engine.Spider = (*checkSpider)(nil)
	_ engine.Opener = (*checkSpider)(nil)
	_ io.Closer     = (*checkSpider)(nil)
)
