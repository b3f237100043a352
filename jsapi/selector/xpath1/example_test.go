package xpath1_test

import (
	"fmt"
	"strings"

	"github.com/jscrawl/jscrawl/jsapi/selector/xpath1"
	"golang.org/x/net/html"
)

// Compile once, evaluate from any node of an x/net/html tree, with variables and an
// extension function (parsel's has-class, simplified).
func ExampleCompile() {
	doc, _ := html.Parse(strings.NewReader(`<ul><li class="a x">one</li><li class="b">two</li><li class="a">three</li></ul>`))
	hasClass := xpath1.Function{Result: xpath1.TypeBoolean, Call: func(c *xpath1.Context, args []xpath1.Value) (xpath1.Value, error) {
		for _, a := range c.Node.N.Attr {
			if a.Key == "class" {
				for _, f := range strings.Fields(a.Val) {
					if f == c.String(args[0]) {
						return xpath1.BooleanValue(true), nil
					}
				}
			}
		}
		return xpath1.BooleanValue(false), nil
	}}
	x, err := xpath1.Compile("//li[has-class($c)]/text()", &xpath1.Options{
		Functions: map[xpath1.QName]xpath1.Function{{Local: "has-class"}: hasClass},
	})
	if err != nil {
		panic(err)
	}
	nodes, err := x.Select(xpath1.HTML, xpath1.NodeOf(doc), &xpath1.Env{
		Variables: map[string]xpath1.Value{"c": xpath1.StringValue("a")},
	})
	if err != nil {
		panic(err)
	}
	for _, n := range nodes {
		fmt.Println(xpath1.StringOf(xpath1.HTML, n))
	}
	_, err = xpath1.Compile("//li[@class='a]", nil)
	fmt.Println(err)
	// Output:
	// one
	// three
	// Unfinished literal in //li[@class='a] at offset 12
}
