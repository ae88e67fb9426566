package tests

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// kcatCommitted reads topic from the beginning to its current end with
// kcat as a read_committed consumer and returns its records as sorted
// "key=value@timestamp" strings (a tombstone's value is NULL).
func kcatCommitted(t *testing.T, addr, topic string) []string {
	t.Helper()
	out := runKcat(t, "", "-b", addr, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-Z",
		"-X", "isolation.level=read_committed", "-f", "%k=%s@%T\n")
	if out == "" {
		return nil
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	sort.Strings(got)
	return got
}

// awaitCommitted polls kcatCommitted until topic holds exactly want
// (sorted here) and fails with what it last read otherwise.
func awaitCommitted(t *testing.T, addr, topic string, want ...string) {
	t.Helper()
	sort.Strings(want)
	eventually(t, topic+" (kcat, read_committed)", func() error {
		got := kcatCommitted(t, addr, topic)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			return fmt.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		return nil
	})
}

// awaitCommittedValues is awaitCommitted ignoring the records' times
// (those of records produced without one are the producer's clock).
func awaitCommittedValues(t *testing.T, addr, topic string, want ...string) {
	t.Helper()
	sort.Strings(want)
	eventually(t, topic+" (kcat, read_committed)", func() error {
		got := kcatCommitted(t, addr, topic)
		for i, kv := range got {
			got[i] = kv[:strings.LastIndexByte(kv, '@')]
		}
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			return fmt.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		return nil
	})
}

// produceTombstone writes a null value for key to topic.
func produceTombstone(t *testing.T, addr, topic, key string) {
	t.Helper()
	r := &kgo.Record{Topic: topic, Key: []byte(key)}
	if err := kafkaClient(t, addr).ProduceSync(timeoutCtx(t), r).FirstErr(); err != nil {
		t.Fatalf("produce tombstone to %s: %v", topic, err)
	}
}

// pullByKey runs a pull query and returns its rows as key → the other
// columns, space-separated.
func pullByKey(t *testing.T, n *node, sql string) map[string]string {
	out := map[string]string{}
	for _, row := range mustPull(t, n, sql) {
		rest := make([]string, len(row)-1)
		for j, v := range row[1:] {
			rest[j] = fmt.Sprint(v)
		}
		out[fmt.Sprint(row[0])] = strings.Join(rest, " ")
	}
	return out
}

// awaitPull retries a pull query until it returns want.
func awaitPull(t *testing.T, n *node, sql string, want map[string]string) {
	t.Helper()
	eventually(t, sql, func() error { return same(pullByKey(t, n, sql), want) })
}

// eventBase is the event time of minute 0 of the stream–stream test.
const eventBase = 1_700_000_000_000

// minute is an event time in the JSON "TS" column, in epoch millis.
func minute(m int) string { return strconv.Itoa(eventBase + m*60_000) }

// TestStreamStreamJoinWithin runs clicks ⋈ views WITHIN 10 MINUTES,
// inner and left, through the binary (2 partitions each, event time from
// TS). A click and a view 5 minutes apart join, a view 30 minutes after a
// click does not; clicks arriving after newer views (28 and 1 minutes,
// once stream time is at 30) still join the views within 10 minutes of
// them; the left join emits an unmatched click at once with a null page
// (no GRACE: ksqlDB's eager outer rows). A result's time is the later of
// its two rows. After a restart the window stores come back: a view
// joins a click buffered before it, and nothing already written is
// written again.
func TestStreamStreamJoinWithin(t *testing.T) {
	t.Parallel()
	kcatPath(t)
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM clicks (user VARCHAR KEY, url VARCHAR, ts BIGINT)
	  WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=2, TIMESTAMP='ts');
	CREATE STREAM views (user VARCHAR KEY, page VARCHAR, ts BIGINT)
	  WITH (KAFKA_TOPIC='views', VALUE_FORMAT='JSON', PARTITIONS=2, TIMESTAMP='ts');
	CREATE STREAM clicked AS SELECT c.user, c.url, v.page FROM clicks c
	  JOIN views v WITHIN 10 MINUTES ON c.user = v.user;
	CREATE STREAM clicked_all AS SELECT c.user, c.url, v.page FROM clicks c
	  LEFT JOIN views v WITHIN 10 MINUTES ON c.user = v.user;`)
	click := func(user, url string, m int) {
		produce(t, n.Kafka, "clicks", user, fmt.Sprintf(`{"URL":"%s","TS":%s}`, url, minute(m)))
	}
	view := func(user, page string, m int) {
		produce(t, n.Kafka, "views", user, fmt.Sprintf(`{"PAGE":"%s","TS":%s}`, page, minute(m)))
	}
	row := func(user, url, page string, m int) string {
		if page == "" {
			return fmt.Sprintf(`%s={"URL":"%s","PAGE":null}@%s`, user, url, minute(m))
		}
		return fmt.Sprintf(`%s={"URL":"%s","PAGE":"%s"}@%s`, user, url, page, minute(m))
	}

	click("u1", "/a", 0)
	click("u2", "/b", 20)
	left := []string{row("u1", "/a", "", 0), row("u2", "/b", "", 20)}
	awaitCommitted(t, n.Kafka, "CLICKED_ALL", left...)
	view("u1", "A", 5)
	view("u1", "B", 30) // 30 minutes after /a: outside its window
	inner := []string{row("u1", "/a", "A", 5)}
	awaitCommitted(t, n.Kafka, "CLICKED", inner...)
	click("u1", "/c", 28) // out of order: older than B, within 10 minutes of it
	click("u1", "/d", 1)  // out of order: 29 minutes behind, within 10 minutes of A only
	inner = append(inner, row("u1", "/c", "B", 30), row("u1", "/d", "A", 5))
	awaitCommitted(t, n.Kafka, "CLICKED", inner...)
	left = append(left, inner...)
	awaitCommitted(t, n.Kafka, "CLICKED_ALL", left...)

	awaitQueriesCommitted(t, n.Kafka, "clicks", "views")
	n.restart()
	view("u2", "C", 25) // joins /b, buffered before the restart
	inner = append(inner, row("u2", "/b", "C", 25))
	left = append(left, row("u2", "/b", "C", 25))
	awaitCommitted(t, n.Kafka, "CLICKED", inner...)
	awaitCommitted(t, n.Kafka, "CLICKED_ALL", left...)
}

// TestTableTableJoin runs accounts ⋈ profiles (2 partitions each),
// inner and left, through the binary: either side's change updates the
// result, a profile's tombstone deletes the inner result and nulls the
// left one's EMAIL, an account's tombstone deletes both. The tables are
// read back with kcat and with pull queries; a restart between the
// update and the tombstones keeps both sides' stores.
func TestTableTableJoin(t *testing.T) {
	t.Parallel()
	kcatPath(t)
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE TABLE accounts (id VARCHAR PRIMARY KEY, balance BIGINT)
	  WITH (KAFKA_TOPIC='accounts', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE TABLE profiles (id VARCHAR PRIMARY KEY, email VARCHAR)
	  WITH (KAFKA_TOPIC='profiles', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE TABLE both_t AS SELECT a.id, balance, email FROM accounts a JOIN profiles p ON a.id = p.id;
	CREATE TABLE left_t AS SELECT a.id, balance, email FROM accounts a LEFT JOIN profiles p ON a.id = p.id;`)
	awaitValues := func(topic string, want ...string) {
		t.Helper()
		awaitCommittedValues(t, n.Kafka, topic, want...)
	}
	pull := func(table string, want map[string]string) {
		t.Helper()
		awaitPull(t, n, "SELECT * FROM "+table+";", want)
	}

	produce(t, n.Kafka, "accounts", "c1", `{"BALANCE":100}`, "c2", `{"BALANCE":7}`)
	leftT := []string{`c1={"BALANCE":100,"EMAIL":null}`, `c2={"BALANCE":7,"EMAIL":null}`}
	awaitValues("LEFT_T", leftT...)
	produce(t, n.Kafka, "profiles", "c1", `{"EMAIL":"a@x"}`)
	awaitValues("BOTH_T", `c1={"BALANCE":100,"EMAIL":"a@x"}`)
	produce(t, n.Kafka, "accounts", "c1", `{"BALANCE":150}`) // an update
	both := []string{`c1={"BALANCE":100,"EMAIL":"a@x"}`, `c1={"BALANCE":150,"EMAIL":"a@x"}`}
	leftT = append(leftT, both...)
	awaitValues("BOTH_T", both...)
	awaitValues("LEFT_T", leftT...)
	pull("both_t", map[string]string{"c1": "150 a@x"})
	pull("left_t", map[string]string{"c1": "150 a@x", "c2": "7 <nil>"})

	awaitQueriesCommitted(t, n.Kafka, "accounts", "profiles")
	n.restart()
	produceTombstone(t, n.Kafka, "profiles", "c1")
	both = append(both, "c1=NULL")
	leftT = append(leftT, `c1={"BALANCE":150,"EMAIL":null}`)
	awaitValues("BOTH_T", both...)
	awaitValues("LEFT_T", leftT...)
	pull("both_t", map[string]string{})
	pull("left_t", map[string]string{"c1": "150 <nil>", "c2": "7 <nil>"})
	produceTombstone(t, n.Kafka, "accounts", "c2")
	awaitValues("LEFT_T", append(leftT, "c2=NULL")...)
	pull("left_t", map[string]string{"c1": "150 <nil>"})
	awaitValues("BOTH_T", both...) // c2 never joined: nothing to delete
}

// TestJoinCopartitionError: joining sources of 2 and 3 partitions fails
// with ksqlDB's message naming both sources, their topics and counts,
// for a stream–table and a stream–stream join, and leaves nothing
// behind: SHOW QUERIES, SHOW STREAMS, the broker's topics (kcat -L) and
// the command topic are as before.
func TestJoinCopartitionError(t *testing.T) {
	t.Parallel()
	kcatPath(t)
	n := startNode(t)
	n.mustKsql(`CREATE STREAM orders (id VARCHAR KEY, customer_id VARCHAR)
	  WITH (KAFKA_TOPIC='orders_t', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE TABLE customers (id VARCHAR PRIMARY KEY, name VARCHAR)
	  WITH (KAFKA_TOPIC='customers_t', VALUE_FORMAT='JSON', PARTITIONS=3);
	CREATE STREAM payments (id VARCHAR KEY, customer_id VARCHAR)
	  WITH (KAFKA_TOPIC='payments_t', VALUE_FORMAT='JSON', PARTITIONS=3);`)
	snapshot := func() string {
		topics := runKcat(t, "", "-b", n.Kafka, "-L")
		var names []string
		for _, l := range strings.Split(topics, "\n") {
			if f := strings.Fields(l); len(f) >= 4 && f[0] == "topic" {
				names = append(names, strings.Join(f[:4], " "))
			}
		}
		sort.Strings(names)
		return fmt.Sprintf("queries %v\nstreams %v\ntables %v\ntopics %v\ncommands %d",
			n.mustKsql("SHOW QUERIES;"), n.mustKsql("SHOW STREAMS;"), n.mustKsql("SHOW TABLES;"),
			names, len(kcatCommitted(t, n.Kafka, "_default__command_topic")))
	}
	before := snapshot()
	for _, c := range []struct{ sql, msg string }{
		{`CREATE STREAM named AS SELECT o.id, c.name FROM orders o JOIN customers c ON o.id = c.id;`,
			"Can't join `ORDERS` with `CUSTOMERS` since the number of partitions don't match. `ORDERS` partitions = 2; `CUSTOMERS` partitions = 3. Please repartition either one so that the number of partitions match. (topics: orders_t = 2, customers_t = 3)"},
		{`CREATE STREAM paid AS SELECT o.id, p.customer_id FROM orders o JOIN payments p WITHIN 1 HOUR ON o.id = p.id;`,
			"Can't join `ORDERS` with `PAYMENTS` since the number of partitions don't match. `ORDERS` partitions = 2; `PAYMENTS` partitions = 3. Please repartition either one so that the number of partitions match. (topics: orders_t = 2, payments_t = 3)"},
	} {
		status, v := n.ksql(c.sql, nil)
		if _, msg := errorOf(v); status != http.StatusBadRequest || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: status %d, %v; want 400 with %q", c.sql, status, v, c.msg)
		}
	}
	if after := snapshot(); after != before {
		t.Fatalf("a failed join left something behind:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
