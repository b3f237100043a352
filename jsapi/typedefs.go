package jsapi

// The TypeScript declarations of the "jscrawl" module (jscrawl types): the hand-written
// jscrawl.d.ts, the generated Go-backed classes and the settings table.

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

//go:embed jscrawl.d.ts
var typeDefinitions string

// cheerioDefinitions declares the built-in "cheerio" module (hand-kept, as jscrawl.d.ts).
//
//go:embed cheerio.d.ts
var cheerioDefinitions string

// generatedDefinitions declares the Go-backed classes, from their Go methods and doc
// comments (package internal/dtsgen; TestGeneratedDefinitionsAreCurrent fails when stale).
//
//go:generate go run ./internal/dtsgen/gendts -o jscrawl_gen.d.ts
//go:embed jscrawl_gen.d.ts
var generatedDefinitions string

// TypeDefinitions is jscrawl.d.ts: TypeScript declarations of the "jscrawl" and "cheerio"
// modules and the globals spiders see, with every known setting and its type (written by
// `jscrawl types`).
var TypeDefinitions = typeDefinitions + "\n" + generatedDefinitions + settingsDeclarations() + "\n" + cheerioDefinitions

// tsTypes is the TypeScript type of a setting of each kind (unknown for a kind not listed).
var tsTypes = map[types.Kind]string{
	types.KindInt:      "number",
	types.KindFloat:    "number",
	types.KindDuration: "number",
	types.KindBool:     "boolean",
	types.KindString:   "string",
	types.KindList:     "unknown[]",
	types.KindMap:      "Record<string, unknown>",
}

// accessNotes tells, in a setting's declaration, what a spider's customSettings may do with
// it ({key} stands for the setting's key); nothing for a setting a spider may set freely.
var accessNotes = map[types.Access]string{
	types.OperatorOnly:   " Operator only: a spider's customSettings may not set it (-s {key}=VALUE).",
	types.SpiderPath:     " In customSettings: a relative path inside the working folder.",
	types.SpiderTightens: " In customSettings: tighter than the default only.",
	types.SpiderChecked:  " In customSettings: checked (no file scheme; paths inside the working folder).",
}

// settingsDeclarations declares SettingsMap from types.Defs, so customSettings and
// crawler.settings.get() are type-checked against the settings jscrawl knows.
func settingsDeclarations() string {
	var b strings.Builder
	b.WriteString("\n// Generated from jscrawl's settings table.\ndeclare module \"jscrawl\" {\n")
	b.WriteString("  /** The settings jscrawl knows, with their types (defaults < customSettings < -s). */\n")
	b.WriteString("  export interface SettingsMap {\n")
	for _, d := range types.Defs {
		ts, ok := tsTypes[d.Kind]
		if !ok {
			ts = "unknown"
		}
		who := strings.ReplaceAll(accessNotes[types.AccessOf(d.Key)], "{key}", d.Key)
		fmt.Fprintf(&b, "    /** %s (%s).%s */\n    %s?: %s;\n", d.Doc, d.Kind, who, d.Key, ts)
	}
	b.WriteString("  }\n}\n")
	return b.String()
}
