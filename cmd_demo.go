package main

import (
	"fmt"

	"github.com/jscrawl/jscrawl/examples/demosite"
	"github.com/urfave/cli/v2"
)

// demoCommand serves the built-in demo site until Ctrl-C.
func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "serve the built-in offline demo site (bookstore, JSON API, quotes, pages that need a browser, /delay)",
		Description: `Examples:
   jscrawl demo                        (serves http://127.0.0.1:8000)
   jscrawl run examples/books.ts -a baseUrl=http://127.0.0.1:8000 -o books.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8000", Usage: "listen `ADDRESS`"},
		},
		Action: func(c *cli.Context) error {
			srv, err := demosite.Start(c.String("addr"))
			if err != nil {
				return cli.Exit(fmt.Sprintf("demo: %v (is the port taken? try --addr 127.0.0.1:8001)", err), 1)
			}
			defer srv.Close()
			_, out := stdio(c)
			fmt.Fprintf(out, "Demo site running at %s (Ctrl-C to stop)\n", srv.URL())
			ctx, stop := stopOnSignal(c)
			defer stop()
			<-ctx.Done()
			return nil
		},
	}
}
