package state

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// eventLog records what the layers emit, in order: changelog records and
// flush-listener calls.
type eventLog struct{ lines []string }

func (l *eventLog) Send(key, value []byte, ts int64) {
	if ts == NoTimestamp {
		l.lines = append(l.lines, fmt.Sprintf("changelog %s=%s", key, show(value)))
		return
	}
	l.lines = append(l.lines, fmt.Sprintf("changelog %s=%s timestamp=%d", key, show(value), ts))
}

func (l *eventLog) listener(key, value, old []byte) {
	l.lines = append(l.lines, fmt.Sprintf("forward %s: %s -> %s", key, show(old), show(value)))
}

func (l *eventLog) take() []string {
	out := l.lines
	l.lines = nil
	return out
}

func show(v []byte) string {
	if v == nil {
		return "<nil>"
	}
	return string(v)
}

// storeRig drives one store partition on a crashable in-memory FS.
type storeRig struct {
	fs     *vfs.MemFS
	db     *DB
	id     StoreID
	st     Store
	events eventLog
	// timestamped: the store was opened TimestampInRecord; values are
	// written "v@ts" (ts ‖ v) and shown so.
	timestamped bool
}

// value is the stored value of "v", or of "v@ts" (8 bytes of ts, then v)
// in a timestamped rig.
func (r *storeRig) value(v string) []byte {
	if !r.timestamped {
		return []byte(v)
	}
	v, at, _ := strings.Cut(v, "@")
	ts, _ := strconv.ParseInt(at, 10, 64)
	return append(binary.BigEndian.AppendUint64(nil, uint64(ts)), v...)
}

// shown is a stored value as written: "v@ts" in a timestamped rig.
func (r *storeRig) shown(v []byte) string {
	if !r.timestamped || len(v) < 8 {
		return show(v)
	}
	return fmt.Sprintf("%s@%d", v[8:], int64(binary.BigEndian.Uint64(v)))
}

func newStoreRig(t *testing.T) *storeRig {
	r := &storeRig{fs: vfs.NewCrashableMem(), id: StoreID{App: "app", Name: "s", Partition: 0}}
	r.reopenDB(t)
	t.Cleanup(func() { _ = r.db.Close() })
	return r
}

func (r *storeRig) reopenDB(t *testing.T) {
	db, err := Open("data", WithFS(r.fs), WithBlockCache(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	r.db, r.st = db, nil
}

// TestStore drives the full stack through testdata/store: every command
// prints what it returns, preceded by the changelog records and forwarded
// updates it caused. "new" starts over on a fresh file system.
func TestStore(t *testing.T) {
	var r *storeRig
	defer func() { r.close() }()
	datadriven.RunTest(t, "testdata/store", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd == "new" || r == nil {
			r.close()
			r = newStoreRig(t)
		}
		out := r.run(t, d)
		return strings.Join(append(r.events.take(), out...), "\n") + "\n"
	})
}

func (r *storeRig) close() {
	if r != nil {
		_ = r.db.Close()
	}
}

func (r *storeRig) run(t *testing.T, d *datadriven.TestData) []string {
	switch d.Cmd {
	case "new":
		return []string{"ok"}
	case "open":
		return r.open(t, d)
	case "put":
		return r.put(d)
	case "get":
		return r.get(d)
	case "range":
		return r.rangeCmd(t, d)
	case "flush":
		return result(r.st.Flush())
	case "close":
		return result(r.st.Close())
	case "checkpoint":
		var off int64
		d.ScanArgs(t, "offset", &off)
		return result(r.db.Checkpoint(r.id, off))
	case "checkpointed":
		return []string{checkpointText(r.db, r.id)}
	case "crash":
		return r.crash(t)
	case "reopen":
		return r.reopen(t)
	case "dump":
		return dump(t, r.db, r.id, r.shown)
	case "wipe":
		return result(r.db.Wipe(r.id))
	case "restore":
		return r.restore(t, d)
	case "stores":
		return storesText(r.db)
	}
	t.Fatalf("unknown command %q", d.Cmd)
	return nil
}

func result(err error) []string {
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	return []string{"ok"}
}

// open opens the rig's store: cache=<bytes> (default 1 MiB), changelog,
// listener, timestamped (TimestampInRecord).
func (r *storeRig) open(t *testing.T, d *datadriven.TestData) []string {
	cache := int64(1 << 20)
	d.MaybeScanArgs(t, "cache", &cache)
	opts := []StoreOption{WithCache(cache)}
	if r.timestamped = d.HasArg("timestamped"); r.timestamped {
		opts = append(opts, TimestampInRecord())
	}
	if d.HasArg("changelog") {
		opts = append(opts, WithChangelog(&r.events))
	}
	if d.HasArg("listener") {
		opts = append(opts, WithFlushListener(r.events.listener))
	}
	st, err := r.db.Store(r.id, opts...)
	if err != nil {
		return result(err)
	}
	r.st = st
	return []string{"ok"}
}

// put applies input lines "k=v" (set) and "del k" (delete); "put raw"
// writes v as given, even in a timestamped rig.
func (r *storeRig) put(d *datadriven.TestData) []string {
	raw := d.HasArg("raw")
	for _, line := range strings.Split(d.Input, "\n") {
		var err error
		if k, ok := strings.CutPrefix(line, "del "); ok {
			err = r.st.Put([]byte(k), nil)
		} else {
			k, v, _ := strings.Cut(line, "=")
			val := r.value(v)
			if raw {
				val = []byte(v)
			}
			err = r.st.Put([]byte(k), val)
		}
		if err != nil {
			return result(err)
		}
	}
	return []string{"ok"}
}

func (r *storeRig) get(d *datadriven.TestData) []string {
	var out []string
	for _, k := range strings.Fields(d.Input) {
		v, err := r.st.Get([]byte(k))
		if err != nil {
			return result(err)
		}
		out = append(out, fmt.Sprintf("%s=%s", k, r.shown(v)))
	}
	return out
}

// rangeCmd: range [start=k] [end=k] [limit=n].
func (r *storeRig) rangeCmd(t *testing.T, d *datadriven.TestData) []string {
	var start, end []byte
	var s, e string
	if d.MaybeScanArgs(t, "start", &s) {
		start = []byte(s)
	}
	if d.MaybeScanArgs(t, "end", &e) {
		end = []byte(e)
	}
	limit := -1
	d.MaybeScanArgs(t, "limit", &limit)
	out := []string{}
	err := r.st.Range(start, end, func(k, v []byte) bool {
		out = append(out, fmt.Sprintf("%s=%s", k, r.shown(v)))
		return len(out) != limit
	})
	if err != nil {
		return result(err)
	}
	if len(out) == 0 {
		return []string{"(empty)"}
	}
	return out
}

// crash reopens the DB on what a machine crash would leave: synced data.
func (r *storeRig) crash(t *testing.T) []string {
	crashed := r.fs.CrashClone(vfs.CrashCloneCfg{})
	_ = r.db.Close()
	r.fs = crashed
	r.reopenDB(t)
	return []string{"crashed and reopened"}
}

func (r *storeRig) reopen(t *testing.T) []string {
	if err := r.db.Close(); err != nil {
		return result(err)
	}
	r.reopenDB(t)
	return []string{"reopened"}
}

// restore applies input lines "k=v@offset" / "del k@offset", each
// optionally followed by " timestamp=ts" (the record's, default 0), and
// reports progress; "restore timestamped" restores as a TimestampInRecord
// store, which the rig then shows as one.
func (r *storeRig) restore(t *testing.T, d *datadriven.TestData) []string {
	var opts []StoreOption
	if r.timestamped = d.HasArg("timestamped"); r.timestamped {
		opts = append(opts, TimestampInRecord())
	}
	res := r.db.Restorer(r.id, opts...)
	lines := strings.Split(d.Input, "\n")
	res.SetTotal(int64(len(lines)))
	for _, line := range lines {
		line, at, _ := strings.Cut(line, " timestamp=")
		ts, _ := strconv.ParseInt(at, 10, 64)
		rec, off, _ := strings.Cut(line, "@")
		var offset int64
		fmt.Sscan(off, &offset)
		var err error
		if k, ok := strings.CutPrefix(rec, "del "); ok {
			err = res.Restore([]byte(k), nil, ts, offset)
		} else {
			k, v, _ := strings.Cut(rec, "=")
			err = res.Restore([]byte(k), []byte(v), ts, offset)
		}
		if err != nil {
			return result(err)
		}
	}
	done, total := res.Progress()
	return append(result(res.Done()), fmt.Sprintf("restored %d of %d", done, total))
}

func checkpointText(db *DB, id StoreID) string {
	if off, ok := db.Checkpointed(id); ok {
		return fmt.Sprintf("checkpoint %d", off)
	}
	return "no checkpoint"
}

// dump prints the committed data of id straight from Pebble, its key count
// and checkpoint.
func dump(t *testing.T, db *DB, id StoreID, shown func([]byte) string) []string {
	p, ok, err := db.known(id)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return []string{"(no such store)"}
	}
	it, err := db.pdb.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	n := len(p.prefix.data())
	for it.SeekGE(p.prefix.data()); it.Valid() && string(it.Key()) < string(p.prefix.dataEnd()); it.Next() {
		out = append(out, fmt.Sprintf("%s=%s", it.Key()[n:], shown(it.Value())))
	}
	_, keys, err := db.ApproxSize(id)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, fmt.Sprintf("keys=%d %s", keys, checkpointText(db, id)))
}

func storesText(db *DB) []string {
	out := []string{}
	for _, id := range db.Stores() {
		out = append(out, id.String())
	}
	if len(out) == 0 {
		return []string{"(none)"}
	}
	return out
}
