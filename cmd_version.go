package main

import (
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/debug"

	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

// versionCommand prints the version, with -v the versions of the main dependencies.
func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version (-v: with Go, goja and esbuild versions)",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "v", Aliases: []string{"verbose"}, Usage: "show dependency versions"}},
		Action: func(c *cli.Context) error {
			w, _ := stdio(c)
			fmt.Fprintln(w, "jscrawl "+types.Version)
			if c.Bool("v") {
				printDeps(w)
			}
			return nil
		},
	}
}

func version() string { return types.Version }

func printDeps(w io.Writer) {
	fmt.Fprintln(w, "go "+goruntime.Version())
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	for _, d := range bi.Deps {
		switch d.Path {
		case "github.com/dop251/goja", "github.com/dop251/goja_nodejs", "github.com/evanw/esbuild",
			"github.com/PuerkitoBio/goquery", "github.com/andybalholm/cascadia":
			fmt.Fprintln(w, d.Path+" "+d.Version)
		}
	}
}
