package state

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestSessionStoreFindSessions(t *testing.T) {
	var log eventLog
	s, err := memDB(t).SessionStore(testID, WithChangelog(&log))
	must(t, err)
	for _, ses := range []struct {
		key        string
		start, end int64
	}{{"a", 0, 10}, {"a", 20, 30}, {"a", 40, 40}, {"ab", 0, 100}, {"b", 5, 15}} {
		must(t, s.Put([]byte(ses.key), ses.start, ses.end, []byte(ses.key)))
	}
	for _, tc := range []struct {
		key                      string
		earliestEnd, latestStart int64
		want                     string
	}{
		{"a", 0, math.MaxInt64, "[0,10]=a [20,30]=a [40,40]=a"},
		{"a", 11, math.MaxInt64, "[20,30]=a [40,40]=a"},
		{"a", 10, 20, "[0,10]=a [20,30]=a"},
		{"a", 25, 35, "[20,30]=a"},
		{"a", 31, 39, ""},
		{"ab", 0, math.MaxInt64, "[0,100]=ab"},
		{"c", 0, math.MaxInt64, ""},
	} {
		if got := findSessions(t, s, tc.key, tc.earliestEnd, tc.latestStart); got != tc.want {
			t.Errorf("find %s end>=%d start<=%d: %q, want %q", tc.key, tc.earliestEnd, tc.latestStart, got, tc.want)
		}
	}
}

func findSessions(t *testing.T, s *SessionStore, key string, earliestEnd, latestStart int64) string {
	var got []string
	must(t, s.FindSessions([]byte(key), earliestEnd, latestStart, func(start, end int64, v []byte) bool {
		got = append(got, fmt.Sprintf("[%d,%d]=%s", start, end, v))
		return true
	}))
	return strings.Join(got, " ")
}

// TestSessionStoreRemoveAndPurge: Remove sends a tombstone, Purge does not.
func TestSessionStoreRemoveAndPurge(t *testing.T) {
	var log eventLog
	s, err := memDB(t).SessionStore(testID, WithChangelog(&log), WithCache(0))
	must(t, err)
	must(t, s.Put([]byte("k"), 0, 10, []byte("old")))
	must(t, s.Put([]byte("k"), 50, 60, []byte("merged")))
	must(t, s.Remove([]byte("k"), 50, 60))
	must(t, s.Put([]byte("k"), 100, 120, []byte("new")))
	if sent := log.take(); len(sent) != 4 || !strings.HasSuffix(sent[2], "=<nil>") {
		t.Fatalf("remove did not send a tombstone: %q", sent)
	}
	must(t, s.Purge(20))
	must(t, s.Flush())
	if got := findSessions(t, s, "k", 0, math.MaxInt64); got != "[100,120]=new" {
		t.Fatalf("after purge: %q", got)
	}
	if got := log.take(); len(got) != 0 {
		t.Fatalf("purge sent %v", got)
	}
	if err := s.Put([]byte("k"), 5, 1, nil); err == nil {
		t.Fatal("a session ending before it starts was accepted")
	}
}

func TestSessionKeyRoundTrip(t *testing.T) {
	k := SessionKey([]byte("key"), 10, 20)
	key, start, end, err := SplitSessionKey(k)
	if err != nil || string(key) != "key" || start != 10 || end != 20 {
		t.Fatalf("split: %q %d %d %v", key, start, end, err)
	}
}

func TestSessionGet(t *testing.T) {
	s, err := memDB(t).SessionStore(testID)
	must(t, err)
	must(t, s.Put([]byte("k"), 1, 5, []byte("v")))
	if v, err := s.Get([]byte("k"), 1, 5); err != nil || string(v) != "v" {
		t.Fatalf("get [1,5] = %q, %v", v, err)
	}
	if v, err := s.Get([]byte("k"), 1, 6); err != nil || v != nil {
		t.Fatalf("get [1,6] = %q, %v", v, err)
	}
}
