package main

import (
	"os"
	"runtime/debug"
)

// serverGCPercent is the server's GOGC unless the environment sets one. A
// GraphQL answer allocates a few hundred kilobytes that die at once, and
// with Go's default of 100 the collector took about a fifth of the CPU under
// list load; 200 halves its share for some 10–15 MiB more heap
// (docs/performance.md).
const serverGCPercent = 200

// tuneGC applies serverGCPercent when GOGC is not set.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}
