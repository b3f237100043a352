module github.com/jscrawl/jscrawl

go 1.26.8

require (
	github.com/andybalholm/brotli v1.2.0
	github.com/andybalholm/cascadia v1.3.5
	github.com/antchfx/xpath v1.3.9
	github.com/dlclark/regexp2/v2 v2.5.2
	github.com/dop251/goja v0.0.0-20260917113740-793a2a65c13b
	github.com/dop251/goja_nodejs v0.0.0-20260212111938-1f56ff5bcf14
	github.com/evanw/esbuild v0.28.2
	github.com/jmespath/go-jmespath v0.4.0
	github.com/klauspost/compress v1.20.4
	github.com/temoto/robotstxt v1.1.2
	github.com/urfave/cli/v2 v2.27.7
	golang.org/x/net v0.62.0
	golang.org/x/sys v0.50.0
	golang.org/x/text v0.43.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/go-sourcemap/sourcemap v2.1.4+incompatible // indirect
	github.com/google/pprof v0.0.0-20240727154555-813a5fbdbec8 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	golang.org/x/term v0.48.0 // indirect
)
