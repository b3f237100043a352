// Package templates holds the spider templates of `jscrawl new`. They are TypeScript files
// that type-check as they are (examples/tsconfig.json includes them) and crawl the demo site.
package templates

import (
	"embed"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

//go:embed *.ts
var files embed.FS

// Names lists the templates, sorted.
func Names() []string {
	entries, _ := files.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".ts"))
	}
	sort.Strings(names)
	return names
}

var validName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// Render returns template tmpl for a spider called name: the spider's name, its class name
// (SPIDER_CLASS) and its file name (SPIDER_NAME) filled in.
func Render(tmpl, name string) (string, error) {
	if !validName.MatchString(name) {
		return "", fmt.Errorf("spider name %q: use lower-case letters, digits, - and _, starting with a letter", name)
	}
	b, err := files.ReadFile(tmpl + ".ts")
	if err != nil {
		return "", fmt.Errorf("no template %q (templates: %s)", tmpl, strings.Join(Names(), ", "))
	}
	class := ""
	for _, part := range regexp.MustCompile(`[-_]+`).Split(name, -1) {
		if part != "" {
			class += strings.ToUpper(part[:1]) + part[1:]
		}
	}
	r := strings.NewReplacer("SPIDER_CLASS", class+"Spider", "SPIDER_NAME", name)
	return r.Replace(string(b)), nil
}
