package types

// Output is one value a spider callback produced: exactly one of Request and Item is set
// (Scrapy: what a callback yields).
type Output struct {
	Request *Request
	Item    Item
}
