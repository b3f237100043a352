package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jscrawl/jscrawl/examples/templates"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/urfave/cli/v2"
)

func newCommand() *cli.Command {
	return &cli.Command{
		Name:      "new",
		Usage:     "write a new spider from a template (and the TypeScript typings when absent)",
		ArgsUsage: "NAME",
		Description: `Writes NAME.ts in the current folder (or --dir), and jscrawl.d.ts and tsconfig.json there
when they are absent, so the spider type-checks. Templates: ` + strings.Join(templates.Names(), ", ") + `.

Examples:
   jscrawl new quotes && jscrawl run --demo quotes.ts -o -
   jscrawl new shop --template crawl --dir spiders`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Value: "basic", Usage: "`NAME` of the template: " + strings.Join(templates.Names(), ", ")},
			&cli.StringFlag{Name: "dir", Value: ".", Usage: "write into `DIR`"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("new needs exactly one spider name: jscrawl new NAME [--template basic]")
			}
			src, err := templates.Render(c.String("template"), c.Args().First())
			if err != nil {
				return usageError("new: %v", err)
			}
			dir := c.String("dir")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return cli.Exit(fmt.Sprintf("new: %v", err), 1)
			}
			_, out := stdio(c)
			path := filepath.Join(dir, c.Args().First()+".ts")
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				if errors.Is(err, fs.ErrExist) {
					return cli.Exit(fmt.Sprintf("new: %s exists: choose another name or remove it", path), 1)
				}
				return cli.Exit(fmt.Sprintf("new: %v", err), 1)
			}
			if _, err := f.WriteString(src); err != nil {
				f.Close()
				return cli.Exit(fmt.Sprintf("new: %v", err), 1)
			}
			if err := f.Close(); err != nil {
				return cli.Exit(fmt.Sprintf("new: %v", err), 1)
			}
			fmt.Fprintln(out, "wrote "+path)
			for name, content := range map[string]string{"jscrawl.d.ts": jsapi.TypeDefinitions, "tsconfig.json": tsconfig} {
				p := filepath.Join(dir, name)
				if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
					if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
						return cli.Exit(fmt.Sprintf("new: %v", err), 1)
					}
					fmt.Fprintln(out, "wrote "+p)
				}
			}
			fmt.Fprintf(out, "next: jscrawl run --demo %s -o -\n", path)
			return nil
		},
	}
}
