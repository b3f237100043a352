#!/usr/bin/env bash
# Refreshes default.pgo, the CPU profile `go build` uses for profile-guided optimisation
# (Go's -pgo=auto picks up default.pgo in the main package's directory): a 20,000-page
# crawl of the bench kit's site (workload w3) by the kit's spider, profiled with
# `run --cpuprofile`. Run from anywhere; needs the kit (../shared/bench beside the
# repository, or BENCH_KIT) and its built site (bash ../shared/bench/setup.sh).
#
#   scripts/pgo.sh            # writes default.pgo
#   PORT=18099 PAGES=20000 scripts/pgo.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kit=${BENCH_KIT:-$root/../shared/bench}
site=${BENCH_WORK:-/tmp/jscrawl-bench}/site/site
port=${PORT:-18099}
pages=${PAGES:-20000}
tmp=$(mktemp -d)
trap 'kill "$site_pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT

[ -x "$site" ] || { echo "pgo.sh: $site not found: run bash $kit/setup.sh" >&2; exit 1; }
"$site" -port "$port" -total "$pages" >"$tmp/site.log" 2>&1 &
site_pid=$!
for _ in $(seq 100); do
	curl -sf -o /dev/null "http://127.0.0.1:$port/page/0" && break
	sleep 0.1
done
(cd "$root" && go build -o "$tmp/jscrawl" .)
"$tmp/jscrawl" run "$kit/jscrawl/bench.js" -O "$tmp/items.jsonl" -s LOG_LEVEL=WARNING \
	-a "startUrl=http://127.0.0.1:$port/page/0" --cpuprofile "$tmp/cpu.pprof"
items=$(wc -l <"$tmp/items.jsonl")
[ "$items" -eq $((pages * 10)) ] || { echo "pgo.sh: the crawl wrote $items items, want $((pages * 10))" >&2; exit 1; }
cp "$tmp/cpu.pprof" "$root/default.pgo"
echo "pgo.sh: wrote $root/default.pgo ($(wc -c <"$root/default.pgo") bytes) from a $pages-page crawl"
