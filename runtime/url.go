package runtime

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/types"
	wurl "github.com/nlnwa/whatwg-url/url"
)

// The URL and URLSearchParams globals, as the WHATWG URL Standard defines them
// (https://url.spec.whatwg.org/#api), in place of goja_nodejs's, whose parser resolves
// "page2.html" against "http://example.com/dir/page1.html" to the site root. Parsing is
// types.ParseWHATWG's. A URL's searchParams is live both ways: a change to one shows in
// the other. require("url") and require("node:url") give the same two classes.

// urlState is what a JS URL object holds.
type urlState struct {
	u      *wurl.Url
	params *paramsState // its searchParams
	obj    *goja.Object // the searchParams object, made on first use
}

// paramsState is what a JS URLSearchParams object holds: its list of name-value pairs
// and, for a URL's searchParams, that URL.
type paramsState struct {
	list []nameValue
	url  *urlState
}

type nameValue struct{ name, value string }

// urlAPI builds the two classes on one runtime; used on that runtime's loop only.
type urlAPI struct {
	rt          *goja.Runtime
	key         *goja.Symbol // the own property that holds a *urlState or *paramsState
	paramsProto *goja.Object
	iterProto   *goja.Object // %IteratorPrototype%
}

// installURL defines the URL and URLSearchParams globals on rt and returns the module
// require("url") gives.
func installURL(rt *goja.Runtime) (*goja.Object, error) {
	a := &urlAPI{rt: rt, key: goja.NewSymbol("[[url]]")}
	it, err := rt.RunString("Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()))")
	if err != nil {
		return nil, err
	}
	a.iterProto = it.ToObject(rt)
	urlCtor := a.urlClass()
	paramsCtor := a.paramsClass()
	if err := rt.Set("URL", urlCtor); err != nil {
		return nil, err
	}
	if err := rt.Set("URLSearchParams", paramsCtor); err != nil {
		return nil, err
	}
	m := rt.NewObject()
	_ = m.Set("URL", urlCtor)
	_ = m.Set("URLSearchParams", paramsCtor)
	return m, nil
}

// class makes a constructor named name from ctor and returns it and its prototype.
func (a *urlAPI) class(name string, ctor func(goja.ConstructorCall) *goja.Object) (*goja.Object, *goja.Object) {
	rt := a.rt
	c := rt.ToValue(ctor).ToObject(rt)
	proto := rt.NewObject()
	_ = c.DefineDataProperty("prototype", proto, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	_ = c.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = proto.DefineDataProperty("constructor", c, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = proto.DefineDataPropertySymbol(goja.SymToStringTag, rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	return c, proto
}

// method defines a method on proto.
func (a *urlAPI) method(proto *goja.Object, name string, f func(goja.FunctionCall) goja.Value) {
	_ = proto.DefineDataProperty(name, a.rt.ToValue(f), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
}

// accessor defines a getter and, when set is not nil, a setter on proto.
func (a *urlAPI) accessor(proto *goja.Object, name string, get func(goja.FunctionCall) goja.Value, set func(goja.FunctionCall) goja.Value) {
	var s goja.Value
	if set != nil {
		s = a.rt.ToValue(set)
	}
	_ = proto.DefineAccessorProperty(name, a.rt.ToValue(get), s, goja.FLAG_TRUE, goja.FLAG_TRUE)
}

// typeError throws a TypeError.
func (a *urlAPI) typeError(format string, args ...any) {
	panic(a.rt.NewTypeError(fmt.Sprintf(format, args...)))
}

// invalidURL throws Node's TypeError for a URL that does not parse (code ERR_INVALID_URL).
func (a *urlAPI) invalidURL(input string) {
	e := a.rt.NewTypeError(fmt.Sprintf("Invalid URL: %q", input))
	_ = e.Set("code", "ERR_INVALID_URL")
	_ = e.Set("input", input)
	panic(e)
}

// state returns the state of o, a URL (*urlState) or URLSearchParams (*paramsState), or nil.
func (a *urlAPI) state(v goja.Value) any {
	o, ok := v.(*goja.Object)
	if !ok {
		return nil
	}
	s := o.GetSymbol(a.key)
	if s == nil {
		return nil
	}
	return s.Export()
}

func (a *urlAPI) thisURL(c goja.FunctionCall) *urlState {
	st, ok := a.state(c.This).(*urlState)
	if !ok {
		a.typeError("Illegal invocation: not a URL")
	}
	return st
}

func (a *urlAPI) thisParams(c goja.FunctionCall) *paramsState {
	st, ok := a.state(c.This).(*paramsState)
	if !ok {
		a.typeError("Illegal invocation: not a URLSearchParams")
	}
	return st
}

// parseArgs is new URL(url, base)'s parse: nil when it fails.
func parseArgs(url, base goja.Value) *wurl.Url {
	b := ""
	if base != nil && !goja.IsUndefined(base) {
		b = base.String()
		if _, err := types.ParseWHATWG(b, ""); err != nil {
			return nil
		}
	}
	u, err := types.ParseWHATWG(url.String(), b)
	if err != nil {
		return nil
	}
	return u
}

func (a *urlAPI) urlClass() *goja.Object {
	rt := a.rt
	ctor, proto := a.class("URL", func(c goja.ConstructorCall) *goja.Object {
		if len(c.Arguments) == 0 {
			a.typeError("Failed to construct 'URL': 1 argument required, but only 0 present")
		}
		u := parseArgs(c.Argument(0), c.Argument(1))
		if u == nil {
			a.invalidURL(c.Argument(0).String())
		}
		st := &urlState{u: u}
		st.params = &paramsState{url: st, list: parseForm(u.Query())}
		_ = c.This.DefineDataPropertySymbol(a.key, rt.ToValue(st), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
		return nil
	})
	_ = ctor.Set("canParse", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(parseArgs(c.Argument(0), c.Argument(1)) != nil)
	})
	_ = ctor.Set("parse", func(c goja.FunctionCall) goja.Value {
		if u := parseArgs(c.Argument(0), c.Argument(1)); u != nil {
			o, err := rt.New(ctor, rt.ToValue(u.Href(false)))
			if err == nil {
				return o
			}
		}
		return goja.Null()
	})
	str := func(f func(u *wurl.Url) string) func(goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value { return rt.ToValue(f(a.thisURL(c).u)) }
	}
	// set makes a setter that calls f and then refreshes searchParams from the query.
	set := func(f func(u *wurl.Url, v string)) func(goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			st := a.thisURL(c)
			f(st.u, c.Argument(0).String())
			st.params.list = parseForm(st.u.Query())
			return goja.Undefined()
		}
	}
	href := str(func(u *wurl.Url) string { return u.Href(false) })
	a.accessor(proto, "href", href, func(c goja.FunctionCall) goja.Value {
		st := a.thisURL(c)
		s := c.Argument(0).String()
		u, err := types.ParseWHATWG(s, "")
		if err != nil {
			a.invalidURL(s)
		}
		st.u = u
		st.params.list = parseForm(u.Query())
		return goja.Undefined()
	})
	a.accessor(proto, "origin", str(types.WHATWGOrigin), nil)
	a.accessor(proto, "protocol", str((*wurl.Url).Protocol), set((*wurl.Url).SetProtocol))
	a.accessor(proto, "username", str((*wurl.Url).Username), set((*wurl.Url).SetUsername))
	a.accessor(proto, "password", str((*wurl.Url).Password), set((*wurl.Url).SetPassword))
	a.accessor(proto, "host", str((*wurl.Url).Host), set((*wurl.Url).SetHost))
	a.accessor(proto, "hostname", str((*wurl.Url).Hostname), set((*wurl.Url).SetHostname))
	a.accessor(proto, "port", str((*wurl.Url).Port), set((*wurl.Url).SetPort))
	a.accessor(proto, "pathname", str((*wurl.Url).Pathname), set((*wurl.Url).SetPathname))
	a.accessor(proto, "search", str((*wurl.Url).Search), set((*wurl.Url).SetSearch))
	a.accessor(proto, "hash", str((*wurl.Url).Hash), set((*wurl.Url).SetHash))
	a.accessor(proto, "searchParams", func(c goja.FunctionCall) goja.Value {
		st := a.thisURL(c)
		if st.obj == nil {
			st.obj = a.rt.CreateObject(a.paramsProto)
			_ = st.obj.DefineDataPropertySymbol(a.key, rt.ToValue(st.params), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
		}
		return st.obj
	}, nil)
	a.method(proto, "toString", href)
	a.method(proto, "toJSON", href)
	return ctor
}

// update writes the list of a URL's searchParams back to its query (the Standard's
// URLSearchParams update steps).
func (p *paramsState) update() {
	if p.url == nil {
		return
	}
	p.url.u.SetSearch(serializeForm(p.list))
}

func (a *urlAPI) paramsClass() *goja.Object {
	rt := a.rt
	ctor, proto := a.class("URLSearchParams", func(c goja.ConstructorCall) *goja.Object {
		st := &paramsState{list: a.paramsInit(c.Argument(0))}
		_ = c.This.DefineDataPropertySymbol(a.key, rt.ToValue(st), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
		return nil
	})
	a.paramsProto = proto
	need := func(c goja.FunctionCall, n int, name string) {
		if len(c.Arguments) < n {
			a.typeError("Failed to execute '%s' on 'URLSearchParams': %d arguments required, but only %d present", name, n, len(c.Arguments))
		}
	}
	a.method(proto, "append", func(c goja.FunctionCall) goja.Value {
		p := a.thisParams(c)
		need(c, 2, "append")
		p.list = append(p.list, nameValue{usv(c.Argument(0)), usv(c.Argument(1))})
		p.update()
		return goja.Undefined()
	})
	// match reports whether pair matches name and, when the call gives one, value.
	match := func(c goja.FunctionCall) func(nameValue) bool {
		name := usv(c.Argument(0))
		if v := c.Argument(1); !goja.IsUndefined(v) {
			value := usv(v)
			return func(p nameValue) bool { return p.name == name && p.value == value }
		}
		return func(p nameValue) bool { return p.name == name }
	}
	a.method(proto, "delete", func(c goja.FunctionCall) goja.Value {
		p := a.thisParams(c)
		need(c, 1, "delete")
		p.list = slices.DeleteFunc(p.list, match(c))
		p.update()
		return goja.Undefined()
	})
	a.method(proto, "has", func(c goja.FunctionCall) goja.Value {
		p := a.thisParams(c)
		need(c, 1, "has")
		return rt.ToValue(slices.ContainsFunc(p.list, match(c)))
	})
	a.method(proto, "get", func(c goja.FunctionCall) goja.Value {
		p := a.thisParams(c)
		need(c, 1, "get")
		name := usv(c.Argument(0))
		for _, nv := range p.list {
			if nv.name == name {
				return rt.ToValue(nv.value)
			}
		}
		return goja.Null()
	})
	a.method(proto, "getAll", func(c goja.FunctionCall) goja.Value {
		p := a.thisParams(c)
		need(c, 1, "getAll")
		name := usv(c.Argument(0))
		out := []any{}
		for _, nv := range p.list {
			if nv.name == name {
				out = append(out, nv.value)
			}
		}
		return rt.NewArray(out...)
	})
	a.method(proto, "set", func(c goja.FunctionCall) goja.Value {
		p := a.thisParams(c)
		need(c, 2, "set")
		name, value := usv(c.Argument(0)), usv(c.Argument(1))
		i := slices.IndexFunc(p.list, func(nv nameValue) bool { return nv.name == name })
		if i < 0 {
			p.list = append(p.list, nameValue{name, value})
		} else {
			p.list[i].value = value
			rest := slices.DeleteFunc(p.list[i+1:], func(nv nameValue) bool { return nv.name == name })
			p.list = p.list[:i+1+len(rest)]
		}
		p.update()
		return goja.Undefined()
	})
	a.method(proto, "sort", func(c goja.FunctionCall) goja.Value {
		p := a.thisParams(c)
		// Stable, by the names' UTF-16 code units.
		slices.SortStableFunc(p.list, func(x, y nameValue) int {
			return slices.Compare(utf16.Encode([]rune(x.name)), utf16.Encode([]rune(y.name)))
		})
		p.update()
		return goja.Undefined()
	})
	a.method(proto, "toString", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(serializeForm(a.thisParams(c).list))
	})
	a.method(proto, "forEach", func(c goja.FunctionCall) goja.Value {
		p := a.thisParams(c)
		f, ok := goja.AssertFunction(c.Argument(0))
		if !ok {
			a.typeError("URLSearchParams.forEach: the callback is not a function")
		}
		for i := 0; i < len(p.list); i++ {
			if _, err := f(c.Argument(1), rt.ToValue(p.list[i].value), rt.ToValue(p.list[i].name), c.This); err != nil {
				panic(err)
			}
		}
		return goja.Undefined()
	})
	a.accessor(proto, "size", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(len(a.thisParams(c).list))
	}, nil)
	iter := func(kind func(nameValue) goja.Value) func(goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value { return a.iterator(a.thisParams(c), kind) }
	}
	entries := iter(func(nv nameValue) goja.Value { return rt.NewArray(nv.name, nv.value) })
	a.method(proto, "entries", entries)
	a.method(proto, "keys", iter(func(nv nameValue) goja.Value { return rt.ToValue(nv.name) }))
	a.method(proto, "values", iter(func(nv nameValue) goja.Value { return rt.ToValue(nv.value) }))
	_ = proto.DefineDataPropertySymbol(goja.SymIterator, proto.Get("entries"), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	return ctor
}

// iterator returns a live iterator over p's list (it sees pairs added while iterating).
func (a *urlAPI) iterator(p *paramsState, kind func(nameValue) goja.Value) goja.Value {
	rt := a.rt
	it := rt.CreateObject(a.iterProto)
	i := 0
	_ = it.Set("next", func(goja.FunctionCall) goja.Value {
		r := rt.NewObject()
		if i >= len(p.list) {
			_ = r.Set("value", goja.Undefined())
			_ = r.Set("done", true)
			return r
		}
		_ = r.Set("value", kind(p.list[i]))
		_ = r.Set("done", false)
		i++
		return r
	})
	_ = it.DefineDataPropertySymbol(goja.SymToStringTag, rt.ToValue("URLSearchParams Iterator"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	return it
}

// paramsInit reads new URLSearchParams(init): a sequence of pairs, a record or a string
// (a leading "?" dropped).
func (a *urlAPI) paramsInit(init goja.Value) []nameValue {
	if init == nil || goja.IsUndefined(init) || goja.IsNull(init) {
		return nil
	}
	o, isObj := init.(*goja.Object)
	if !isObj {
		return parseForm(strings.TrimPrefix(usv(init), "?"))
	}
	if p, ok := a.state(o).(*paramsState); ok {
		return slices.Clone(p.list)
	}
	if _, ok := goja.AssertFunction(o.GetSymbol(goja.SymIterator)); ok {
		var out []nameValue
		for _, pair := range a.iterate(o) {
			po, ok := pair.(*goja.Object)
			if !ok {
				a.typeError("Failed to construct 'URLSearchParams': a pair is not iterable")
			}
			kv := a.iterate(po)
			if len(kv) != 2 {
				a.typeError("Failed to construct 'URLSearchParams': a pair has %d items, not 2", len(kv))
			}
			out = append(out, nameValue{usv(kv[0]), usv(kv[1])})
		}
		return out
	}
	var out []nameValue
	for _, k := range o.Keys() {
		out = append(out, nameValue{k, usv(o.Get(k))})
	}
	return out
}

// iterate returns the values o's iterator yields; it throws when o is not iterable.
func (a *urlAPI) iterate(o *goja.Object) []goja.Value {
	rt := a.rt
	f, ok := goja.AssertFunction(o.GetSymbol(goja.SymIterator))
	if !ok {
		a.typeError("Failed to construct 'URLSearchParams': a pair is not iterable")
	}
	itv, err := f(o)
	if err != nil {
		panic(err)
	}
	it := itv.ToObject(rt)
	next, ok := goja.AssertFunction(it.Get("next"))
	if !ok {
		a.typeError("Failed to construct 'URLSearchParams': the iterator has no next()")
	}
	var out []goja.Value
	for {
		r, err := next(it)
		if err != nil {
			panic(err)
		}
		ro := r.ToObject(rt)
		if ro.Get("done").ToBoolean() {
			return out
		}
		out = append(out, ro.Get("value"))
	}
}

// usv converts v to a string as WebIDL's USVString does (lone surrogates become U+FFFD).
func usv(v goja.Value) string {
	return strings.ToValidUTF8(v.String(), "\uFFFD")
}

// parseForm parses an application/x-www-form-urlencoded string
// (https://url.spec.whatwg.org/#urlencoded-parsing).
func parseForm(s string) []nameValue {
	var out []nameValue
	for seq := range strings.SplitSeq(s, "&") {
		if seq == "" {
			continue
		}
		name, value, _ := strings.Cut(seq, "=")
		out = append(out, nameValue{formDecode(name), formDecode(value)})
	}
	return out
}

// formDecode replaces "+" by a space, percent-decodes and decodes UTF-8 (invalid bytes
// become U+FFFD).
func formDecode(s string) string {
	if !strings.ContainsAny(s, "+%") && utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(types.UnquotePlus(s), "\uFFFD")
}

// serializeForm writes list as application/x-www-form-urlencoded
// (https://url.spec.whatwg.org/#concept-urlencoded-serializer).
func serializeForm(list []nameValue) string {
	var b strings.Builder
	for i, nv := range list {
		if i > 0 {
			b.WriteByte('&')
		}
		formEncode(&b, nv.name)
		b.WriteByte('=')
		formEncode(&b, nv.value)
	}
	return b.String()
}

func formEncode(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '*', c == '-', c == '.', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}
