package runtime_test

import (
	"reflect"
	"testing"

	"github.com/jscrawl/jscrawl/runtime"
)

// TestDocComments checks which name each /** */ comment documents, through the code that
// may stand between them and around them: TypeScript types and decorators, modifiers,
// strings, template literals and regular expressions that contain comment markers.
func TestDocComments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      []runtime.DocComment
	}{
		{"class methods", `export default class S {
  /** Start. */
  *start() {}
  /**
   * Books.
   * @url http://x/
   */
  async *parseBook(response) {}
}`, []runtime.DocComment{{"start", "Start.", 2}, {"parseBook", "Books.\n@url http://x/", 4}}},
		{"typescript", `import { Response } from "jscrawl";
function log(target: any, key: string) {}
export default class S extends Base<Item> {
  /** @url http://a/ */
  @log
  @other.deco({ a: "}" })
  public static override async *parse(response: Response, kw: Record<string, number> = {}): AsyncGenerator<Item> {}
  /** A field. */
  private readonly count?: number = 3;
  /** Generic. */
  parseList<T extends object>(r: Response): T[] { return []; }
  /** Arrow field. */
  parseArrow = async (r: Response) => {};
}`, []runtime.DocComment{{"parse", "@url http://a/", 4}, {"count", "A field.", 8}, {"parseList", "Generic.", 10}, {"parseArrow", "Arrow field.", 12}}},
		{"markers inside strings, templates and regexps", "class S {\n" +
			"  a() { const s = \"/** not a doc */\"; const r = /\\/**[/*]/g; const t = `/** ${ { x: `/**` }.x } */`; return 1 / 2 / 3; }\n" +
			"  /** Real. */\n" +
			"  b() {}\n}", []runtime.DocComment{{"b", "Real.", 3}}},
		{"object literal and function", `/** Obj. */
export default {
  /** @url http://o/ */
  parse: async function* (response) {},
  /** Quoted. */
  "parse-item"(r) {},
};
/** Fn. */
export async function helper() {}`, []runtime.DocComment{{"parse", "@url http://o/", 3}, {"parse-item", "Quoted.", 5}, {"helper", "Fn.", 8}}},
		{"method named get, and comments documenting nothing", `class S {
  /** Getter method. */
  get(r) {}
  /** Accessor. */
  get total() { return 1; }
  /** Nothing: a statement. */
  ;
  /**/
  /** Private. */
  #secret() {}
}`, []runtime.DocComment{{"get", "Getter method.", 2}, {"total", "Accessor.", 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := runtime.DocComments(tc.src)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("DocComments:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
