package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// resumeSpider crawls the demo catalogue's 100 books; each item says the DOWNLOAD_DELAY
// and the -a tag the run had, so a resume that lost them shows in the feed.
const resumeSpider = `export default class {
  name = "resume";
  tag = "none";
  customSettings = { ROBOTSTXT_OBEY: false, LOGSTATS_INTERVAL: 0 };
  *start() { yield new Request(this.baseUrl + "/catalogue/page-1.html"); }
  *parse(r) {
    yield* r.followAll(r.css("article.product_pod h3 a::attr(href)").getall(), { callback: this.parseBook });
    const next = r.css("li.next a::attr(href)").get();
    if (next) yield r.follow(next);
  }
  *parseBook(r) {
    yield { title: r.css("h1::text").get(""), tag: this.tag, delay: this.crawler.settings.getFloat("DOWNLOAD_DELAY") };
  }
}
`

// TestResumeWithJobdirAlone: a demo crawl started with -o, -s and -a, stopped by a real
// SIGINT or SIGKILL, resumed with only --jobdir, ends with the 100 books once each in the
// first run's feed, every item scraped with the first run's setting and argument.
func TestResumeWithJobdirAlone(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, dir, "books.js", resumeSpider)
			p := startIn(t, dir, "--demo", "books.js", "--jobdir", "job", "-o", "items.jsonl",
				"-s", "DOWNLOAD_DELAY=0.03", "-a", "tag=first", "-s", "JOBDIR_COMMIT_INTERVAL=0.02", "-L", "DEBUG")
			for range 10 {
				p.waitLine(t, "Scraped from")
			}
			p.signal(t, sig)
			code, _ := p.waitEnd(t, time.Now())
			switch {
			case sig == syscall.SIGINT && code != 130:
				t.Fatalf("stopped run: exit code %d\n%s", code, p.Log())
			case sig == syscall.SIGINT && !strings.Contains(p.Log(), "Paused. Resume with: jscrawl run --jobdir job\n"):
				t.Errorf("the hint is not jscrawl run --jobdir job:\n%s", p.Log())
			}
			code, log := runJobCrawl(t, dir, "--jobdir", "job")
			if code != 0 {
				t.Fatalf("jscrawl run --jobdir job: exit code %d\n%s", code, log)
			}
			if !strings.Contains(log, "Resuming the job in job") {
				t.Errorf("the run did not resume:\n%s", log)
			}
			items, _ := readFeed(t, filepath.Join(dir, "items.jsonl"))
			titles := map[string]int{}
			for _, it := range items {
				titles[it["title"].(string)]++
				if it["tag"] != "first" || it["delay"] != 0.03 {
					t.Errorf("item %v: want tag first and delay 0.03 (the first run's -a and -s)", it)
				}
			}
			eachTitleOnce(t, titles, 100)
		})
	}
}

// TestResumeOptionsMustAgree: a paused job run again with an option that differs from its
// first run's (the feed, a setting, an argument, the spider file, a new setting) is refused
// with exit 2 naming it, making no request; without a secret the first run had it is
// refused too; with --override the change is taken and logged at WARNING. jscrawl job
// shows the command with the secrets masked, and the job folder holds none in clear.
func TestResumeOptionsMustAgree(t *testing.T) {
	t.Parallel()
	const total = 40
	site, arrived := heldTreeSite(t, total)
	dir := t.TempDir()
	writeFile(t, dir, "tree.js", treeSpider)
	writeFile(t, dir, "tree2.js", treeSpider)
	secrets := []string{"-a", "redis=redis://:pw-333@127.0.0.1:6379/0", "-s", "HTTP_PASS=hunter2", "-s", "API_TOKEN=tok-777"}
	first := append([]string{"tree.js", "--jobdir", "job", "-o", "items.jsonl", "-a", "baseUrl=" + site.URL,
		"-s", "DOWNLOAD_DELAY=0.001"}, secrets...)
	p := pauseJob(t, site, arrived, dir, first)
	if !strings.Contains(p.Log(), "Paused. Resume with: jscrawl run --jobdir job (give the secrets again: -a redis=redis://:****@127.0.0.1:6379/0 -s HTTP_PASS=**** -s API_TOKEN=****)") {
		t.Errorf("the hint does not ask for the secrets again:\n%s", p.Log())
	}
	site.mu.Lock()
	site.onHit = nil
	hits := site.n
	site.mu.Unlock()

	// jscrawl job: the command, masked; nothing in the job folder holds a secret in clear.
	text, _, code := jscrawl(t, "job", filepath.Join(dir, "job"))
	want := "command  jscrawl run tree.js --jobdir " + filepath.Join(dir, "job") + " -o items.jsonl -a baseUrl=" + site.URL +
		" -a redis=redis://:****@127.0.0.1:6379/0 -s DOWNLOAD_DELAY=0.001 -s HTTP_PASS=**** -s API_TOKEN=****"
	if code != 0 || !strings.Contains(text, want+"\n") {
		t.Errorf("jscrawl job: exit code %d, want the line\n%s\nin:\n%s", code, want, text)
	}
	_ = filepath.WalkDir(filepath.Join(dir, "job"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(path)
			for _, s := range []string{"hunter2", "tok-777", "pw-333"} {
				if strings.Contains(string(b), s) {
					t.Errorf("%s holds the secret %s in clear", path, s)
				}
			}
		}
		return nil
	})

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"another feed", append([]string{"-o", "other.jsonl"}, secrets...), "the job was started with -o items.jsonl, this run gives -o other.jsonl"},
		{"another setting", append([]string{"-s", "DOWNLOAD_DELAY=2"}, secrets...), "the job was started with -s DOWNLOAD_DELAY=0.001, this run gives -s DOWNLOAD_DELAY=2"},
		{"a new setting", append([]string{"-s", "CLOSESPIDER_ITEMCOUNT=5"}, secrets...), "the job was started with no -s CLOSESPIDER_ITEMCOUNT, this run gives -s CLOSESPIDER_ITEMCOUNT=5"},
		{"another argument", append([]string{"-a", "baseUrl=http://127.0.0.1:1"}, secrets...), "the job was started with -a baseUrl=" + site.URL},
		{"another spider file", append([]string{"tree2.js"}, secrets...), "the job was started with the spider file tree.js, this run gives tree2.js"},
		{"a secret left out", secrets[:4], "the job was started with -s API_TOKEN=****, a secret the job does not store: give it again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, log := runJobCrawl(t, dir, append([]string{"--jobdir", "job"}, tc.args...)...)
			if code != 2 || !strings.Contains(log, tc.want) {
				t.Errorf("exit code %d, want 2 with %q:\n%s", code, tc.want, log)
			}
		})
	}
	site.mu.Lock()
	if site.n != hits {
		t.Errorf("refused runs made %d requests", site.n-hits)
	}
	site.mu.Unlock()
	if _, err := os.Stat(filepath.Join(dir, "other.jsonl")); err == nil {
		t.Error("a refused run created its feed")
	}

	// --override: the rest of the job goes to the new feed, with a WARNING naming the change.
	code, log := runJobCrawl(t, dir, append([]string{"--jobdir", "job", "--override", "-o", "other.jsonl"}, secrets...)...)
	if code != 0 || !strings.Contains(log, "WARNING: --override: the job in job was started with -o items.jsonl, this run has -o other.jsonl") {
		t.Fatalf("--override: exit code %d, want 0 with a WARNING:\n%s", code, log)
	}
	seen := map[float64]int{}
	for _, f := range []string{"items.jsonl", "other.jsonl"} {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		for _, it := range jsonLines(t, string(data)) {
			seen[it["n"].(float64)]++
		}
	}
	for n := range total {
		if seen[float64(n)] != 1 {
			t.Errorf("item %d is in the feeds %d times, want once", n, seen[float64(n)])
		}
	}
	var st struct {
		Command struct {
			Options []struct{ Flag, Value string }
		}
	}
	out, _, _ := jscrawl(t, "job", filepath.Join(dir, "job"), "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"value": "other.jsonl"`) || strings.Contains(out, `"value": "items.jsonl"`) {
		t.Errorf("the job's command after --override:\n%s", out)
	}
}

// TestJobDamagedRefused: a paused job whose frontier/ folder (or its files), or status file, was deleted
// is refused as damaged (exit 1) naming what is missing, making no request and leaving the
// feed as it was, instead of starting over.
func TestJobDamagedRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		remove, want string
	}{
		{"frontier", "job in job is damaged: its frontier/ folder is missing"},
		{"job.json", "job in job is damaged: its status file job.json is missing"},
		{"frontier/", "job in job is damaged: its frontier/ folder holds no commit"},
	} {
		t.Run(strings.ReplaceAll(tc.remove, "/", " emptied"), func(t *testing.T) {
			t.Parallel()
			site, arrived := heldTreeSite(t, 40)
			dir := t.TempDir()
			writeFile(t, dir, "tree.js", treeSpider)
			args := []string{"tree.js", "--jobdir", "job", "-o", "items.jsonl", "-a", "baseUrl=" + site.URL}
			pauseJob(t, site, arrived, dir, args)
			site.mu.Lock()
			site.onHit = nil
			hits := site.n
			site.mu.Unlock()
			before, _ := os.ReadFile(filepath.Join(dir, "items.jsonl"))
			if err := os.RemoveAll(filepath.Join(dir, "job", tc.remove)); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(tc.remove, "/") {
				_ = os.Mkdir(filepath.Join(dir, "job", tc.remove), 0o755)
			}
			code, log := runJobCrawl(t, dir, args...)
			if code != 1 || !strings.Contains(log, tc.want) || !strings.Contains(log, "--fresh") {
				t.Errorf("exit code %d, want 1 with %q:\n%s", code, tc.want, log)
			}
			site.mu.Lock()
			if site.n != hits {
				t.Errorf("the refused run made %d requests", site.n-hits)
			}
			site.mu.Unlock()
			if after, _ := os.ReadFile(filepath.Join(dir, "items.jsonl")); string(after) != string(before) {
				t.Error("the refused run changed the feed")
			}
		})
	}
}

// TestJobExitCodes: the rows of the exit-code table (docs/guide.md) that a run can be
// brought to without a crawl: a bad option or setting is 2 wherever it is found, a failed
// --stats-json write is 1.
func TestJobExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "idle.js", `export default class { name = "idle"; *start() {} }`)
	writeFile(t, dir, "afile", "not a folder")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"done", []string{"run", "idle.js"}, 0, ""},
		{"jobdir is a file", []string{"run", "idle.js", "--jobdir", "afile"}, 2, "job folder afile"},
		{"jobdir without a job or a file", []string{"run", "--jobdir", "empty"}, 2, "holds no job to resume"},
		{"override without jobdir", []string{"run", "idle.js", "--override"}, 2, "--override needs --jobdir"},
		{"-a customSettings", []string{"run", "idle.js", "-a", "customSettings=x"}, 2, "-a customSettings"},
		{"bad -s", []string{"run", "idle.js", "-s", "CONCURRENT_REQUESTS=many"}, 2, "CONCURRENT_REQUESTS"},
		{"missing --replay file", []string{"run", "idle.js", "--replay", "none.warc"}, 2, "REPLAY_FILES"},
		{"settings --get unknown", []string{"settings", "--get", "NO_SUCH_SETTING"}, 2, "unknown setting"},
		{"--stats-json not writable", []string{"run", "idle.js", "--stats-json", "no/such/dir/stats.json"}, 1, "--stats-json"},
		{"threshold failed", []string{"run", "idle.js", "--threshold", "item_scraped_count >= 1"}, 99, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := jscrawlIn(t, dir, "", tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("jscrawl %v: exit code %d, want %d with %q:\n%s", tc.args, code, tc.code, tc.want, stderr)
			}
		})
	}
}

// TestResumeNeverIntoNoFeed: a paused job whose feed came from the spider's FEEDS, resumed
// with a spider that no longer has it, is refused (exit 2) instead of scraping the rest of
// its items into no feed; --override goes on without it.
func TestResumeNeverIntoNoFeed(t *testing.T) {
	t.Parallel()
	site, arrived := heldTreeSite(t, 40)
	dir := t.TempDir()
	withFeed := strings.Replace(treeSpider, `LOGSTATS_INTERVAL: 0 }`, `LOGSTATS_INTERVAL: 0, FEEDS: { "items.jsonl": { format: "jsonlines" } } }`, 1)
	writeFile(t, dir, "tree.js", withFeed)
	pauseJob(t, site, arrived, dir, []string{"tree.js", "--jobdir", "job", "-a", "baseUrl=" + site.URL})
	site.mu.Lock()
	site.onHit = nil
	hits := site.n
	site.mu.Unlock()
	writeFile(t, dir, "tree.js", treeSpider)
	code, log := runJobCrawl(t, dir, "--jobdir", "job")
	if code != 2 || !strings.Contains(log, "the job's earlier runs wrote the feeds items.jsonl, this run has none") {
		t.Errorf("exit code %d, want 2 naming the feed:\n%s", code, log)
	}
	site.mu.Lock()
	if site.n != hits {
		t.Errorf("the refused run made %d requests", site.n-hits)
	}
	site.mu.Unlock()
	if code, log := runJobCrawl(t, dir, "--jobdir", "job", "--override"); code != 0 {
		t.Errorf("--override: exit code %d\n%s", code, log)
	}
}
