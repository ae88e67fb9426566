package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/sql/format"
)

// TestRun is the golden "run" test: statements and records in, records
// (and processing-log entries) out, on the synchronous test engine.
//
//	exec            statements; prints their command status or error
//	produce topic=T one record per line: "key|value[|timestamp]"; an
//	                empty key is null, the value "null" is a tombstone
//	drain           the records queries wrote since the last drain to
//	                non-internal topics ([internal]: to internal topics
//	                too, values quoted)
//	proclog         every processing-log entry so far
//	query           a SELECT: its header and rows (pull queries end by
//	                themselves; push queries need a LIMIT)
//	errorstats source=S  DESCRIBE S EXTENDED's error statistics (the
//	                records its queries failed on, dropped late, skipped)
func TestRun(t *testing.T) {
	datadriven.Walk(t, "testdata/run", func(t *testing.T, path string) {
		eng, err := runtime.NewTestEngine(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "exec":
				return execText(eng, d.Input)
			case "produce":
				var topic string
				d.ScanArgs(t, "topic", &topic)
				return produceLines(t, eng, topic, d.Input)
			case "drain":
				internal := d.HasArg("internal")
				return drainText(filterInternal(eng.Drain(), internal))
			case "query":
				return queryText(eng, d.Input)
			case "errorstats":
				var src string
				d.ScanArgs(t, "source", &src)
				return errorStatsText(eng, src)
			case "proclog":
				var recs []*physical.OutRecord
				for _, r := range eng.Read(eng.ProcessingLogTopic()) {
					recs = append(recs, &physical.OutRecord{Topic: r.Topic, Partition: r.Partition, Value: r.Value})
				}
				return drainText(recs)
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

// errorStatsText prints the errorStats of DESCRIBE src EXTENDED.
func errorStatsText(eng *runtime.TestEngine, src string) string {
	ents, err := eng.ExecuteStatement("DESCRIBE "+src+" EXTENDED;", nil)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	for _, e := range ents {
		if d, ok := e.(api.SourceDescriptionEntity); ok {
			return d.SourceDescription.ErrorStats + "\n"
		}
	}
	return "no source description\n"
}

func execText(eng *runtime.TestEngine, sql string) string {
	ents, err := eng.ExecuteStatement(sql, nil)
	var b strings.Builder
	for _, e := range ents {
		switch e := e.(type) {
		case api.CommandStatusEntity:
			fmt.Fprintf(&b, "%s: %s\n", e.CommandID, e.CommandStatus.Message)
		case api.TypeList:
			fmt.Fprintf(&b, "%s %s\n", e.EntityType(), typeListJSON(e))
		case api.WarningEntity:
			fmt.Fprintf(&b, "%s: %s\n", e.EntityType(), e.Message)
		case api.AssertTopicEntity:
			fmt.Fprintf(&b, "%s: %s\n", e.EntityType(), e.Text())
		case api.QueryDescriptionEntity:
			if u := e.QueryDescription.Upgrade; u != "" {
				fmt.Fprintf(&b, "EXPLAIN %s (upgrade):\n%s", e.QueryDescription.ID, u)
				break
			}
			fmt.Fprintf(&b, "%s\n", e.EntityType())
		case api.KafkaTopicsList:
			fmt.Fprintf(&b, "%s:", e.EntityType())
			for _, t := range e.Topics {
				fmt.Fprintf(&b, " %s", t.Name)
			}
			b.WriteByte('\n')
		case api.KafkaTopicsListExtended:
			fmt.Fprintf(&b, "%s:", e.EntityType())
			for _, t := range e.Topics {
				fmt.Fprintf(&b, " %s(partitions=%d consumers=%d groups=%d)", t.Name, len(t.ReplicaInfo), t.ConsumerCount, t.ConsumerGroupCount)
			}
			b.WriteByte('\n')
		default:
			fmt.Fprintf(&b, "%s\n", e.EntityType())
		}
	}
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	return b.String()
}

// typeListJSON prints SHOW TYPES' entity as the REST API sends it.
func typeListJSON(l api.TypeList) string {
	js, err := json.Marshal(l.Types)
	if err != nil {
		return err.Error()
	}
	return string(js)
}

func produceLines(t *testing.T, eng *runtime.TestEngine, topic, input string) string {
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		parts := strings.SplitN(line, "|", 3)
		r := &physical.OutRecord{Topic: topic, Partition: -1}
		if parts[0] != "" {
			r.Key = []byte(parts[0])
		}
		if len(parts) > 1 && parts[1] != "null" {
			r.Value = []byte(parts[1])
		}
		if len(parts) > 2 {
			ts, err := strconv.ParseInt(parts[2], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			r.Timestamp = ts
		}
		if err := eng.Produce(r); err != nil {
			return "error: " + err.Error() + "\n"
		}
	}
	return "ok\n"
}

func drainText(recs []*physical.OutRecord) string {
	var b strings.Builder
	for _, r := range recs {
		key, val := "<null>", "<null>"
		if r.Key != nil {
			key = readable(r.Key)
		}
		if r.Value != nil {
			val = string(r.Value)
		}
		if strings.HasSuffix(r.Topic, "ksql_processing_log") {
			val = maskTime(val)
		}
		if strings.HasSuffix(r.Topic, "ksql_processing_log") {
			fmt.Fprintf(&b, "%s\n", val)
			continue
		}
		fmt.Fprintf(&b, "%s[%d] %s|%s|%d\n", r.Topic, r.Partition, key, val, r.Timestamp)
	}
	return b.String()
}

// maskTime hides the wall-clock TIME of processing-log entries.
func maskTime(v string) string {
	i := strings.Index(v, `"TIME":`)
	if i < 0 {
		return v
	}
	j := strings.IndexByte(v[i:], ',')
	return v[:i] + `"TIME":<now>` + v[i+j:]
}

func queryText(eng *runtime.TestEngine, sql string) string {
	rs, err := eng.Query(context.Background(), sql, nil, nil)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	defer rs.Close()
	var b strings.Builder
	b.WriteString(rs.Header().Schema() + "\n")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		row, err := rs.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			break
		}
		cols := rs.Header().Columns
		parts := make([]string, len(row.Values))
		for i, v := range row.Values {
			parts[i] = string(format.AppendRESTJSON(nil, v, cols[i].Type))
		}
		b.WriteString(strings.Join(parts, ", ") + "\n")
	}
	if m := rs.FinalMessage(); m != "" {
		b.WriteString(m + "\n")
	}
	return b.String()
}

// filterInternal drops (or, with internal, quotes) the records of internal
// repartition and changelog topics.
func filterInternal(recs []*physical.OutRecord, internal bool) []*physical.OutRecord {
	var out []*physical.OutRecord
	for _, r := range recs {
		isInternal := strings.HasSuffix(r.Topic, "-changelog") || strings.HasSuffix(r.Topic, "-repartition") || strings.HasSuffix(r.Topic, "-topic")
		switch {
		case !isInternal:
			out = append(out, r)
		case internal:
			cp := *r
			cp.Key = []byte(fmt.Sprintf("%q", r.Key))
			if r.Value != nil {
				cp.Value = []byte(fmt.Sprintf("%q", r.Value))
			}
			out = append(out, &cp)
		}
	}
	return out
}

// readable shows printable bytes as they are and others Go-quoted
// (windowed keys end in binary window bounds).
func readable(b []byte) string {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return fmt.Sprintf("%q", b)
		}
	}
	return string(b)
}
