package jsapi_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// declaredMembers returns the member names of the interface name in the hand-kept
// jscrawl.d.ts, in order.
func declaredMembers(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile("jscrawl.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "export interface "+name+" {\n")
	if !ok {
		t.Fatalf("no interface %s in jscrawl.d.ts", name)
	}
	body, _, _ = strings.Cut(body, "\n  }\n")
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^    (\w+)\??:`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestRequestOptionsDeclared: the options RequestOptions declares (the hand-kept
// jscrawl.d.ts) are the ones new Request() takes (prelude.js requestKeys), which its error
// for an unknown option lists.
func TestRequestOptionsDeclared(t *testing.T) {
	t.Parallel()
	declared := declaredMembers(t, "RequestOptions")
	names, _ := json.Marshal(declared)
	res := crawl(t, newServer(t), spec{src: `
export default class S {
  name = "declared";
  start() {
    const refused = [];
    for (const k of ` + string(names) + `) {
      try { new Request("BASE/p/1", { [k]: null }); } catch (e) { refused.push(k + ": " + e.message); }
    }
    let known = "";
    try { new Request("BASE/p/1", { noSuchOption: 1 }); } catch (e) { known = e.message; }
    this.crawler.stats.set("refused", JSON.stringify(refused));
    this.crawler.stats.set("known", known);
    return [];
  }
}
`})
	if got := res.stats["refused"]; got != "[]" {
		t.Errorf("new Request() refuses declared options: %v", got)
	}
	known, _ := res.stats["known"].(string)
	_, list, ok := strings.Cut(known, "(options: ")
	if !ok {
		t.Fatalf("the unknown option error lists no options: %q", known)
	}
	takes := strings.Split(strings.TrimSuffix(list, ")"), ", ")
	slices.Sort(takes)
	slices.Sort(declared)
	if !slices.Equal(takes, declared) {
		t.Errorf("new Request() takes %v, RequestOptions declares %v", takes, declared)
	}
}
