package state

import "testing"

func TestMetrics(t *testing.T) {
	var m Metrics
	st, err := memDB(t).Store(testID, WithMetrics(&m))
	must(t, err)
	must(t, st.Put([]byte("k"), []byte("value")))
	must(t, st.Put([]byte("k"), []byte("v2")))
	must(t, st.Put([]byte("gone"), nil))
	for _, k := range []string{"k", "missing"} {
		_, err := st.Get([]byte(k))
		must(t, err)
	}
	must(t, st.Range(nil, nil, func(k, v []byte) bool { return true }))
	must(t, st.Flush())
	want := MetricsSnapshot{Puts: 2, Deletes: 1, Gets: 2, GetHits: 1, Ranges: 1, Flushes: 1,
		BytesWritten: 1 + 5 + 1 + 2 + 4, BytesRead: 3 + 3}
	if got := m.Snapshot(); got != want {
		t.Fatalf("metrics %+v\nwant    %+v", got, want)
	}
}
