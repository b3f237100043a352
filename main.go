// Command jscrawl runs crawling spiders written in TypeScript or JavaScript on a Go engine.
//
//	jscrawl run spider.ts -o items.jsonl -s CONCURRENT_REQUESTS=32 -a category=travel
//	jscrawl run --demo examples/books.ts -o books.jsonl
//	jscrawl demo --addr 127.0.0.1:8000
//	jscrawl shell http://127.0.0.1:8000/ --spider examples/books.ts
//	jscrawl parse http://127.0.0.1:8000/catalogue/page-1.html --spider examples/books.ts
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

func main() {
	// A crawl allocates many short-lived objects (pages, JS values) and keeps a small live
	// heap: collecting less often trades a little memory for a lot of CPU. GOGC overrides it.
	// run pairs it with a soft memory limit (setMemoryLimit) so garbage cannot pile up.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	app := newApp()
	if err := app.Run(reorderArgs(app, os.Args)); err != nil {
		// An error may quote a URL the operator gave: its credentials are masked.
		if msg := types.MaskURLsIn(err.Error()); msg != "" { // an exit code alone (130, 99) prints nothing
			fmt.Fprintln(os.Stderr, "jscrawl:", msg)
		}
		var ec cli.ExitCoder
		if errors.As(err, &ec) {
			os.Exit(ec.ExitCode())
		}
		os.Exit(1)
	}
}

// newApp builds the command-line interface.
func newApp() *cli.App {
	registerPlugins() // engine/browser, engine/impersonate, the spill store
	usage := func(c *cli.Context, err error, _ bool) error {
		name := "jscrawl"
		if c.Command != nil && c.Command.Name != "" {
			name += " " + c.Command.Name
		}
		return cli.Exit(fmt.Sprintf("%v (see %s --help)", err, name), 2)
	}
	cmds := []*cli.Command{runCommand(), shellCommand(), fetchCommand(), parseCommand(), checkCommand(), spiderTestCommand(), newCommand(),
		bundleCommand(), benchCommand(), settingsCommand(), demoCommand(), typesCommand(), versionCommand(),
		psCommand(), pstreeCommand(), statsCommand(), jobCommand(), frontierCommand(), fingerprintCommand()}
	for _, c := range cmds {
		c.OnUsageError = usage
	}
	return &cli.App{
		Name:                   "jscrawl",
		Usage:                  "crawl websites with spiders written in TypeScript or JavaScript",
		Version:                version(),
		UseShortOptionHandling: false,
		HideHelpCommand:        true,
		// -s 'FEEDS={"a.csv": {...}, "b.json": {...}}' and file names keep their commas.
		DisableSliceFlagSeparator: true,
		Commands:                  cmds,
		ExitErrHandler:            func(*cli.Context, error) {}, // main prints and exits
		OnUsageError:              usage,
	}
}

// reorderArgs moves the positional arguments of a command after its flags, so options work
// before and after the spider file (urfave/cli stops parsing flags at the first positional
// argument). "--" ends the flags as usual.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	var cmd *cli.Command
	for _, c := range app.Commands {
		if c.HasName(args[1]) {
			cmd = c
		}
	}
	if cmd == nil {
		return args
	}
	if len(cmd.Subcommands) > 0 { // the subcommand's flags may follow its arguments too
		return append(args[:1:1], reorderArgs(&cli.App{Commands: cmd.Subcommands}, args[1:])...)
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	out := append([]string{}, args[:2]...)
	var pos []string
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			pos = append(pos, rest[i+1:]...)
			i = len(rest)
		case len(a) > 1 && a[0] == '-' && a != "-":
			out = append(out, a)
			name := a[1:]
			if len(name) > 0 && name[0] == '-' {
				name = name[1:]
			}
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(rest) {
				out = append(out, rest[i+1])
				i++
			}
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}
