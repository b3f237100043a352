package types

// Output is one value a spider callback produced: exactly one of Request and Item is set
// (Scrapy: what a callback yields).
type Output struct {
	Request *Request
	Item    Item
	// FilteredFrom, when above 0, says the spider already ran the built-in spider output
	// filters whose order number is at least this (its own spider middlewares sit among
	// them); the engine runs only those below.
	FilteredFrom int
}
