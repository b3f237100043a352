package jsapi

import (
	"fmt"
	"strconv"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/types"
)

// goja's JSON.parse and JSON.stringify recurse in Go once per level of nesting, and
// stringify's cycle check scans the whole path at each level: a page of 3,000,000 '['
// overflows the goroutine's stack (a fatal error, no recover), and a 100,000-deep value
// takes 13 s of native code that no interrupt reaches. The JSON global of every VM gets
// wrappers that refuse such input before the native code sees it (JSON_MAX_DEPTH).

// defaultJSONDepth is JSON_MAX_DEPTH's default, for VMs made before the crawl's settings
// are known (the first one, made by Load).
var defaultJSONDepth = types.Default(types.JSONMaxDepth).(int)

// jsonDepth returns the crawl's JSON_MAX_DEPTH (its default before Bind).
func (s *Spider) jsonDepth() int {
	if d := s.jsonMaxDepth.Load(); d > 0 {
		return int(d)
	}
	return defaultJSONDepth
}

// installJSON replaces JSON.parse and JSON.stringify with depth-checked wrappers of the
// native ones. On the loop, before the prelude runs (so response.json() uses them too).
func (st *vmState) installJSON() error {
	rt := st.rt
	j := rt.Get("JSON").ToObject(rt)
	parse, ok := goja.AssertFunction(j.Get("parse"))
	if !ok {
		return fmt.Errorf("the JSON global has no parse function")
	}
	stringify, ok := goja.AssertFunction(j.Get("stringify"))
	if !ok {
		return fmt.Errorf("the JSON global has no stringify function")
	}
	wrap := func(name string, length int, f func(goja.FunctionCall) goja.Value) error {
		fn := rt.ToValue(f).ToObject(rt)
		// A native's name and length, as the originals have (JSON.parse.length is 2):
		// read-only, configurable, not enumerable; the methods writable, configurable,
		// not enumerable (goja's flags: writable, configurable, enumerable).
		_ = fn.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		_ = fn.DefineDataProperty("length", rt.ToValue(length), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		return j.DefineDataProperty(name, fn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	err := wrap("parse", 2, func(c goja.FunctionCall) goja.Value {
		text := c.Argument(0).ToString() // once: a toString() method runs once, as natively
		if limit := st.s.jsonDepth(); jsonTextDeeper(text.String(), limit) {
			throwJS(rt, "SyntaxError", fmt.Errorf("JSON.parse: the text is nested deeper than JSON_MAX_DEPTH (%d)", limit))
		}
		v, err := parse(c.This, text, c.Argument(1))
		if err != nil {
			panic(err)
		}
		return v
	})
	if err != nil {
		return err
	}
	d := &depthReplacer{rt: rt}
	replacer := rt.ToValue(d.replace)
	return wrap("stringify", 3, func(c goja.FunctionCall) goja.Value {
		limit := st.s.jsonDepth()
		value, arg := c.Argument(0), c.Argument(1)
		if list, ok := arg.(*goja.Object); ok && list.ClassName() == "Array" {
			// A property list cannot be combined with a replacer function: the walk checks
			// the value (not what toJSON methods return, which it cannot call).
			if v, ok := value.(*goja.Object); ok {
				w := depthWalk{limit: limit}
				if w.deeper(v, 1) && !w.cyclic() {
					throwJS(rt, "RangeError", stringifyDepthError(limit))
				}
			}
			return callStringify(stringify, c.This, c.Arguments...)
		}
		if _, isObj := value.(*goja.Object); !isObj && value.ExportType() != bigIntType {
			// A string, number, boolean, null or undefined: stringify looks for no toJSON
			// (it does on a BigInt: BigInt.prototype.toJSON, which a spider may define).
			return callStringify(stringify, c.This, c.Arguments...)
		}
		// The replacer follows stringify's descent; it is the VM's one, saved and restored
		// around the call as a toJSON method or a replacer may call JSON.stringify again.
		user, _ := goja.AssertFunction(arg)
		saved := d.depthState
		var stack []*goja.Object // a nested call's own: the outer call's stack is in use
		if d.nesting == 0 {
			stack = d.buf[:0]
		}
		d.nesting++
		defer func() {
			if d.nesting--; d.nesting == 0 {
				d.buf = nil
				if all := d.stack[:cap(d.stack)]; len(all) <= 256 {
					clear(all) // keep the memory, not the value's objects
					d.buf = all[:0]
				}
			}
			d.depthState = saved
		}()
		d.depthState = depthState{limit: limit, user: user, stack: stack}
		return callStringify(stringify, c.This, value, replacer, c.Argument(2))
	})
}

// callStringify calls goja's native JSON.stringify, throwing what it throws.
func callStringify(stringify goja.Callable, this goja.Value, args ...goja.Value) goja.Value {
	v, err := stringify(this, args...)
	if err != nil {
		panic(err)
	}
	return v
}

// stringifyDepthError is the RangeError's message of a value nested deeper than limit.
func stringifyDepthError(limit int) error {
	return fmt.Errorf("JSON.stringify: the value is nested deeper than JSON_MAX_DEPTH (%d)", limit)
}

// depthReplacer is the JSON.stringify replacer every JSON.stringify of an object runs
// with: it calls the spider's replacer, if any, and throws a RangeError once a value it
// returns lies deeper than the limit. stringify calls it for each value it serialises,
// after the value's toJSON, with the value's holder as this, depth first: the holders of
// the values it is handed are the objects on the path to them, so a stack of the objects
// it returned, popped back to the holder of each call, gives each value's depth. It counts
// exactly what stringify descends into (toJSON and replacer results included), costs one
// Go call a property and stops a 3,000,000-deep value at the limit, before goja's
// recursion goes deeper.
type depthReplacer struct {
	rt      *goja.Runtime
	nesting int            // the JSON.stringify calls running (a toJSON may call it again)
	buf     []*goja.Object // the stack's memory (when small), reused by the outermost call
	depthState
}

// depthState is one JSON.stringify call's state of the depthReplacer.
type depthState struct {
	limit int
	user  goja.Callable  // the spider's replacer, or nil
	stack []*goja.Object // the holder of the top value, then the objects on the path
}

func (d *depthReplacer) replace(c goja.FunctionCall) goja.Value {
	v := c.Argument(1)
	if d.user != nil {
		r, err := d.user(c.This, c.Argument(0), v)
		if err != nil {
			panic(err)
		}
		v = r
	}
	o, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	h, _ := c.This.(*goja.Object)
	for len(d.stack) > 0 && d.stack[len(d.stack)-1] != h {
		d.stack = d.stack[:len(d.stack)-1]
	}
	if len(d.stack) == 0 {
		d.stack = append(d.stack, h) // the wrapper holding the top value
	}
	if len(d.stack) > d.limit {
		throwJS(d.rt, "RangeError", stringifyDepthError(d.limit))
	}
	d.stack = append(d.stack, o)
	return v
}

// jsonTextDeeper reports whether JSON text s opens more than limit arrays and objects at
// once, counting '[' and '{' outside strings. It reads each byte once and stops at the
// first level past the limit. Text that closes more than it opened is left to the parser
// (it fails there at the latest).
func jsonTextDeeper(s string, limit int) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '{':
			depth++
			if depth > limit {
				return true
			}
		case ']', '}':
			depth--
			if depth < 0 {
				return false
			}
		case '"':
			// Skip to the closing quote; a backslash escapes the byte after it.
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		}
	}
	return false
}

// depthWalk looks for a path through a value's arrays and objects (own properties: the
// enumerable ones JSON.stringify reads and a few more) longer than limit, for a
// JSON.stringify with a property list (which cannot have a depthReplacer). It does not call
// toJSON methods: an object with one is a leaf here. A getter runs once more than
// stringify alone runs it.
type depthWalk struct {
	limit int
	path  []*goja.Object // the objects from the root to the one being walked
}

// deeper reports whether o, at depth depth, holds a path deeper than the limit; w.path
// is then that path.
func (w *depthWalk) deeper(o *goja.Object, depth int) bool {
	if depth > w.limit {
		w.path = append(w.path, o)
		return true
	}
	switch o.ClassName() {
	case "Function":
		return false // stringify leaves functions out
	case "Date":
		return false // a string
	}
	if _, ok := goja.AssertFunction(o.Get("toJSON")); ok {
		return false
	}
	w.path = append(w.path, o)
	if o.ClassName() == "Array" {
		n := o.Get("length").ToInteger()
		for i := int64(0); i < n; i++ {
			if e, ok := o.Get(strconv.FormatInt(i, 10)).(*goja.Object); ok && w.deeper(e, depth+1) {
				return true
			}
		}
	} else {
		// All own names, not only the enumerable ones Keys returns: goja's enumerable
		// iterator costs the walk twice as much, and a non-enumerable property holding an
		// object is rare (it can only make the walk stricter).
		for _, k := range o.GetOwnPropertyNames() {
			if e, ok := o.Get(k).(*goja.Object); ok && w.deeper(e, depth+1) {
				return true
			}
		}
	}
	w.path = w.path[:len(w.path)-1]
	return false
}

// cyclic reports whether the path deeper returned holds an object twice.
func (w *depthWalk) cyclic() bool {
	seen := make(map[*goja.Object]bool, len(w.path))
	for _, o := range w.path {
		if seen[o] {
			return true
		}
		seen[o] = true
	}
	return false
}
