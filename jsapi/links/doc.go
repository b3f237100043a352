// Package links finds and filters the links of a parsed page: the engine behind
// LinkExtractor.extractLinks (Scrapy: scrapy.linkextractors.LinkExtractor), the CrawlSpider
// rules, response.followAll({ css }) and the Crawlee-style response.enqueueLinks (globs,
// regexps, exclude and the same-domain / same-hostname / same-origin strategies). It knows
// nothing about goja; package jsapi binds it to JS.
//
// Patterns written in JS are RegExps with JS semantics: [CompileJS] compiles their source and
// flags with github.com/dlclark/regexp2 in ECMAScript mode, the engine and options goja itself
// uses for JS regular expressions, so a pattern means the same in a spider's own code and in a
// LinkExtractor. Globs ([CompileGlob], [Glob]) have minimatch's semantics under the options
// Crawlee passes ({ nocase: true }), checked against minimatch's own test/patterns.js.
package links
