// Package gcpacing is the Go garbage collector's pacing of a sqlstream
// server, as two stated settings: sqlstream.gc.percent (the GC's target,
// GOGC's meaning) and sqlstream.memory.limit (a soft memory limit,
// GOMEMLIMIT's meaning). It parses them, finds the machine's memory for a
// limit given as a share, and applies them with runtime/debug. A leaf: it
// imports no sqlstream package.
//
//	sqlstream.gc.percent ──┐  explicit setting (flag or --config key)
//	sqlstream.memory.limit ┤     wins over
//	GOGC, GOMEMLIMIT ──────┤  the environment (Go's runtime read it), which
//	                       │     wins over
//	defaults ──────────────┘  limit 75% of Machine memory, percent 400
//	                          (100, Go's, when no limit is in force)
//	                │
//	                ▼
//	         Resolve ─► Pacing{Percent, Limit, and where each came from}
//	                         │
//	                         ▼ Apply (debug.SetGCPercent, SetMemoryLimit)
//
// Why 400: at Go's 100 the collector ran 7–22% of the engine's CPU on
// Nexmark (tests/bench/profile.md, fifth and sixth passes); a heap
// allowed to grow to five times its live size needs the limit beside it,
// so the limit is on by default and the default percent falls back to
// Go's 100 when no limit is in force (memory.limit=off, GOMEMLIMIT=off,
// or the machine's memory unknown). Percent off with no limit is refused:
// the heap would grow without bound.
//
// Machine memory (memory.go) is the smaller of /proc/meminfo's MemTotal
// and the process's cgroup limit: cgroup v2's memory.max, or v1's
// memory.limit_in_bytes, of the cgroup /proc/self/cgroup names and of
// each of its ancestors under /sys/fs/cgroup (a container that sees its
// own cgroup at the root finds it there). It reads an fs.FS rooted at
// "/", so tests read testdata trees instead.
package gcpacing
