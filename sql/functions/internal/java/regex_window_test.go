package java

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// FindFirst must find exactly what a search of the whole input finds.

func TestLiteralWindowDerivation(t *testing.T) {
	for _, c := range []struct {
		pattern string
		lit     string // "" when the pattern gets no window
		maxPre  int
	}{
		{`(&|^)channel_id=([^&]*)`, "channel_id=", 1},
		{`abc`, "abc", 0},
		{`x?foo.bar`, "foo", 1},
		{`.{2,3}longer_literal`, "longer_literal", 12},
		{`[a-z]{2}é_x`, "é_x", 2},
		{`a*needle`, "", 0},                    // the literal's offset is unbounded; "a" is too short
		{`(?i)needle`, "", 0},                  // case-folded
		{`(?m)^needle`, "", 0},                 // looks at the byte before
		{`\bneedle`, "", 0},                    // same
		{`needle|haystack`, "", 0},             // no literal every match holds
		{`^key=(\d+)&name=([^&]*)`, "key=", 0}, // "&name=" follows the unbounded \d+
	} {
		re, err := CompileRegex(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		switch w := re.window; {
		case c.lit == "" && w != nil:
			t.Errorf("%s: window %q+%d, want none", c.pattern, w.lit, w.maxPre)
		case c.lit != "" && w == nil:
			t.Errorf("%s: no window, want %q", c.pattern, c.lit)
		case w != nil && (w.lit != c.lit || w.maxPre != c.maxPre):
			t.Errorf("%s: window %q+%d, want %q+%d", c.pattern, w.lit, w.maxPre, c.lit, c.maxPre)
		}
	}
}

func TestFindFirstMatchesWholeSearch(t *testing.T) {
	patterns := []string{
		`(&|^)channel_id=([^&]*)`, `(^|x)ab(c*)`, `\Aab`, `ab$`, `.ab(.)`, `(.?)(é|ab)ab`,
		`(?:a|bb)ab`, `[^a]{0,3}ab`, `(a)?(b)?abab`, `é?ab\z`, `.{1,4}ab(?:x|$)`, `(?s).ab`,
		`^key=(\d+)&ab`, `(é)ab|zz`, `(?i)x?ab`, `(?m)ab$`,
	}
	alphabet := []string{"a", "b", "ab", "&", "x", "é", "\xff", "\xc3", "\n", "channel_id=", "c", "z"}
	rnd := rand.New(rand.NewPCG(17, 21))
	inputs := []string{"", "ab", "&channel_id=", "channel_id=1", "x&channel_id=2&channel_id=3"}
	for range 3000 {
		var b strings.Builder
		for range rnd.IntN(12) {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		inputs = append(inputs, b.String())
	}
	windows := 0
	for _, p := range patterns {
		re, err := CompileRegex(p)
		if err != nil {
			t.Fatal(err)
		}
		if re.window != nil {
			windows++
		}
		for _, in := range inputs {
			if got, want := re.FindFirst(in), re.FindStringSubmatchIndex(in); !slices.Equal(got, want) {
				t.Fatalf("%s on %q: FindFirst %v, whole search %v", p, in, got, want)
			}
			if got, want := len(re.FindAll(in)), len(re.FindAllStringSubmatchIndex(in, -1)); got != want && !re.emptyAfterMatch {
				t.Fatalf("%s on %q: FindAll %d matches, whole search %d", p, in, got, want)
			}
		}
	}
	if windows < len(patterns)/2 {
		t.Fatalf("only %d of %d patterns got a window: the test no longer tests it", windows, len(patterns))
	}
}

func FuzzFindFirst(f *testing.F) {
	f.Add(`(&|^)channel_id=([^&]*)`, "https://x/item.htm?query=1&channel_id=12")
	f.Add(`.{1,3}ab`, "é\xffab")
	f.Fuzz(func(t *testing.T, pattern, input string) {
		re, err := CompileRegex(pattern)
		if err != nil {
			return
		}
		if got, want := re.FindFirst(input), re.FindStringSubmatchIndex(input); !slices.Equal(got, want) {
			t.Fatalf("%s on %q: FindFirst %v, whole search %v", pattern, input, got, want)
		}
	})
}

func BenchmarkFindFirst(b *testing.B) {
	re, err := CompileRegex(`(&|^)channel_id=([^&]*)`)
	if err != nil {
		b.Fatal(err)
	}
	url := "https://www.nexmark.com/ieqpr/item.htm?query=1&channel_id=1174405120"
	b.Run("window", func(b *testing.B) {
		for b.Loop() {
			re.FindFirst(url)
		}
	})
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			re.FindStringSubmatchIndex(url)
		}
	})
}
