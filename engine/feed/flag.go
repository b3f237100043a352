package feed

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// ParseFlag parses the argument of -o (overwrite false) or -O (overwrite true), as Scrapy's
// feed_process_params_from_cli does. The argument is a URI with the format after its last
// colon ("items.txt:jsonl", "-:jsonl" for stdout) or taken from its extension (.jsonl or
// .jl, .json, .csv, .xml, each optionally followed by .gz). An unknown format is an error
// naming the argument and the formats.
func ParseFlag(arg string, overwrite bool) (uri string, cfg Config, err error) {
	cfg.Overwrite = overwrite
	if IsTable(arg) {
		return arg, cfg, nil // a table: no format
	}
	if i := strings.LastIndexByte(arg, ':'); i >= 0 {
		if f, ok := normalizeFormat(arg[i+1:]); ok {
			if arg[:i] == "" {
				return "", cfg, fmt.Errorf("feed %q: no uri before the format", arg)
			}
			cfg.Format = f
			return arg[:i], cfg, nil
		}
	}
	if arg == "" {
		return "", cfg, fmt.Errorf("empty feed argument")
	}
	if arg == "-" {
		// Items to stdout need no format: JSON Lines streams.
		cfg.Format = FormatJSONLines
		return arg, cfg, nil
	}
	ext := formatFromExt(arg)
	f, ok := normalizeFormat(ext)
	if !ok {
		// The message quotes the argument: its credentials are masked.
		shown := types.MaskURL(arg)
		return "", cfg, fmt.Errorf("feed %q: unknown format %q (want a file ending in .jsonl, .jl, .json, .csv or .xml, or URI:FORMAT with FORMAT one of %s)",
			shown, formatFromExt(shown), strings.Join(Formats(), ", "))
	}
	cfg.Format = f
	return arg, cfg, nil
}

// knownOptions are the FEEDS options that FromSettings understands.
var knownOptions = []string{"batchItemCount", "columns", "dataset", "encoding", "fields", "format", "indent", "overwrite", "upsertKey"}

// FromSettings parses the FEEDS setting: a JSON object from feed URI to options (Scrapy:
// FEEDS). The options are format (optional when the URI's extension names one),
// overwrite, fields (a list of names), indent, encoding, batchItemCount (Scrapy's
// batch_item_count is accepted too) and dataset (Config.Dataset); itemFilter is a JS function, so the spider's loader
// takes it out of customSettings and sets Config.ItemFilter. An unknown
// option, or one of the wrong type, is an error naming the URI, so a typo fails loudly.
func FromSettings(feeds map[string]any) (map[string]Config, error) {
	out := make(map[string]Config, len(feeds))
	for _, uri := range slices.Sorted(maps.Keys(feeds)) {
		cfg, err := parseOptions(uri, feeds[uri])
		if err != nil {
			return nil, fmt.Errorf("FEEDS %q: %w", uri, err)
		}
		out[uri] = cfg
	}
	return out, nil
}

func parseOptions(uri string, v any) (Config, error) {
	var cfg Config
	if uri == "" {
		return cfg, fmt.Errorf("empty uri")
	}
	opts, ok := v.(map[string]any)
	if v != nil && !ok {
		return cfg, fmt.Errorf("want an object of options, got %T", v)
	}
	for _, key := range slices.Sorted(maps.Keys(opts)) {
		val := opts[key]
		var err error
		switch key {
		case "format":
			s, ok := val.(string)
			if !ok {
				return cfg, fmt.Errorf("format: want a string, got %T", val)
			}
			if cfg.Format, ok = normalizeFormat(s); !ok {
				return cfg, fmt.Errorf("unknown format %q (want one of %s)", s, strings.Join(Formats(), ", "))
			}
		case "overwrite":
			cfg.Overwrite, err = toBool(val)
		case "indent":
			cfg.Indent, err = toInt(val)
		case "batchItemCount", "batch_item_count":
			cfg.BatchItemCount, err = toInt(val)
		case "itemFilter", "item_filter":
			return cfg, fmt.Errorf("itemFilter must be a JS function (item) => boolean in the spider's customSettings.FEEDS")
		case "dataset":
			s, ok := val.(string)
			if !ok {
				return cfg, fmt.Errorf("dataset: want the name of a dataset, got %T", val)
			}
			cfg.Dataset = s
		case "encoding":
			if val != nil {
				s, ok := val.(string)
				if !ok {
					return cfg, fmt.Errorf("encoding: want a string, got %T", val)
				}
				cfg.Encoding = s
			}
		case "fields":
			cfg.Fields, err = toStrings(val)
		case "upsertKey", "upsert_key":
			cfg.UpsertKey, err = toStrings(val)
		case "columns":
			cfg.Columns, err = toColumns(val)
		default:
			return cfg, fmt.Errorf("unknown option %q (want one of %s)", key, strings.Join(knownOptions, ", "))
		}
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", key, err)
		}
	}
	if IsTable(uri) {
		if cfg.Format != "" {
			return cfg, fmt.Errorf("format: a table feed has none (its rows are the items)")
		}
	} else if cfg.UpsertKey != nil || cfg.Columns != nil {
		return cfg, fmt.Errorf("upsertKey and columns are for table feeds (sqlite:, postgres://)")
	}
	if cfg.Format == "" && !IsTable(uri) {
		path, stdout, err := storagePath(uri)
		if isS3(uri) {
			path, stdout, err = s3Key(uri), false, nil
		}
		if err != nil {
			return cfg, err
		}
		if stdout {
			return cfg, fmt.Errorf("no format (set \"format\")")
		}
		f, ok := normalizeFormat(formatFromExt(path))
		if !ok {
			return cfg, fmt.Errorf("no format, and the extension names none (set \"format\" to one of %s)", strings.Join(Formats(), ", "))
		}
		cfg.Format = f
	}
	if err := cfg.validate(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func toBool(v any) (bool, error) {
	switch v := v.(type) {
	case bool:
		return v, nil
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return false, fmt.Errorf("want true or false, got %q", v)
		}
		return b, nil
	}
	return false, fmt.Errorf("want true or false, got %T", v)
}

func toInt(v any) (int, error) {
	switch v := v.(type) {
	case nil:
		return 0, nil
	case int:
		return v, nil
	case int64:
		return int(v), nil
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > 1<<31 {
			return 0, fmt.Errorf("want an integer, got %v", v)
		}
		return int(v), nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, fmt.Errorf("want an integer, got %q", v)
		}
		return n, nil
	}
	return 0, fmt.Errorf("want an integer, got %T", v)
}

func toStrings(v any) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []string:
		return slices.Clone(v), nil
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("want a list of names, element %d is %T", i, e)
			}
			out[i] = s
		}
		return out, nil
	case string: // "a,b,c", as Scrapy's FEED_EXPORT_FIELDS accepts
		var out []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list of names, got %T", v)
}

// Target returns what a feed URI writes to, for spotting two feeds on one target: "stdout"
// for "-" and "stdout:", otherwise the file's absolute, cleaned path (the URI itself when
// it has no file path, such as an unsupported scheme, which Open refuses later).
// Placeholders are not expanded: "%(name)s.json" and "quotes.json" count as different.
func Target(uri string) string {
	if IsTable(uri) {
		d, err := parseDBURI(uri)
		switch {
		case err != nil:
			return types.MaskURL(uri)
		case d.scheme == "sqlite":
			if abs, err := filepath.Abs(d.path); err == nil {
				d.path = abs
			}
			return "sqlite:" + filepath.ToSlash(filepath.Clean(d.path)) + "?table=" + d.table
		}
		return types.MaskURL(d.conn) + "#" + d.table
	}
	if isS3(uri) {
		if bucket, key, _, _, err := parseS3(uri); err == nil {
			return "s3://" + bucket + "/" + key
		}
		return types.MaskURL(uri)
	}
	path, stdout, err := storagePath(uri)
	switch {
	case err != nil:
		return uri
	case stdout:
		return "stdout"
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// toColumns parses the columns option: an object from field name to SQL type.
func toColumns(v any) (map[string]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want an object from field name to SQL type, got %T", v)
	}
	out := make(map[string]string, len(m))
	for k, t := range m {
		s, ok := t.(string)
		if !ok || strings.TrimSpace(s) == "" || strings.ContainsAny(s, ";\x00") {
			return nil, fmt.Errorf("%s: want an SQL type such as \"TEXT\", got %v", k, t)
		}
		out[k] = s
	}
	return out, nil
}
