package runtime

import (
	"github.com/sqlstream/sqlstream/internal/qttmode"
	"github.com/sqlstream/sqlstream/runtime/naming"
)

// WithQTT sets the engine's mode for ksqlDB's conformance tests (see
// qttmode.Mode: its naming of queries, topics created on demand). Only
// this module can name a qttmode.Mode, so only the QTT driver and tests
// use it. Default: the zero Mode, a server's behaviour.
func WithQTT(m qttmode.Mode) Option {
	return optionFunc(func(o *options) {
		if m.Naming {
			o.appPrefix, o.countQueries = naming.KsqlInternalPrefix, true
		}
		o.createTopics = m.CreateMissingTopics
	})
}

// queryNumber is the number a new query's id ends with: the sequence
// number seq of its command, or the count of queries so far (QTT naming).
func (e *Engine) queryNumber(seq int64) int64 {
	if e.opts.countQueries {
		return e.queryCount
	}
	return seq
}
