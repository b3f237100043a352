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
var defaultJSONDepth = func() int {
	return types.NewSettings().Int(types.JSONMaxDepth)
}()

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
		// A native's name and length, as the originals have (JSON.parse.length is 2).
		_ = fn.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
		_ = fn.DefineDataProperty("length", rt.ToValue(length), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
		return j.DefineDataProperty(name, fn, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
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
	return wrap("stringify", 3, func(c goja.FunctionCall) goja.Value {
		limit := st.s.jsonDepth()
		w := depthWalk{limit: limit}
		if v, ok := c.Argument(0).(*goja.Object); ok {
			if w.deeper(v, 1) && !w.cyclic() {
				throwJS(rt, "RangeError", stringifyDepthError(limit))
			}
			// A cycle within the limit goes to the native code, which throws its TypeError
			// ("Converting circular structure to JSON") before it gets any deeper.
		}
		args := c.Arguments
		replacer, hasReplacer := goja.AssertFunction(c.Argument(1))
		_, listed := c.Argument(1).(*goja.Object) // a property list (an array) stays as it is
		if hasReplacer || w.dynamic && !listed {
			// What a toJSON method or a replacer returns is only known as the native code
			// runs: a replacer of ours counts the depth of each value it is handed.
			args = []goja.Value{c.Argument(0), rt.ToValue(depthReplacer(rt, limit, replacer)), c.Argument(2)}
		}
		v, err := stringify(c.This, args...)
		if err != nil {
			panic(err)
		}
		return v
	})
}

// stringifyDepthError is the RangeError's message of a value nested deeper than limit.
func stringifyDepthError(limit int) error {
	return fmt.Errorf("JSON.stringify: the value is nested deeper than JSON_MAX_DEPTH (%d)", limit)
}

// depthReplacer returns a JSON.stringify replacer that calls user (when not nil) and
// throws a RangeError once a value it returns lies deeper than limit: stringify hands it
// each value with its holder, so a value's depth is its holder's plus one.
func depthReplacer(rt *goja.Runtime, limit int, user goja.Callable) func(goja.FunctionCall) goja.Value {
	depths := map[*goja.Object]int{}
	return func(c goja.FunctionCall) goja.Value {
		v := c.Argument(1)
		if user != nil {
			r, err := user(c.This, c.Argument(0), v)
			if err != nil {
				panic(err)
			}
			v = r
		}
		if o, ok := v.(*goja.Object); ok {
			d := 1 // the holder of the top value is stringify's own wrapper
			if h, ok := c.This.(*goja.Object); ok {
				d = depths[h] + 1
			}
			if d > limit {
				throwJS(rt, "RangeError", stringifyDepthError(limit))
			}
			depths[o] = d
		}
		return v
	}
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
// enumerable ones JSON.stringify reads and a few more) longer than limit. It does not call
// toJSON methods: an object with one is a leaf here, noted in dynamic. A getter runs once
// more than stringify alone runs it.
type depthWalk struct {
	limit   int
	path    []*goja.Object // the objects from the root to the one being walked
	dynamic bool           // an object with a toJSON method (not a Date) was seen
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
		w.dynamic = true
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
