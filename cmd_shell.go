package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// shellSpider is the spider of a shell started without --spider.
const shellSpider = `export default class ShellSpider { name = "shell"; *parse() {} }`

const shellHelp = `Globals:
  response, request   the last page fetched and its request
  fetch(url)          download url (or a Request) and re-bind response and request
  spider              the spider instance (with --spider: yours)
  Request, Selector, sleep(ms), console.log(...)
Try:
  response.css("title::text").get()
  response.css("a::attr(href)").getall()
  await fetch(response.urljoin("page-2.html"))
Commands:
  .help      this text
  .history   the inputs of this session (and earlier ones, on a terminal)
  .break     discard the multi-line input being typed
  .exit      leave (or Ctrl-D)`

func shellCommand() *cli.Command {
	return &cli.Command{
		Name:      "shell",
		Usage:     "try selectors and spider code interactively: a JavaScript REPL with response, fetch() and your spider",
		ArgsUsage: "[URL|FILE]",
		Description: `Starts a JavaScript REPL on the crawler's JS runtime. With a URL, it is downloaded first and
bound to response (and its request to request); a path to a local file (./page.html) is
read instead. fetch(url) downloads another page through
the crawler (settings, -s, the spider's downloader middlewares) and re-binds response. With
--spider FILE the spider is loaded (its customSettings and -a arguments apply) and bound to
spider, so its methods can be called on the page. With --browser (or --wait-for CSS) the
URL is rendered in headless Chromium; fetch(url, { browser: true }) renders another one.

Each input's value is printed as Node's REPL does; a promise is awaited first, and await
works at the top level. An input that is not finished (an open bracket or block) continues
on the next line. Errors are printed and the REPL goes on. .help lists what is there;
.exit or Ctrl-D leaves. Ctrl-C stops a running evaluation (an endless loop restarts the VM).

Examples:
   jscrawl shell https://example.com/
   jscrawl shell https://example.com/ --spider spider.ts -a category=travel
   jscrawl shell ./saved-page.html
   jscrawl shell --browser https://example.com/app   (response is the page Chromium rendered)
   echo 'response.css("title::text").get()' | jscrawl shell https://example.com/`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "spider", Usage: "load the spider `FILE` and bind it to spider"},
		}, append(browserFlags(), spiderFlags("WARNING")...)...),
		Action: shellAction,
	}
}

func shellAction(c *cli.Context) error {
	if c.NArg() > 1 {
		return usageError("shell takes at most one URL (got %d): jscrawl shell [URL] [--spider FILE]", c.NArg())
	}
	ls, err := readFlags(c, loadOptions{logLevel: "WARNING"})
	if err != nil {
		return err
	}
	defer ls.Close()
	if file := c.String("spider"); file != "" {
		err = ls.load(file)
	} else {
		err = ls.loadSource("shell", shellSpider)
	}
	if err != nil {
		return err
	}
	spider, settings, stdout, stderr := ls.spider, ls.settings, ls.stdout, ls.stderr
	// A local file becomes the response; its file: URL must pass the scheme check of the
	// Request it carries.
	var local *types.Response
	if c.NArg() == 1 {
		resp, ok, err := localResponse(c.Args().First())
		if err != nil {
			return cli.Exit(fmt.Sprintf("shell: %v", err), 1)
		}
		if ok {
			local = resp
			if err := settings.Set(types.DownloadSchemes, append(slices.Clone(settings.List(types.DownloadSchemes)), "file"), types.PriorityCmdline+1); err != nil {
				return err
			}
		}
	}
	eng, err := ls.newEngine()
	if err != nil {
		return err
	}
	defer func() { _ = eng.CloseHandlers() }() // the engine does not Run: close a Chromium fetch() started
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	if err := spider.Open(ctx); err != nil {
		ls.logger.Warn(fmt.Sprintf("The spider did not open: %v", err))
	}

	var outMu sync.Mutex
	println := func(s string) {
		outMu.Lock()
		defer outMu.Unlock()
		fmt.Fprintln(stdout, s)
	}
	repl, err := spider.Dev().NewREPL(println)
	if err != nil {
		return cli.Exit(fmt.Sprintf("shell: %v", err), 1)
	}
	in := c.App.Reader
	if in == nil {
		in = os.Stdin
	}
	sh := &shell{repl: repl, in: in, println: println, stderr: stderr, interactive: isTerminal(in)}
	if sh.interactive {
		sh.loadHistory()
	}
	if c.NArg() == 1 {
		target := c.Args().First()
		if local != nil {
			if err := repl.SetResponse(ctx, local); err != nil {
				return cli.Exit(fmt.Sprintf("shell: %v", err), 1)
			}
		} else {
			u, _ := json.Marshal(target)
			init := ""
			if ls.browser != nil {
				b, _ := json.Marshal(ls.browser)
				init = ", { browser: " + string(b) + " }"
			}
			if _, err := repl.Eval(ctx, "fetch("+string(u)+init+")"); err != nil {
				fmt.Fprintf(stderr, "Could not fetch %s: %v\n", target, err)
			}
		}
	}
	bound := "response is not bound yet: fetch(url) downloads a page"
	if r := repl.Response(); r != nil {
		bound = fmt.Sprintf("response: <%d %s>", r.Status, r.URL)
	}
	fmt.Fprintf(stderr, "jscrawl shell (spider %q); %s. .help for help, .exit or Ctrl-D to leave.\n", spider.Name(), bound)
	return sh.run(ctx)
}

// shell is the read-eval-print loop over lines of input.
type shell struct {
	repl        *jsapi.REPL
	in          io.Reader
	println     func(string)
	stderr      io.Writer
	interactive bool
	history     []string
	histFile    string
}

func (sh *shell) prompt(s string) {
	if sh.interactive {
		fmt.Fprint(sh.stderr, s)
	}
}

func (sh *shell) run(ctx context.Context) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	read, ok := sh.terminalReader()
	if !ok {
		read = sh.lineReader(ctx, sigs)
	}

	var buf strings.Builder
	interrupted := false
	for {
		prompt := "> "
		if buf.Len() > 0 {
			prompt = "... "
		}
		line, ev := read(prompt)
		switch ev {
		case inputStop:
			fmt.Fprintln(sh.stderr)
			return nil
		case inputInterrupt:
			if interrupted {
				fmt.Fprintln(sh.stderr)
				return nil
			}
			interrupted = true
			buf.Reset()
			fmt.Fprintln(sh.stderr, "\n(To exit, press Ctrl-C again or Ctrl-D or type .exit)")
			continue
		case inputEOF:
			if sh.interactive {
				fmt.Fprintln(sh.stderr)
			}
			return nil
		}
		interrupted = false
		if buf.Len() == 0 {
			switch cmd := strings.TrimSpace(line); {
			case cmd == "":
				continue
			case cmd == ".exit":
				return nil
			case cmd == ".help":
				sh.println(shellHelp)
				continue
			case cmd == ".history":
				for _, h := range sh.history {
					sh.println(h)
				}
				continue
			case cmd == ".break" || cmd == ".clear":
				continue
			case strings.HasPrefix(cmd, ".") && !strings.HasPrefix(cmd, ".."):
				if len(cmd) > 1 && (cmd[1] < '0' || cmd[1] > '9') {
					sh.println(fmt.Sprintf("Invalid REPL keyword %s (.help lists them)", cmd))
					continue
				}
			}
		} else if strings.TrimSpace(line) == ".break" {
			buf.Reset()
			continue
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		src := buf.String()
		if runtime.Incomplete(src) {
			continue
		}
		buf.Reset()
		sh.remember(strings.TrimRight(src, "\n"))
		sh.eval(ctx, src, sigs)
	}
}

// inputEvent is what reading a line gave besides the line.
type inputEvent int

const (
	inputLine      inputEvent = iota
	inputEOF                  // Ctrl-D or the end of the input
	inputInterrupt            // Ctrl-C
	inputStop                 // SIGTERM
)

// lineReader reads lines from sh.in on a goroutine (a pipe or a file), showing the prompt
// on a terminal; a SIGINT while waiting is an interrupt.
func (sh *shell) lineReader(ctx context.Context, sigs <-chan os.Signal) func(prompt string) (string, inputEvent) {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(sh.in)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	return func(prompt string) (string, inputEvent) {
		sh.prompt(prompt)
		select {
		case line, ok := <-lines:
			if !ok {
				return "", inputEOF
			}
			return line, inputLine
		case sig := <-sigs:
			if sig == syscall.SIGTERM {
				return "", inputStop
			}
			return "", inputInterrupt
		}
	}
}

// terminalReader reads lines with editing and history (arrow keys, Ctrl-A/E/K/U/W, the
// inputs of earlier sessions) when sh.in is a terminal: raw mode only while a line is read,
// so Ctrl-C still interrupts a running evaluation with SIGINT.
func (sh *shell) terminalReader() (func(prompt string) (string, inputEvent), bool) {
	f, ok := sh.in.(*os.File)
	if !ok || !sh.interactive || !term.IsTerminal(int(f.Fd())) {
		return nil, false
	}
	fd := int(f.Fd())
	ctrlC := &ctrlCReader{r: f}
	rw := struct {
		io.Reader
		io.Writer
	}{ctrlC, sh.stderr}
	t := term.NewTerminal(rw, "> ")
	for _, h := range sh.history {
		if !strings.Contains(h, "\n") {
			t.History.Add(h)
		}
	}
	return func(prompt string) (string, inputEvent) {
		old, err := term.MakeRaw(fd)
		if err != nil {
			return "", inputEOF
		}
		t.SetPrompt(prompt)
		ctrlC.seen = false
		line, err := t.ReadLine()
		_ = term.Restore(fd, old)
		switch {
		case err == nil:
			return line, inputLine
		case ctrlC.seen:
			// term.Terminal keeps the Ctrl-C in its input and would see it again: start a
			// new one with the same history.
			h := t.History
			t = term.NewTerminal(rw, prompt)
			t.History = h
			return "", inputInterrupt
		}
		return "", inputEOF
	}, true
}

// ctrlCReader notes a Ctrl-C byte in what it reads: term.Terminal reports Ctrl-C and
// Ctrl-D alike (io.EOF).
type ctrlCReader struct {
	r    io.Reader
	seen bool
}

func (c *ctrlCReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if bytes.IndexByte(p[:n], 3) >= 0 {
		c.seen = true
	}
	return n, err
}

// eval runs one input; Ctrl-C stops it.
func (sh *shell) eval(ctx context.Context, src string, sigs <-chan os.Signal) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := sh.repl.Eval(ctx, src)
		done <- result{out, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-sigs:
		cancel()
		broke := sh.repl.Interrupt(200 * time.Millisecond)
		r = <-done
		switch {
		case broke:
			r.err = fmt.Errorf("interrupted; %w", jsapi.ErrRestarted)
		case errors.Is(r.err, context.Canceled):
			r.err = errors.New("interrupted")
		}
	}
	switch {
	case errors.Is(r.err, jsapi.ErrRestarted):
		sh.println("Uncaught: " + r.err.Error())
	case r.err != nil:
		sh.println("Uncaught " + r.err.Error())
	default:
		sh.println(r.out)
	}
}

// remember adds an input to the history, and to the history file on a terminal.
func (sh *shell) remember(entry string) {
	sh.history = append(sh.history, entry)
	if len(sh.history) > 1000 {
		sh.history = sh.history[len(sh.history)-1000:]
	}
	if sh.histFile == "" {
		return
	}
	f, err := os.OpenFile(sh.histFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	b, _ := json.Marshal(entry) // one line per entry, multi-line inputs included
	_, _ = f.Write(append(b, '\n'))
}

// loadHistory reads earlier sessions' inputs from the history file under the user's
// cache folder (jscrawl/shell_history), which later inputs are appended to.
func (sh *shell) loadHistory() {
	dir, err := os.UserCacheDir()
	if err != nil {
		return
	}
	dir = filepath.Join(dir, "jscrawl")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	sh.histFile = filepath.Join(dir, "shell_history")
	data, err := os.ReadFile(sh.histFile)
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(data), "\n") {
		var entry string
		if json.Unmarshal([]byte(l), &entry) == nil {
			sh.history = append(sh.history, entry)
		}
	}
	if len(sh.history) > 1000 {
		sh.history = sh.history[len(sh.history)-1000:]
	}
}

// localResponse makes a response of a local file, as Scrapy's shell opens ./page.html: ok
// is false when target is not an existing file path (a URL, for instance).
func localResponse(target string) (*types.Response, bool, error) {
	if strings.Contains(target, "://") {
		return nil, false, nil
	}
	if fi, err := os.Stat(target); err != nil || fi.IsDir() {
		return nil, false, nil
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return nil, true, err
	}
	body, err := os.ReadFile(abs)
	if err != nil {
		return nil, true, err
	}
	ct := mime.TypeByExtension(filepath.Ext(abs))
	if ct == "" {
		ct = "text/html"
	}
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	return &types.Response{URL: u, Status: 200, Headers: http.Header{"Content-Type": {ct}}, Body: body,
		Request: &types.Request{URL: u}}, true, nil
}
