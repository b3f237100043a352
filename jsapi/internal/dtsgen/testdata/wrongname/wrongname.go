package wrongname

// m is for Go readers.
//
//jscrawl:class interface M
type m struct{}

// Get declares another name.
//
//jscrawl:ts fetch(): string;
func (m) Get() {}
