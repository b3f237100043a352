// Package runtime is jscrawl's JavaScript machinery, with no crawling knowledge: Bundle turns
// a spider file (TypeScript or JavaScript, with its imports) into one compiled Program, a VM
// is one goja Runtime with its own event loop, and a Pool holds several VMs.
//
// A goja Runtime is single-goroutine: every access goes through the VM's loop (VM.Go,
// VM.Do, or a reservation from VM.Reserve). No goja value leaves the loop.
//
// The package name shadows the standard library's runtime; import that one as goruntime.
package runtime
