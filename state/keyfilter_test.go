package state

import (
	"fmt"
	"testing"
)

// TestKeyFilterNoFalseNegatives: every added key is found across stage
// growth, and keys never added are mostly (not always) reported absent.
func TestKeyFilterNoFalseNegatives(t *testing.T) {
	f := newKeyFilter()
	const n = 200_000
	for i := range n {
		if !f.add(fmt.Appendf(nil, "key-%d", i)) {
			t.Fatalf("filter full at %d keys", i)
		}
	}
	if len(f.stages) < 2 {
		t.Fatalf("%d keys fit in %d stage(s); the test needs growth", n, len(f.stages))
	}
	for i := range n {
		if !f.mayContain(fmt.Appendf(nil, "key-%d", i)) {
			t.Fatalf("key-%d was added but is reported absent", i)
		}
	}
	fp := 0
	for i := range n {
		if f.mayContain(fmt.Appendf(nil, "other-%d", i)) {
			fp++
		}
	}
	if rate := float64(fp) / n; rate > 0.02 {
		t.Fatalf("false positive rate %.4f over %d stages", rate, len(f.stages))
	}
}

// TestFilterBuiltOnReopen: a partition that already holds keys when the
// DB opens gets its filter from a scan at its first claim, so stored keys
// are found and new ones are absent.
func TestFilterBuiltOnReopen(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir)
	must(t, err)
	st, err := db.Store(testID)
	must(t, err)
	for i := range 1000 {
		must(t, st.Put(fmt.Appendf(nil, "k%d", i), []byte("v")))
	}
	must(t, st.Flush())
	must(t, db.Close())

	db, err = Open(dir)
	must(t, err)
	defer db.Close()
	if p := db.parts[testID]; p.filter != nil {
		t.Fatal("a partition with keys has a filter before anything scanned it")
	}
	st, err = db.Store(testID)
	must(t, err)
	if db.parts[testID].filter == nil {
		t.Fatal("no filter after the store was opened")
	}
	for i := range 1000 {
		if v, err := st.Get(fmt.Appendf(nil, "k%d", i)); err != nil || string(v) != "v" {
			t.Fatalf("k%d = %q, %v after reopen", i, v, err)
		}
	}
	if v, err := st.Get([]byte("new")); err != nil || v != nil {
		t.Fatalf("new = %q, %v; want absent", v, err)
	}
	must(t, st.Put([]byte("new"), []byte("w")))
	must(t, st.Flush())
	if v, err := st.Get([]byte("new")); err != nil || string(v) != "w" {
		t.Fatalf("new = %q, %v after a put", v, err)
	}
}
