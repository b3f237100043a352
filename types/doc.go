// Package types holds the plain data that the engine, the JS runtime bindings and the feeds
// share: Request, Response, Item, Output and Settings. It has no logic beyond small helpers
// and imports neither goja nor net/http's client.
package types
