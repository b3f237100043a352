package broadsite

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configures a Site.
type Options struct {
	// Latency is how long the site takes to answer each request (0: at once). A latency
	// lets the site see two requests to one host in flight at the same time.
	Latency time.Duration
}

// Site serves a Graph on loopback: one listener per host, on HostAddr(h) and the same Port
// for every host, so page N of host h is http://127.0.x.y:Port/page/N. It records, per
// host, when each request arrived, how many requests were in flight at once and how many
// times each page was requested. /robots.txt allows everything (counted as a request,
// not a page). Its methods are safe for concurrent use.
type Site struct {
	Graph Graph
	// Port is the TCP port of every host.
	Port int

	opts  Options
	srv   *http.Server
	lns   []net.Listener
	hosts []*hostLog
	serve sync.WaitGroup
}

// hostLog is what one host saw.
type hostLog struct {
	mu       sync.Mutex
	arrivals []time.Time // every request's arrival, in order
	hits     []int       // per page: the requests for it
	other    int         // requests that were not for a page (robots.txt, a 404)
	inFlight int
	maxIn    int
}

// Start listens on every host's address and serves g until Close. It fails when an
// address cannot be listened on: on Linux 127.0.0.0/8 is all loopback; elsewhere each
// address needs an alias. Each host needs one file descriptor (see RaiseFileLimit).
func Start(g Graph, opts Options) (*Site, error) {
	s := &Site{Graph: g, opts: opts, hosts: make([]*hostLog, g.Hosts)}
	for h := range s.hosts {
		s.hosts[h] = &hostLog{hits: make([]int, g.Pages)}
	}
	var err error
	for range 20 { // the port the kernel gave host 0 can be taken on another address
		if err = s.listen(); err == nil || !errors.Is(err, syscall.EADDRINUSE) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle), ReadHeaderTimeout: 30 * time.Second}
	for _, ln := range s.lns {
		s.serve.Go(func() { _ = s.srv.Serve(ln) })
	}
	return s, nil
}

// listen opens every host's listener on one port, or none.
func (s *Site) listen() error {
	s.lns = s.lns[:0]
	fail := func(err error) error {
		for _, ln := range s.lns {
			_ = ln.Close()
		}
		s.lns = nil
		return err
	}
	for h := range s.Graph.Hosts {
		port := 0
		if h > 0 {
			port = s.Port
		}
		ln, err := net.Listen("tcp", netip.AddrPortFrom(HostAddr(h), uint16(port)).String())
		if err != nil {
			return fail(fmt.Errorf("listen for host %d of %d: %w", h+1, s.Graph.Hosts, err))
		}
		if h == 0 {
			s.Port = ln.Addr().(*net.TCPAddr).Port
		}
		s.lns = append(s.lns, ln)
	}
	return nil
}

// Close stops the site: it closes the listeners and the connections and waits for the
// servers to end. What the site recorded stays readable.
func (s *Site) Close() error {
	err := s.srv.Close()
	s.serve.Wait()
	return err
}

// URL returns the address of page p.
func (s *Site) URL(p Page) string {
	return "http://" + netip.AddrPortFrom(HostAddr(p.Host), uint16(s.Port)).String() + "/page/" + strconv.Itoa(p.N)
}

// StartURLs returns the URLs of the graph's Starts.
func (s *Site) StartURLs() []string {
	var out []string
	for _, p := range s.Graph.Starts() {
		out = append(out, s.URL(p))
	}
	return out
}

// Arrivals returns when each request to host h arrived, in order.
func (s *Site) Arrivals(h int) []time.Time {
	l := s.hosts[h]
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.arrivals)
}

// Hits returns how many times page p was requested.
func (s *Site) Hits(p Page) int {
	l := s.hosts[p.Host]
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hits[p.N]
}

// MaxInFlight returns the most requests host h had in flight at once.
func (s *Site) MaxInFlight(h int) int {
	l := s.hosts[h]
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.maxIn
}

func (s *Site) handle(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	h := -1
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok {
		h = HostOf(a.AddrPort().Addr())
	}
	if h < 0 || h >= len(s.hosts) {
		http.Error(w, "no such host", http.StatusMisdirectedRequest)
		return
	}
	l := s.hosts[h]
	n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/page/"))
	page := r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/page/") && err == nil && n >= 0 && n < s.Graph.Pages
	l.mu.Lock()
	l.arrivals = append(l.arrivals, now)
	if page {
		l.hits[n]++
	} else {
		l.other++
	}
	l.inFlight++
	l.maxIn = max(l.maxIn, l.inFlight)
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.inFlight--
		l.mu.Unlock()
	}()
	if s.opts.Latency > 0 {
		t := time.NewTimer(s.opts.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	switch {
	case r.URL.Path == "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("User-agent: *\nAllow: /\n"))
	case page:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(s.html(Page{Host: h, N: n})))
	default:
		http.NotFound(w, r)
	}
}

// html is page p: a title and its links, the next page of its host as a relative link,
// the others absolute.
func (s *Site) html(p Page) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head><title>Host %d page %d</title></head><body><h1>Host %d page %d</h1><ul>\n", p.Host+1, p.N, p.Host+1, p.N)
	for _, q := range s.Graph.Links(p) {
		href := s.URL(q)
		if q.Host == p.Host {
			href = "/page/" + strconv.Itoa(q.N)
		}
		fmt.Fprintf(&b, "<li><a href=\"%s\">host %d page %d</a></li>\n", href, q.Host+1, q.N)
	}
	b.WriteString("</ul></body></html>\n")
	return b.String()
}
