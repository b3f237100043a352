package main

import (
	"fmt"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

// Record and replay: the loader's step that opens the WARC file a crawl records to
// (--warc, WARC_FILE) and the archives it replays (--replay, REPLAY_FILES), for every
// command that runs the engine, and closes them with the loader.

// archiveFlags are --warc, --replay and --replay-fallback, part of settingFlags. readFlags
// applies them as -s.
func archiveFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "warc", Usage: "record every download to the WARC `FILE` (the WARC_FILE setting; FILE.gz gzips each record; WARC_MAX_SIZE rotates to FILE-00001, ...)"},
		&cli.StringSliceFlag{Name: "replay", Usage: "serve every download from the WARC `FILE` instead of the network (REPLAY_FILES; repeatable); a request not in it fails with NotInArchive"},
		&cli.BoolFlag{Name: "replay-fallback", Usage: "with --replay: download the requests the archives lack (REPLAY_FALLBACK)"},
	}
}

// archiveFlagSettings sets the settings of the archiveFlags given.
func archiveFlagSettings(c *cli.Context, settings *types.Settings) error {
	set := func(flag, key string, v any) error {
		if err := settings.Set(key, v, types.PriorityCmdline); err != nil {
			return usageError("--%s %v: %v", flag, v, err)
		}
		return nil
	}
	if c.IsSet("warc") {
		if err := set("warc", types.WARCFile, c.String("warc")); err != nil {
			return err
		}
	}
	if c.IsSet("replay") {
		files := make([]any, 0, len(c.StringSlice("replay")))
		for _, f := range c.StringSlice("replay") {
			files = append(files, f)
		}
		if err := set("replay", types.ReplayFiles, files); err != nil {
			return err
		}
	}
	if c.IsSet("replay-fallback") {
		return set("replay-fallback", types.ReplayFallback, c.Bool("replay-fallback"))
	}
	return nil
}

// archiveOptions opens what WARC_FILE and REPLAY_FILES name (once) and returns the
// engine options that record and replay with them.
func (ls *loadedSpider) archiveOptions() ([]engine.Option, error) {
	var opts []engine.Option
	if files := ls.settings.StringList(types.ReplayFiles); len(files) > 0 && ls.replay == nil {
		a, err := warc.Open(files...)
		if err != nil {
			return nil, usageError("%s: %v", types.ReplayFiles, err)
		}
		ls.replay = a
		ls.logger.Info(fmt.Sprintf("Replaying %d responses from %v", a.Len(), a.Files()))
	}
	if ls.replay != nil {
		opts = append(opts, engine.WithReplay(ls.replay, ls.settings.Bool(types.ReplayFallback)))
	}
	if path := ls.settings.String(types.WARCFile); path != "" && ls.warcOut == nil {
		info := []warc.Field{{Name: "http-header-user-agent", Value: ls.settings.String(types.UserAgent)}}
		if ls.spider != nil {
			info = append(info, warc.Field{Name: "isPartOf", Value: ls.spider.Name()})
		}
		robots := "ignore"
		if ls.settings.Bool(types.RobotsTxtObey) {
			robots = "obey"
		}
		info = append(info, warc.Field{Name: "robots", Value: robots})
		open := warc.Create
		if ls.settings.String(types.JobDir) != "" {
			open = warc.Continue // a resumed job adds to what it recorded before
		}
		w, err := open(path, int64(ls.settings.Int(types.WARCMaxSize)), info...)
		if err != nil {
			return nil, usageError("%s: %v", types.WARCFile, err)
		}
		ls.warcOut = w
	}
	if ls.warcOut != nil {
		opts = append(opts, engine.WithWARC(ls.warcOut))
	}
	return opts, nil
}

// closeArchives closes the WARC file (so it is complete on disk) and the replayed
// archives.
func (ls *loadedSpider) closeArchives() {
	if ls.warcOut != nil {
		if err := ls.warcOut.Close(); err != nil {
			ls.logger.Error(fmt.Sprintf("Closing %s: %v", types.WARCFile, err))
		} else if files := ls.warcOut.Files(); len(files) > 0 {
			n, _ := ls.stats.Get("warc/record_count").(int64)
			ls.logger.Info(fmt.Sprintf("Recorded %d WARC records to %v", n, files))
		}
		ls.warcOut = nil
	}
	if ls.replay != nil {
		_ = ls.replay.Close()
		ls.replay = nil
	}
}
