package qtt

import (
	"fmt"
	"strings"
)

// outputCheck is the outcome of comparing a variant's output records:
// one problem per mismatching topic, and a positional diff of all checked
// topics (" " same, "-" expected, "+" actual).
type outputCheck struct {
	Problems []string
	Diff     []string
}

// CheckOutputs compares the records a run of v wrote (got) with v's
// expected outputs, decoding them with the serdes of sources; it returns
// one line per problem and the diff of the records.
func CheckOutputs(v *Variant, got []Record, sources []SourceInfo) (problems, diff []string) {
	oc := checkOutputs(v.Outputs, got, newSerdes(sources, true), len(v.Inputs) > 0)
	return oc.Problems, oc.Diff
}

// checkOutputs compares the records the driver wrote with the expected
// ones, per topic and in order. As in ksqlDB's test executor, only topics
// that have expected records are checked; records the test did not ask
// about are ignored. withInputs is false for tests that feed no records
// (INSERT VALUES only): their expected timestamp 0 means "any".
func checkOutputs(expected []RecordSpec, got []Record, ss *serdes, withInputs bool) outputCheck {
	expBy, order := groupExpected(expected)
	gotBy := map[string][]Record{}
	for _, r := range got {
		if _, ok := expBy[r.Topic]; ok {
			gotBy[r.Topic] = append(gotBy[r.Topic], r)
		}
	}
	var oc outputCheck
	for _, topic := range order {
		checkTopic(&oc, topic, expBy[topic], gotBy[topic], ss, withInputs)
	}
	return oc
}

func groupExpected(expected []RecordSpec) (map[string][]RecordSpec, []string) {
	by := map[string][]RecordSpec{}
	var order []string
	for _, r := range expected {
		if by[r.Topic] == nil {
			order = append(order, r.Topic)
		}
		by[r.Topic] = append(by[r.Topic], r)
	}
	return by, order
}

// checkTopic compares one topic's records, adding its first problem and
// its diff lines to oc.
func checkTopic(oc *outputCheck, topic string, exp []RecordSpec, got []Record, ss *serdes, withInputs bool) {
	sd, err := ss.forTopic(topic)
	if err != nil {
		oc.Problems = append(oc.Problems, err.Error())
		return
	}
	problem := ""
	for i := 0; i < len(exp) || i < len(got); i++ {
		why := ""
		switch {
		case i >= len(got):
			why = fmt.Sprintf("expected %d records, got %d", len(exp), len(got))
			oc.Diff = append(oc.Diff, "-"+renderSpec(exp[i]))
		case i >= len(exp):
			why = fmt.Sprintf("expected %d records, got %d", len(exp), len(got))
			oc.Diff = append(oc.Diff, "+"+renderActual(sd.fromRecord(got[i]), true))
		default:
			a := sd.fromRecord(got[i])
			if why = compareRecord(exp[i], a, sd, withInputs); why == "" {
				oc.Diff = append(oc.Diff, " "+renderSpec(exp[i]))
			} else {
				oc.Diff = append(oc.Diff, "-"+renderSpec(exp[i]), "+"+renderActual(a, exp[i].Timestamp != nil))
				why = fmt.Sprintf("record %d: %s", i, why)
			}
		}
		if problem == "" && why != "" {
			problem = fmt.Sprintf("topic %s: %s", topic, why)
		}
	}
	if problem != "" {
		oc.Problems = append(oc.Problems, problem)
	}
}

// compareRecord returns why a does not match e, or "". Timestamps are
// checked when given (a given 0 means "any" when the test has no inputs),
// headers always (none given means none expected), windows when given.
func compareRecord(e RecordSpec, a actual, sd *topicSerde, withInputs bool) string {
	if a.Problem != "" {
		return "cannot decode output: " + a.Problem
	}
	if m := compareSide(e.Key, a.Key, sd.key); m != nil {
		return "key: " + m.Error()
	}
	if m := compareSide(e.Value, a.Value, sd.value); m != nil {
		return m.Error()
	}
	if e.Timestamp != nil && *e.Timestamp != a.Timestamp && (withInputs || *e.Timestamp != 0) {
		return fmt.Sprintf("timestamp: expected %d, got %d", *e.Timestamp, a.Timestamp)
	}
	if why := compareWindow(e.Window, a.Window); why != "" {
		return why
	}
	return compareHeaders(e.Headers, a.Headers)
}

func compareSide(exp, act any, sd side) *Mismatch {
	if exp != nil {
		exp = sd.normalize(exp)
	}
	return CompareValues(exp, act, sd.typeOf(act))
}

func compareWindow(e, a *WindowSpec) string {
	switch {
	case e == nil:
		return ""
	case a == nil:
		return fmt.Sprintf("window: expected %s, got an unwindowed record", renderJSON(e))
	case e.Start != a.Start || e.End != a.End || isSession(e) != isSession(a):
		return fmt.Sprintf("window: expected %s, got %s", renderJSON(e), renderJSON(a))
	}
	return ""
}

func isSession(w *WindowSpec) bool { return strings.EqualFold(w.Type, "session") }

func compareHeaders(e, a []HeaderSpec) string {
	if renderJSON(e) == renderJSON(a) || len(e) == 0 && len(a) == 0 {
		return ""
	}
	return fmt.Sprintf("headers: expected %s, got %s", renderJSON(e), renderJSON(a))
}

// renderSpec prints an expected record on one line.
func renderSpec(r RecordSpec) string {
	var ts any
	if r.Timestamp != nil {
		ts = *r.Timestamp
	}
	return renderRecord(r.Topic, r.Key, r.Value, ts, r.Window)
}

// renderActual prints an actual record on one line, with its timestamp
// when withTS (the expected record has one, or there is none to compare).
func renderActual(a actual, withTS bool) string {
	var ts any
	if withTS {
		ts = a.Timestamp
	}
	return renderRecord(a.Topic, a.Key, a.Value, ts, a.Window)
}

func renderRecord(topic string, key, value, ts any, w *WindowSpec) string {
	s := fmt.Sprintf(`{"topic":%s,"key":%s,"value":%s`, renderJSON(topic), renderJSON(key), renderJSON(value))
	if ts != nil {
		s += `,"timestamp":` + renderJSON(ts)
	}
	if w != nil {
		s += `,"window":` + renderJSON(w)
	}
	return s + "}"
}
