package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jscrawl/jscrawl/engine/job"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

// A job remembers its command: the first `jscrawl run --jobdir DIR` stores the spider file
// and the options that change the crawl's results in the job's status file (job.Command),
// and a later run of the job starts from them. An option the later run gives again must
// agree with the stored one (--override lets it differ, with a WARNING); one it leaves out
// is taken from the job. Secrets are not stored: an option holding one (a -s or -a whose
// key names a password, token, key or secret, a URL with a password) is stored masked and
// must be given again.

// rememberedFlags are the run options a job remembers, in the order its command shows
// them. Options that change only what is printed, logged or checked (-L, --stats-json,
// --threshold, --watch, --control, --metrics) are not remembered.
var rememberedFlags = []string{"demo", "o", "O", "a", "s", "allow-read", "warc", "replay", "replay-fallback", "frontier", "crawl-id"}

// keyedFlags are the remembered flags of NAME=VALUE values: each NAME is one option.
var keyedFlags = map[string]bool{"a": true, "s": true}

// masked stands for a secret in a remembered command.
const masked = "****"

// resumeCommand applies the command the job in dir was started with to the run c: it
// returns the spider file (the stored one when c names none), after setting on c each
// remembered option c leaves out. An option c gives that differs from the stored one is a
// usage error naming it, unless --override (then overrides says what changed, for the
// log). A job without a stored command (a new job, --fresh) leaves c as it is.
func resumeCommand(c *cli.Context, dir string) (file string, overrides []string, err error) {
	file = c.Args().First()
	if c.Bool("fresh") {
		return file, nil, nil
	}
	st, err := job.ReadStatus(dir)
	if err != nil || st.Command == nil {
		return file, nil, nil
	}
	stored := st.Command
	override := c.Bool("override")
	differ := func(was, now string) error {
		if override {
			overrides = append(overrides, fmt.Sprintf("--override: the job in %s was started with %s, this run has %s", dir, was, now))
			return nil
		}
		return usageError("--jobdir %s: the job was started with %s, this run gives %s: leave the option out (the job remembers it), give the same, or add --override to change it", dir, was, now)
	}
	switch {
	case file == "":
		file = stored.File
	case filepath.Clean(file) != filepath.Clean(stored.File):
		if err := differ("the spider file "+stored.File, file); err != nil {
			return "", nil, err
		}
	}
	if wd, err := os.Getwd(); err == nil && stored.Dir != "" && wd != stored.Dir {
		overrides = append(overrides, fmt.Sprintf("the job in %s was started in the folder %s: its relative paths (the spider file, the feeds) are read from this one, %s", dir, stored.Dir, wd))
	}
	for _, flag := range rememberedFlags {
		var was []job.Option
		for _, o := range stored.Options {
			if o.Flag == flag {
				was = append(was, o)
			}
		}
		now := flagOptions(c, flag)
		if keyedFlags[flag] {
			err = resumeKeyed(c, flag, was, now, differ)
		} else {
			err = resumePlain(c, flag, was, now, differ)
		}
		if err != nil {
			return "", nil, err
		}
	}
	return file, overrides, nil
}

// resumePlain applies the remembered values was of a flag to c: all of them when c does
// not give the flag, else c's values must be the same.
func resumePlain(c *cli.Context, flag string, was, now []job.Option, differ func(was, now string) error) error {
	if !c.IsSet(flag) {
		for _, o := range was {
			if o.Secret {
				return needSecret(flag, o)
			}
			if err := c.Set(flag, o.Value); err != nil {
				return err
			}
		}
		return nil
	}
	if !slices.Equal(optionValues(was), optionValues(now)) {
		return differ(optionsText(flag, was), optionsText(flag, now))
	}
	return nil
}

// resumeKeyed applies the remembered NAME=VALUE values was of -s or -a to c, one NAME at a
// time: a NAME c gives must have the same value, and one c leaves out is taken from was.
func resumeKeyed(c *cli.Context, flag string, was, now []job.Option, differ func(was, now string) error) error {
	given := map[string]job.Option{}
	for _, o := range now {
		given[optionKey(o)] = o
	}
	old := map[string]bool{}
	for _, o := range was {
		k := optionKey(o)
		old[k] = true
		g, ok := given[k]
		switch {
		case !ok && o.Secret:
			return needSecret(flag, o)
		case !ok:
			if err := c.Set(flag, o.Value); err != nil {
				return err
			}
		case g.Value != o.Value:
			if err := differ(optionsText(flag, []job.Option{o}), optionsText(flag, []job.Option{g})); err != nil {
				return err
			}
		}
	}
	for _, o := range now {
		if !old[optionKey(o)] {
			if err := differ("no "+flagName(flag)+" "+optionKey(o), optionsText(flag, []job.Option{o})); err != nil {
				return err
			}
		}
	}
	return nil
}

// needSecret is the error for a secret the job's first run was given, which the job does
// not store.
func needSecret(flag string, o job.Option) error {
	return usageError("the job was started with %s, a secret the job does not store: give it again (on the command line, or in the environment for --frontier)", optionsText(flag, []job.Option{o}))
}

// optionKey is the NAME of a NAME=VALUE option.
func optionKey(o job.Option) string {
	k, _, _ := strings.Cut(o.Value, "=")
	return strings.TrimSpace(k)
}

func optionValues(opts []job.Option) []string {
	vs := make([]string, len(opts))
	for i, o := range opts {
		vs[i] = o.Value
	}
	return vs
}

// optionsText shows the options of one flag as typed: "-o a.jsonl -o b.jsonl", "--demo",
// or "no -o" when there are none.
func optionsText(flag string, opts []job.Option) string {
	if len(opts) == 0 {
		return "no " + flagName(flag)
	}
	parts := make([]string, len(opts))
	for i, o := range opts {
		parts[i] = optionText(o)
	}
	return strings.Join(parts, " ")
}

// optionText is one option as typed, its value shell-quoted when needed.
func optionText(o job.Option) string {
	if o.Flag == "demo" || o.Flag == "replay-fallback" {
		if o.Value == "true" {
			return flagName(o.Flag)
		}
		return flagName(o.Flag) + "=" + o.Value
	}
	return flagName(o.Flag) + " " + shellQuote(o.Value)
}

// flagName is the flag as typed: -o, --frontier.
func flagName(flag string) string {
	if len(flag) == 1 {
		return "-" + flag
	}
	return "--" + flag
}

// shellQuote quotes s for a POSIX shell when it has characters the shell would read.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,*") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// flagOptions returns the values c has for a remembered flag, masked, as options ({"demo",
// "true"} for a bool flag given).
func flagOptions(c *cli.Context, flag string) []job.Option {
	if !c.IsSet(flag) {
		return nil
	}
	var values []string
	for _, f := range c.Command.Flags {
		if !slices.Contains(f.Names(), flag) {
			continue
		}
		switch f.(type) {
		case *cli.StringSliceFlag:
			values = c.StringSlice(flag)
		case *cli.BoolFlag:
			values = []string{fmt.Sprint(c.Bool(flag))}
		default:
			values = []string{c.String(flag)}
		}
	}
	opts := make([]job.Option, 0, len(values))
	for _, v := range values {
		value, secret := maskValue(flag, v)
		opts = append(opts, job.Option{Flag: flag, Value: value, Secret: secret})
	}
	return opts
}

// runCommandOf is the command of run c with the spider file, as a job stores it (secrets
// masked).
func runCommandOf(c *cli.Context, file string) *job.Command {
	cmd := &job.Command{File: file}
	cmd.Dir, _ = os.Getwd()
	for _, flag := range rememberedFlags {
		cmd.Options = append(cmd.Options, flagOptions(c, flag)...)
	}
	return cmd
}

// maskValue masks the secret in a value of flag (types.SecretSetting, types.MaskURLsIn):
// the VALUE of a -s or -a whose NAME is a secret's, and the credentials of any URL in it
// (a FRONTIER password, a feed URI's token). secret reports whether it did.
func maskValue(flag, v string) (string, bool) {
	if keyedFlags[flag] {
		k, val, _ := strings.Cut(v, "=")
		name := strings.ToUpper(strings.TrimSpace(k))
		if types.SecretSetting(name) && name != types.Feeds && name != types.Frontier && name != types.ProxyList {
			return strings.TrimSpace(k) + "=" + masked, true
		}
		m := types.MaskURLsIn(val)
		if name == types.ProxyList && bareCredentials(m) {
			return strings.TrimSpace(k) + "=" + masked, true
		}
		if m != val {
			return k + "=" + m, true
		}
		return v, false
	}
	m := types.MaskURLsIn(v)
	return m, m != v
}

// bareCredentials reports whether s, its URLs masked, still holds user info that is not
// masked: a PROXY_LIST entry user:pass@host:port without a scheme.
func bareCredentials(s string) bool {
	for i := strings.IndexByte(s, '@'); i >= 0; i = strings.IndexByte(s, '@') {
		if !strings.HasSuffix(s[:i], types.Mask) {
			return true
		}
		s = s[i+1:]
	}
	return false
}

// commandText is the job's command as a user types it, with jobdir: jscrawl run FILE
// --jobdir DIR and the options, secrets masked.
func commandText(cmd *job.Command, jobdir string) string {
	parts := []string{"jscrawl run", shellQuote(cmd.File), "--jobdir", shellQuote(jobdir)}
	for _, o := range cmd.Options {
		parts = append(parts, optionText(o))
	}
	return strings.Join(parts, " ")
}

// resumeHint is how to resume the job in dir started with cmd: jscrawl run --jobdir DIR,
// with the secrets to give again.
func resumeHint(cmd *job.Command, dir string) string {
	hint := "jscrawl run --jobdir " + shellQuote(dir)
	var secrets []string
	for _, o := range cmd.Options {
		if o.Secret {
			secrets = append(secrets, optionText(o))
		}
	}
	if len(secrets) > 0 {
		hint += " (give the secrets again: " + strings.Join(secrets, " ") + ")"
	}
	return hint
}
