// Command gendts writes jsapi/jscrawl_gen.d.ts, the declarations of jsapi's Go-backed JS
// classes (see package dtsgen). Run it through `go generate ./jsapi`.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/jscrawl/jscrawl/jsapi/internal/dtsgen"
)

func main() {
	dir := flag.String("dir", ".", "the package folder to read")
	out := flag.String("o", "jscrawl_gen.d.ts", "the file to write")
	flag.Parse()
	text, err := dtsgen.Generate(*dir)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, []byte(text), 0o644); err != nil {
		log.Fatal(err)
	}
}
