package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

// jscrawl test: snapshot tests of a spider. Each case of the module's tests export (one
// "default" case without it) replays __snapshots__/<spider name>/<case>.warc.gz, beside the
// spider file, and compares the items with <case>.items.jsonl; --record records the case
// from the network, --update accepts what the run yields.

func spiderTestCommand() *cli.Command {
	return &cli.Command{
		Name:      "test",
		Usage:     "run a spider's snapshot tests: replay each case's recorded crawl and compare its items with the snapshot",
		ArgsUsage: "SPIDER_FILE",
		Description: `Runs each case of the spider module's tests export, e.g.
   export const tests: SpiderTest[] = [{ name: "travel", args: { category: "travel" } }];
(one case named "default" when there is none): replays __snapshots__/<spider name>/<case>.warc.gz,
in the folder of the spider file, with no network, and compares the items with
<case>.items.jsonl. Items match by the case's testKey field (default url; without it, by
position) and a difference is shown as items added, removed and fields changed.

One line per case (PASS, FAIL, RECORDED, UPDATED), then the diff of a failure. Exit code 1
when a case fails, so it fits CI.

--record records a case from the network: a new case is written; an existing one is
compared with its snapshot and left untouched (exit 1 when the items differ) unless
--update is also given. --update alone accepts the items of the replay as the snapshot.

Examples:
   jscrawl test spider.ts --record        (once: record the snapshots)
   jscrawl test spider.ts                 (after each edit of the spider)
   jscrawl test spider.ts --update        (accept the new items)
   jscrawl test spider.ts --record --update  (re-record from the changed site)`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "record", Usage: "record the cases from the network (a new case is written; an existing one is compared)"},
			&cli.BoolFlag{Name: "update", Usage: "accept the items (and with --record the new recording) as the snapshot"},
			argFlag(),
			allowReadFlag(),
		}, setLogFlags("WARNING")...),
		Action: spiderTestAction,
	}
}

// snapshotCase is where one case's snapshot lives.
type snapshotCase struct {
	jsapi.SpiderTest
	warc, items string // the files
}

func spiderTestAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("test needs exactly one spider file: jscrawl test SPIDER_FILE [--record] [--update]")
	}
	file := c.Args().First()
	ls, err := readFlags(c, loadOptions{logLevel: "WARNING"})
	if err != nil {
		return err
	}
	err = ls.load(file)
	var name string
	var cases []jsapi.SpiderTest
	if err == nil {
		name, cases = ls.spider.Name(), ls.spider.Dev().Tests()
	}
	ls.Close()
	if err != nil {
		return err
	}
	for _, tc := range cases {
		if err := checkSpiderSettings(fmt.Sprintf("tests[%q].settings", tc.Name), tc.Settings); err != nil {
			return cli.Exit(fmt.Sprintf("%s: %v", file, err), 2)
		}
	}
	if len(cases) == 0 {
		cases = []jsapi.SpiderTest{{Name: "default"}}
	}
	dir := filepath.Join(filepath.Dir(file), "__snapshots__", name)
	out := ls.stdout
	record, update := c.Bool("record"), c.Bool("update")
	failed := 0
	for _, tc := range cases {
		sc := snapshotCase{SpiderTest: tc, warc: filepath.Join(dir, tc.Name+".warc.gz"), items: filepath.Join(dir, tc.Name+".items.jsonl")}
		ok, err := sc.run(c, file, record, update, out)
		if err != nil {
			fmt.Fprintf(out, "FAIL %s: %v\n", tc.Name, err)
		}
		if err != nil || !ok {
			failed++
		}
	}
	fmt.Fprintf(out, "%d passed, %d failed\n", len(cases)-failed, failed)
	if failed > 0 {
		return cli.Exit("", 1)
	}
	return nil
}

// run runs the case and prints its line (and diff). ok is false for a failure.
func (sc snapshotCase) run(c *cli.Context, file string, record, update bool, out io.Writer) (ok bool, err error) {
	exists := fileExists(sc.warc)
	set := maps.Clone(sc.Settings)
	if set == nil {
		set = map[string]any{}
	}
	// The archive must hold every response, and the replay must serve them all.
	set[types.HTTPCacheEnabled] = false
	var recordTo string
	if record {
		if err := os.MkdirAll(filepath.Dir(sc.warc), 0o755); err != nil {
			return false, err
		}
		recordTo = sc.warc
		if exists {
			recordTo = strings.TrimSuffix(sc.warc, ".warc.gz") + ".new.warc.gz"
			defer os.Remove(recordTo) // unless renamed into place
		}
		set[types.WARCFile], set[types.WARCMaxSize], set[types.ReplayFiles] = recordTo, 0, []any{}
	} else {
		if !exists {
			return false, fmt.Errorf("no snapshot %s: record it with jscrawl test --record %s", sc.warc, file)
		}
		set[types.ReplayFiles], set[types.ReplayFallback], set[types.WARCFile] = []any{sc.warc}, false, ""
		// A replay need not wait as the recorded crawl did.
		for k, v := range map[string]any{types.DownloadDelay: 0, types.AutoThrottleEnabled: false, types.RobotsTxtCrawlDelayMax: 0} {
			if _, ok := sc.Settings[k]; !ok {
				set[k] = v
			}
		}
	}
	got, misses, err := sc.crawl(c, file, set)
	if err != nil {
		return false, err
	}
	key := sc.TestKey
	if key == "" {
		key = "url"
	}
	if record && !exists {
		if err := writeSnapshot(sc.items, got, key); err != nil {
			return false, err
		}
		fmt.Fprintf(out, "RECORDED %s (%d items) in %s\n", sc.Name, len(got), filepath.Dir(sc.warc))
		return true, nil
	}
	want, err := readSnapshot(sc.items)
	if err != nil && !(update && errors.Is(err, fs.ErrNotExist)) {
		return false, err
	}
	d := diffItems(want, got, key)
	note := ""
	if misses > 0 {
		note = fmt.Sprintf("; %d requests not in the snapshot (replay/miss_count)", misses)
	}
	switch {
	case d.empty():
		fmt.Fprintf(out, "PASS %s (%d items%s)\n", sc.Name, len(got), note)
		return true, nil
	case update:
		if record {
			if err := os.Rename(recordTo, sc.warc); err != nil {
				return false, err
			}
		}
		if err := writeSnapshot(sc.items, got, key); err != nil {
			return false, err
		}
		fmt.Fprintf(out, "UPDATED %s: %s%s\n", sc.Name, d.summary(), note)
		d.print(out)
		return true, nil
	}
	fmt.Fprintf(out, "FAIL %s: %s%s\n", sc.Name, d.summary(), note)
	d.print(out)
	return false, nil
}

// crawl runs the spider once with the case's arguments and settings (over the command
// line's) and returns its items as JSON lines and the requests the replay lacked.
func (sc snapshotCase) crawl(c *cli.Context, file string, set map[string]any) ([]string, int64, error) {
	ls, err := readFlags(c, loadOptions{logLevel: "WARNING", set: set})
	if err != nil {
		return nil, 0, err
	}
	defer ls.Close()
	maps.Copy(ls.args, sc.Args)
	if err := ls.load(file); err != nil {
		return nil, 0, err
	}
	col := &itemCollector{}
	var opts []engine.Option
	for _, p := range ls.spider.Pipelines() {
		opts = append(opts, engine.WithPipelines(p))
	}
	eng, err := ls.newEngine(append(opts, engine.WithExporters(col))...)
	if err != nil {
		return nil, 0, err
	}
	ctx, stop := stopOnSignal(c)
	defer stop()
	if err := eng.Run(ctx); err != nil {
		return nil, 0, fmt.Errorf("crawl could not run: %w", err)
	}
	if ctx.Err() != nil {
		return nil, 0, errors.New("interrupted")
	}
	misses, _ := ls.stats.Get("replay/miss_count").(int64)
	return col.lines, misses, col.err
}

// itemCollector is the exporter of a test crawl: the items as JSON lines.
type itemCollector struct {
	mu    sync.Mutex
	lines []string
	err   error
}

// Export implements engine.Exporter.
func (x *itemCollector) Export(it types.Item) error {
	b, err := it.JSON()
	x.mu.Lock()
	defer x.mu.Unlock()
	if err != nil {
		x.err = errors.Join(x.err, err)
		return err
	}
	x.lines = append(x.lines, string(b))
	return nil
}

// Close implements engine.Exporter.
func (x *itemCollector) Close() error { return nil }

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// snapItem is one item of a snapshot or a run: its JSON line, fields and key.
type snapItem struct {
	line   string
	fields map[string]any
	key    string // the key field's value as text
	hasKey bool
}

// parseItem decodes a JSON line.
func parseItem(line, keyField string) (snapItem, error) {
	it := snapItem{line: line}
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&it.fields); err != nil {
		return it, err
	}
	if v, ok := it.fields[keyField]; ok {
		it.hasKey = true
		if s, isStr := v.(string); isStr {
			it.key = s
		} else {
			it.key = jsonText(v)
		}
	}
	return it, nil
}

// jsonText is v as compact JSON, HTML characters unescaped.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// sortSnapshot orders items as a snapshot file has them: by key, then by JSON text, so a
// file does not change with the crawl's order.
func sortSnapshot(items []snapItem) {
	slices.SortStableFunc(items, func(a, b snapItem) int {
		if a.hasKey != b.hasKey {
			if a.hasKey {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(a.line, b.line)
	})
}

// writeSnapshot writes the items to path as sorted JSON lines.
func writeSnapshot(path string, lines []string, keyField string) error {
	items, err := parseItems(lines, keyField)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, it := range items {
		b.WriteString(it.line)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// readSnapshot reads a snapshot's JSON lines.
func readSnapshot(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// parseItems decodes and sorts JSON lines.
func parseItems(lines []string, keyField string) ([]snapItem, error) {
	items := make([]snapItem, 0, len(lines))
	for i, l := range lines {
		it, err := parseItem(l, keyField)
		if err != nil {
			return nil, fmt.Errorf("item %d is not a JSON object: %w", i+1, err)
		}
		items = append(items, it)
	}
	sortSnapshot(items)
	return items, nil
}

// itemDiff is what differs between a snapshot and a run.
type itemDiff struct {
	added, removed []string // "item[...]: {json}"
	changed        []string // "item[...].field: old → new"
	changedItems   int
	err            error
}

func (d itemDiff) empty() bool {
	return d.err == nil && len(d.added) == 0 && len(d.removed) == 0 && len(d.changed) == 0
}

func (d itemDiff) summary() string {
	if d.err != nil {
		return d.err.Error()
	}
	return fmt.Sprintf("%d items added, %d removed, %d changed", len(d.added), len(d.removed), d.changedItems)
}

// maxDiffLines is how many lines of a case's diff are printed.
const maxDiffLines = 50

func (d itemDiff) print(w io.Writer) {
	var lines []string
	for _, l := range d.removed {
		lines = append(lines, "removed "+l)
	}
	for _, l := range d.added {
		lines = append(lines, "added   "+l)
	}
	for _, l := range d.changed {
		lines = append(lines, "changed "+l)
	}
	for i, l := range lines {
		if i == maxDiffLines {
			fmt.Fprintf(w, "    ... %d more\n", len(lines)-i)
			break
		}
		fmt.Fprintln(w, "    "+l)
	}
}

// diffItems compares a snapshot's items (want) with a run's (got): items with the key field
// match by its value (the n-th of a value with the n-th), the others by position.
func diffItems(want, got []string, keyField string) itemDiff {
	w, err := parseItems(want, keyField)
	if err != nil {
		return itemDiff{err: fmt.Errorf("snapshot: %w", err)}
	}
	g, err := parseItems(got, keyField)
	if err != nil {
		return itemDiff{err: err}
	}
	group := func(items []snapItem) (map[string][]snapItem, []snapItem) {
		keyed := map[string][]snapItem{}
		var rest []snapItem
		for _, it := range items {
			if it.hasKey {
				keyed[it.key] = append(keyed[it.key], it)
			} else {
				rest = append(rest, it)
			}
		}
		return keyed, rest
	}
	wk, wr := group(w)
	gk, gr := group(g)
	var d itemDiff
	// compare pairs the items of one key: equal items first, then the others in order;
	// an item is labelled with its place among the snapshot's (or, when added, the run's).
	compare := func(ws, gs []snapItem, labelOf func(i int) string) {
		free := map[string][]int{} // the run's items by JSON line, not yet paired
		for j, g := range gs {
			free[g.line] = append(free[g.line], j)
		}
		used := make([]bool, len(gs))
		var wi []int
		for i, w := range ws {
			if js := free[w.line]; len(js) > 0 {
				used[js[0]] = true
				free[w.line] = js[1:]
				continue
			}
			wi = append(wi, i)
		}
		var gi []int
		for j := range gs {
			if !used[j] {
				gi = append(gi, j)
			}
		}
		for n := range max(len(wi), len(gi)) {
			switch {
			case n >= len(gi):
				d.removed = append(d.removed, labelOf(wi[n])+": "+ws[wi[n]].line)
			case n >= len(wi):
				d.added = append(d.added, labelOf(gi[n])+": "+gs[gi[n]].line)
			default:
				if fieldChanges(labelOf(wi[n]), ws[wi[n]].fields, gs[gi[n]].fields, &d.changed) > 0 {
					d.changedItems++
				}
			}
		}
	}
	for _, k := range unionKeys(wk, gk) {
		compare(wk[k], gk[k], func(i int) string {
			if i == 0 {
				return fmt.Sprintf("item[%s=%s]", keyField, k)
			}
			return fmt.Sprintf("item[%s=%s#%d]", keyField, k, i+1)
		})
	}
	compare(wr, gr, func(i int) string { return fmt.Sprintf("item[%d]", i) })
	return d
}

// fieldChanges appends "label.field: old → new" for each field that differs and returns
// how many did.
func fieldChanges(label string, old, new map[string]any, out *[]string) int {
	n := 0
	for _, k := range unionKeys(old, new) {
		ov, inOld := old[k]
		nv, inNew := new[k]
		if inOld && inNew && reflect.DeepEqual(ov, nv) {
			continue
		}
		show := func(v any, ok bool) string {
			if !ok {
				return "(absent)"
			}
			return jsonText(v)
		}
		*out = append(*out, fmt.Sprintf("%s.%s: %s → %s", label, k, show(ov, inOld), show(nv, inNew)))
		n++
	}
	return n
}

// unionKeys returns the keys of a and b, sorted.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
