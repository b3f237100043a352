package types

// Access says what a spider's own settings (its customSettings, the settings of its tests
// cases) may do with a setting. The operator (-s KEY=VALUE, the command's flags) may always
// set it. Scrapy has no such rule: its spiders are trusted code, ours are not.
type Access int

// The kinds of access a spider has to a setting.
const (
	// accessUnset is the Access of a Defs entry that does not say it; a test refuses it.
	accessUnset Access = iota
	// SpiderSets is crawl behaviour (concurrency, delays, retries, middlewares, item
	// options), the spider's as in Scrapy's custom_settings.
	SpiderSets
	// OperatorOnly is a setting that names a program, a network service or a credential,
	// or that widens what the crawl reaches: a spider may not set it at all.
	OperatorOnly
	// SpiderPath is a path the crawl writes or reads: a spider may give a relative path
	// that stays inside the working folder once resolved (symlinks included).
	SpiderPath
	// SpiderTightens is a ceiling: a spider may tighten it (a lower limit, a check switched
	// on), never loosen it past its default.
	SpiderTightens
	// SpiderChecked is a setting whose spider values pass a rule of their own
	// (DOWNLOAD_SCHEMES and DOWNLOAD_HANDLERS without the file scheme, FEEDS targets that
	// are paths inside the working folder).
	SpiderChecked
)

// String is the access as `jscrawl settings` and the guide's table show it.
func (a Access) String() string {
	return [...]string{"unset", "spider", "operator only", "spider: relative path", "spider: tighten only", "spider: checked"}[a]
}

// AccessOf returns key's Access (Def.Access): SpiderSets for a key jscrawl does not know,
// such as one a spider invents for its own use.
func AccessOf(key string) Access {
	if d, ok := defIndex[key]; ok {
		return d.Access
	}
	return SpiderSets
}
