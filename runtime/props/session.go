package props

import (
	"time"
)

// SessionConfig is what the engine's statements read of a session's
// properties (the server's, then the request's streamsProperties and
// its SETs, over the table's defaults), parsed when the session starts
// and again after each SET or UNSET; the defaults are the table's.
type SessionConfig struct {
	InsertValues      bool   // ksql.insert.into.values.enabled
	CreateOrReplace   bool   // ksql.create.or.replace.enabled
	VarSubstitution   bool   // ksql.variable.substitution.enable
	OutputTopicPrefix string // ksql.output.topic.name.prefix
	// FromEarliest is auto.offset.reset=earliest: a new query reads its
	// sources from the beginning, so no end offsets are committed first.
	FromEarliest bool
	PullLimit    bool // ksql.query.pull.limit.clause.enabled
	PushV2       bool // ksql.query.push.v2.enabled (scalable push query ids)

	AssertTopicTimeout  time.Duration // ksql.assert.topic.default.timeout.ms
	AssertSchemaTimeout time.Duration // ksql.assert.schema.default.timeout.ms

	// ConnectDefault says ksql.connect.url is its default, not a
	// configured URL (a failure says so; the URL itself is the server's,
	// EngineConfig.Connect).
	ConnectDefault bool
}

// NewSessionConfig parses a session's properties. The error, an *Error,
// names the first bad property.
func NewSessionConfig(t Table, props Properties) (SessionConfig, error) {
	p := NewParser(t, props)
	c := SessionConfig{
		InsertValues:        p.Bool(InsertValues),
		CreateOrReplace:     p.Bool(CreateOrReplace),
		VarSubstitution:     p.Bool(VarSubstitution),
		OutputTopicPrefix:   p.Str(OutputTopicPrefix),
		FromEarliest:        fromEarliest(p),
		PullLimit:           p.Bool(PullLimit),
		PushV2:              p.Bool(PushV2),
		AssertTopicTimeout:  p.Millis(AssertTopicTimeout),
		AssertSchemaTimeout: p.Millis(AssertSchemaTimeout),
		ConnectDefault:      p.Str(ConnectURL) == DefaultConnectURL,
	}
	return c, p.Err()
}
