package java

import (
	"strings"
	"testing"
)

// TestHashMapOrder pins java.util.HashMap iteration orders (OpenJDK 17,
// new HashMap<>(n) filled in sorted key order).
func TestHashMapOrder(t *testing.T) {
	for _, want := range []string{
		"sure, yeah|yes, thanks|nope",
		"a|b|c|d|e",
		"banana|date|cherry|kiwi|nectarine|fig|grape|elderberry|mango|orange|apple|honeydew|lemon",
		"K3|K1|K2",
		"bar|baz|foo",
		"😀|é|z",
	} {
		m := map[string]any{}
		for _, k := range strings.Split(want, "|") {
			m[k] = true
		}
		if got := strings.Join(HashMapOrder(m), "|"); got != want {
			t.Errorf("HashMapOrder = %s, want %s", got, want)
		}
	}
}
