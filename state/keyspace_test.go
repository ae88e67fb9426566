package state

import (
	"bytes"
	"testing"
)

func TestRegistryKeyRoundTrip(t *testing.T) {
	for _, id := range []StoreID{
		{App: "a", Name: "b", Partition: 0},
		{App: "_confluent-ksql-default_query_CTAS_T_1", Name: "Aggregate-Aggregate-Materialize", Partition: 11},
		{App: "x\x00y", Name: "\xff", Partition: 1<<31 - 1},
	} {
		got, err := parseRegistryKey(registryKey(id))
		if err != nil || got != id {
			t.Errorf("round trip of %v: %v, %v", id, got, err)
		}
	}
	if _, err := parseRegistryKey(append(registryKey(testID), 0)); err == nil {
		t.Error("a registry key with trailing bytes parsed")
	}
}

// TestRegistryKeysDoNotCollide: length prefixes keep app/name splits apart.
func TestRegistryKeysDoNotCollide(t *testing.T) {
	a := registryKey(StoreID{App: "ab", Name: "c"})
	b := registryKey(StoreID{App: "a", Name: "bc"})
	if bytes.Equal(a, b) {
		t.Fatal("ab/c and a/bc share a registry key")
	}
}

func TestKeySuccessor(t *testing.T) {
	for _, tc := range []struct{ in, want []byte }{
		{[]byte("a"), []byte("b")},
		{[]byte{1, 0xff}, []byte{2}},
		{[]byte{0xff, 0xff}, nil},
		{nil, nil},
	} {
		if got := keySuccessor(tc.in); !bytes.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("keySuccessor(%x) = %x, want %x", tc.in, got, tc.want)
		}
	}
}

func TestPrefixLayout(t *testing.T) {
	p := prefix(0x01020304)
	if got := p.dataKey([]byte("k")); !bytes.Equal(got, []byte{dataTag, 1, 2, 3, 4, 'k'}) {
		t.Errorf("data key %x", got)
	}
	if got := p.dataEnd(); !bytes.Equal(got, []byte{dataTag, 1, 2, 3, 5}) {
		t.Errorf("data end %x", got)
	}
	if got := p.meta(ckptTag); !bytes.Equal(got, []byte{metaTag, ckptTag, 1, 2, 3, 4}) {
		t.Errorf("checkpoint key %x", got)
	}
}

func TestStoreIDValidate(t *testing.T) {
	for _, id := range []StoreID{{Name: "s"}, {App: "a"}, {App: "a", Name: "s", Partition: -1}} {
		if _, err := memDB(t).Store(id); err == nil {
			t.Errorf("store %v opened", id)
		}
	}
	if got := testID.ChangelogTopic(); got != "app-store-changelog" {
		t.Errorf("changelog topic %q", got)
	}
}
