package selector

import (
	"math"
	"strconv"
	"testing"
)

// TestCacheBounded is not parallel: it fills the process-wide cache on purpose.
func TestCacheBounded(t *testing.T) {
	for i := range cacheLimit + 100 {
		if _, err := Compile("p.c" + strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
		if n := cache.Len(); n > cacheLimit {
			t.Fatalf("cache holds %d entries, limit %d", n, cacheLimit)
		}
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query string
		want  string // compounds and combinators of each group, groups joined by " | "
	}{
		{"a", "a"},
		{"div p::text", "div _ p ::text"},
		{"div>p+a~b", "div > p + a ~ b"},
		{`a[title="x, y > z"] , b`, `a[title="x, y > z"] | b`},
		{"li:nth-child(2n + 1) ::attr(href)", "li:nth-child(2n + 1) _  ::attr(href)"},
		{`#a\31 23 .b`, `#a\31 23 _ .b`},
		{"a:not(b, c)", "a:not(b, c)"},
	} {
		groups, err := split(tc.query)
		if err != nil {
			t.Errorf("split(%q): %v", tc.query, err)
			continue
		}
		var parts []string
		for _, g := range groups {
			s := ""
			for i, c := range g.compounds {
				if i > 0 {
					comb := string(g.combs[i])
					if comb == " " {
						comb = "_"
					}
					s += " " + comb + " "
				}
				s += c
			}
			if g.pseudo != "" {
				s += " ::" + g.pseudo
			}
			parts = append(parts, s)
		}
		got := ""
		for i, p := range parts {
			if i > 0 {
				got += " | "
			}
			got += p
		}
		if got != tc.want {
			t.Errorf("split(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// TestXPathCache: a hot expression is compiled once, whatever the number of pages, and
// compiled again only for concurrent evaluations that find every copy busy; namespace
// bindings are part of the key.
func TestXPathCache(t *testing.T) {
	t.Parallel()
	expr := "//li[@class='cache-test']/text()"
	doc, err := Parse([]byte(`<ul><li class="cache-test">x</li></ul>`), "text/html")
	if err != nil {
		t.Fatal(err)
	}
	q1, err := CompileXPath(expr, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		q, err := CompileXPath(expr, nil)
		if err != nil || q != q1 {
			t.Fatalf("recompiled: %p != %p (%v)", q, q1, err)
		}
		rs, err := q.Select(doc.Root())
		if err != nil || len(rs) != 1 {
			t.Fatalf("%v %v", rs, err)
		}
	}
	q2, err := CompileXPath(expr, map[string]string{"a": "urn:a"})
	if err != nil || q2 == q1 {
		t.Errorf("namespaces not part of the key: %p %v", q2, err)
	}
	q3, _ := CompileXPath(expr, map[string]string{"a": "urn:a"})
	if q3 != q2 {
		t.Error("same namespaces compiled twice")
	}
	if _, err := CompileXPath("//a[", nil); err == nil {
		t.Error("no error")
	}
	if _, err := CompileXPath("//a[", nil); err == nil {
		t.Error("cached error lost")
	}
}

func TestPyFloat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {1, "1.0"}, {15, "15.0"}, {1.5, "1.5"}, {-2, "-2.0"},
		{0.30000000000000004, "0.30000000000000004"}, {1e15, "1000000000000000.0"}, {1e16, "1e+16"},
		{0.0001, "0.0001"}, {0.00001, "1e-05"}, {1.5e-7, "1.5e-07"},
		{math.NaN(), "nan"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.Copysign(0, -1), "-0.0"},
	} {
		if got := pyFloat(tc.f); got != tc.want {
			t.Errorf("pyFloat(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
