// Package demosite is jscrawl's built-in offline demo site: a deterministic bookstore with a
// paginated catalogue, detail pages and category listings (modelled on books.toscrape.com), a
// small JSON API, a quotes section (modelled on quotes.toscrape.com), a slow endpoint, a
// status endpoint and a robots.txt. `jscrawl demo` serves it and `jscrawl run --demo` starts
// it in-process, so the examples and the tests never need the network.
//
// Routes:
//
//	/ and /index.html                                 home, with the category sidebar
//	/catalogue/page-N.html                            N = 1..5, 20 books a page
//	/catalogue/<slug>_<id>/index.html                 a book's detail page
//	/catalogue/category/books/<cat>_<n>/index.html    a category listing (page-N.html after)
//	/api/books?page=N, /api/books/<id>                JSON
//	/quotes/, /quotes/page/N/                         10 quotes a page
//	/quotes/author/<slug>/, /quotes/tag/<tag>/        author and tag pages
//	/delay?ms=N                                       answers after N ms (at most 10 s)
//	/status/N                                         answers with status N (200..599)
//	/robots.txt, /private/                            robots.txt disallows /private/ and names
//	                                                  the sitemap
//	/sitemap.xml, /sitemaps/<name>                    a sitemap index and its (gzipped) sitemaps
//	/feeds/books.rss, /feeds/books.csv                every book as RSS and as CSV
//	/js/...                                           pages that need a browser (browser.go)
package demosite

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxDelay caps the wait of /delay?ms=N.
const MaxDelay = 10 * time.Second

//go:embed templates/*.html
var templateFS embed.FS

// site serves one catalogue with its parsed templates.
type site struct {
	cat    *catalogue
	pages  map[string]*template.Template // "home", "listing", "book", ...
	covers sync.Map                      // book ID → func() []byte, its cover PNG (browser.go)
}

// Handler returns the demo site's handler. Its content is the same on every call and on every
// machine; it is safe for concurrent use.
func Handler() http.Handler {
	s := &site{cat: newCatalogue(), pages: parseTemplates()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.home)
	mux.HandleFunc("GET /index.html", s.home)
	mux.HandleFunc("GET /catalogue/{page}", s.cataloguePage)
	mux.HandleFunc("GET /catalogue/{book}/index.html", s.bookPage)
	mux.HandleFunc("GET /catalogue/category/books/{cat}/index.html", s.categoryPage)
	mux.HandleFunc("GET /catalogue/category/books/{cat}/{page}", s.categoryPage)
	mux.HandleFunc("GET /api/books", s.apiBooks)
	mux.HandleFunc("GET /api/books/{id}", s.apiBook)
	mux.HandleFunc("GET /quotes/{$}", s.quotesPage)
	mux.HandleFunc("GET /quotes/page/{n}/{$}", s.quotesPage)
	mux.HandleFunc("GET /quotes/tag/{tag}/{$}", s.tagPage)
	mux.HandleFunc("GET /quotes/author/{slug}/{$}", s.authorPage)
	mux.HandleFunc("GET /private/{$}", s.private)
	mux.HandleFunc("GET /robots.txt", robots)
	mux.HandleFunc("GET /sitemap.xml", s.sitemapIndex)
	mux.HandleFunc("GET /sitemaps/{name}", s.sitemap)
	mux.HandleFunc("GET /feeds/books.rss", s.rss)
	mux.HandleFunc("GET /feeds/books.csv", s.csv)
	mux.HandleFunc("GET /delay", delay)
	mux.HandleFunc("GET /status/{code}", status)
	s.browserRoutes(mux)
	return mux
}

// Server is a running demo site. Close it when done.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	err  error // from Serve, read after done is closed
}

// Start serves the demo site on addr ("host:port") in a background goroutine. An empty addr
// or "127.0.0.1:0" picks a free loopback port; URL tells which.
func Start(addr string) (*Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("demo site: listen on %s: %w", addr, err)
	}
	s := &Server{
		srv:  &http.Server{Handler: Handler(), ReadHeaderTimeout: 10 * time.Second},
		ln:   ln,
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.err = fmt.Errorf("demo site: serve: %w", err)
		}
	}()
	return s, nil
}

// URL returns the site's base URL without a trailing slash, such as "http://127.0.0.1:8000".
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server at once, cancelling requests in flight, and waits for it to stop.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return errors.Join(err, s.err)
}

func parseTemplates() map[string]*template.Template {
	funcs := template.FuncMap{"join": strings.Join, "truncate": truncate}
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html"))
	pages := map[string]*template.Template{}
	for _, name := range []string{"home", "listing", "book", "quotes", "author", "private", "browser"} {
		pages[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, "templates/"+name+".html"))
	}
	return pages
}

// truncate shortens a title for a listing as books.toscrape.com does; the full title is in
// the link's title attribute.
func truncate(s string) string {
	r := []rune(s)
	if len(r) <= 30 {
		return s
	}
	cut := strings.LastIndexByte(string(r[:30]), ' ')
	if cut < 0 {
		return string(r[:30]) + "..."
	}
	return string(r[:30])[:cut] + " ..."
}

func (s *site) render(w http.ResponseWriter, r *http.Request, page string, data any) {
	var buf bytes.Buffer
	if err := s.pages[page].ExecuteTemplate(&buf, "layout", data); err != nil {
		slog.Error("demo site: render", "page", page, "url", r.URL.String(), "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// pageNumber parses "page-N.html" and "N"; ok is false for anything else, leading zeros
// included, so every page has one URL.
func pageNumber(s string) (n int, ok bool) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "page-"), ".html")
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && strconv.Itoa(n) == s
}

type listingData struct {
	Root       string // relative path from the page to /catalogue/
	Categories []*category
	Heading    string
	Books      []*book
	Count      int // home only: books in the store
	Page       int
	Pages      int
	Total      int
	From, To   int
	Prev, Next string
}

func (s *site) home(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, "home", listingData{Root: "catalogue/", Categories: s.cat.categories, Count: len(s.cat.books)})
}

func (s *site) cataloguePage(w http.ResponseWriter, r *http.Request) {
	p, ok := pageNumber(r.PathValue("page"))
	if !ok || !strings.HasPrefix(r.PathValue("page"), "page-") || !strings.HasSuffix(r.PathValue("page"), ".html") {
		http.NotFound(w, r)
		return
	}
	s.listing(w, r, "All products", "", s.cat.books, p, func(n int) string { return fmt.Sprintf("page-%d.html", n) })
}

func (s *site) categoryPage(w http.ResponseWriter, r *http.Request) {
	c := s.cat.categoryByDir(r.PathValue("cat"))
	p, ok := 1, true
	if name := r.PathValue("page"); name != "" {
		p, ok = pageNumber(name)
		ok = ok && strings.HasPrefix(name, "page-") && strings.HasSuffix(name, ".html")
	}
	if c == nil || !ok {
		http.NotFound(w, r)
		return
	}
	s.listing(w, r, c.Name, "../../../", c.Books, p, func(n int) string {
		if n == 1 {
			return "index.html"
		}
		return fmt.Sprintf("page-%d.html", n)
	})
}

func (s *site) listing(w http.ResponseWriter, r *http.Request, heading, root string, all []*book, p int, href func(int) string) {
	books, ok := page(all, p, booksPerPage)
	if !ok {
		http.NotFound(w, r)
		return
	}
	d := listingData{
		Root: root, Categories: s.cat.categories, Heading: heading, Books: books,
		Page: p, Pages: pages(len(all), booksPerPage), Total: len(all),
		From: (p-1)*booksPerPage + 1, To: (p-1)*booksPerPage + len(books),
	}
	if p > 1 {
		d.Prev = href(p - 1)
	}
	if p < d.Pages {
		d.Next = href(p + 1)
	}
	s.render(w, r, "listing", d)
}

func (s *site) bookByDir(dir string) *book {
	i := strings.LastIndexByte(dir, '_')
	if i < 0 {
		return nil
	}
	id, err := strconv.Atoi(dir[i+1:])
	if err != nil {
		return nil
	}
	if b := s.cat.book(id); b != nil && b.Slug == dir {
		return b
	}
	return nil
}

func (s *site) bookPage(w http.ResponseWriter, r *http.Request) {
	b := s.bookByDir(r.PathValue("book"))
	if b == nil {
		http.NotFound(w, r)
		return
	}
	s.render(w, r, "book", struct{ Book *book }{b})
}

type quotesData struct {
	Heading    string
	Tag        string
	Quotes     []*quote
	Prev, Next string
}

func (s *site) quotesPage(w http.ResponseWriter, r *http.Request) {
	p, ok := 1, true
	if n := r.PathValue("n"); n != "" {
		p, ok = pageNumber(n)
	}
	quotes, inRange := page(s.cat.quotes, p, quotesPerPage)
	if !ok || !inRange {
		http.NotFound(w, r)
		return
	}
	d := quotesData{Heading: fmt.Sprintf("Quotes (page %d)", p), Quotes: quotes}
	if p > 1 {
		d.Prev = fmt.Sprintf("/quotes/page/%d/", p-1)
	}
	if p < pages(len(s.cat.quotes), quotesPerPage) {
		d.Next = fmt.Sprintf("/quotes/page/%d/", p+1)
	}
	s.render(w, r, "quotes", d)
}

func (s *site) tagPage(w http.ResponseWriter, r *http.Request) {
	tag := r.PathValue("tag")
	d := quotesData{Heading: "Quotes tagged " + tag, Tag: tag}
	for _, q := range s.cat.quotes {
		for _, t := range q.Tags {
			if t == tag {
				d.Quotes = append(d.Quotes, q)
			}
		}
	}
	if len(d.Quotes) == 0 {
		http.NotFound(w, r)
		return
	}
	s.render(w, r, "quotes", d)
}

func (s *site) authorPage(w http.ResponseWriter, r *http.Request) {
	a := s.cat.authorBySlug(r.PathValue("slug"))
	if a == nil {
		http.NotFound(w, r)
		return
	}
	s.render(w, r, "author", struct{ Author *author }{a})
}

func (s *site) private(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, "private", nil)
}

// APIBookSummary is one entry of /api/books?page=N.
type APIBookSummary struct {
	ID    int     `json:"id"`
	Title string  `json:"title"`
	Price float64 `json:"price"`
	URL   string  `json:"url"` // the HTML detail page, an absolute path
	API   string  `json:"api"` // this book in the API, an absolute path
}

// APIBookPage is the answer of /api/books?page=N. Next is the path of the next page, or null
// on the last one.
type APIBookPage struct {
	Page  int              `json:"page"`
	Pages int              `json:"pages"`
	Count int              `json:"count"`
	Books []APIBookSummary `json:"books"`
	Next  *string          `json:"next"`
}

// APIBook is the answer of /api/books/<id>.
type APIBook struct {
	ID          int     `json:"id"`
	Title       string  `json:"title"`
	Price       float64 `json:"price"`
	Currency    string  `json:"currency"`
	Rating      int     `json:"rating"` // 1..5
	Stock       int     `json:"stock"`
	UPC         string  `json:"upc"`
	Category    string  `json:"category"`
	Description string  `json:"description"`
	URL         string  `json:"url"`
}

func (s *site) apiBooks(w http.ResponseWriter, r *http.Request) {
	books, p, ok := apiPage(w, r, s.cat.books, booksPerPage)
	if !ok {
		return
	}
	out := APIBookPage{Page: p, Pages: pages(len(s.cat.books), booksPerPage), Count: len(s.cat.books), Books: []APIBookSummary{}}
	for _, b := range books {
		out.Books = append(out.Books, APIBookSummary{ID: b.ID, Title: b.Title, Price: float64(b.Pence) / 100, URL: b.URL(), API: fmt.Sprintf("/api/books/%d", b.ID)})
	}
	out.Next = apiNext(r, p, out.Pages)
	writeJSON(w, http.StatusOK, out)
}

// apiPage returns the entries of the page a paginated API request asks for (?page=N,
// default 1) and N; when there is no such page it answers the error itself (400 for a
// bad N, 404 for one out of range) and ok is false.
func apiPage[T any](w http.ResponseWriter, r *http.Request, all []T, per int) (entries []T, p int, ok bool) {
	p = 1
	if v := r.URL.Query().Get("page"); v != "" {
		if p, ok = pageNumber(v); !ok {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("page %q is not a positive integer", v)})
			return nil, 0, false
		}
	}
	if entries, ok = page(all, p, per); !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("no page %d", p)})
	}
	return entries, p, ok
}

// apiNext returns the path of the page after p of a paginated API request, or nil after
// the last one.
func apiNext(r *http.Request, p, pages int) *string {
	if p >= pages {
		return nil
	}
	next := fmt.Sprintf("%s?page=%d", r.URL.Path, p+1)
	return &next
}

func (s *site) apiBook(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	b := s.cat.book(id)
	if err != nil || b == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("no book %q", r.PathValue("id"))})
		return
	}
	writeJSON(w, http.StatusOK, APIBook{
		ID: b.ID, Title: b.Title, Price: float64(b.Pence) / 100, Currency: "GBP", Rating: b.Rating,
		Stock: b.Stock, UPC: b.UPC, Category: b.Category.Name, Description: b.Description, URL: b.URL(),
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

func robots(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("User-agent: *\nDisallow: /private/\n\nSitemap: " + origin(r) + "/sitemap.xml\n"))
}

// delay answers after ms milliseconds (capped at MaxDelay), or gives up when the client
// goes away.
func delay(w http.ResponseWriter, r *http.Request) {
	ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
	if err != nil || ms < 0 {
		http.Error(w, "ms must be a non-negative integer", http.StatusBadRequest)
		return
	}
	d := min(time.Duration(ms)*time.Millisecond, MaxDelay)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "waited %d ms\n", d.Milliseconds())
}

// status answers with the status code in the path.
func status(w http.ResponseWriter, r *http.Request) {
	code, err := strconv.Atoi(r.PathValue("code"))
	if err != nil || code < 200 || code > 599 {
		http.Error(w, "status must be between 200 and 599", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = fmt.Fprintf(w, "%d %s\n", code, http.StatusText(code))
}
