// Package sandbox checks what a spider's own settings (its customSettings, the settings of
// its tests cases) may do, by the Access its entry of types.Defs gives each setting: a spider is
// untrusted code, so a setting that names a program, a service or a credential is the
// operator's, a path it sets must stay inside the working folder, and a ceiling may only
// tighten. Scrapy has no such check: its spiders are trusted.
package sandbox

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// Error is a spider setting the rules refuse: the key, why, and how the operator passes it.
type Error struct {
	Key    string
	Reason string
}

// Error names the key, the reason and the operator's way to set it.
func (e *Error) Error() string {
	how := "-s " + e.Key + "=VALUE"
	if d, _ := types.Lookup(e.Key); d.Flag != "" {
		how = d.Flag + " or " + how
	}
	return fmt.Sprintf("%s: %s (a spider may not set it; the operator can, with %s)", e.Key, e.Reason, how)
}

// CheckSettings checks every spider setting of custom, in key order, and returns the first
// refusal as an *Error. dir is the working folder that spider paths must stay inside. A
// value of the wrong type is left to types.Settings.Set, which reports it.
func CheckSettings(custom map[string]any, dir string) error {
	defaults := types.NewSettings()
	for _, key := range slices.Sorted(maps.Keys(custom)) {
		if err := checkSetting(key, custom[key], defaults, dir); err != nil {
			return err
		}
	}
	return nil
}

func checkSetting(key string, raw any, defaults *types.Settings, dir string) error {
	access := types.AccessOf(key)
	if access == types.SpiderSets {
		return nil
	}
	fail := func(format string, args ...any) error {
		return &Error{Key: key, Reason: fmt.Sprintf(format, args...)}
	}
	if access == types.OperatorOnly {
		d, _ := types.Lookup(key)
		why := d.Why
		if why == "" {
			why = "it is the operator's"
		}
		return fail("%s", why)
	}
	conv := types.NewSettings()
	if err := conv.Set(key, raw, types.PrioritySpider); err != nil {
		return nil // a bad value: Set reports it where the settings are applied
	}
	switch access {
	case types.SpiderPath:
		paths := conv.StringList(key)
		if _, isList := conv.Get(key).([]any); !isList {
			paths = []string{conv.String(key)}
		}
		if key == types.HTTPImpersonate { // a comma-separated list of names and paths
			paths = strings.Split(conv.String(key), ",")
		}
		for _, p := range paths {
			p = strings.TrimSpace(p)
			if err := Inside(dir, p); err != nil {
				return fail("%v", err)
			}
		}
	case types.SpiderTightens:
		return tightens(key, conv, defaults, fail)
	case types.SpiderChecked:
		return checked(key, conv, dir, fail)
	}
	return nil
}

// tightens refuses a ceiling loosened past its default.
func tightens(key string, conv, defaults *types.Settings, fail func(string, ...any) error) error {
	if b, ok := defaults.Get(key).(bool); ok {
		if b && !conv.Bool(key) {
			return fail("a spider may switch this check on, not off")
		}
		return nil
	}
	v, d := conv.Float(key), defaults.Float(key)
	def, _ := types.Lookup(key)
	switch {
	case def.ZeroIsNoLimit && v == 0:
		return fail("0 means no limit, and a spider may only tighten this ceiling")
	case def.ZeroIsNoLimit && d == 0:
		return nil
	case v > d:
		return fail("%v is above the default %v, and a spider may only tighten this ceiling", conv.Get(key), defaults.Get(key))
	}
	return nil
}

// fileHandler is the download handler that reads local files.
const fileHandler = "FileDownloadHandler"

// feedScheme matches a feed URI's scheme (file://, s3://...).
var feedScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// checked applies the rules of the SpiderChecked settings.
func checked(key string, conv *types.Settings, dir string, fail func(string, ...any) error) error {
	switch key {
	case types.DownloadSchemes:
		for _, s := range conv.StringList(key) {
			if strings.EqualFold(strings.TrimSpace(s), "file") {
				return fail("the file scheme reads local files")
			}
		}
	case types.DownloadHandlers:
		for _, scheme := range slices.Sorted(maps.Keys(conv.Map(key))) {
			h := conv.Map(key)[scheme]
			if h == nil {
				continue // switching a scheme off is the spider's
			}
			if name, _ := h.(string); strings.EqualFold(name, fileHandler) || strings.EqualFold(scheme, "file") {
				return fail("%s → %v reads local files", scheme, h)
			}
		}
	case types.Feeds:
		for _, uri := range slices.Sorted(maps.Keys(conv.Map(key))) {
			if uri == "-" || uri == "stdout:" {
				continue
			}
			if len(uri) >= 7 && strings.EqualFold(uri[:7], "sqlite:") {
				// A SQLite file is the spider's when a relative path inside the working
				// folder names it; sqlite:///abs is an absolute path, as file:// is.
				p, _, _ := strings.Cut(uri[7:], "?")
				if strings.HasPrefix(p, "//") {
					return fail("%q: sqlite:/// names an absolute path; a spider's SQLite feeds must be sqlite:relative/path.db inside the working folder", uri)
				}
				if err := Inside(dir, p); err != nil {
					return fail("%q: %v", uri, err)
				}
				continue
			}
			if m := feedScheme.FindStringSubmatch(uri); m != nil {
				if strings.EqualFold(m[1], "file") {
					return fail("%q: a file:// URI is an absolute path; a spider's feeds must be relative paths inside the working folder", uri)
				}
				return fail("%q: a %s:// feed storage is a network service", uri, m[1])
			}
			if err := Inside(dir, uri); err != nil {
				return fail("%q: %v", uri, err)
			}
		}
	}
	return nil
}

// Inside checks that the relative path p stays inside dir once resolved: p is not
// absolute, has no ".." element, and no symlink on its way (the part of it that exists)
// leads out of dir. An empty p (none) passes.
func Inside(dir, p string) error {
	if p == "" {
		return nil
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		return errors.New("an absolute path; a spider's paths must be relative and stay inside the working folder")
	}
	if slices.Contains(strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }), "..") {
		return errors.New("a path with \"..\"; a spider's paths must stay inside the working folder")
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("the working folder: %w", err)
	}
	// The longest part of p that exists, resolved, must be inside root: what does not
	// exist yet has no symlink in it.
	probe := filepath.Join(dir, filepath.Clean(p))
	for {
		real, err := filepath.EvalSymlinks(probe)
		if err == nil {
			if !within(root, real) {
				return fmt.Errorf("a path that resolves outside the working folder (to %s, through a symlink)", real)
			}
			return nil
		}
		if _, lerr := os.Lstat(probe); lerr == nil {
			// It exists but does not resolve: a dangling symlink, whose target a write
			// would create wherever it points.
			return fmt.Errorf("a path through a symlink that does not resolve (%v)", err)
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return nil
		}
		probe = parent
	}
}

// within reports whether path is root or below it (both resolved and clean).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
