package qtt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// fakeDriver is a Driver for testing the runner's bookkeeping only. Its
// "statements" are a tiny command language:
//
//	SOURCE name topic keyFormat valueFormat col:TYPE[:KEY]…   a stream
//	                                       (words with '=' are ignored)
//	SINK   name topic keyFormat valueFormat col:TYPE[:KEY]…   a sink stream
//	PIPE from to            records produced to from are copied to to
//	TOPIC name partitions   an extra topic
//	FAIL | PANIC | HANG     an error, a panic, blocking until release closes
//	SLEEP ms                a pause
//
// A record whose value is "bad" makes Produce fail.
type fakeDriver struct {
	props   map[string]string
	sources []SourceInfo
	topics  []TopicInfo
	pipes   map[string][]string
	out     []Record
	release chan struct{}
	closed  *atomic.Int32 // counts Close calls when set
}

var _ Driver = (*fakeDriver)(nil)

func newFakeDriver(release chan struct{}) NewDriver {
	return func(c DriverConfig) (Driver, error) {
		if c.Props["fail.driver"] == "true" {
			return nil, errors.New("no engine today")
		}
		return &fakeDriver{props: c.Props, pipes: map[string][]string{}, release: release}, nil
	}
}

func (d *fakeDriver) Execute(stmt string) error {
	f := strings.Fields(strings.TrimSuffix(stmt, ";"))
	if len(f) == 0 {
		return errors.New("empty statement")
	}
	switch strings.ToUpper(f[0]) {
	case "SOURCE", "SINK":
		return d.addSource(f)
	case "PIPE":
		d.pipes[f[1]] = append(d.pipes[f[1]], f[2])
		return nil
	case "TOPIC":
		var n int32
		fmt.Sscan(f[2], &n)
		d.topics = append(d.topics, TopicInfo{Name: f[1], Partitions: n})
		return nil
	case "FAIL":
		return &sqlerr.Error{Code: sqlerr.Semantic, Pos: ast.Pos{Line: 1, Col: 1}, Near: "FAIL", Msg: "told to fail"}
	case "PANIC":
		panic("told to panic")
	case "HANG":
		<-d.release
		return nil
	case "SLEEP":
		ms, _ := strconv.Atoi(f[1])
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return nil
	}
	return fmt.Errorf("unknown fake statement %q", f[0])
}

func (d *fakeDriver) addSource(f []string) error {
	if len(f) < 5 {
		return errors.New("SOURCE/SINK need name, topic and two formats")
	}
	s := SourceInfo{Name: f[1], Kind: "STREAM", Topic: f[2], IsSink: strings.EqualFold(f[0], "SINK"),
		KeyFormat: format.Spec{Name: f[3]}, ValueFormat: format.Spec{Name: f[4]}, Schema: &types.Schema{}}
	for _, c := range f[5:] {
		if strings.Contains(c, "=") {
			continue // a WITH-style property, for the runner's format scan
		}
		parts := strings.Split(c, ":")
		t := map[string]*types.Type{"STRING": types.StringType, "INTEGER": types.IntegerType,
			"BIGINT": types.BigintType, "DOUBLE": types.DoubleType}[parts[1]]
		ns := types.ValueNS
		if len(parts) > 2 {
			ns = types.KeyNS
		}
		s.Schema.Columns = append(s.Schema.Columns, types.Column{Name: parts[0], Type: t, NS: ns})
	}
	d.sources = append(d.sources, s)
	d.topics = append(d.topics, TopicInfo{Name: s.Topic, Partitions: 1})
	return nil
}

func (d *fakeDriver) Produce(r Record) error {
	if string(r.Value) == "bad" || string(r.Value) == `"bad"` {
		return errors.New("cannot process record")
	}
	for _, to := range d.pipes[r.Topic] {
		c := r
		c.Topic = to
		d.out = append(d.out, c)
	}
	return nil
}

func (d *fakeDriver) Drain() ([]Record, error) {
	out := d.out
	d.out = nil
	return out, nil
}

func (d *fakeDriver) Sources() []SourceInfo { return d.sources }
func (d *fakeDriver) Topics() []TopicInfo   { return d.topics }
func (d *fakeDriver) Close() error {
	if d.closed != nil {
		d.closed.Add(1)
	}
	return nil
}
