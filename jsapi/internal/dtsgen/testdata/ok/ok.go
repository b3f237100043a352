package ok

// thingMethods is for Go readers.
//
// A thing (the JSDoc).
//
//jscrawl:doc Makes a thing.
//jscrawl:ts constructor(n: number);
//jscrawl:ts readonly n: number;
//jscrawl:class class Thing<T> extends Base
type thingMethods struct{}

// Size is the size.
//
//jscrawl:ts readonly size: number;
func (thingMethods) Size() {}

// GetAll returns every value,
// in order.
//
//jscrawl:ts getAll(): T[];
//jscrawl:ts getAll(n: number): T[];
func (thingMethods) GetAll() {}

func (thingMethods) unexported() {}

// other is not declared.
type other struct{}

// Size is not a member.
func (other) Size() {}
