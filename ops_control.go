package main

import (
	"cmp"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/urfave/cli/v2"
)

// The control endpoint: every `jscrawl run` serves HTTP with JSON endpoints on a unix
// socket <temp dir>/jscrawl-<uid>/<pid>.sock (the folder is private to the user), and on
// TCP with --control ADDR, where every request must carry the token
// ("Authorization: Bearer TOKEN"). Endpoints: GET /info, /ps, /stats (JSON) and /metrics
// (Prometheus text). `jscrawl ps`, `pstree` and `stats` are its clients.

// controlFlags are run's options for the control endpoint and metrics.
func controlFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "control", Usage: "also serve the control endpoint (jscrawl ps/pstree/stats) on TCP `ADDR`, such as 127.0.0.1:6023; clients need the token"},
		&cli.StringFlag{Name: "control-token", EnvVars: []string{"JSCRAWL_CONTROL_TOKEN"}, Usage: "the `TOKEN` --control clients must pass (default: a random one, printed in the log)"},
		&cli.StringFlag{Name: "metrics", Usage: "serve Prometheus metrics at http://`ADDR`/metrics, such as 127.0.0.1:9410"},
	}
}

// controlDir is the folder of the control sockets of the user's crawls.
func controlDir() string {
	uid := os.Getuid()
	name := "jscrawl-" + strconv.Itoa(uid)
	if uid < 0 { // no uids (Windows)
		name = "jscrawl-" + cmp.Or(os.Getenv("USERNAME"), "user")
	}
	return filepath.Join(os.TempDir(), name)
}

// socketPath is the control socket of the crawl with pid.
func socketPath(pid int) string { return filepath.Join(controlDir(), strconv.Itoa(pid)+".sock") }

// control is a crawl's control endpoint: listeners opened before the crawl starts (so a
// taken port fails at once), served once the engine exists.
type control struct {
	sock    net.Listener // nil when the socket could not be made
	sockErr error
	tcp     net.Listener // --control
	token   string
	given   bool         // the token came from --control-token
	metrics net.Listener // --metrics

	mu      sync.Mutex
	servers []*http.Server
	wg      sync.WaitGroup
}

// listenControl opens the control socket and the --control and --metrics listeners. A
// socket that cannot be made is reported later as a warning; a port that cannot be taken
// is an error.
func listenControl(c *cli.Context) (*control, error) {
	ctl := &control{}
	ctl.sock, ctl.sockErr = listenSocket(os.Getpid())
	fail := func(flag string, err error) (*control, error) {
		ctl.Close()
		return nil, cli.Exit(fmt.Sprintf("--%s: %v (is the port taken? pick another, or 127.0.0.1:0 for any)", flag, err), 1)
	}
	if addr := c.String("control"); addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fail("control", err)
		}
		ctl.tcp = l
		ctl.token, ctl.given = c.String("control-token"), true
		if ctl.token == "" {
			b := make([]byte, 16)
			_, _ = rand.Read(b)
			ctl.token, ctl.given = hex.EncodeToString(b), false
		}
	}
	if addr := c.String("metrics"); addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fail("metrics", err)
		}
		ctl.metrics = l
	}
	return ctl, nil
}

// listenSocket makes the private folder and listens on pid's socket in it.
func listenSocket(pid int) (net.Listener, error) {
	dir := controlDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := checkPrivateDir(dir); err != nil {
		return nil, err
	}
	path := socketPath(pid)
	_ = os.Remove(path) // left by a dead process with the same pid
	return net.Listen("unix", path)
}

// checkPrivateDir makes sure dir is a real folder (not a link) and, where the system has
// owners and modes, one of the current user's that nobody else can enter (keepPrivate).
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return keepPrivate(dir, fi)
}

// crawlInfo is GET /info, and what `jscrawl ps` lists when several crawls run.
type crawlInfo struct {
	PID     int       `json:"pid"`
	Spider  string    `json:"spider"`
	File    string    `json:"file"`
	Started time.Time `json:"started"`
	Version string    `json:"version"`
}

// crawlSource is what the endpoint reports on.
type crawlSource struct {
	info   crawlInfo
	engine *engine.Engine
	spider *jsapi.DevTools
}

// serve starts serving once the crawl is wired, and logs where.
func (ctl *control) serve(logger *slog.Logger, src crawlSource) {
	if ctl.sock != nil {
		ctl.start(ctl.sock, src.handler(""))
		logger.Info(fmt.Sprintf("Control socket %s (jscrawl ps %d)", ctl.sock.Addr(), src.info.PID))
	} else if ctl.sockErr != nil {
		logger.Warn(fmt.Sprintf("No control socket (jscrawl ps will not see this crawl): %v", ctl.sockErr))
	}
	if ctl.tcp != nil {
		ctl.start(ctl.tcp, src.handler(ctl.token))
		tok := "token " + ctl.token
		if ctl.given {
			tok = "token from --control-token"
		}
		logger.Info(fmt.Sprintf("Control endpoint http://%s (%s; jscrawl ps --control %s --token TOKEN)", ctl.tcp.Addr(), tok, ctl.tcp.Addr()))
	}
	if ctl.metrics != nil {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /metrics", src.serveMetrics)
		ctl.start(ctl.metrics, mux)
		logger.Info(fmt.Sprintf("Prometheus metrics at http://%s/metrics", ctl.metrics.Addr()))
	}
}

func (ctl *control) start(l net.Listener, h http.Handler) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	ctl.mu.Lock()
	ctl.servers = append(ctl.servers, srv)
	ctl.mu.Unlock()
	ctl.wg.Go(func() { _ = srv.Serve(l) })
}

// Close stops serving and removes the socket. Safe to call twice.
func (ctl *control) Close() {
	ctl.mu.Lock()
	servers := ctl.servers
	ctl.servers = nil
	ctl.mu.Unlock()
	for _, srv := range servers {
		_ = srv.Close() // closes its listener: a unix listener removes its socket file
	}
	for _, l := range []net.Listener{ctl.sock, ctl.tcp, ctl.metrics} {
		if l != nil {
			_ = l.Close()
		}
	}
	ctl.wg.Wait()
}

// handler serves the endpoints; a non-empty token is required from every request.
func (src crawlSource) handler(token string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /info", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, src.info) })
	mux.HandleFunc("GET /ps", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, src.ps(time.Now())) })
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, src.stats(time.Now())) })
	mux.HandleFunc("GET /metrics", src.serveMetrics)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such endpoint: use GET /info, /ps, /stats or /metrics"})
	})
	if token == "" {
		return mux
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="jscrawl"`)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "missing or wrong token: pass the one printed in the crawl's log (--token, or Authorization: Bearer TOKEN)"})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// psReport is GET /ps: what is in flight now. Ages are in seconds, at Time.
type psReport struct {
	PID       int          `json:"pid"`
	Spider    string       `json:"spider"`
	Time      time.Time    `json:"time"`
	Downloads []psDownload `json:"downloads"`
	Callbacks []psCallback `json:"callbacks"`
	// Slots are the download slots with the most queued requests (engine.Slots).
	Slots []engine.SlotInfo `json:"slots"`
}

// psDownload is a download in flight (engine.DownloadInfo) with its age and, for an
// inline download, the callback awaiting it and where that callback started it.
type psDownload struct {
	engine.DownloadInfo
	Age      float64 `json:"age"`
	Inline   bool    `json:"inline"`
	Callback uint64  `json:"callback,omitempty"`
	Location string  `json:"location,omitempty"`
}

// psCallback is a running callback (jsapi.CallbackInfo) with its age and what it awaits.
type psCallback struct {
	ID      uint64    `json:"id"`
	Method  string    `json:"method"`
	URL     string    `json:"url"`
	Started time.Time `json:"started"`
	Age     float64   `json:"age"`
	VM      int       `json:"vm"`
	Awaits  []psAwait `json:"awaits"`
}

// psAwait is an inline download a callback awaits: Download is the engine download's id and
// State its state once it has reached the downloader (before that: "in middlewares").
type psAwait struct {
	jsapi.InlineDownload
	Age      float64 `json:"age"`
	Download uint64  `json:"download,omitempty"`
	State    string  `json:"state"`
}

// stateInMiddlewares is an inline download not at the bottom of the downloader chain: in a
// downloader middleware, or done and handing its response over.
const stateInMiddlewares = "in middlewares"

func age(now, t time.Time) float64 { return now.Sub(t).Seconds() }

// ps joins the engine's downloads with the spider's callbacks and inline downloads.
func (src crawlSource) ps(now time.Time) psReport {
	rep := psReport{PID: src.info.PID, Spider: src.info.Spider, Time: now,
		Downloads: []psDownload{}, Callbacks: []psCallback{}, Slots: src.engine.Slots()}
	if rep.Slots == nil {
		rep.Slots = []engine.SlotInfo{}
	}
	callbacks, orphans := src.spider.Running()
	downloads := src.engine.Downloads()
	inline := map[uint64]jsapi.InlineDownload{}
	for _, o := range orphans {
		inline[o.ID] = o
	}
	for _, c := range callbacks {
		for _, a := range c.Awaits {
			inline[a.ID] = a
		}
	}
	byOrigin := map[uint64]engine.DownloadInfo{}
	for _, d := range downloads {
		pd := psDownload{DownloadInfo: d, Age: age(now, d.Started), Inline: d.Origin != 0}
		if d.Origin != 0 {
			byOrigin[d.Origin] = d
			if in, ok := inline[d.Origin]; ok {
				pd.Callback, pd.Location = in.Callback, in.Location
			}
		}
		rep.Downloads = append(rep.Downloads, pd)
	}
	for _, c := range callbacks {
		pc := psCallback{ID: c.ID, Method: c.Method, URL: c.URL, Started: c.Started, Age: age(now, c.Started), VM: c.VM, Awaits: []psAwait{}}
		for _, a := range c.Awaits {
			pa := psAwait{InlineDownload: a, Age: age(now, a.Started), State: stateInMiddlewares}
			if d, ok := byOrigin[a.ID]; ok {
				pa.Download, pa.State = d.ID, d.State
			}
			pc.Awaits = append(pc.Awaits, pa)
		}
		rep.Callbacks = append(rep.Callbacks, pc)
	}
	return rep
}

// statsReport is GET /stats: the stats collector's values now and a few live gauges.
type statsReport struct {
	PID    int            `json:"pid"`
	Spider string         `json:"spider"`
	Time   time.Time      `json:"time"`
	Live   liveGauges     `json:"live"`
	Stats  map[string]any `json:"stats"`
}

type liveGauges struct {
	Elapsed   float64 `json:"elapsed_seconds"`
	Downloads int     `json:"downloads_in_flight"`
	Callbacks int     `json:"callbacks_running"`
	Backlog   int     `json:"scheduler_backlog"`
}

func (src crawlSource) live(now time.Time) liveGauges {
	callbacks, _ := src.spider.Running()
	return liveGauges{Elapsed: age(now, src.info.Started), Downloads: len(src.engine.Downloads()),
		Callbacks: len(callbacks), Backlog: src.engine.Backlog()}
}

func (src crawlSource) stats(now time.Time) statsReport {
	return statsReport{PID: src.info.PID, Spider: src.info.Spider, Time: now, Live: src.live(now), Stats: src.engine.Stats().Snapshot()}
}

func (src crawlSource) serveMetrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	now := time.Now()
	_, _ = w.Write(prometheusText(src.info.Spider, src.engine.Stats().Snapshot(), src.live(now)))
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
