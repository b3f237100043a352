package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/jscrawl/jscrawl/types"
)

// docBlock is one fenced code block of a Markdown file.
type docBlock struct {
	file string
	line int
	lang string   // ts, js, ...
	tags []string // the words after the language: "spider", "fragment", "items=N"
	code string
}

var fence = regexp.MustCompile("(?m)^```([a-z]*)([^\\n]*)\\n")

// docBlocks returns the JS and TS code blocks of the docs and the README.
func docBlocks(t *testing.T) []docBlock {
	t.Helper()
	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md")
	var out []docBlock
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for pos := 0; ; {
			m := fence.FindStringSubmatchIndex(s[pos:])
			if m == nil {
				break
			}
			lang, tags := s[pos+m[2]:pos+m[3]], strings.Fields(s[pos+m[4]:pos+m[5]])
			start := pos + m[1]
			end := strings.Index(s[start:], "\n```")
			if end < 0 {
				t.Fatalf("%s: unclosed code block", f)
			}
			if lang == "ts" || lang == "js" || lang == "typescript" || lang == "javascript" {
				out = append(out, docBlock{file: f, line: strings.Count(s[:start], "\n") + 1, lang: lang, tags: tags, code: s[start : start+end+1]})
			}
			pos = start + end + 4
		}
	}
	return out
}

func (b docBlock) has(tag string) bool {
	for _, t := range b.tags {
		if t == tag || strings.HasPrefix(t, tag+"=") {
			return true
		}
	}
	return false
}

// TestDocSamples keeps the code in the docs from rotting: every JS/TS block must compile as
// a module (blocks tagged "fragment" are excerpts and are skipped), and every block tagged
// "spider" is a whole spider file that crawls the demo site without an error and scrapes
// items ("items=N": exactly N).
func TestDocSamples(t *testing.T) {
	t.Parallel()
	blocks := docBlocks(t)
	spiders := 0
	for _, b := range blocks {
		name := fmt.Sprintf("%s:%d", b.file, b.line)
		if b.has("fragment") {
			continue
		}
		loader := api.LoaderTS
		if strings.HasPrefix(b.lang, "j") {
			loader = api.LoaderJS
		}
		res := api.Transform(b.code, api.TransformOptions{Loader: loader, Format: api.FormatESModule, Sourcefile: name})
		for _, m := range res.Errors {
			line := 0
			if m.Location != nil {
				line = m.Location.Line
			}
			t.Errorf("%s (block line %d): %s (tag the block \"fragment\" if it is an excerpt)", name, line, m.Text)
		}
		if !b.has("spider") || len(res.Errors) > 0 {
			continue
		}
		spiders++
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			spider := writeFile(t, dir, "spider."+b.lang, b.code)
			out := filepath.Join(dir, "items.jsonl")
			_, stderr, code := jscrawl(t, "run", "--demo", spider, "-o", out)
			if code != 0 || strings.Contains(stderr, "] ERROR:") {
				t.Fatalf("exit code %d, or errors logged:\n%s", code, stderr)
			}
			data, _ := os.ReadFile(out)
			n := len(jsonLines(t, string(data)))
			want := -1
			for _, tag := range b.tags {
				if v, ok := strings.CutPrefix(tag, "items="); ok {
					fmt.Sscan(v, &want)
				}
			}
			if n == 0 || want >= 0 && n != want {
				t.Errorf("scraped %d items, want %v\n%s", n, map[bool]any{true: want, false: "some"}[want >= 0], stderr)
			}
		})
	}
	if spiders == 0 {
		t.Error("no runnable spider in the docs")
	}
}

// TestGuideSettingsAccess keeps the guide's settings table true to the Access of each types.Defs entry: every
// setting has a row whose "who may set" column is its Access, as `jscrawl settings` shows.
func TestGuideSettingsAccess(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Z0-9_]+)` \\| [^|]+ \\| [^|]* \\| ([^|]+) \\|")
	got := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		got[m[1]] = strings.TrimSpace(m[2])
	}
	for _, d := range types.Defs {
		want := types.AccessOf(d.Key).String()
		if g, ok := got[d.Key]; !ok {
			t.Errorf("docs/guide.md: no settings row for %s", d.Key)
		} else if g != want {
			t.Errorf("docs/guide.md: %s: who may set is %q, want %q", d.Key, g, want)
		}
	}
}
