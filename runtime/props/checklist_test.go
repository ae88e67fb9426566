package props

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// ksqlConfigRow is one setting of ksqlDB's KsqlConfig (testdata/ksqlconfig.tsv).
type ksqlConfigRow struct{ name, kind, def string }

func readKsqlConfig(t *testing.T) []ksqlConfigRow {
	f, err := os.Open("testdata/ksqlconfig.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []ksqlConfigRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			parts := strings.SplitN(line, "\t", 3)
			if len(parts) != 3 {
				t.Fatalf("ksqlconfig.tsv: %q is not name, type and default", line)
			}
			rows = append(rows, ksqlConfigRow{parts[0], parts[1], parts[2]})
		}
	}
	return rows
}

// TestKsqlConfigChecklist: every setting of ksqlDB's KsqlConfig has a row
// in the table, with ksqlDB's default (or, where sqlstream's differs on
// purpose, ksqlDB's recorded beside it), and its status: the golden file
// testdata/checklist lists them, so a later ksqlDB release is diffed by
// replacing ksqlconfig.tsv.
func TestKsqlConfigChecklist(t *testing.T) {
	table := NewTable()
	rows := readKsqlConfig(t)
	for _, r := range rows {
		d, ok := table[r.name]
		if !ok {
			t.Errorf("%s: KsqlConfig defines it (default %q) and the table has no row", r.name, r.def)
			continue
		}
		if d.def != r.def && d.ksqlDefault != r.def {
			t.Errorf("%s: default %q, ksqlDB's %q, and no ksqlDefault records the difference", r.name, d.def, r.def)
		}
	}
	datadriven.RunTest(t, "testdata/checklist", func(t *testing.T, td *datadriven.TestData) string {
		var out strings.Builder
		counts := map[string]int{}
		for _, r := range rows {
			d, ok := table[r.name]
			if !ok {
				fmt.Fprintf(&out, "%s missing\n", r.name)
				continue
			}
			counts[d.Status()]++
			fmt.Fprintf(&out, "%s %s default=%s\n", r.name, d.Status(), d.def)
		}
		statuses := make([]string, 0, len(counts))
		for s := range counts {
			statuses = append(statuses, s)
		}
		sort.Strings(statuses)
		for _, s := range statuses {
			fmt.Fprintf(&out, "%s: %d\n", s, counts[s])
		}
		return out.String()
	})
}

// TestRefusedSettings: a KsqlConfig setting sqlstream supports only at
// its default accepts the default (in the server's configuration; a few
// are the server's only, as in ksqlDB) and refuses another value with a
// message naming the property and saying why.
func TestRefusedSettings(t *testing.T) {
	table := NewTable()
	for _, d := range ksqlDefs() {
		if d.refused == "" {
			continue
		}
		if err := table.Check(d.name, d.def); err != nil {
			t.Errorf("%s=%q (the default): %v", d.name, d.def, err)
		}
		other := "x.Other"
		if d.kind == kindBool {
			other = map[string]string{"true": "false", "false": "true"}[d.def]
		}
		err := table.Check(d.name, other)
		if err == nil || !strings.Contains(err.Error(), d.name) || !strings.Contains(err.Error(), d.refused) {
			t.Errorf("%s=%s: %v, want a refusal naming it and why", d.name, other, err)
		}
	}
}

// kafkaClientRow is one Kafka client setting ksqlDB passes through
// (testdata/kafkaclients.tsv): its name, Kafka type, the clients whose
// ConfigDef defines it with this default, the class naming it and a
// number's lower bound ("" for none).
type kafkaClientRow struct{ name, kind, clients, def, class, min string }

func readKafkaClients(t *testing.T) []kafkaClientRow {
	data, err := os.ReadFile("testdata/kafkaclients.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var rows []kafkaClientRow
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 6 || parts[2] == "" || parts[4] == "" {
			t.Fatalf("kafkaclients.tsv: %q is not name, type, clients, default, class and lower bound", line)
		}
		rows = append(rows, kafkaClientRow{parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]})
	}
	return rows
}

// clientPrefixes are the prefixes each client's settings may be given
// with, as ksqlDB's KsqlConfigResolver and Kafka Streams read them.
var clientPrefixes = map[string][]string{
	"consumer": {"consumer.", "main.consumer.", "restore.consumer.", "global.consumer."},
	"producer": {"producer."}, "admin": {"admin."}, "streams": {},
}

// clientRoles are the table's roles of the file's client names.
var clientRoles = map[string]clientRole{"consumer": roleConsumer, "producer": roleProducer, "admin": roleAdmin, "streams": roleStreams}

// kafkaKinds are the table's kinds a Kafka type may be read as (a LIST,
// CLASS or PASSWORD is a string; a STRING with allowed values an enum).
var kafkaKinds = map[string][]propKind{
	"STRING": {kindString, kindEnum}, "LIST": {kindString}, "CLASS": {kindString}, "PASSWORD": {kindString},
	"INT": {kindInt}, "LONG": {kindLong}, "SHORT": {kindShort}, "DOUBLE": {kindDouble}, "BOOLEAN": {kindBool},
}

// TestKafkaClientChecklist: every Kafka client and Streams setting of
// Kafka 3.4's ConfigDefs (testdata/kafkaclients.tsv) is accepted bare,
// under ksql.streams. and under each of its clients' prefixes, with
// Kafka's type; a client row (clients.go) has Kafka's default under each
// prefix (the first row's bare) and exactly the file's clients, and the
// table has no client row the file lacks. The engine's own rows keep
// sqlstream's defaults, Kafka's printed beside them. The golden file
// testdata/kafkaclients lists each one's status.
func TestKafkaClientChecklist(t *testing.T) {
	table := NewTable()
	rows := readKafkaClients(t)
	roles := map[string]clientRole{}
	for _, r := range rows {
		d, err := table.Lookup(r.name)
		if err != nil {
			t.Errorf("%s (%s): %v", r.name, r.class, err)
			continue
		}
		if !slices.Contains(kafkaKinds[r.kind], d.kind) {
			t.Errorf("%s: a %s in the table, Kafka's is %s", r.name, kindNames[d.kind], r.kind)
		}
		_, seen := roles[r.name]
		for _, c := range strings.Split(r.clients, ",") {
			roles[r.name] |= clientRoles[c]
		}
		if !d.client {
			continue
		}
		if !seen && d.def != r.def {
			t.Errorf("%s: default %q, Kafka's %q (%s)", r.name, d.def, r.def, r.clients)
		}
		checkLowerBound(t, d, r)
		checkClientSpellings(t, table, r)
	}
	for name, d := range table {
		base := strings.TrimPrefix(name, "ksql.streams.")
		switch {
		case d.client && roles[base] == 0:
			t.Errorf("%s: a client row Kafka 3.4's ConfigDefs do not have", base)
		case d.client && d.roles != roles[base]:
			t.Errorf("%s: roles %b, Kafka's clients %b", base, d.roles, roles[base])
		case !d.client && base != name && roles[base] != 0 && d.roles&^roleStreams != roles[base]&^roleStreams:
			// An engine row takes the prefixes of Kafka's clients that have it.
			t.Errorf("%s: an engine row with roles %b, Kafka's clients %b", base, d.roles, roles[base])
		}
	}
	datadriven.RunTest(t, "testdata/kafkaclients", func(t *testing.T, td *datadriven.TestData) string {
		return kafkaClientList(table, rows)
	})
}

// higherBounds are the client settings whose lower bound is above
// Kafka's, and why (each Def's doc says so too).
var higherBounds = map[string]string{
	"heartbeat.interval.ms": "franz-go's heartbeat needs a positive interval",
}

// checkLowerBound: a client row's integer has Kafka's lower bound (or a
// higher one higherBounds explains). A DOUBLE's bound is recorded only.
func checkLowerBound(t *testing.T, d *Def, r kafkaClientRow) {
	t.Helper()
	if d.kind != kindInt && d.kind != kindLong && d.kind != kindShort {
		return
	}
	want := int64(none)
	if r.min != "" {
		n, err := strconv.ParseInt(r.min, 10, 64)
		if err != nil {
			t.Fatalf("%s: lower bound %q: %v", r.name, r.min, err)
		}
		want = n
	}
	if d.min != want && higherBounds[r.name] == "" {
		t.Errorf("%s: lower bound %d, Kafka's %s", r.name, d.min, cmp.Or(r.min, "none"))
	}
}

// checkClientSpellings: a client row's name under ksql.streams. and
// under each prefix of r's clients has r's default there.
func checkClientSpellings(t *testing.T, table Table, r kafkaClientRow) {
	t.Helper()
	for _, c := range strings.Split(r.clients, ",") {
		for _, p := range clientPrefixes[c] {
			for _, n := range []string{p + r.name, "ksql.streams." + p + r.name} {
				d, err := table.Lookup(n)
				if err != nil {
					t.Errorf("%s: %v", n, err)
				} else if d.def != r.def {
					t.Errorf("%s: default %q, Kafka's %q", n, d.def, r.def)
				}
			}
		}
	}
	if _, err := table.Lookup("ksql.streams." + r.name); err != nil && !topLevel(r.name) {
		t.Errorf("ksql.streams.%s: %v", r.name, err)
	}
}

// kafkaClientList is the golden listing: each row's status and default
// (an engine row's Kafka default beside sqlstream's), and the counts.
func kafkaClientList(table Table, rows []kafkaClientRow) string {
	var out strings.Builder
	counts := map[string]int{}
	for _, r := range rows {
		d, err := table.Lookup(r.name)
		if err != nil {
			fmt.Fprintf(&out, "%s missing\n", r.name)
			continue
		}
		counts[d.Status()]++
		def := d.def
		if d.name == NumThreads {
			def = "(cores)" // the machine's
		}
		fmt.Fprintf(&out, "%s %s %s default=%s", r.name, r.clients, d.Status(), def)
		if !d.client {
			fmt.Fprintf(&out, " kafka=%s", r.def)
		}
		out.WriteString("\n")
	}
	for _, s := range []string{"honoured", "inert", "refused"} {
		fmt.Fprintf(&out, "%s: %d\n", s, counts[s])
	}
	return out.String()
}
