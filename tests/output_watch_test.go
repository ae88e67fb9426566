package tests

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// outputPoll is how often an outputWatch lists the output's ends.
const outputPoll = 25 * time.Millisecond

// outputWatch polls the read_committed end (last stable offset) of every
// partition of a topic and records when each moved: under
// exactly_once_v2 a partition's end moves when a transaction that wrote
// to it commits, so the gaps between its moves are the pauses of the
// task writing it, as a reader sees them. A move is seen at the poll
// after it: each gap is known to within the time between two polls
// (outputPoll plus the request's round trip; granularity reports it).
type outputWatch struct {
	adm   *kadm.Client
	topic string
	until func() bool // no output is due once it holds (the production ended)
	stop  chan struct{}
	done  chan struct{}

	mu    sync.Mutex
	moves map[int32][]time.Time
	polls []time.Time // when each poll that answered did
}

func watchOutput(adm *kadm.Client, topic string, until func() bool) *outputWatch {
	w := &outputWatch{adm: adm, topic: topic, until: until, stop: make(chan struct{}), done: make(chan struct{}), moves: map[int32][]time.Time{}}
	go w.run()
	return w
}

func (w *outputWatch) run() {
	defer close(w.done)
	last := map[int32]int64{}
	for !w.until() {
		select {
		case <-w.stop:
			return
		case <-time.After(outputPoll):
		}
		ends, err := w.adm.ListCommittedOffsets(context.Background(), w.topic)
		if err != nil {
			continue
		}
		now := time.Now()
		w.mu.Lock()
		w.polls = append(w.polls, now)
		ends.Each(func(o kadm.ListedOffset) {
			if prev, seen := last[o.Partition]; !seen || o.Offset != prev {
				last[o.Partition] = o.Offset
				w.moves[o.Partition] = append(w.moves[o.Partition], now)
			}
		})
		w.mu.Unlock()
	}
}

// finish stops the watch and returns the moment its last poll answered.
func (w *outputWatch) finish() time.Time {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.polls) == 0 {
		return time.Time{}
	}
	return w.polls[len(w.polls)-1]
}

// outputPause is a partition's longest pause in a window.
type outputPause struct {
	partition int32
	from, to  time.Time
}

func (p outputPause) length() time.Duration { return p.to.Sub(p.from) }

func (p outputPause) String() string {
	return fmt.Sprintf("p%d %v (%s–%s)", p.partition, p.length().Round(time.Millisecond),
		p.from.UTC().Format("15:04:05.000"), p.to.UTC().Format("15:04:05.000"))
}

// pauses returns each partition's longest pause overlapping [from, to]:
// the longest time between two moves of its end (the one before from
// included), or since its last move until to.
func (w *outputWatch) pauses(from, to time.Time) map[int32]outputPause {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[int32]outputPause{}
	for p, ms := range w.moves {
		prev := time.Time{}
		for _, m := range append(slices.Clone(ms), to) {
			if m.After(to) {
				m = to
			}
			if !prev.IsZero() && m.After(from) {
				if gap := (outputPause{p, prev, m}); gap.length() > out[p].length() {
					out[p] = gap
				}
			}
			if !m.Before(to) {
				break
			}
			prev = m
		}
	}
	return out
}

// granularity is the longest time between two answered polls in
// [from, to]: how late a move may be seen, so how much a pause may be
// over- or under-measured.
func (w *outputWatch) granularity(from, to time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var g time.Duration
	for i := 1; i < len(w.polls); i++ {
		if w.polls[i].After(from) && !w.polls[i-1].After(to) {
			g = max(g, w.polls[i].Sub(w.polls[i-1]))
		}
	}
	return g
}

// longest is the longest of pauses (the zero pause if none).
func longest(pauses map[int32]outputPause) outputPause {
	var worst outputPause
	for _, p := range pauses {
		if p.length() > worst.length() {
			worst = p
		}
	}
	return worst
}

// describePauses lists pauses by partition.
func describePauses(pauses map[int32]outputPause) string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(pauses)) {
		out = append(out, pauses[p].String())
	}
	return strings.Join(out, ", ")
}
