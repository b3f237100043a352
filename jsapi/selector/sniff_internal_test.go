package selector

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// datCase is one #data/#encoding block of an html5lib encoding test file.
type datCase struct {
	data     []byte
	encoding string
}

// readDat reads an html5lib encoding .dat file.
func readDat(t *testing.T, path string) []datCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []datCase
	for _, block := range bytes.Split(b, []byte("#data\n"))[1:] {
		data, enc, ok := bytes.Cut(block, []byte("\n#encoding\n"))
		if !ok {
			t.Fatalf("%s: a #data block without #encoding: %q", path, block)
		}
		name, _, _ := bytes.Cut(enc, []byte("\n"))
		out = append(out, datCase{data: data, encoding: strings.TrimSpace(string(name))})
	}
	return out
}

// sniffNoTransport is the HTML standard's encoding sniffing without a transport-layer
// encoding and with html5lib's default, windows-1252, including the parser's change of
// encoding on a later <meta> (tests1.dat has metas after 2048 to 8192 bytes of comment):
// what the .dat files expect.
func sniffNoTransport(b []byte) string {
	if name, n := bomSniff(b); n > 0 {
		return name
	}
	if enc, name := prescan(b); enc != nil {
		return name
	}
	if enc, name := parserMeta(b); enc != nil {
		return name
	}
	return "windows-1252"
}

// TestEncodingHTML5Lib runs html5lib-tests' encoding/*.dat (testdata/html5lib-encoding,
// MIT) through the BOM sniff, the prescan and the parser's <meta>: every case of tests1.dat, tests2.dat and
// test-yahoo-jp.dat passes; scripted/ (document.write) and chardet/ (statistical detection)
// are skipped and counted.
func TestEncodingHTML5Lib(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "html5lib-encoding")
	var pass, total int
	for _, file := range []string{"tests1.dat", "tests2.dat", "test-yahoo-jp.dat"} {
		for i, tc := range readDat(t, filepath.Join(dir, file)) {
			total++
			_, want := lookupLabel(tc.encoding)
			if want == "" {
				t.Fatalf("%s #%d: unknown expected encoding %q", file, i+1, tc.encoding)
			}
			if got := sniffNoTransport(tc.data); got != want {
				t.Errorf("%s #%d: got %s, want %s\n%.300q", file, i+1, got, want, tc.data)
				continue
			}
			pass++
		}
	}
	scripted := len(readDat(t, filepath.Join(dir, "scripted", "tests1.dat")))
	t.Logf("html5lib encoding: %d/%d pass; skipped: %d scripted (document.write), 1 chardet (statistical detection)", pass, total, scripted)
	if total != 82 || scripted != 1 {
		t.Errorf("ran %d cases and skipped %d scripted, want 82 and 1 (the counts in docs/from-scrapy.md)", total, scripted)
	}
}

func TestContainsFold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text, word string
		want       bool
	}{
		{"<html><TABLE>", "<table", true},
		{"<html><TaBlE", "<table", true},
		{"<html><tabl", "<table", false},
		{"<<table", "<table", true},
		{"< table <tab <tablE x", "<table", true},
		{"no tags here", "<table", false},
		{"", "<table", false},
		{"x<", "<table", false},
		{"META charset", "meta", true},
		{"met", "meta", false},
		{"anything", "", true},
	} {
		if got := containsFold(tc.text, tc.word); got != tc.want {
			t.Errorf("containsFold(%q, %q) = %v", tc.text, tc.word, got)
		}
		if got := containsFold([]byte(tc.text), tc.word); got != tc.want {
			t.Errorf("containsFold([]byte(%q), %q) = %v", tc.text, tc.word, got)
		}
	}
}

func BenchmarkContainsFold(b *testing.B) {
	page := []byte(strings.Repeat("<div class=\"product\"><a href=\"/x\">a book</a></div>\n", 1000))
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if containsFold(page, "<table") {
			b.Fatal("found")
		}
	}
}
