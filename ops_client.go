package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
)

// clientFlags are the options of ps, pstree and stats.
func clientFlags(extra ...cli.Flag) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "control", Usage: "ask the crawl served on TCP `ADDR` (its --control) instead of a local socket"},
		&cli.StringFlag{Name: "token", EnvVars: []string{"JSCRAWL_CONTROL_TOKEN"}, Usage: "the `TOKEN` of a --control endpoint (printed in the crawl's log)"},
		&cli.BoolFlag{Name: "json", Usage: "print the endpoint's JSON as is"},
	}, extra...)
}

func psCommand() *cli.Command {
	return &cli.Command{
		Name:      "ps",
		Usage:     "show what a running crawl is doing: downloads in flight and callbacks still running",
		ArgsUsage: "[PID]",
		Description: `Lists each download in flight (URL, slot, state, age, the callback awaiting it) and each
callback still running (spider method, response URL, what it awaits, where in the spider it
started that). Without a PID it asks the only running crawl, or lists them. Off a terminal
nothing is truncated.

Examples:
   jscrawl ps                  (the only running crawl)
   jscrawl ps 4242
   jscrawl ps --json 4242      (the /ps endpoint's JSON)
   jscrawl ps --control 127.0.0.1:6023 --token TOKEN`,
		Flags:  clientFlags(),
		Action: func(c *cli.Context) error { return askCrawl(c, "/ps", printPS) },
	}
}

func pstreeCommand() *cli.Command {
	return &cli.Command{
		Name:      "pstree",
		Usage:     "show a running crawl's callbacks as a tree, each with the inline downloads it awaits",
		ArgsUsage: "[PID]",
		Description: `Each running callback with the downloads it awaits (fetch, crawler.download) below it;
scheduled downloads, started by no callback, at the top level.

Examples:
   jscrawl pstree
   jscrawl pstree 4242`,
		Flags:  clientFlags(),
		Action: func(c *cli.Context) error { return askCrawl(c, "/ps", printPSTree) },
	}
}

func statsCommand() *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "show a running crawl's live stats, or a shared crawl's (--frontier)",
		ArgsUsage: "[PID]",
		Description: `The stats collector's values now (the table printed at the end of a crawl) and live
gauges: downloads in flight, callbacks running, scheduler backlog. With --frontier and
--crawl-id, the shared crawl's aggregate stats and its workers (id, host, pid, last
heartbeat, requests in flight) from Redis, as JSON.

Examples:
   jscrawl stats
   jscrawl stats --json 4242 | jq .stats
   jscrawl stats --frontier redis://127.0.0.1:6379/0 --crawl-id books`,
		Flags: clientFlags(crawlFlags()...),
		Action: func(c *cli.Context) error {
			if c.IsSet("crawl-id") || c.IsSet("frontier") && c.NArg() == 0 && c.String("control") == "" {
				return statsFromRedis(c)
			}
			return askCrawl(c, "/stats", printStats)
		},
	}
}

// controlClient talks HTTP to one crawl's control endpoint.
type controlClient struct {
	http  *http.Client
	base  string
	token string
	pid   int // 0 for a TCP endpoint
}

func socketClient(pid int, path string) *controlClient {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}
	return &controlClient{http: &http.Client{Transport: tr, Timeout: 10 * time.Second}, base: "http://jscrawl", pid: pid}
}

// get fetches path and decodes its JSON into v (or returns the raw body when v is nil).
func (cc *controlClient) get(ctx context.Context, path string, v any) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cc.base+path, nil)
	if err != nil {
		return nil, err
	}
	if cc.token != "" {
		req.Header.Set("Authorization", "Bearer "+cc.token)
	}
	resp, err := cc.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		_ = json.Unmarshal(body, &e)
		return nil, fmt.Errorf("%s: %s", resp.Status, cmpOr(e.Error, strings.TrimSpace(string(body))))
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			return nil, fmt.Errorf("bad answer from the crawl: %w", err)
		}
	}
	return body, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// askCrawl finds the crawl (PID argument, --control, or the only one running), fetches path
// and prints it with show (or as JSON with --json).
func askCrawl(c *cli.Context, path string, show func(w io.Writer, width int, body []byte) error) error {
	if c.NArg() > 1 {
		return usageError("%s takes at most one PID (got %d)", c.Command.Name, c.NArg())
	}
	ctx, cancel := context.WithTimeout(c.Context, 15*time.Second)
	defer cancel()
	cc, err := findCrawl(ctx, c)
	if err != nil {
		return err
	}
	body, err := cc.get(ctx, path, nil)
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", cc.describe(), err), 1)
	}
	w, _ := stdio(c)
	if c.Bool("json") {
		_, err := w.Write(body)
		return err
	}
	width := 0
	if f, ok := w.(*os.File); ok {
		width = termWidth(f)
	}
	return show(w, width, body)
}

func (cc *controlClient) describe() string {
	if cc.pid != 0 {
		return "crawl " + strconv.Itoa(cc.pid)
	}
	return cc.base
}

// findCrawl resolves which crawl to ask.
func findCrawl(ctx context.Context, c *cli.Context) (*controlClient, error) {
	if addr := c.String("control"); addr != "" {
		if c.NArg() > 0 {
			return nil, usageError("give a PID or --control, not both")
		}
		base := addr
		if !strings.Contains(base, "://") {
			base = "http://" + base
		}
		return &controlClient{http: &http.Client{Timeout: 10 * time.Second}, base: strings.TrimSuffix(base, "/"), token: c.String("token")}, nil
	}
	if c.NArg() == 1 {
		pid, err := strconv.Atoi(c.Args().First())
		if err != nil || pid <= 0 {
			return nil, usageError("bad PID %q: want the process id of a running `jscrawl run` (jscrawl %s without a PID lists them)", c.Args().First(), c.Command.Name)
		}
		path := socketPath(pid)
		if _, err := os.Stat(path); err != nil {
			return nil, cli.Exit(fmt.Sprintf("no crawl with PID %d: %s does not exist (jscrawl %s without a PID lists the running crawls)", pid, path, c.Command.Name), 1)
		}
		cc := socketClient(pid, path)
		if _, err := cc.get(ctx, "/info", nil); err != nil {
			if stale(pid, path, err) {
				return nil, cli.Exit(fmt.Sprintf("no crawl with PID %d: process %d is gone (its stale socket was removed)", pid, pid), 1)
			}
			return nil, cli.Exit(fmt.Sprintf("crawl %d does not answer on %s: %v", pid, path, err), 1)
		}
		return cc, nil
	}
	crawls := runningCrawls(ctx)
	switch len(crawls) {
	case 0:
		return nil, cli.Exit(fmt.Sprintf("no running crawl found (no control socket answers in %s): start one with jscrawl run, or use --control ADDR for a TCP endpoint", controlDir()), 1)
	case 1:
		return crawls[0].client, nil
	}
	_, w := stdio(c)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tSPIDER\tSTARTED\tFILE")
	for _, cr := range crawls {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", cr.info.PID, cr.info.Spider, cr.info.Started.Local().Format(time.DateTime), cr.info.File)
	}
	_ = tw.Flush()
	return nil, usageError("%d crawls are running: choose one, jscrawl %s PID", len(crawls), c.Command.Name)
}

type runningCrawl struct {
	info   crawlInfo
	client *controlClient
}

// runningCrawls asks every socket in the control folder for its /info, removing the sockets
// of processes that are gone. Ordered by PID.
func runningCrawls(ctx context.Context) []runningCrawl {
	paths, _ := filepath.Glob(filepath.Join(controlDir(), "*.sock"))
	var out []runningCrawl
	for _, path := range paths {
		pid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(path), ".sock"))
		if err != nil {
			continue
		}
		cc := socketClient(pid, path)
		var info crawlInfo
		if _, err := cc.get(ctx, "/info", &info); err != nil {
			stale(pid, path, err)
			continue
		}
		out = append(out, runningCrawl{info: info, client: cc})
	}
	slices.SortFunc(out, func(a, b runningCrawl) int { return a.info.PID - b.info.PID })
	return out
}

// stale removes the socket at path when nobody listens on it and its process is gone, and
// reports whether it did.
func stale(pid int, path string, err error) bool {
	if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ENOENT) {
		return false
	}
	if processAlive(pid) {
		return false
	}
	_ = os.Remove(path)
	return true
}

// fit shortens s to at most n runes with an ellipsis in the middle, keeping more of the end
// (where URLs differ); n <= 0 leaves it whole.
func fit(s string, n int) string {
	if n <= 0 {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	head := (n - 1) / 3
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// ageText renders an age in seconds for a table: 850ms, 12.3s, 4m05s, 2h10m.
func ageText(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d < time.Second:
		return strconv.Itoa(int(d.Milliseconds())) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// shortLoc keeps the file name of a location on a terminal.
func shortLoc(loc string, width int) string {
	if width <= 0 || loc == "" {
		return loc
	}
	return filepath.Base(loc)
}

// urlWidth is how much of a URL a table row shows on a terminal of width (0: all).
func urlWidth(width, used int) int {
	if width <= 0 {
		return 0
	}
	return max(width-used, 24)
}

func printPS(w io.Writer, width int, body []byte) error {
	var rep psReport
	if err := json.Unmarshal(body, &rep); err != nil {
		return fmt.Errorf("bad answer from the crawl: %w", err)
	}
	fmt.Fprintf(w, "PID %d  spider %s  %s in flight, %s running\n\n", rep.PID, rep.Spider,
		plural(len(rep.Downloads), "download"), plural(len(rep.Callbacks), "callback"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DOWNLOAD\tSTATE\tAGE\tSLOT\tCALLBACK\tREQUEST")
	for _, d := range rep.Downloads {
		by := "-"
		if d.Callback != 0 {
			by = strconv.FormatUint(d.Callback, 10)
		} else if d.Inline {
			by = "inline"
		}
		retry := ""
		if d.Retries > 0 {
			retry = fmt.Sprintf(" (retry %d)", d.Retries)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s %s%s\n", d.ID, d.State, ageText(d.Age), d.Slot, by, d.Method, fit(d.URL, urlWidth(width, 70)), retry)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CALLBACK\tMETHOD\tAGE\tVM\tRESPONSE\tAWAITS\tAT")
	uw := 0
	if width > 0 {
		uw = max((width-75)/2, 20)
	}
	for _, c := range rep.Callbacks {
		url := cmpOr(c.URL, "-")
		if len(c.Awaits) == 0 {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t-\t-\n", c.ID, c.Method, ageText(c.Age), c.VM, fit(url, uw))
			continue
		}
		for i, a := range c.Awaits {
			await := fmt.Sprintf("%s %s (%s", a.Method, fit(a.URL, uw), a.State)
			if a.Download != 0 {
				await += fmt.Sprintf(", download %d", a.Download)
			}
			await += ")"
			if i == 0 {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t%s\n", c.ID, c.Method, ageText(c.Age), c.VM, fit(url, uw), await, cmpOr(shortLoc(a.Location, width), "-"))
			} else {
				fmt.Fprintf(tw, "\t\t\t\t\t%s\t%s\n", await, cmpOr(shortLoc(a.Location, width), "-"))
			}
		}
	}
	if err := tw.Flush(); err != nil || len(rep.Slots) == 0 {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SLOT\tQUEUED\tSTATE")
	for _, s := range rep.Slots {
		state := s.State
		if s.ReadyIn > 0 {
			state += " " + ageText(s.ReadyIn)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", fit(s.Slot, 40), s.Queued, state)
	}
	return tw.Flush()
}

func printPSTree(w io.Writer, width int, body []byte) error {
	var rep psReport
	if err := json.Unmarshal(body, &rep); err != nil {
		return fmt.Errorf("bad answer from the crawl: %w", err)
	}
	fmt.Fprintf(w, "%d %s\n", rep.PID, rep.Spider)
	type node struct {
		line     string
		children []string
	}
	var top []node
	for _, c := range rep.Callbacks {
		n := node{line: fmt.Sprintf("%s %s  (callback %d, %s, VM %d)", c.Method, fit(cmpOr(c.URL, "-"), urlWidth(width, 40)), c.ID, ageText(c.Age), c.VM)}
		for _, a := range c.Awaits {
			l := fmt.Sprintf("%s %s  %s %s", a.Method, fit(a.URL, urlWidth(width, 50)), a.State, ageText(a.Age))
			if a.Location != "" {
				l += "  at " + shortLoc(a.Location, width)
			}
			n.children = append(n.children, l)
		}
		top = append(top, n)
	}
	for _, d := range rep.Downloads {
		if d.Callback != 0 {
			continue // under its callback
		}
		l := fmt.Sprintf("%s %s  %s %s", d.Method, fit(d.URL, urlWidth(width, 40)), d.State, ageText(d.Age))
		if d.Inline {
			l += "  (inline, no callback)"
		}
		top = append(top, node{line: l})
	}
	for i, n := range top {
		last := i == len(top)-1
		branch, indent := "├── ", "│   "
		if last {
			branch, indent = "└── ", "    "
		}
		fmt.Fprintln(w, branch+n.line)
		for j, ch := range n.children {
			b := "├── "
			if j == len(n.children)-1 {
				b = "└── "
			}
			fmt.Fprintln(w, indent+b+ch)
		}
	}
	return nil
}

func printStats(w io.Writer, _ int, body []byte) error {
	var rep struct {
		PID    int                        `json:"pid"`
		Spider string                     `json:"spider"`
		Live   liveGauges                 `json:"live"`
		Stats  map[string]json.RawMessage `json:"stats"`
	}
	if err := json.Unmarshal(body, &rep); err != nil {
		return fmt.Errorf("bad answer from the crawl: %w", err)
	}
	fmt.Fprintf(w, "PID %d  spider %s  running %s: %s in flight, %s running, %s queued\n",
		rep.PID, rep.Spider, ageText(rep.Live.Elapsed), plural(rep.Live.Downloads, "download"),
		plural(rep.Live.Callbacks, "callback"), plural(rep.Live.Backlog, "request"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, k := range sortedKeys(rep.Stats) {
		v := string(rep.Stats[k])
		var str string
		if json.Unmarshal(rep.Stats[k], &str) == nil {
			v = str
		}
		fmt.Fprintf(tw, "%s\t%s\n", k, v)
	}
	return tw.Flush()
}

// plural is "1 download", "2 downloads".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
