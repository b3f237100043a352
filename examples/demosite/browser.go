package demosite

import (
	"bytes"
	_ "embed"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// The pages that need a browser: the HTML the server sends is an empty shell, and
// static/app.js renders the content from the JSON API, so only a browser (a request with
// browser: true) sees the products and quotes.
//
//	/js/                                  an index of the three below (plain HTML)
//	/js/catalogue/page-N.html             N = 1..5: 20 books from /api/books?page=N, each with
//	                                      its cover image, and the pager
//	/js/catalogue/<slug>_<id>/index.html  a book from /api/books/<id>
//	/js/scroll/                           infinite scroll: 10 of the 32 quotes from /api/quotes?page=N,
//	                                      10 more each time the page is scrolled to the bottom,
//	                                      then p#the-end
//	/js/more/                             load more: 20 books from /api/books?page=N, 20 more
//	                                      on each click of button#load-more, then p#the-end
//	/js/app.js                            the script that renders them
//	/api/quotes?page=N                    the quotes as JSON, 10 a page
//	/media/covers/<id>.png                a book's cover (an image, blocked by default in a
//	                                      browser request)

//go:embed static/app.js
var appJS []byte

// browserData is what templates/browser.html shows: the shell of one browser page.
type browserData struct {
	Title string
	View  string // "index", "catalogue", "book", "scroll", "more": the view of app.js
	API   string // the book view's API path
	Page  int    // the catalogue view's page

	Books, Quotes int // the index: how many there are
}

func (s *site) browserRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /js/{$}", func(w http.ResponseWriter, r *http.Request) {
		s.render(w, r, "browser", browserData{
			Title: "Pages that need a browser", View: "index", Books: len(s.cat.books), Quotes: len(s.cat.quotes),
		})
	})
	mux.HandleFunc("GET /js/catalogue/{page}", s.browserCatalogue)
	mux.HandleFunc("GET /js/catalogue/{book}/index.html", s.browserBook)
	mux.HandleFunc("GET /js/scroll/{$}", func(w http.ResponseWriter, r *http.Request) {
		s.render(w, r, "browser", browserData{Title: "Quotes (infinite scroll)", View: "scroll"})
	})
	mux.HandleFunc("GET /js/more/{$}", func(w http.ResponseWriter, r *http.Request) {
		s.render(w, r, "browser", browserData{Title: "Books (load more)", View: "more"})
	})
	mux.HandleFunc("GET /js/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write(appJS)
	})
	mux.HandleFunc("GET /api/quotes", s.apiQuotes)
	mux.HandleFunc("GET /media/covers/{file}", s.cover)
}

func (s *site) browserCatalogue(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("page")
	p, ok := pageNumber(name)
	if !ok || !strings.HasPrefix(name, "page-") || !strings.HasSuffix(name, ".html") || p > pages(len(s.cat.books), booksPerPage) {
		http.NotFound(w, r)
		return
	}
	s.render(w, r, "browser", browserData{Title: "All products", View: "catalogue", Page: p})
}

func (s *site) browserBook(w http.ResponseWriter, r *http.Request) {
	b := s.bookByDir(r.PathValue("book"))
	if b == nil {
		http.NotFound(w, r)
		return
	}
	s.render(w, r, "browser", browserData{Title: "Book", View: "book", API: fmt.Sprintf("/api/books/%d", b.ID)})
}

// APIQuote is one quote of /api/quotes?page=N.
type APIQuote struct {
	Text   string   `json:"text"`
	Author string   `json:"author"`
	Tags   []string `json:"tags"`
}

// APIQuotePage is the answer of /api/quotes?page=N. Next is the path of the next page, or
// null on the last one.
type APIQuotePage struct {
	Page   int        `json:"page"`
	Pages  int        `json:"pages"`
	Count  int        `json:"count"`
	Quotes []APIQuote `json:"quotes"`
	Next   *string    `json:"next"`
}

func (s *site) apiQuotes(w http.ResponseWriter, r *http.Request) {
	quotes, p, ok := apiPage(w, r, s.cat.quotes, quotesPerPage)
	if !ok {
		return
	}
	out := APIQuotePage{Page: p, Pages: pages(len(s.cat.quotes), quotesPerPage), Count: len(s.cat.quotes), Quotes: []APIQuote{}}
	for _, q := range quotes {
		out.Quotes = append(out.Quotes, APIQuote{Text: q.Text, Author: q.Author.Name, Tags: q.Tags})
	}
	out.Next = apiNext(r, p, out.Pages)
	writeJSON(w, http.StatusOK, out)
}

// coverWidth and coverHeight are the size of a cover image in pixels.
const coverWidth, coverHeight = 120, 180

// cover serves a book's cover: a PNG of a few kilobytes, made from the book's hash and
// cached, so blocking images in a browser saves real bytes.
func (s *site) cover(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(strings.TrimSuffix(r.PathValue("file"), ".png"))
	b := s.cat.book(id)
	if err != nil || b == nil || r.PathValue("file") != strconv.Itoa(id)+".png" {
		http.NotFound(w, r)
		return
	}
	img, _ := s.covers.LoadOrStore(id, sync.OnceValue(func() []byte { return coverPNG(b) }))
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "max-age=3600")
	_, _ = w.Write(img.(func() []byte)())
}

// coverPNG draws a cover: a background in the book's colour with a noisy band, the noise
// from the book's hash so the image is the same on every run.
func coverPNG(b *book) []byte {
	h := hash(b.ID)
	base := color.RGBA{R: uint8(h), G: uint8(h >> 8), B: uint8(h >> 16), A: 255}
	img := image.NewRGBA(image.Rect(0, 0, coverWidth, coverHeight))
	x := h | 1
	for py := range coverHeight {
		for px := range coverWidth {
			c := base
			if py > coverHeight/3 && py < 2*coverHeight/3 {
				x ^= x << 13 // xorshift64
				x ^= x >> 7
				x ^= x << 17
				c = color.RGBA{R: uint8(x), G: uint8(x >> 8), B: uint8(x >> 16), A: 255}
			}
			img.SetRGBA(px, py, c)
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}
