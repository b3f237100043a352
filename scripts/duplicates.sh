#!/usr/bin/env bash
# Counts repeated code as issue 29 measures it: the workplace's `duplicates` command (on
# the developers' PATH; it is not part of the repository) over a copy of the committed
# tree in which
#   1. the lines inside Go `import ( ... )` blocks are blanked (line numbers kept): the
#      tool skips import lines but not the quoted paths of a block, so any two files that
#      import the same five packages count as a pair;
#   2. the tables of test cases ported from other projects' suites are left out (listed
#      below, each with the suite it ports): their rows are alike by design and are the
#      cited source's, not ours to fold.
# It prints the tool's count line for the whole tree as it is, then for the copy, then the
# copy's pairs (--most N, default 200). Run from anywhere in the checkout:
#   scripts/duplicates.sh [N]
set -euo pipefail
root=$(git rev-parse --show-toplevel)
most=${1:-200}
command -v duplicates >/dev/null || { echo "duplicates: not on PATH (a workplace tool)" >&2; exit 2; }

ported=(
	engine/robotstxt/protego_test.go                # protego's tests/test_protego.py
	jsapi/cheerio_spec_attributes_test.go           # cheerio's src/api/attributes.spec.ts
	jsapi/cheerio_spec_fixtures_test.go             # cheerio's src/__fixtures__/fixtures.ts
	jsapi/cheerio_spec_htmltext_test.go             # cheerio's src/api/manipulation.spec.ts (.html, .text)
	jsapi/cheerio_spec_static_test.go               # cheerio's src/static.spec.ts, src/cheerio.spec.ts
	jsapi/cheerio_spec_traversing_test.go           # cheerio's src/api/traversing.spec.ts
	jsapi/links/glob_minimatch_test.go              # minimatch's test/patterns.js
	jsapi/links/scrapy_test.go                      # Scrapy's tests/test_linkextractors.py
	jsapi/parsel_test.go                            # parsel's tests/test_selector.py
	jsapi/selector/parsel_css_test.go               # parsel's tests/test_selector_csstranslator.py
	jsapi/selector/w3lib_internal_test.go           # w3lib's tests/test_encoding.py
	jsapi/selector/xpath_pi_test.go                 # lxml's test_etree.py, elementpath's test_tree_builders.py
	jsapi/selector/xpathfuncs_test.go               # parsel's tests/test_xpathfuncs.py
	jsapi/selector/xpath1/elementpath_test.go       # elementpath's tests/test_xpath1_parser.py
	jsapi/selector/xpath1/parsel_test.go            # parsel's tests/test_selector.py (XPath)
	jsapi/selector/xpath1/parsel_xml_test.go        # parsel's XML cases
	jsapi/url_wpt_test.go                           # WPT url/resources/urltestdata.json
	types/url_test.go                               # w3lib's tests/test_url.py
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive HEAD | tar -x -C "$tmp"
for f in "${ported[@]}"; do
	[ -e "$tmp/$f" ] || { echo "scripts/duplicates.sh: $f is gone: update the list" >&2; exit 2; }
	rm "$tmp/$f"
done
find "$tmp" -name '*.go' -print0 | while IFS= read -r -d '' f; do
	awk '/^import \($/ { blank = 1; print ""; next }
	     blank { print ""; if ($0 == ")") blank = 0; next }
	     { print }' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
done
echo "whole tree:        $(cd "$root" && duplicates --most 1 --seconds 120 | head -1)"
echo "counted (${#ported[@]} ported tables aside, import blocks blanked):"
(cd "$tmp" && duplicates --most "$most" --seconds 120)
