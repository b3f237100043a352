package nots

// m is for Go readers.
//
//jscrawl:class interface M
type m struct{}

// Get has no signature.
func (m) Get() {}
