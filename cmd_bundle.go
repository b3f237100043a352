package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/jscrawl/jscrawl/runtime"
	"github.com/urfave/cli/v2"
)

func bundleCommand() *cli.Command {
	return &cli.Command{
		Name:      "bundle",
		Usage:     "bundle a spider and its imports (npm packages included) into one JavaScript file",
		ArgsUsage: "SPIDER_FILE",
		Description: `Writes one self-contained, plain JavaScript file (an ES module) holding the spider, the
files it imports and the npm packages it uses from node_modules, with TypeScript types
removed. "jscrawl" stays an import, provided by whichever jscrawl runs the file, so the
result runs anywhere with "jscrawl run", no node_modules needed. Share it, or check it in.

Examples:
   jscrawl bundle spider.ts -o spider.js
   jscrawl run spider.js -o items.jsonl            (from any folder)
   jscrawl bundle spider.ts --minify -o spider.min.js
   jscrawl bundle spider.ts -o -                   (to stdout)`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "o", Aliases: []string{"output"}, Usage: "write the bundle to `FILE` (- for stdout); default: the spider's name with .bundle.js"},
			&cli.BoolFlag{Name: "minify", Usage: "make the file smaller (whitespace, syntax and local names)"},
			allowReadFlag(),
		},
		Action: bundleAction,
	}
}

func bundleAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("bundle needs exactly one spider file (got %d): jscrawl bundle spider.ts -o spider.js", c.NArg())
	}
	file := c.Args().First()
	opts := bundleOptions(c)
	opts.Minify = c.Bool("minify")
	code, err := runtime.BundleFile(file, opts)
	if err != nil {
		return bundleError(err)
	}
	out := c.String("o")
	if out == "" {
		out = file[:len(file)-len(filepath.Ext(file))] + ".bundle.js"
	}
	banner := fmt.Sprintf("// Bundled by jscrawl bundle from %s; run it with: jscrawl run %s\n", filepath.Base(file), filepath.Base(out))
	data := append([]byte(banner), code...)
	if out == "-" {
		stdout, _ := stdio(c)
		if _, err := stdout.Write(data); err != nil {
			return cli.Exit(fmt.Sprintf("bundle: write: %v", err), 1)
		}
		return nil
	}
	if abs, _ := filepath.Abs(out); abs != "" {
		if src, _ := filepath.Abs(file); src == abs {
			return usageError("bundle: -o %s would overwrite the spider file; choose another name", out)
		}
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return cli.Exit(fmt.Sprintf("bundle: %v (does the folder exist and is it writable?)", err), 1)
	}
	_, stderr := stdio(c)
	fmt.Fprintf(stderr, "Wrote %s (%d bytes); run it with: jscrawl run %s\n", out, len(data), out)
	return nil
}
