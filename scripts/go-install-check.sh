#!/usr/bin/env bash
# Checks that `go install github.com/jscrawl/jscrawl@VERSION` works for the committed HEAD
# as it will for a user (issue 28: a replace directive, a vendored copy or a file the
# module zip format refuses would break it), with an empty module cache and no network
# beyond the module proxy:
#   1. scripts/modproxy writes HEAD as a module proxy serves it (its pseudo-version, .info,
#      .mod, and a module zip of the committed tree: uncommitted files never go in) into a
#      temporary GOPROXY directory;
#   2. go install runs with a fresh GOMODCACHE and GOPATH, GOPROXY = that directory, then
#      this machine's module download cache, then the usual GOPROXY (dependencies come
#      from there);
#   3. every module it downloaded must match our go.sum (scripts/modproxy verify): go
#      install of a version runs outside any module, reads no go.sum and would ask the
#      checksum database, which knows no version of a commit nobody pushed, so the install
#      runs with GOSUMDB=off and the dependencies are held to go.sum after it, before
#      anything runs;
#   4. the installed binary prints its version and crawls the built-in demo site with
#      examples/books.ts (as committed), which must give the 100 books.
# Any failure exits non-zero. .ci/run calls it after the build; run it by hand from
# anywhere in the checkout. On a warm machine it needs no network at all
# (GOPROXY=off bash scripts/go-install-check.sh).
#
# Flags of the install: -pgo=off (default.pgo is checked in .ci/run; compiling every
# dependency with the profile costs minutes and changes no behaviour) and -trimpath (the
# temporary module cache's paths then do not enter the build cache's keys, so a second run
# reuses the first one's compiled packages).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$PATH:/usr/local/go/bin"
start=$(date +%s)
module=github.com/jscrawl/jscrawl
tmp=$(mktemp -d)
# The module cache's files are read-only.
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

version=$(go run ./scripts/modproxy write -repo . -rev HEAD -out "$tmp/proxy")
cache=$(go env GOMODCACHE)
upstream=$(go env GOPROXY)
echo "go install $module@$version (GOPROXY=file://$tmp/proxy,file://$cache/cache/download,$upstream)"
git show HEAD:examples/books.ts >"$tmp/books.ts"
git show HEAD:go.sum >"$tmp/go.sum"

mkdir -p "$tmp/work"
cd "$tmp/work" # outside the checkout: no go.mod or go.work around
if ! env -u GOWORK -u GOBIN \
	GOMODCACHE="$tmp/modcache" GOPATH="$tmp/gopath" \
	GOPROXY="file://$tmp/proxy,file://$cache/cache/download,$upstream" \
	GOSUMDB=off GOTOOLCHAIN=local \
	GOFLAGS="-pgo=off -trimpath" \
	go install "$module@$version"; then
	echo "go-install-check: go install $module@$version FAILED" >&2
	exit 1
fi
cd "$root"
go run ./scripts/modproxy verify -cache "$tmp/modcache/cache/download" -sum "$tmp/go.sum" -skip "$module"
bin="$tmp/gopath/bin/jscrawl"
# The binary is the module at that version, not a build of the checkout.
go version -m "$bin" | grep -q "^[[:space:]]*mod[[:space:]]*$module[[:space:]]*$version" || {
	echo "go-install-check: $bin is not $module@$version:" >&2
	go version -m "$bin" >&2
	exit 1
}
"$bin" version
"$bin" run --demo "$tmp/books.ts" -o "$tmp/books.jsonl" -s LOG_LEVEL=WARNING
items=$(wc -l <"$tmp/books.jsonl")
if [ "$items" -ne 100 ]; then
	echo "go-install-check: the installed jscrawl scraped $items books, want 100" >&2
	exit 1
fi
echo "go-install-check: ok ($module@$version installed and crawled $items books in $(($(date +%s) - start))s)"
