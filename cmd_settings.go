package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

func settingsCommand() *cli.Command {
	return &cli.Command{
		Name:  "settings",
		Usage: "print the settings a crawl would run with",
		Description: `Prints every setting with its value: the defaults, overridden by a spider's customSettings
(--spider FILE) and by -s KEY=VALUE, as "jscrawl run" applies them. Values are JSON; a table
by default, one JSON object with --json. --get KEY prints one value (text as is, anything
else as JSON). Secret settings (HTTP_PASS, FRONTIER's password, credentials in FEEDS URIs,
DEFAULT_REQUEST_HEADERS' credential headers, any *_PASSWORD, *_TOKEN, *_KEY or *_SECRET)
are shown masked; the crawl uses them as given.

The table's WHO MAY SET column says what a spider's customSettings may do with each setting
(the operator may set every one with -s): "spider" (crawl behaviour), "operator only" (a
program, a network service, a credential), "spider: relative path" (a path inside the
working folder), "spider: tighten only" (a ceiling a spider may lower, not raise) and
"spider: checked" (FEEDS targets inside the working folder, DOWNLOAD_SCHEMES and
DOWNLOAD_HANDLERS without the file scheme). A spider that breaks these rules is refused
before the crawl starts, with exit code 2.

Examples:
   jscrawl settings
   jscrawl settings --get CONCURRENT_REQUESTS
   jscrawl settings --spider spider.ts --get DOWNLOAD_DELAY
   jscrawl settings -s CONCURRENT_REQUESTS=32 --json`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "get", Usage: "print the value of the setting `KEY` only"},
			&cli.BoolFlag{Name: "json", Usage: "print all settings as one JSON object"},
			&cli.StringFlag{Name: "spider", Usage: "apply the customSettings of the spider `FILE`"},
		}, spiderFlags("")...),
		Action: settingsAction,
	}
}

func settingsAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("settings takes no arguments (got %q): use --spider FILE for a spider's settings", c.Args().First())
	}
	ls, err := readFlags(c, loadOptions{printOnly: true})
	if err != nil {
		return err
	}
	defer ls.Close()
	if err := ls.load(c.String("spider")); err != nil {
		return err
	}
	settings, stdout := ls.settings, ls.stdout
	if key := c.String("get"); key != "" {
		v := types.MaskSetting(key, settings.Get(key))
		if v == nil && !settings.Known(key) {
			return usageError("settings: unknown setting %s (jscrawl settings lists them all)", key)
		}
		if s, ok := v.(string); ok {
			fmt.Fprintln(stdout, s)
			return nil
		}
		fmt.Fprintln(stdout, settingJSON(v))
		return nil
	}
	if c.Bool("json") {
		all := map[string]any{}
		for _, k := range settings.Keys() {
			all[k] = types.MaskSetting(k, settings.Get(k))
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(all)
	}
	return settingsTable(stdout, settings)
}

// settingsTable writes KEY WHO VALUE rows, sorted by key, secrets masked: WHO is what a
// spider's customSettings may do with the setting (types.Access), the operator may set any.
func settingsTable(w io.Writer, settings *types.Settings) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tWHO MAY SET\tVALUE")
	for _, k := range settings.Keys() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k, types.AccessOf(k), settingJSON(types.MaskSetting(k, settings.Get(k))))
	}
	return tw.Flush()
}

func settingJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
