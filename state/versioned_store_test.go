package state

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// versionRig drives testdata/versioned_store: one versioned store whose
// changelog records are kept, so restore can rebuild it in a fresh DB.
type versionRig struct {
	db        *DB
	v         *VersionedStore
	log       versionLog
	retention int64
	records   [][2][]byte // the changelog so far, for restore
}

// TestVersionedStore drives testdata/versioned_store. Input lines of put
// are "key@ts=value" ("key@ts=" is a tombstone); every command prints the
// changelog records it caused first, version keys shown split.
func TestVersionedStore(t *testing.T) {
	r := &versionRig{}
	datadriven.RunTest(t, "testdata/versioned_store", func(t *testing.T, d *datadriven.TestData) string {
		out := r.run(t, d)
		return strings.Join(append(r.log.take(), out...), "\n") + "\n"
	})
}

func (r *versionRig) run(t *testing.T, d *datadriven.TestData) []string {
	switch d.Cmd {
	case "open":
		r.db, r.records = memDB(t), nil
		d.ScanArgs(t, "retention", &r.retention)
		return r.open()
	case "put":
		return r.puts(d.Input)
	case "get":
		var key string
		var asOf int64
		d.ScanArgs(t, "key", &key)
		d.ScanArgs(t, "as-of", &asOf)
		return getAsOfText(r.v, []byte(key), asOf)
	case "history":
		var key string
		d.ScanArgs(t, "key", &key)
		return historyText(r.v, []byte(key))
	case "purge":
		return result(r.v.Purge())
	case "flush":
		return result(r.v.Flush())
	case "state":
		return []string{fmt.Sprintf("observed=%d dropped=%d", r.v.Observed(), r.v.Dropped())}
	case "restore":
		return r.restore(t)
	}
	t.Fatalf("unknown command %q", d.Cmd)
	return nil
}

func (r *versionRig) open() []string {
	r.log.rig = r
	v, err := r.db.VersionedStore(testID, r.retention, WithChangelog(&r.log))
	r.v = v
	return result(err)
}

// restore closes the store (dropping unflushed writes), replays the
// changelog into a fresh DB and reopens the store there.
func (r *versionRig) restore(t *testing.T) []string {
	must(t, r.v.Close())
	r.db = memDB(t)
	rs := r.db.Restorer(testID)
	for i, rec := range r.records {
		must(t, rs.Restore(rec[0], rec[1], 0, int64(i)))
	}
	must(t, rs.Done())
	return append([]string{fmt.Sprintf("replayed %d records", len(r.records))}, r.open()...)
}

func (r *versionRig) puts(input string) []string {
	var out []string
	for _, line := range strings.Split(input, "\n") {
		kt, val, _ := strings.Cut(line, "=")
		k, ts, _ := strings.Cut(kt, "@")
		at, _ := strconv.ParseInt(ts, 10, 64)
		var value []byte
		if val != "" {
			value = []byte(val)
		}
		ok, err := r.v.Put([]byte(k), at, value)
		if err != nil {
			return result(err)
		}
		if !ok {
			out = append(out, "dropped "+line)
		}
	}
	return append(out, "ok")
}

func getAsOfText(v *VersionedStore, key []byte, asOf int64) []string {
	got, err := v.GetAsOf(key, asOf)
	switch {
	case err != nil:
		return result(err)
	case got == nil:
		return []string{"(none)"}
	}
	return []string{fmt.Sprintf("%s (valid from %d)", got.Value, got.ValidFrom)}
}

func historyText(v *VersionedStore, key []byte) []string {
	var out []string
	err := v.History(key, func(ts int64, val []byte) bool {
		out = append(out, fmt.Sprintf("%d=%s", ts, show(val)))
		return true
	})
	return nonEmpty(out, err)
}

// versionLog shows changelog records with version keys split and keeps
// them for restore.
type versionLog struct {
	eventLog
	rig *versionRig
}

func (l *versionLog) Send(key, value []byte, _ int64) {
	if l.rig != nil {
		l.rig.records = append(l.rig.records, [2][]byte{append([]byte(nil), key...), append([]byte(nil), value...)})
		if value == nil {
			l.rig.records[len(l.rig.records)-1][1] = nil
		}
	}
	if len(key) < versionSuffix {
		l.lines = append(l.lines, fmt.Sprintf("changelog observed=%s", observedText(value)))
		return
	}
	k, ts, _ := SplitVersionKey(key)
	l.lines = append(l.lines, fmt.Sprintf("changelog %s@%d=%s", k, ts, versionText(value)))
}

func observedText(v []byte) string {
	if len(v) != 8 {
		return show(v)
	}
	return strconv.FormatInt(int64(binary.BigEndian.Uint64(v)), 10)
}

// versionText shows a stored version: the value, "tombstone", or <nil>
// for a delete of the version itself.
func versionText(v []byte) string {
	switch {
	case v == nil:
		return "<nil>"
	case len(v) > 0 && v[0] == versionTombstone:
		return "tombstone"
	}
	return string(v[1:])
}

func TestVersionKeyRoundTrip(t *testing.T) {
	key, ts, err := SplitVersionKey(VersionKey([]byte("key"), 1234567890123))
	if err != nil || string(key) != "key" || ts != 1234567890123 {
		t.Fatalf("split: %q %d %v", key, ts, err)
	}
	if _, _, err := SplitVersionKey([]byte("short")); err == nil {
		t.Fatal("split of a short key succeeded")
	}
}
