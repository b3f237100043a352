package main

import (
	"slices"
	"testing"
)

// TestDiffItems: items match by key (the n-th of a key with the n-th, equal items first),
// without the key by position; the diff names added, removed and changed fields.
func TestDiffItems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                    string
		want, got               []string
		key                     string
		added, removed, changed []string
	}{
		{"equal in another order", []string{`{"url":"a","p":1}`, `{"url":"b","p":2}`}, []string{`{"url":"b","p":2}`, `{"url":"a","p":1}`}, "url", nil, nil, nil},
		{"a field changes", []string{`{"url":"a","price":"12.5"}`}, []string{`{"url":"a","price":"12.50"}`}, "url",
			nil, nil, []string{`item[url=a].price: "12.5" → "12.50"`}},
		{"fields come and go", []string{`{"url":"a","old":1}`}, []string{`{"url":"a","new":[1,"x"]}`}, "url",
			nil, nil, []string{`item[url=a].new: (absent) → [1,"x"]`, `item[url=a].old: 1 → (absent)`}},
		{"added and removed", []string{`{"url":"a"}`, `{"url":"b"}`}, []string{`{"url":"b"}`, `{"url":"c"}`}, "url",
			[]string{`item[url=c]: {"url":"c"}`}, []string{`item[url=a]: {"url":"a"}`}, nil},
		{"one key, equal items pair first", []string{`{"url":"p","t":"x"}`, `{"url":"p","t":"y"}`}, []string{`{"url":"p","t":"Y"}`, `{"url":"p","t":"x"}`}, "url",
			nil, nil, []string{`item[url=p#2].t: "y" → "Y"`}},
		{"testKey", []string{`{"name":"Tea","price":1}`}, []string{`{"name":"Tea","price":2}`}, "name",
			nil, nil, []string{`item[name=Tea].price: 1 → 2`}},
		{"no key: by position", []string{`{"n":1}`, `{"n":2}`}, []string{`{"n":1}`, `{"n":3}`, `{"n":4}`}, "url",
			[]string{`item[2]: {"n":4}`}, nil, []string{`item[1].n: 2 → 3`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := diffItems(tc.want, tc.got, tc.key)
			if d.err != nil {
				t.Fatal(d.err)
			}
			if !slices.Equal(d.added, tc.added) || !slices.Equal(d.removed, tc.removed) || !slices.Equal(d.changed, tc.changed) {
				t.Errorf("added %q, removed %q, changed %q\nwant %q, %q, %q", d.added, d.removed, d.changed, tc.added, tc.removed, tc.changed)
			}
			if d.empty() != (tc.added == nil && tc.removed == nil && tc.changed == nil) {
				t.Errorf("empty() = %v", d.empty())
			}
		})
	}
}
