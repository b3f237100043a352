package jsapi

import (
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// scrapyMeta maps Scrapy's snake_case spelling of each special Request.meta key that
// jscrawl reads or sets to jscrawl's camelCase key (types.Meta*). jscrawl's rule for
// Scrapy spellings is one: refused with jscrawl's name, never read as an alias, so a
// ported meta: { dont_obey_robotstxt: true } fails loudly instead of being ignored. Keys
// that are one word in both (proxy, cookiejar, depth) need no entry; other keys stay
// user data.
var scrapyMeta = map[string]string{
	"dont_cache":             types.MetaDontCache,
	"dont_merge_cookies":     types.MetaDontMergeCookies,
	"dont_obey_robotstxt":    types.MetaDontObeyRobotsTxt,
	"dont_redirect":          types.MetaDontRedirect,
	"dont_retry":             types.MetaDontRetry,
	"download_maxsize":       types.MetaDownloadMaxSize,
	"download_slot":          types.MetaDownloadSlot,
	"download_timeout":       types.MetaDownloadTimeout,
	"download_warnsize":      types.MetaDownloadWarnSize,
	"handle_httpstatus_all":  types.MetaHandleHTTPStatusAll,
	"handle_httpstatus_list": types.MetaHandleHTTPStatusList,
	"max_retry_times":        types.MetaMaxRetryTimes,
	"redirect_reasons":       types.MetaRedirectReasons,
	"redirect_times":         types.MetaRedirectTimes,
	"redirect_urls":          types.MetaRedirectURLs,
	"referrer_policy":        types.MetaReferrerPolicy,
	"dont_count":             types.MetaDontCount,
}

// checkScrapyMeta returns a TypeError for the first key of meta that is Scrapy's spelling
// of a jscrawl meta key (see scrapyMeta), naming jscrawl's.
func checkScrapyMeta(meta types.Item) error {
	for _, kv := range meta {
		if strings.IndexByte(kv.Key, '_') < 0 {
			continue
		}
		if name, ok := scrapyMeta[kv.Key]; ok {
			return typeError("meta.%s is Scrapy's spelling: jscrawl spells it meta.%s", kv.Key, name)
		}
	}
	return nil
}
