package qtt

import (
	"fmt"
	"sync/atomic"
	"testing"
)

func TestRunAllKeepsOrder(t *testing.T) {
	var closed atomic.Int32
	var vs []*Variant
	for i := 0; i < 12; i++ {
		vs = append(vs, &Variant{File: "f", Name: fmt.Sprint(i),
			Statements: []string{fmt.Sprintf("SLEEP %d", (12-i)%4)}})
	}
	results := runAll(vs, fakeConfig(nil, &closed), 4)
	for i, r := range results {
		if r.Variant != vs[i] || r.Status != Passed {
			t.Fatalf("result %d is %s (%v)", i, r.Variant.ID(), r.Status)
		}
	}
	if closed.Load() != 12 {
		t.Fatalf("closed %d drivers, want 12", closed.Load())
	}
	if got := runAll(nil, fakeConfig(nil, &closed), 4); len(got) != 0 {
		t.Fatalf("no variants gave %d results", len(got))
	}
}
