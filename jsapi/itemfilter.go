package jsapi

// The itemFilter functions of customSettings.FEEDS: taken out of the settings at Load and
// called on the spider's first VM by the feeds.

import (
	"fmt"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/types"
)

// takeItemFilters finds the itemFilter functions of customSettings.FEEDS, which settings
// (plain data) cannot hold: it records their feed URIs and removes them from s.custom.
func (s *Spider) takeItemFilters(rt *goja.Runtime, custom *goja.Object) {
	feeds, ok := custom.Get(types.Feeds).(*goja.Object)
	if !ok {
		return
	}
	exported, _ := s.custom[types.Feeds].(map[string]any)
	for _, uri := range feeds.Keys() {
		opts, ok := feeds.Get(uri).(*goja.Object)
		if !ok || !isFunction(opts.Get("itemFilter")) {
			continue
		}
		if s.itemFilters == nil {
			s.itemFilters = map[string]bool{}
		}
		s.itemFilters[uri] = true
		if o, ok := exported[uri].(map[string]any); ok {
			delete(o, "itemFilter")
		}
	}
}

// ItemFilter returns the JS itemFilter of the feed uri in customSettings.FEEDS, as a Go
// function that calls it on the spider's first VM (a promise is awaited; the result is
// taken as a boolean), or nil when that feed has none.
func (s *Spider) ItemFilter(uri string) func(types.Item) (bool, error) {
	if !s.itemFilters[uri] {
		return nil
	}
	return func(item types.Item) (bool, error) {
		vm, err := s.vm0()
		if err != nil {
			return false, err
		}
		st := s.state(vm)
		var keep bool
		err = st.await(s.ctx, func(rt *goja.Runtime) (goja.Value, error) {
			feeds := st.spider.Get("customSettings").ToObject(rt).Get(types.Feeds).ToObject(rt)
			fn, ok := goja.AssertFunction(feeds.Get(uri).ToObject(rt).Get("itemFilter"))
			if !ok {
				return nil, fmt.Errorf("customSettings.FEEDS[%q].itemFilter is no longer a function", uri)
			}
			return fn(goja.Undefined(), toJS(rt, item))
		}, func(v goja.Value) error {
			keep = v != nil && v.ToBoolean()
			return nil
		})
		return keep, err
	}
}
