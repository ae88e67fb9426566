package physical

import (
	"container/heap"

	"github.com/sqlstream/sqlstream/sql/types"
)

// openWindows are the distinct window intervals still accepting records
// (the open-windows gauge), with a min-heap by the end they close at, so
// forgetting the closed ones after a record costs what closed, not a scan
// of all the open ones: a session per key keeps thousands open.
type openWindows struct {
	set  map[types.Window]struct{}
	byAt closeHeap
}

// closing is a window and the stream time end (before grace) it closes at.
type closing struct {
	w   types.Window
	end int64
}

type closeHeap []closing

func (h closeHeap) Len() int           { return len(h) }
func (h closeHeap) Less(i, j int) bool { return h[i].end < h[j].end }
func (h closeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *closeHeap) Push(x any)        { *h = append(*h, x.(closing)) }
func (h *closeHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// add records window w, which closes at end.
func (o *openWindows) add(w types.Window, end int64) {
	if o.set == nil {
		o.set = map[types.Window]struct{}{}
	}
	if _, ok := o.set[w]; ok {
		return
	}
	o.set[w] = struct{}{}
	heap.Push(&o.byAt, closing{w: w, end: end})
}

// prune forgets the windows closed at streamTime: those whose end plus
// grace it reached. Stream time only grows, so those are the heap's first.
func (o *openWindows) prune(streamTime, grace int64) {
	for len(o.byAt) > 0 && streamTime >= o.byAt[0].end+grace {
		c := heap.Pop(&o.byAt).(closing)
		delete(o.set, c.w)
	}
}

func (o *openWindows) len() int { return len(o.set) }
