package qtt

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/sql/types"
)

// topicSerde converts the test records of one topic to driver Records and
// back, using the source that reads or writes the topic.
type topicSerde struct {
	key, value side
	source     *SourceInfo // nil for a topic no source references
}

// serdes builds and caches one topicSerde per topic from the catalog.
type serdes struct {
	sources []SourceInfo
	byTopic map[string]*topicSerde
	output  bool // prefer sink sources (decoding outputs)
}

func newSerdes(sources []SourceInfo, output bool) *serdes {
	return &serdes{sources: sources, byTopic: map[string]*topicSerde{}, output: output}
}

func (ss *serdes) forTopic(topic string) (*topicSerde, error) {
	if s, ok := ss.byTopic[topic]; ok {
		return s, nil
	}
	s, err := newTopicSerde(pickSource(ss.sources, topic, ss.output))
	if err != nil {
		return nil, fmt.Errorf("topic %s: %w", topic, err)
	}
	ss.byTopic[topic] = s
	return s, nil
}

// pickSource returns the source over topic, preferring a sink when
// decoding outputs and a non-sink when encoding inputs; nil when none.
func pickSource(sources []SourceInfo, topic string, preferSink bool) *SourceInfo {
	var found *SourceInfo
	for i := range sources {
		s := &sources[i]
		if s.Topic != topic {
			continue
		}
		if s.IsSink == preferSink {
			return s
		}
		if found == nil {
			found = s
		}
	}
	return found
}

func newTopicSerde(src *SourceInfo) (*topicSerde, error) {
	if src == nil {
		return &topicSerde{key: rawSide{}, value: rawSide{}}, nil
	}
	key, err := newSide(src.KeyFormat, src.Schema.Keys(), true)
	if err != nil {
		return nil, fmt.Errorf("key of %s: %w", src.Name, err)
	}
	value, err := newSide(src.ValueFormat, serializedValues(src), false)
	if err != nil {
		return nil, fmt.Errorf("value of %s: %w", src.Name, err)
	}
	return &topicSerde{key: key, value: value, source: src}, nil
}

// serializedValues are the value columns that live in the record value
// (header columns do not).
func serializedValues(src *SourceInfo) []types.Column {
	var out []types.Column
	for _, c := range src.Schema.Values() {
		if c.NS != types.HeaderNS {
			out = append(out, c)
		}
	}
	return out
}

// toRecord serializes a test input record.
func (s *topicSerde) toRecord(r RecordSpec) (Record, error) {
	rec := Record{Topic: r.Topic, Partition: -1}
	if r.Timestamp != nil {
		rec.Timestamp = *r.Timestamp
	}
	var err error
	if rec.Key, err = s.encodeKey(r); err != nil {
		return rec, fmt.Errorf("key: %w", err)
	}
	if r.Value != nil {
		if rec.Value, err = s.encodeValue(r); err != nil {
			return rec, fmt.Errorf("value: %w", err)
		}
		if rec.Value == nil {
			rec.Value = []byte{}
		}
	}
	rec.Headers, err = decodeHeaders(r.Headers)
	return rec, err
}

// encodeValue writes the value's text as the test gives it when the side
// takes JSON text, otherwise the encoded value.
func (s *topicSerde) encodeValue(r RecordSpec) ([]byte, error) {
	if w, ok := s.value.(textWriter); ok && len(r.ValueText) > 0 {
		return w.encodeText(r.ValueText)
	}
	return s.value.encode(r.Value)
}

func (s *topicSerde) encodeKey(r RecordSpec) ([]byte, error) {
	var key []byte
	if r.Key != nil {
		var err error
		if key, err = s.key.encode(r.Key); err != nil {
			return nil, err
		}
	}
	if r.Window == nil {
		return key, nil
	}
	return encodeWindowedKey(key, *r.Window), nil
}

// actual is an output record decoded back to JSON-ish values.
type actual struct {
	Topic     string
	Key       any
	Value     any
	Timestamp int64
	Window    *WindowSpec
	Headers   []HeaderSpec
	Problem   string // why the bytes could not be decoded, if they could not
}

// fromRecord decodes an output record.
func (s *topicSerde) fromRecord(r Record) actual {
	a := actual{Topic: r.Topic, Timestamp: r.Timestamp, Headers: encodeHeaders(r.Headers)}
	key := r.Key
	if s.windowed() && key != nil {
		var err error
		key, a.Window, err = s.decodeWindow(key)
		if err != nil {
			a.Problem = "window: " + err.Error()
		}
	}
	a.Key = s.decodeSide(&a, "key", s.key, key)
	a.Value = s.decodeSide(&a, "value", s.value, r.Value)
	return a
}

func (s *topicSerde) decodeSide(a *actual, what string, sd side, b []byte) any {
	if b == nil {
		return nil
	}
	v, err := sd.decode(b)
	if err != nil && a.Problem == "" {
		a.Problem = fmt.Sprintf("%s %q: %v", what, b, err)
	}
	return v
}

func (s *topicSerde) windowed() bool { return s.source != nil && s.source.Windowed }

func (s *topicSerde) decodeWindow(key []byte) ([]byte, *WindowSpec, error) {
	session := strings.EqualFold(s.source.WindowType, "SESSION")
	inner, w, err := decodeWindowedKey(key, session)
	if err != nil {
		return key, nil, err
	}
	if !session {
		w.End = w.Start + s.source.WindowSize
	}
	return inner, &w, nil
}

func decodeHeaders(hs []HeaderSpec) ([]Header, error) {
	var out []Header
	for _, h := range hs {
		hd := Header{Key: h.Key}
		if h.Value != nil {
			b, err := base64.StdEncoding.DecodeString(*h.Value)
			if err != nil {
				return nil, fmt.Errorf("header %s: value is not base64: %w", h.Key, err)
			}
			hd.Value = b
		}
		out = append(out, hd)
	}
	return out, nil
}

func encodeHeaders(hs []Header) []HeaderSpec {
	out := make([]HeaderSpec, 0, len(hs))
	for _, h := range hs {
		hd := HeaderSpec{Key: h.Key}
		if h.Value != nil {
			v := base64.StdEncoding.EncodeToString(h.Value)
			hd.Value = &v
		}
		out = append(out, hd)
	}
	return out
}
