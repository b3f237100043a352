package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sandboxSecret is the first line of each file outside the spider's folder: neither an
// item nor an error may show it.
const sandboxSecret = "rootsecret-4c1d:x:0:0:operator:/home/operator:/bin/sh"

// leakSpider is a spider that exports what it imports from imp as its one item.
func leakSpider(imp string) string {
	return `import leaked from "` + imp + `";
export default class Leak {
  name = "leak";
  *start() { yield { leaked: typeof leaked === "string" ? leaked : JSON.stringify(leaked) }; }
}
`
}

// sandboxLayout writes base/outside (the operator's files: secret.txt, creds.json and a
// passwd-like file) and base/home/op/proj, the spider's folder, and returns base.
func sandboxLayout(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"outside/secret.txt": sandboxSecret + "\n",
		"outside/creds.json": `{"token": "` + sandboxSecret + `"}` + "\n",
		"outside/passwd":     sandboxSecret + "\ndaemon:x:1:1::/:/bin/false\n",
		"outside/shared.txt": "shared with --allow-read\n",
	} {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Dir(p), filepath.Base(p), content)
	}
	if err := os.MkdirAll(filepath.Join(base, "home/op/proj/a/b"), 0o755); err != nil {
		t.Fatal(err)
	}
	return base
}

func TestSandboxBundleRefusesEscapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// spider writes the spider and returns its path and the import the error names.
		spider func(t *testing.T, base string) (file, imp string)
	}{
		{"absolute creds.json", func(t *testing.T, base string) (string, string) {
			imp := filepath.Join(base, "outside/creds.json")
			return writeFile(t, filepath.Join(base, "home/op/proj"), "spider.ts", leakSpider(imp)), imp
		}},
		{"../../../secret.txt", func(t *testing.T, base string) (string, string) {
			// home/op/proj/a/b/../../../ is home/op: the secret is put there.
			writeFile(t, filepath.Join(base, "home/op"), "secret.txt", sandboxSecret+"\n")
			imp := "../../../secret.txt"
			return writeFile(t, filepath.Join(base, "home/op/proj/a/b"), "spider.ts", leakSpider(imp)), imp
		}},
		{"symlink out", func(t *testing.T, base string) (string, string) {
			proj := filepath.Join(base, "home/op/proj")
			if err := os.Symlink("../../../outside/secret.txt", filepath.Join(proj, "data.txt")); err != nil {
				t.Fatal(err)
			}
			return writeFile(t, proj, "spider.ts", leakSpider("./data.txt")), "./data.txt"
		}},
		{"/etc/passwd-like", func(t *testing.T, base string) (string, string) {
			imp := filepath.Join(base, "outside/passwd")
			return writeFile(t, filepath.Join(base, "home/op/proj"), "spider.ts", leakSpider(imp)), imp
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := sandboxLayout(t)
			file, imp := tc.spider(t, base)
			for _, args := range [][]string{
				{"run", file, "-o", "-:jsonl"},
				{"bundle", file, "-o", "-"},
			} {
				stdout, stderr, code := jscrawl(t, args...)
				if code == 0 {
					t.Errorf("%s: exit code 0, want the import refused\n%s", args[0], stderr)
				}
				if strings.Contains(stdout+stderr, "rootsecret-4c1d") {
					t.Errorf("%s: the secret shows:\nstdout: %s\nstderr: %s", args[0], stdout, stderr)
				}
				if want := `spider.ts:1:20: import "` + imp + `" is refused`; !strings.Contains(stderr, want) {
					t.Errorf("%s: stderr does not name the import at its position (%q):\n%s", args[0], want, stderr)
				}
				if !strings.Contains(stderr, "--allow-read") {
					t.Errorf("%s: stderr does not tell of --allow-read:\n%s", args[0], stderr)
				}
			}
		})
	}
}

func TestSandboxBundleAllowRead(t *testing.T) {
	t.Parallel()
	base := sandboxLayout(t)
	imp := filepath.Join(base, "outside/shared.txt")
	file := writeFile(t, filepath.Join(base, "home/op/proj"), "spider.ts", leakSpider(imp))
	allow := filepath.Join(base, "outside")
	// --allow-read after the spider file, as other options.
	stdout, stderr, code := jscrawl(t, "run", file, "-o", "-:jsonl", "--allow-read", allow)
	if code != 0 {
		t.Fatalf("run --allow-read: exit code %d\n%s", code, stderr)
	}
	items := jsonLines(t, stdout)
	if len(items) != 1 || items[0]["leaked"] != "shared with --allow-read\n" {
		t.Fatalf("run --allow-read: items %v, want the allowed file's text", items)
	}
	stdout, stderr, code = jscrawl(t, "bundle", "--allow-read="+allow, file, "-o", "-")
	if code != 0 || !strings.Contains(stdout, "shared with --allow-read") {
		t.Fatalf("bundle --allow-read: exit code %d\n%s\n%s", code, stdout, stderr)
	}
	// Another folder allows nothing more.
	_, stderr, code = jscrawl(t, "run", file, "-o", "-:jsonl", "--allow-read", filepath.Join(base, "home"))
	if code == 0 || !strings.Contains(stderr, `import "`+imp+`" is refused`) {
		t.Fatalf("run --allow-read of another folder: exit code %d\n%s", code, stderr)
	}
	if _, stderr, code = jscrawl(t, "run", file, "--allow-read", filepath.Join(base, "absent")); code == 0 || !strings.Contains(stderr, "absent") {
		t.Fatalf("run --allow-read of a missing folder: exit code %d\n%s", code, stderr)
	}
}
