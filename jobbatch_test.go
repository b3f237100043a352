package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestJobSurvivesKillsIntoBatchFiles: a --jobdir crawl of 2,000 pages into batch files of
// 150 items (FEED_EXPORT_BATCH_ITEM_COUNT, named by %(batch_id)03d), SIGKILLed at random
// downloads at least 8 times and resumed each time with the same command: the files, in
// order, hold every item once, each but the last 150 of them, and no other file is left.
func TestJobSurvivesKillsIntoBatchFiles(t *testing.T) {
	t.Parallel()
	const total = 2000
	site, dir, args := treeJob(t, total, "-o", "out/%(batch_id)03d.jsonl", "-s", "FEED_EXPORT_BATCH_ITEM_COUNT=150")
	kills, _ := killThenFinish(t, site, dir, args, 10)
	if kills < 8 {
		t.Errorf("only %d kills happened", kills)
	}
	paths, err := filepath.Glob(filepath.Join(dir, "out", "*"))
	if err != nil {
		t.Fatal(err)
	}
	batches := make([][]byte, len(paths))
	for i, p := range paths {
		if batches[i], err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	batchesEachOnce(t, paths, batches, 150, total)
}

// batchesEachOnce checks that the JSON-lines batches (files or objects, named by names, in
// order) are as many as total items in batches of per make, each but the last holding per
// items, and that together they hold every item of the tree crawl once.
func batchesEachOnce(t *testing.T, names []string, batches [][]byte, per, total int) {
	t.Helper()
	if want := (total + per - 1) / per; len(batches) != want {
		t.Errorf("%d batches, want %d: %v", len(batches), want, names)
	}
	var all bytes.Buffer
	for i, b := range batches {
		if n := bytes.Count(b, []byte("\n")); i < len(batches)-1 && n != per {
			t.Errorf("%s has %d items, want %d", names[i], n, per)
		}
		all.Write(b)
	}
	merged := filepath.Join(t.TempDir(), "all.jsonl")
	if err := os.WriteFile(merged, all.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	eachOnce(t, merged, total)
}
