package demosite

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// booksPerPage is the page size of the catalogue, the category listings and the JSON API.
const booksPerPage = 20

// quotesPerPage is the page size of the quotes section.
const quotesPerPage = 10

var ratingWords = [...]string{"", "One", "Two", "Three", "Four", "Five"}

type category struct {
	Name  string // "Travel"
	Dir   string // "travel_2", the directory under /catalogue/category/books/
	Books []*book
}

type book struct {
	ID          int
	Title       string
	Slug        string // "the-quiet-harbour_7", the directory under /catalogue/
	Pence       int
	Rating      int // 1..5
	Stock       int
	UPC         string
	Description string
	Category    *category
}

// Price returns the price as the site shows it: "£51.77".
func (b *book) Price() string { return fmt.Sprintf("£%d.%02d", b.Pence/100, b.Pence%100) }

// RatingWord returns the rating as the star-rating class names it: "Three".
func (b *book) RatingWord() string { return ratingWords[b.Rating] }

// Path returns the detail page's path relative to /catalogue/.
func (b *book) Path() string { return b.Slug + "/index.html" }

// URL returns the detail page's absolute path.
func (b *book) URL() string { return "/catalogue/" + b.Path() }

// Path returns the category's first listing page relative to /catalogue/.
func (c *category) Path() string { return "category/books/" + c.Dir + "/index.html" }

type author struct {
	Name, Slug, Born, Location, Description string
}

type quote struct {
	Text   string
	Author *author
	Tags   []string
}

// catalogue is the demo site's whole content. It is built once by newCatalogue and read-only
// afterwards, so handlers share it without locking.
type catalogue struct {
	books      []*book // by ID - 1
	categories []*category
	authors    []*author
	quotes     []*quote
}

// Special titles exercise entities, punctuation and non-ASCII text.
var specialTitles = map[int]string{
	1:  "Tipping the Velvet & Co",
	2:  "Les Misérables: Été à Paris",
	7:  "Der Zauberberg — Über die Zeit",
	13: "東京の夜 (Tokyo Nights)",
	42: "The Answer <Revised Edition>",
	64: "Don’t Panic: “A Field Guide”",
	88: "Smörgåsbord för Nybörjare",
}

var (
	titleAdjectives = [...]string{"Quiet", "Crimson", "Last", "Hidden", "Golden", "Broken", "Silent", "Wandering", "Northern", "Paper"}
	titleNouns      = [...]string{"Harbour", "Garden", "Lighthouse", "Cartographer", "Orchard", "Library", "River", "Clockmaker", "Island", "Comet"}
	titleForms      = [...]string{"The %s %s", "A %s %s", "%s %s", "The %s %s: A Novel"}
	categorySpecs   = [...]struct {
		name  string
		count int
	}{{"Travel", 11}, {"Mystery", 25}, {"Poetry", 19}, {"Science", 14}, {"History", 16}, {"Fiction", 15}}
)

func newCatalogue() *catalogue {
	c := &catalogue{}
	starts := make([]int, 0, len(categorySpecs)) // cumulative first position of each category
	total := 0
	for i, s := range categorySpecs {
		c.categories = append(c.categories, &category{Name: s.name, Dir: fmt.Sprintf("%s_%d", strings.ToLower(s.name), i+2)})
		starts = append(starts, total)
		total += s.count
	}
	for id := 1; id <= total; id++ {
		i := id - 1
		title, ok := specialTitles[id]
		if !ok {
			title = fmt.Sprintf(titleForms[(i*3)%len(titleForms)], titleAdjectives[i%10], titleNouns[i/10])
		}
		h := hash(id)
		b := &book{
			ID:     id,
			Title:  title,
			Slug:   fmt.Sprintf("%s_%d", slugify(title), id),
			Pence:  1000 + int(h%5000),
			Rating: 1 + int(h/5000%5),
			Stock:  1 + int(h/25000%22),
			UPC:    fmt.Sprintf("%016x", h),
		}
		// 37 is coprime to 100, so (id*37)%total spreads the categories over the catalogue.
		pos := (id * 37) % total
		ci := len(starts) - 1
		for ci > 0 && starts[ci] > pos {
			ci--
		}
		b.Category = c.categories[ci]
		b.Category.Books = append(b.Category.Books, b)
		b.Description = fmt.Sprintf("%s is a %s book in our %s shelf & one of %d titles here. "+
			"Readers call it “%s”; it has %d of 5 stars.",
			title, strings.ToLower(titleAdjectives[(i*7)%10]), b.Category.Name, total,
			[...]string{"unputdownable", "quietly brilliant", "a slow burn", "worth the wait", "odd but lovely"}[i%5], b.Rating)
		c.books = append(c.books, b)
	}
	c.authors, c.quotes = newQuotes()
	return c
}

// book returns the book with the given ID, or nil.
func (c *catalogue) book(id int) *book {
	if id < 1 || id > len(c.books) {
		return nil
	}
	return c.books[id-1]
}

func (c *catalogue) categoryByDir(dir string) *category {
	for _, cat := range c.categories {
		if cat.Dir == dir {
			return cat
		}
	}
	return nil
}

func (c *catalogue) authorBySlug(slug string) *author {
	for _, a := range c.authors {
		if a.Slug == slug {
			return a
		}
	}
	return nil
}

// pages returns the number of pages of n entries, at least 1.
func pages(n, per int) int { return max(1, (n+per-1)/per) }

// page returns the entries of 1-based page p, or false when p is out of range.
func page[T any](all []T, p, per int) ([]T, bool) {
	if p < 1 || p > pages(len(all), per) {
		return nil, false
	}
	return all[(p-1)*per : min(p*per, len(all))], true
}

func hash(id int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "book-%d", id)
	return h.Sum64()
}

var foldRunes = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ä': "a", 'å': "a", 'ç': "c", 'è': "e", 'é': "e", 'ê': "e",
	'ë': "e", 'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ñ': "n", 'ò': "o", 'ó': "o", 'ô': "o",
	'ö': "o", 'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ß': "ss",
}

// slugify lower-cases s, folds common accents and joins the ASCII words with "-".
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		w := string(r)
		if f, ok := foldRunes[r]; ok {
			w = f
		} else if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteString(w)
	}
	if b.Len() == 0 {
		return "book"
	}
	return b.String()
}

func newQuotes() ([]*author, []*quote) {
	authors := []*author{
		{Name: "Ada Whitlock", Born: "March 3, 1851", Location: "in Bath, England",
			Description: "Ada Whitlock kept lighthouse logs for forty years & wrote aphorisms in their margins."},
		{Name: "Jorge Albarrán", Born: "July 19, 1902", Location: "in Cádiz, Spain",
			Description: "A ferryman and essayist whose notebooks were published after his death."},
		{Name: "Mei Tanaka", Born: "January 8, 1938", Location: "in Sapporo, Japan",
			Description: "Librarian, translator and author of short sayings about reading and patience."},
		{Name: "Oskar Lindqvist", Born: "October 30, 1877", Location: "in Göteborg, Sweden",
			Description: "Clockmaker who believed “every second deserves a witness”."},
		{Name: "Nadia Okafor", Born: "May 21, 1969", Location: "in Lagos, Nigeria",
			Description: "Engineer and teacher; her lectures on systems were collected in three volumes."},
		{Name: "Émile Durand", Born: "December 2, 1823", Location: "in Lyon, France",
			Description: "Cartographer of rivers that no longer exist, and of several that never did."},
	}
	for _, a := range authors {
		a.Slug = slugify(a.Name)
	}
	raw := []struct {
		text   string
		author int
		tags   string
	}{
		{"A map is a promise that the road will still be there.", 5, "maps,travel"},
		{"Read slowly; the book is not going anywhere.", 2, "reading,patience"},
		{"Every harbour was once somebody's horizon.", 0, "travel,sea"},
		{"Clocks do not keep time. They keep us honest about it.", 3, "time"},
		{"A system is only as calm as its slowest queue.", 4, "systems,patience"},
		{"The sea forgives nothing & forgets everything.", 1, "sea"},
		{"I never finished a library. I only ever began one.", 2, "reading,books"},
		{"When in doubt, follow the next link.", 4, "systems,curiosity"},
		{"The river moved, so I redrew it.", 5, "maps,change"},
		{"Light is the only cargo that weighs nothing.", 0, "sea,light"},
		{"Patience is a tide, not a wall.", 1, "patience,sea"},
		{"A good index is a kindness to strangers.", 2, "books,kindness"},
		{"Wind the spring, then let it be.", 3, "time,patience"},
		{"Measure twice; the bridge remembers.", 4, "systems"},
		{"Every border on my maps is written in pencil.", 5, "maps,change"},
		{"The lamp does not ask who is at sea.", 0, "light,kindness"},
		{"A ferry is a small promise kept twice a day.", 1, "travel,time"},
		{"Some books are doors; most are windows; the best are both.", 2, "books,reading"},
		{"Tick, said the clock, and meant it.", 3, "time,humor"},
		{"Retries are optimism with a limit.", 4, "systems,humor"},
		{"No coast is finished.", 5, "maps,sea"},
		{"Logs are letters to a future night.", 0, "light,time"},
		{"The oar teaches the arm what the mind forgets.", 1, "sea,learning"},
		{"Silence in a library is full of voices.", 2, "books,reading"},
		{"An hour hand is a minute hand that learned patience.", 3, "time,patience"},
		{"Queues are where ambition learns manners.", 4, "systems,humor"},
		{"I drew the island twice: once as it was, once as it wished to be.", 5, "maps,curiosity"},
		{"Keep the wick short and the watch long.", 0, "light,learning"},
		{"A curious reader < a curious writer? Never.", 2, "reading,curiosity"},
		{"Everything drifts; the anchor only argues.", 1, "sea,change"},
		{"Repair is a form of respect.", 3, "learning,kindness"},
		{"Start small, then follow every thread.", 4, "curiosity,learning"},
	}
	quotes := make([]*quote, 0, len(raw))
	for _, q := range raw {
		quotes = append(quotes, &quote{Text: "“" + q.text + "”", Author: authors[q.author], Tags: strings.Split(q.tags, ",")})
	}
	return authors, quotes
}
