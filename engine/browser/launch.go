package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"

	"github.com/chromedp/chromedp"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// Chromium itself: the executable (Find), the running process (browserProc), and its start
// and restart after a crash (Handler.browser).

// browserNames are the executables looked up on PATH when BROWSER_EXECUTABLE is empty.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome"}

// disabledFeatures are the Chromium features a crawl's browser runs without
// (--disable-features, which replaces chromedp's default list: its Translate and
// BlinkGenPropertyTrees come first). The others make Chromium send requests of its own,
// which a crawl's browser must not: from the incognito context of each tab they go
// through the request's proxy, and all go to Google. Chromium's net log names each
// request's traffic annotation; those seen with Chromium 148:
//   - PreconnectToSearch and SearchEnginePreconnect2: the SearchEnginePreconnector keeps a
//     connection to the default search engine (CONNECT www.google.com:443) open in every
//     profile, opened again whenever it fails or closes;
//   - AimEnabled: the omnibox's AI Mode eligibility service fetches
//     https://www.google.com/async/folae when a profile starts, each tab's incognito
//     context included (aim_eligibility_fetch);
//   - NetworkTimeServiceQuerying: the network time tracker asks clients2.google.com for
//     the time (network_time_component);
//   - OptimizationHints: the optimization guide fetches its models from
//     optimizationguide-pa.googleapis.com.
var disabledFeatures = []string{
	"Translate", "BlinkGenPropertyTrees",
	"PreconnectToSearch", "SearchEnginePreconnect2",
	"AimEnabled",
	"NetworkTimeServiceQuerying",
	"OptimizationHints",
}

// browserProc is one running Chromium.
type browserProc struct {
	ctx     context.Context // chromedp's browser context; done when Chromium is gone
	cancel  context.CancelFunc
	closing atomic.Bool // closed on purpose: its end is no crash
	exited  chan struct{}
}

// lost reports whether Chromium is gone: its context ended, its connection dropped, or its
// process exited. The tab's call can fail with the connection before the watcher of the
// browser's context has seen it end, so the connection is looked at too.
func (p *browserProc) lost() bool {
	if p.ctx.Err() != nil {
		return true
	}
	if c := chromedp.FromContext(p.ctx); c != nil && c.Browser != nil {
		select {
		case <-c.Browser.LostConnection:
			return true
		default:
		}
	}
	return false
}

// Find returns the path of the Chromium that browser requests start: executable
// (BROWSER_EXECUTABLE) looked up on PATH, or without it the first of chromium,
// chromium-browser and google-chrome found there.
func Find(setting string) (string, error) {
	if setting != "" {
		p, err := exec.LookPath(setting)
		if err != nil {
			return "", fmt.Errorf("%s %q: %w (install Chromium with apt-get install chromium, or name another binary)", types.BrowserExecutable, setting, err)
		}
		return p, nil
	}
	for _, n := range browserNames {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium found on PATH (looked for %s): install one with apt-get install chromium, or set %s",
		strings.Join(browserNames, ", "), types.BrowserExecutable)
}

// browser returns the running Chromium, starting it when there is none or it died.
func (h *Handler) browser(req *types.Request) (*browserProc, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, &engine.DownloadError{Name: engine.NameCancelled, URL: req.URL, Err: errors.New("the browser is closed")}
	}
	if h.proc != nil && h.proc.ctx.Err() == nil {
		return h.proc, nil
	}
	path, err := Find(h.executable)
	if err != nil {
		return nil, &engine.DownloadError{Name: engine.NameBrowserNotFound, URL: req.URL, Err: err}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.Flag("disable-features", strings.Join(disabledFeatures, ",")))
	if os.Geteuid() == 0 {
		h.rootOnce.Do(func() {
			h.env.Logger().Warn("Running Chromium without its sandbox (--no-sandbox): jscrawl runs as root")
		})
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(allocCtx)
	if err := chromedp.Do(bctx); err != nil {
		bcancel()
		allocCancel()
		return nil, &engine.DownloadError{Name: engine.NameBrowserNotFound, URL: req.URL, Err: fmt.Errorf("start %s: %w", path, err)}
	}
	p := &browserProc{ctx: bctx, exited: make(chan struct{})}
	p.cancel = func() {
		bcancel()
		allocCancel()
	}
	pid := 0
	if c := chromedp.FromContext(bctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		pid = c.Browser.Process().Pid
	}
	h.env.Logger().Info(fmt.Sprintf("Started Chromium (%s, pid %d) for browser requests", path, pid))
	go func() {
		<-bctx.Done()
		if !p.closing.Load() {
			h.env.Stats().Inc("browser/crash_count", 1)
			h.env.Logger().Warn(fmt.Sprintf("Chromium (pid %d) exited unexpectedly: the next browser request starts it again", pid))
		}
		p.cancel()
		close(p.exited)
	}()
	h.proc = p
	return p, nil
}
