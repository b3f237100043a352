package dtsgen

import (
	"reflect"
	"strings"
	"testing"
)

func TestGenerate(t *testing.T) {
	t.Parallel()
	got, err := Generate("testdata/ok")
	if err != nil {
		t.Fatal(err)
	}
	want := Header + `
declare module "jscrawl" {
  /** A thing (the JSDoc). */
  export class Thing<T> extends Base {
    /** Makes a thing. */
    constructor(n: number);
    readonly n: number;
    /** The size. */
    readonly size: number;
    /**
     * Returns every value,
     * in order.
     */
    getAll(): T[];
    getAll(n: number): T[];
  }
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	cs, err := Classes("testdata/ok")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Class{{Name: "Thing", Members: []string{"n", "size", "getAll"}}}; !reflect.DeepEqual(cs, want) {
		t.Errorf("Classes = %+v, want %+v", cs, want)
	}
}

func TestGenerateRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ dir, err string }{
		{"testdata/nots", "m.Get needs one run of //jscrawl:ts lines"},
		{"testdata/wrongname", `does not declare get`},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			t.Parallel()
			if _, err := Generate(tc.dir); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want %q", err, tc.err)
			}
		})
	}
}
