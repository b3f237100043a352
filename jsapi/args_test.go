package jsapi_test

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi"
)

// TestArgumentReplacingMethod: an argument named like a method of the spider (its own,
// its class's or an inherited one) is refused with an *ArgumentError naming it, instead of
// replacing the method with a string.
func TestArgumentReplacingMethod(t *testing.T) {
	t.Parallel()
	src := `import { Spider } from "jscrawl";
export default class S extends Spider {
  name = "m";
  tag = "t";
  helper = () => 1;
  *start() {}
  parse() {}
}`
	for _, tc := range []struct {
		arg    string
		method string // "" when the argument is accepted
	}{
		{"parse", "parse"},
		{"start", "start"},
		{"helper", "helper"},     // an arrow-function field
		{"toString", "toString"}, // inherited from Object.prototype
		{"tag", ""},
		{"fresh", ""},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			t.Parallel()
			spider, _, err := load(t, spec{src: src, args: map[string]string{tc.arg: "oops"}}, "", slog.New(slog.DiscardHandler))
			if tc.method == "" {
				if err != nil {
					t.Fatalf("-a %s=oops refused: %v", tc.arg, err)
				}
				spider.Close()
				return
			}
			if err == nil {
				spider.Close()
				t.Fatalf("-a %s=oops accepted", tc.arg)
			}
			var ae *jsapi.ArgumentError
			if !errors.As(err, &ae) || ae.Name != tc.method {
				t.Fatalf("err = %v (%T), want an ArgumentError for %s", err, err, tc.method)
			}
			want := "-a " + tc.method + ": the spider has a method " + tc.method + "; an argument cannot replace it"
			if err.Error() != want {
				t.Errorf("err = %q, want %q", err, want)
			}
		})
	}
}

// TestArgRead: arguments stay ordinary properties (enumerable, assignable, the class's
// default replaced) and ArgRead tells which ones the spider read; an argument the spider
// handles with its own setter counts as read.
func TestArgRead(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	var spider *jsapi.Spider
	res := crawl(t, srv, spec{
		args: map[string]string{"baseUrl": srv.URL, "unused": "u", "tags": "a,b"},
		src: `import { Request } from "jscrawl";
export default class S {
  name = "argread";
  baseUrl = "http://127.0.0.1:1";
  #tags: string[] = [];
  set tags(v: string) { this.#tags = v.split(","); }
  get tags(): any { return this.#tags; }
  *start() { yield new Request(this.baseUrl + "/p/1"); }
  parse() {
    this.baseUrl = "changed";
    return { keys: Object.keys(this).filter((k) => k !== "crawler" && k !== "logger").sort().join(" "),
      base: this.baseUrl, tags: this.tags.length };
  }
}`,
		bound: func(s *jsapi.Spider, _ *engine.Engine) { spider = s },
	})
	equalLines(t, "items", res.lines(t), []string{`{"keys":"baseUrl name unused","base":"changed","tags":2}`}, res.log)
	for name, want := range map[string]bool{"baseUrl": true, "unused": false, "tags": true, "absent": false} {
		if got := spider.ArgRead(name); got != want {
			t.Errorf("ArgRead(%q) = %v, want %v", name, got, want)
		}
	}
}
