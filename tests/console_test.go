package tests

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The web console (issue 22) in a real browser: headless Chromium
// (Debian's chromium-headless-shell, which .ci/run installs) driven by
// chromedp against the sqlstream binary. Each step waits on a fact the
// page shows (an element, a row count) and saves a screenshot under the
// test's artifact directory (go test -artifacts -outputdir DIR keeps
// them) or under $SQLSTREAM_CONSOLE_SCREENSHOTS.

// browserPath finds a headless Chromium, or skips the test saying how to
// install one.
func browserPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SQLSTREAM_BROWSER"); p != "" {
		return p
	}
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no headless Chromium found (apt-get install --no-install-recommends chromium-headless-shell, " +
		"or set SQLSTREAM_BROWSER): the web console's browser tests are skipped")
	return ""
}

// browser is one headless Chromium tab on the console of a node. It
// records every request the page sends and every JavaScript exception,
// console error and browser-log error it reports.
type browser struct {
	t      *testing.T
	ctx    context.Context
	origin string
	shots  string
	step   int

	mu       sync.Mutex
	requests []string
	problems []string
}

// waitFor bounds each wait on a fact; under load a step can take long,
// and a test that passes never waits this long.
const waitFor = 90 * time.Second

func newBrowser(t *testing.T, origin string, extra ...chromedp.ExecAllocatorOption) *browser {
	t.Helper()
	path := browserPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900))
	opts = append(opts, extra...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, origin: origin, shots: screenshotDir(t)}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	if err := chromedp.Listen(ctx, b.record); err != nil {
		t.Fatal(err)
	}
	return b
}

func screenshotDir(t *testing.T) string {
	if dir := os.Getenv("SQLSTREAM_CONSOLE_SCREENSHOTS"); dir != "" {
		dir = filepath.Join(dir, t.Name())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.ArtifactDir()
}

// record runs in chromedp's event loop: it only appends.
func (b *browser) record(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, ev.Request.Method+" "+ev.Request.URL)
	case *network.EventResponseReceived:
		// The page and its assets must load; API answers (a 400 for a bad
		// statement) are the page's to show.
		if u := ev.Response.URL; ev.Response.Status >= 400 && (u == b.origin+"/" || strings.HasPrefix(u, b.origin+"/console/")) {
			b.problems = append(b.problems, fmt.Sprintf("%s answered %d", u, ev.Response.Status))
		}
	case *cdpruntime.EventExceptionThrown:
		b.problems = append(b.problems, "exception: "+exceptionText(ev.ExceptionDetails))
	case *cdpruntime.EventConsoleAPICalled:
		if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeAssert {
			b.problems = append(b.problems, fmt.Sprintf("console.%s: %v", ev.Type, argsText(ev.Args)))
		}
	case *cdplog.EventEntryAdded:
		// A failed API request is logged by the network source; the page
		// shows those itself. Anything else at error level (a CSP refusal,
		// a script error) is a problem.
		if ev.Entry.Level == cdplog.EntryLevelError && ev.Entry.Source != cdplog.EntrySourceNetwork {
			b.problems = append(b.problems, fmt.Sprintf("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	}
}

func exceptionText(d *cdpruntime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}

func argsText(args []*cdpruntime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		if a.Description != "" {
			parts = append(parts, a.Description)
		} else {
			parts = append(parts, string(a.Value))
		}
	}
	return strings.Join(parts, " ")
}

// do runs steps with the wait bound.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitFor)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.shot("failed")
		b.t.Fatalf("%s: %v\nrequests: %s\nproblems: %s", what, err, strings.Join(b.sent(), "\n  "), strings.Join(b.errors(), "\n  "))
	}
}

// until waits until the JavaScript expression is true.
func (b *browser) until(what, expr string) {
	b.t.Helper()
	b.do(what, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool](expr, chromedp.WithPollingInterval(100*time.Millisecond))(ctx, t)
		return chromedp.Void{}, err
	})
}

// eval returns the value of a JavaScript expression.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// shot saves a screenshot of the viewport as NN-name.png.
func (b *browser) shot(name string) { b.save(name, chromedp.CaptureScreenshot()) }

// tallShot saves a screenshot of a viewport tall enough for the whole of
// the first element sel matches, then restores the viewport.
func (b *browser) tallShot(name, sel string) {
	b.t.Helper()
	h := eval[float64](b, `document.querySelector(`+"`"+sel+"`"+`).getBoundingClientRect().bottom`)
	b.do("growing the viewport", chromedp.EmulateViewport(1400, int64(h)+120))
	b.shot(name)
	b.do("restoring the viewport", chromedp.EmulateViewport(1400, 900))
}

func (b *browser) save(name string, capture chromedp.Action[[]byte]) {
	b.step++
	buf, err := chromedp.Run(b.ctx, capture)
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	file := filepath.Join(b.shots, fmt.Sprintf("%02d-%s.png", b.step, name))
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		b.t.Error(err)
	}
	b.t.Logf("screenshot %s", file)
}

// sql replaces the editor's text as a user would and runs it with the
// Run button.
func (b *browser) sql(text string) {
	b.t.Helper()
	b.typeSQL(text)
	b.do("running "+text, chromedp.Click(chromedp.CSS(`[data-testid="run"]`)))
}

// typeSQL replaces the editor's text: select all, then type by an input
// method's insert.
func (b *browser) typeSQL(text string) {
	b.t.Helper()
	b.do("typing "+text,
		chromedp.Click(chromedp.CSS(`[data-testid="sql-editor"] .cm-content`)),
		chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
			return err
		}),
		chromedp.KeyEvent(kb.Escape), // closes a completion list
	)
	if got := eval[string](b, `document.querySelector('[data-testid="sql-editor"] .cm-content').innerText`); strings.TrimSpace(got) != strings.TrimSpace(text) {
		b.t.Fatalf("the editor holds %q after typing %q", got, text)
	}
}

// text returns the text of the first element sel matches ("" if none).
func (b *browser) text(sel string) string {
	b.t.Helper()
	return eval[string](b, `(document.querySelector(`+"`"+sel+"`"+`) || {}).innerText || ''`)
}

func (b *browser) sent() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}

func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// checkClean fails on a request to another origin and on any JavaScript
// error the page met.
func (b *browser) checkClean() {
	b.t.Helper()
	sent := b.sent()
	if len(sent) == 0 {
		b.t.Error("the browser recorded no request")
	}
	for _, r := range sent {
		if _, u, _ := strings.Cut(r, " "); !strings.HasPrefix(u, b.origin+"/") && !strings.HasPrefix(u, "data:") {
			b.t.Errorf("the page sent a request to another origin: %s", r)
		}
	}
	for _, p := range b.errors() {
		b.t.Errorf("the page met an error: %s", p)
	}
}

// insertRows inserts JSON rows into a stream over /inserts-stream and
// checks every ack.
func insertRows(t *testing.T, n *node, target string, rows ...string) {
	t.Helper()
	body := `{"target":"` + target + `"}` + "\n" + strings.Join(rows, "\n") + "\n"
	resp, err := http.Post(n.URL+"/inserts-stream", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	acks, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || strings.Count(string(acks), `"status":"ok"`) != len(rows) {
		t.Fatalf("/inserts-stream: %d %s (%v)", resp.StatusCode, acks, err)
	}
}

// TestConsoleInBrowser walks through the console against the binary:
// the catalog (a type too), DDL and a CTAS from the editor, an error's position, a
// push query whose rows arrive over REST while it runs, the CTAS's
// topology graph, a pull query, the charts and a TERMINATE with its
// confirmation; the page sends nothing to another origin and meets no
// JavaScript error.
func TestConsoleInBrowser(t *testing.T) {
	t.Parallel()
	browserPath(t)
	n := startNode(t)
	// An API client (no text/html in its Accept) still gets ksqlDB's
	// redirect to /info.
	noRedirect := &http.Client{Timeout: clientTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(n.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != "/info" {
		t.Errorf("GET / without text/html: %d %q, want 307 to /info", resp.StatusCode, resp.Header.Get("Location"))
	}
	b := newBrowser(t, n.URL)
	b.do("opening the console", chromedp.Navigate(n.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="sources"] li[data-source="KSQL_PROCESSING_LOG"]`)))
	b.shot("catalog")

	b.sql("CREATE STREAM clicks (user VARCHAR KEY, page VARCHAR, ms INT) WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=2);\n" +
		"CREATE TABLE clicks_per_page AS SELECT page, COUNT(*) AS n FROM clicks GROUP BY page EMIT CHANGES;\n" +
		"CREATE GLOBAL TABLE regions (rid VARCHAR PRIMARY KEY, name VARCHAR) WITH (KAFKA_TOPIC='regions', VALUE_FORMAT='JSON', PARTITIONS=1);\n" +
		"CREATE TABLE per_minute AS SELECT page, COUNT(*) AS n FROM clicks WINDOW TUMBLING (SIZE 1 MINUTE, GRACE PERIOD 0 SECONDS) GROUP BY page EMIT CHANGES;\n" +
		"CREATE TYPE address AS STRUCT<street VARCHAR, city VARCHAR>;")
	b.until("the five statements succeed", `document.querySelectorAll('[data-testid="result"] .ok').length === 5`)
	b.do("the new stream, table and query in the lists",
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="sources"] li[data-source="CLICKS"][data-type="STREAM"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="sources"] li[data-source="CLICKS_PER_PAGE"][data-type="TABLE"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="queries"] li[data-query^="CTAS_CLICKS_PER_PAGE"]`)))
	b.until("the query's state, guarantee and per-host status", `/RUNNING/.test(document.querySelector('[data-testid="queries"] li[data-query^="CTAS_CLICKS_PER_PAGE"]').textContent) && `+
		`/at_least_once · 1 RUNNING/.test(document.querySelector('[data-testid="queries"] li[data-query^="CTAS_CLICKS_PER_PAGE"]').textContent)`)
	b.do("the new type in the catalog", chromedp.WaitVisible(chromedp.CSS(`[data-testid="types"] li[data-type-name="ADDRESS"]`)))
	if badge := b.text(`[data-testid="sources"] li[data-source="REGIONS"] .badge`); badge != "GLOBAL" {
		t.Errorf("the global table's badge is %q", badge)
	}
	b.shot("created")

	b.do("completion knows the new sources", chromedp.WaitReady(chromedp.CSS(`[data-testid="sql-editor"][data-completion~="CLICKS_PER_PAGE"]`)))
	b.typeSQL("SELECT * FROM CLICKS_P")
	b.do("asking for completion", chromedp.KeyEvent(" ", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.WaitVisible(chromedp.CSS(`.cm-tooltip-autocomplete li`)))
	if got := b.text(".cm-tooltip-autocomplete"); !strings.Contains(got, "CLICKS_PER_PAGE") {
		t.Errorf("completion after FROM CLICKS_P offers %q", got)
	}
	b.shot("completion")
	b.typeSQL("SELECT CLICKS.P")
	b.do("asking for a column", chromedp.KeyEvent(" ", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.WaitVisible(chromedp.CSS(`.cm-tooltip-autocomplete li`)))
	if got := b.text(".cm-tooltip-autocomplete"); !strings.Contains(got, "PAGE") {
		t.Errorf("completion after CLICKS.P offers %q", got)
	}

	b.sql("SELECT * FROM nowhere EMIT CHANGES;")
	b.until("the error shows", `!!document.querySelector('[data-testid="result"] [data-testid="error"]')`)
	if mark := eval[string](b, `(document.querySelector('.cm-sql-error') || {}).textContent || ''`); mark != "nowhere" {
		t.Errorf("the error marks %q in the editor, want the unknown source's name", mark)
	}
	b.shot("error-position")

	b.sql("SET 'auto.offset.reset'='earliest';\nSELECT user, page, ms FROM clicks EMIT CHANGES;")
	b.until("the push query's header", `!!document.querySelector('[data-testid="result"] [data-testid="rows"]')`)
	if props := eval[string](b, `document.querySelector('[data-testid="props"]').textContent`); !strings.Contains(props, "auto.offset.reset=earliest") {
		t.Errorf("session properties show %q", props)
	}
	insertRows(t, n, "CLICKS", `{"USER":"ann","PAGE":"home","MS":10}`, `{"USER":"bob","PAGE":"home","MS":20}`, `{"USER":"cat","PAGE":"cart","MS":30}`)
	b.until("the inserted rows arrive", `document.querySelectorAll('[data-testid="rows"] tbody tr').length === 3`)
	if text := eval[string](b, `document.querySelector('[data-testid="rows"]').innerText`); !strings.Contains(text, "ann") || !strings.Contains(text, "cart") {
		t.Errorf("push rows:\n%s", text)
	}
	b.shot("push-query")
	b.do("stopping the push query", chromedp.Click(chromedp.CSS(`[data-testid="stop"]`)))
	b.until("the query stopped", `document.querySelector('[data-testid="query-status"]').textContent.startsWith('stopped')`)

	b.do("opening the query's graph", chromedp.Click(chromedp.CSS(`[data-testid="queries"] li[data-query^="CTAS_CLICKS_PER_PAGE"]`)))
	b.until("the graph's processors", `document.querySelectorAll('[data-testid="topology"] [data-node][data-kind="processor"], [data-testid="topology"] [data-node][data-kind="source"], [data-testid="topology"] [data-node][data-kind="sink"]').length >= 3`)
	for _, node := range []string{"Source-CLICKS", "Aggregate-Aggregate", "Sink-CLICKS_PER_PAGE", "Aggregate-Aggregate-Materialize"} {
		if !eval[bool](b, `!!document.querySelector('[data-testid="topology"] [data-node="`+node+`"]')`) {
			t.Errorf("the graph has no node %s", node)
		}
	}
	// Each node counts its own records (sqlstream_node_records_total):
	// the source and the aggregation of sub-topology 1 the three inserted.
	for _, node := range []string{"Source-CLICKS", "Aggregate-Aggregate"} {
		b.until(node+" counts its records", `/(^|[^0-9])3 records in/.test(document.querySelector('[data-testid="topology"] [data-node="`+node+`"]').textContent)`)
	}
	b.until("a node's records/s", `/records\/s/.test(document.querySelector('[data-testid="topology"] [data-node="Sink-CLICKS_PER_PAGE"]').textContent)`)
	// Every task of the query runs here and has processed its inputs:
	// consumer lag 0 in the task table's column.
	b.until("the tasks' consumer lag", `(() => { const rows = [...document.querySelectorAll('[data-testid="tasks"] tbody tr')].filter((tr) => tr.cells[2].textContent.startsWith('ACTIVE')); `+
		`return rows.length === 4 && rows.every((tr) => tr.cells[3].textContent === '0'); })()`)
	if head := b.text(`[data-testid="tasks"] thead`); !strings.Contains(head, "consumer lag") {
		t.Errorf("the task table's columns: %q", head)
	}
	b.until("the store node shows its keys", `/2 keys/.test(document.querySelector('[data-testid="topology"] [data-node="Aggregate-Aggregate-Materialize"]').textContent)`)
	// Each task of the aggregation (sub-topology 1) has its store
	// partition's size in the table, and EXPLAIN's text is under it.
	b.until("a task's store size", `[...document.querySelectorAll('[data-testid="tasks"] tbody tr')].some((tr) => /^1_\d$/.test(tr.cells[0].textContent) && /Aggregate-Aggregate-Materialize: [1-9]\d* keys, ~/.test(tr.cells[4].textContent))`)
	if explain := b.text(`[data-testid="explain"]`); !strings.Contains(explain, "Sub-topology: 1") || !strings.Contains(explain, "Aggregate-Aggregate-Materialize") {
		t.Errorf("EXPLAIN's text under the graph:\n%s", explain)
	}
	// A record that is not JSON: a deserialization error of a task of
	// sub-topology 0, counted in the task table from the processing log.
	cl := kafkaClient(t, n.Kafka)
	if err := cl.ProduceSync(timeoutCtx(t), &kgo.Record{Topic: "clicks", Key: []byte("zed"), Value: []byte("not json")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	b.until("the task's processing-log error", `[...document.querySelectorAll('[data-testid="tasks"] tbody tr')].some((tr) => /^0_\d$/.test(tr.cells[0].textContent) && tr.cells[9].textContent === '1')`)
	b.shot("topology")
	b.tallShot("topology-graph", `[data-testid="tasks"]`)

	// A late record: its window (of the stream time the first set) closed
	// with no grace. Sub-topology 1 drops it; its processing-log entry
	// names its origin, a partition of clicks, so the task of
	// sub-topology 0 that read it counts it.
	now := time.Now()
	for _, ts := range []time.Time{now, now.Add(-10 * time.Minute)} {
		r := &kgo.Record{Topic: "clicks", Key: []byte("w"), Value: []byte(`{"PAGE":"late","MS":1}`), Timestamp: ts}
		if err := cl.ProduceSync(timeoutCtx(t), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	b.do("opening the windowed query", chromedp.Click(chromedp.CSS(`[data-testid="queries"] li[data-query^="CTAS_PER_MINUTE"]`)))
	b.until("the task's late record", `[...document.querySelectorAll('[data-testid="tasks"] tbody tr')].some((tr) => /^0_\d$/.test(tr.cells[0].textContent) && tr.cells[8].textContent === '1')`)
	b.tallShot("late-record", `[data-testid="tasks"]`)

	b.do("describing the table", chromedp.Click(chromedp.CSS(`[data-testid="sources"] li[data-source="CLICKS_PER_PAGE"]`)))
	b.until("DESCRIBE EXTENDED's statistics", `/Aggregate-Aggregate-Materialize\/\d+: \d+ keys/.test((document.querySelector('[data-testid="details"] .stats') || {}).textContent || '')`)
	b.shot("describe-extended")
	b.do("tailing the topic", chromedp.Click(chromedp.CSS(`[data-testid="topics"] li[data-topic="clicks"]`)))
	b.until("the topic's records", `/ann/.test((document.querySelector('[data-testid="details"] .print') || {}).textContent || '') && /cart/.test(document.querySelector('[data-testid="details"] .print').textContent)`)
	b.shot("topic-tail")
	b.do("stopping the tail", chromedp.Click(chromedp.CSS(`[data-testid="stop"]`)))

	b.sql("SELECT * FROM clicks_per_page;")
	b.until("the pull query's rows", `(document.querySelector('[data-testid="query-status"]') || {}).textContent === 'done, 3 rows'`)
	b.sql("DEFINE pg = 'cart';\nSELECT * FROM clicks_per_page WHERE page = '${pg}';")
	b.until("the pull query with a variable", `[...document.querySelectorAll('[data-testid="query-status"]')].some((e) => e.textContent === 'done, 1 rows')`)
	if text := b.text(`[data-testid="rows"]`); !strings.Contains(text, "cart") || strings.Contains(text, "home") {
		t.Errorf("WHERE page = '${pg}' with pg = cart answered:\n%s", text)
	}
	b.shot("pull-query")

	// Run while a push query runs stops it, and the stopped run does not
	// go on to its next statement.
	b.sql("SELECT * FROM clicks EMIT CHANGES;\nSHOW TOPICS;")
	b.until("the push query's header", `!!document.querySelector('[data-testid="result"] [data-testid="rows"]')`)
	b.sql("SHOW TYPES;")
	b.until("the new run's answer", `!!document.querySelector('[data-testid="result"] [data-entity="type_list"]')`)
	if eval[bool](b, `!!document.querySelector('[data-testid="result"] [data-entity="kafka_topics"]')`) {
		t.Error("the run stopped by a new Run went on to its SHOW TOPICS")
	}

	b.do("the charts", chromedp.Click(chromedp.CSS(`#tabs button[data-tab="metrics"]`)))
	b.until("nine charts drawn", `document.querySelectorAll('#charts .chart canvas').length === 9`)
	for _, chart := range []string{"consumer lag, records (all hosts)", "commit, mean ms (at_least_once)", "records/s out (all hosts)", "records/s in, per host"} {
		if !eval[bool](b, `!!document.querySelector('#charts .chart[data-chart="`+chart+`"] canvas')`) {
			t.Errorf("no chart %q", chart)
		}
	}
	var more []string
	for i := range 20 {
		more = append(more, fmt.Sprintf(`{"USER":"u%d","PAGE":"p%d","MS":%d}`, i, i%4, i))
	}
	insertRows(t, n, "CLICKS", more...)
	// The query's row summed over the hosts (this one alone here): cells
	// query, host, records in/s, out/s, …, records in, out, consumer lag.
	sum := `[...document.querySelectorAll('[data-testid="rates"] tbody tr[data-host=""]')].find((tr) => tr.dataset.query.startsWith('CTAS_CLICKS_PER_PAGE'))`
	b.until("the query's rate rises", `(() => { const tr = `+sum+`; return !!tr && Number(tr.cells[2].textContent) > 0; })()`)
	// The consumer lag chart's figure for the query: its tasks, caught up.
	b.until("the query's consumer lag", `(() => { const tr = `+sum+`; return !!tr && tr.cells[8].textContent === '0' && Number(tr.cells[7].textContent) > 0; })()`)
	b.tallShot("metrics", `#charts`)

	b.do("the cluster's hosts", chromedp.Click(chromedp.CSS(`#tabs button[data-tab="cluster"]`)))
	host := strings.TrimPrefix(n.URL, "http://")
	b.until("this host and its query", "document.querySelector('[data-testid=\"cluster\"]').innerText.includes('"+host+"') && document.querySelector('[data-testid=\"cluster\"]').innerText.includes('CTAS_CLICKS_PER_PAGE')")
	b.shot("cluster")

	b.sql("CREATE STREAM av (id INT KEY, v VARCHAR) WITH (KAFKA_TOPIC='av', VALUE_FORMAT='AVRO', PARTITIONS=1);")
	b.until("the AVRO stream", `!!document.querySelector('[data-testid="result"] .ok')`)
	b.do("the registry's subjects", chromedp.Click(chromedp.CSS(`#tabs button[data-tab="registry"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="subjects"] li[data-subject="av-value"]`)))
	b.until("the subject's schema", `/av-value v1 \(id \d+, AVRO\)/.test(document.querySelector('[data-testid="registry"]').innerText)`)
	b.shot("registry")

	b.do("asking to terminate", chromedp.Click(chromedp.CSS(`[data-testid="queries"] li[data-query^="CTAS_CLICKS_PER_PAGE"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="query-terminate"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="confirm"]`)))
	b.shot("confirm-terminate")
	b.do("terminating", chromedp.Click(chromedp.CSS(`[data-testid="confirm-yes"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="queries"] li[data-query^="CTAS_CLICKS_PER_PAGE"]`)))
	b.shot("terminated")

	b.do("asking to drop the global table", chromedp.Click(chromedp.CSS(`[data-testid="sources"] li[data-source="REGIONS"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="source-drop"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="confirm"]`)),
		chromedp.Click(chromedp.ID("confirm-delete-topic")))
	if stmt := b.text("#confirm-sql"); stmt != "DROP TABLE `REGIONS` DELETE TOPIC;" {
		t.Errorf("the confirmation shows %q", stmt)
	}
	b.do("dropping it", chromedp.Click(chromedp.CSS(`[data-testid="confirm-yes"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="sources"] li[data-source="REGIONS"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="topics"] li[data-topic="regions"]`)))
	b.checkClean()
}

// TestConsoleBasicAuth: with BASIC authentication on, the console asks
// for credentials (the browser gets the server's 401 challenge, and a
// user who cancels sees "Unauthorized" and nothing else); with them it
// loads and its API requests run as that user.
func TestConsoleBasicAuth(t *testing.T) {
	t.Parallel()
	browserPath(t)
	users := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte("alice: wonderland,admin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := startNode(t, "--config", writeConfig(t, "authentication.method=BASIC\nauthentication.roles=admin\nsqlstream.authentication.users.file="+users+"\n"))
	b := newBrowser(t, n.URL)
	var mu sync.Mutex
	challenges, give := 0, false
	if err := chromedp.Listen(b.ctx, func(ev any) {
		// Commands cannot run in the event loop: answer from a goroutine.
		switch ev := ev.(type) {
		case *fetch.EventRequestPaused:
			go func() {
				_, _ = chromedp.Call(b.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			}()
		case *fetch.EventAuthRequired:
			mu.Lock()
			challenges++
			answer := fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseCancelAuth}
			if give {
				answer = fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseProvideCredentials, Username: "alice", Password: "wonderland"}
			}
			mu.Unlock()
			go func() {
				_, _ = chromedp.Call(b.ctx, fetch.ContinueWithAuth, fetch.ContinueWithAuthParams{RequestID: ev.RequestID, AuthChallengeResponse: &answer})
			}()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(b.ctx, fetch.Enable, fetch.EnableParams{HandleAuthRequests: new(true)}); err != nil {
		t.Fatal(err)
	}
	b.do("opening the console without credentials", chromedp.Navigate(n.URL+"/"))
	b.until("the refusal", `document.body.innerText.includes('Unauthorized')`)
	mu.Lock()
	asked := challenges
	give = true
	mu.Unlock()
	if asked == 0 {
		t.Fatal("the browser was not asked for credentials")
	}
	if eval[bool](b, `!!document.querySelector('[data-testid="sql-editor"]')`) {
		t.Error("the console loaded without credentials")
	}
	b.shot("refused")

	b.do("opening the console with credentials", chromedp.Navigate(n.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="sources"] li[data-source="KSQL_PROCESSING_LOG"]`)))
	b.sql("CREATE STREAM guarded (id INT KEY, v VARCHAR) WITH (KAFKA_TOPIC='guarded', VALUE_FORMAT='JSON', PARTITIONS=1);")
	b.until("the statement ran as alice", `!!document.querySelector('[data-testid="result"] .ok')`)
	b.do("the stream in the list", chromedp.WaitVisible(chromedp.CSS(`[data-testid="sources"] li[data-source="GUARDED"]`)))
	b.shot("signed-in")
	// The registry, behind the same users, answers through the server.
	b.do("the registry's subjects as alice", chromedp.Click(chromedp.CSS(`#tabs button[data-tab="registry"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="subjects"]`)))
	b.mu.Lock()
	// The refused page load's 401 is the point of the first half.
	var kept []string
	for _, p := range b.problems {
		if !strings.HasSuffix(p, "/ answered 401") {
			kept = append(kept, p)
		}
	}
	b.problems = kept
	b.mu.Unlock()
	b.checkClean()
}

// TestConsoleClusterHosts: two servers of one service id on one broker,
// each task with a standby on the other. The console of either lists both
// hosts alive in its Cluster tab with their active and standby partitions
// of the query, and the query's per-host status names both; its graph's
// figures and task table cover both hosts' tasks (a row per task and
// host), its Metrics tab sums both hosts' records with a row and a chart
// series per host, and once one server is killed the page names it as
// not answering in both.
func TestConsoleClusterHosts(t *testing.T) {
	t.Parallel()
	browserPath(t)
	br := startBrokerProcess(t)
	cfg := writeConfig(t, routingConfig+"ksql.streams.num.standby.replicas=1\n")
	a, b := startServerOn(t, br.Kafka, "--config", cfg), startServerOn(t, br.Kafka, "--config", cfg)
	a.mustKsql(`CREATE STREAM events (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='events', VALUE_FORMAT='JSON', PARTITIONS=4);`)
	a.mustKsql(`CREATE TABLE counts AS SELECT k, COUNT(*) AS n FROM events GROUP BY k;`)
	hosts := []string{strings.TrimPrefix(a.URL, "http://"), strings.TrimPrefix(b.URL, "http://")}

	page := newBrowser(t, b.URL)
	page.do("opening the console of the second server", chromedp.Navigate(b.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="queries"] li[data-query^="CTAS_COUNTS"]`)),
		chromedp.Click(chromedp.CSS(`#tabs button[data-tab="cluster"]`)))
	// Every row of the table: host, status, query, active, standby, stores.
	rows := `[...document.querySelectorAll('[data-testid="cluster"] tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent))`
	both := fmt.Sprintf(`(() => { const rows = %s; return %q.split(' ').every((h) => rows.some((r) => r[0] === h && r[1] === 'alive' && r[2].startsWith('CTAS_COUNTS') && r[3] !== '' && r[4] !== '')); })()`,
		rows, strings.Join(hosts, " "))
	page.until("both hosts alive, each with active and standby partitions", both)
	page.shot("cluster-hosts")

	var kvs []string
	for i := range 8 {
		kvs = append(kvs, fmt.Sprintf("k%d", i), `{"V":1}`)
	}
	produce(t, br.Kafka, "events", kvs...)
	page.do("the query's hosts", chromedp.Click(chromedp.CSS(`[data-testid="queries"] li[data-query^="CTAS_COUNTS"]`)))
	// The task table has a row per task and host: each host's active
	// tasks and standbys, from GET /clusterTasks (the other server asked
	// as a peer), and the graph's figures add up over both hosts.
	page.until("both hosts' active and standby tasks", fmt.Sprintf(`(() => { const rows = [...document.querySelectorAll('[data-testid="tasks"] tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent)); `+
		`return %q.split(' ').every((h) => rows.some((r) => r[1] === h && r[2] === 'ACTIVE RUNNING') && rows.some((r) => r[1] === h && r[2] === 'STANDBY')); })()`, strings.Join(hosts, " ")))
	page.until("the figures name both hosts", fmt.Sprintf(`%q.split(' ').every((h) => document.querySelector('[data-testid="figures-hosts"]').textContent.includes(h))`, strings.Join(hosts, " ")))
	page.until("the source counts every host's records", `/(^|[^0-9])8 records in/.test((document.querySelector('[data-testid="topology"] [data-node="Source-EVENTS"]') || {}).textContent || '')`)
	page.until("the store's keys over both hosts' active copies", `/8 keys/.test((document.querySelector('[data-testid="topology"] [data-node="Aggregate-Aggregate-Materialize"]') || {}).textContent || '')`)
	page.until("the query RUNNING on both hosts", fmt.Sprintf(`%q.split(' ').every((h) => document.querySelector('#topology-head').textContent.includes(h + ' RUNNING'))`, strings.Join(hosts, " ")))
	page.tallShot("query-hosts", `[data-testid="tasks"]`)

	// The Metrics tab's figures come from both hosts (GET /clusterMetrics,
	// the other server asked as a peer): the query's row sums the hosts'
	// rows (its tooltip gives each host's rates), each host's records in
	// are there, and the per-host chart has points from both.
	page.do("the metrics of both hosts", chromedp.Click(chromedp.CSS(`#tabs button[data-tab="metrics"]`)))
	kvs = kvs[:0]
	for i := range 32 { // enough keys for every partition, so each host's tasks get some
		kvs = append(kvs, fmt.Sprintf("m%d", i), `{"V":1}`)
	}
	produce(t, br.Kafka, "events", kvs...)
	rates := `[...document.querySelectorAll('[data-testid="rates"] tbody tr')].filter((tr) => tr.dataset.query.startsWith('CTAS_COUNTS'))`
	page.until("the query's records in summed over both hosts", fmt.Sprintf(`(() => { const rows = %s; const sum = rows.find((r) => r.dataset.host === ''); `+
		`const per = %q.split(' ').map((h) => rows.find((r) => r.dataset.host === h)); `+
		`return !!sum && per.every((r) => r && Number(r.cells[6].textContent) > 0) && Number(sum.cells[6].textContent) === per.reduce((a, r) => a + Number(r.cells[6].textContent), 0) && Number(sum.cells[7].textContent) > 0 && per.every((r) => sum.title.includes(r.dataset.host + ': ')); })()`,
		rates, strings.Join(hosts, " ")))
	page.until("a chart with points from both hosts", fmt.Sprintf(`(() => { const div = document.querySelector('#charts .chart[data-chart="records/s in, per host"]'); `+
		`const series = div && div.dataset.series ? JSON.parse(div.dataset.series) : []; `+
		`return %q.split(' ').every((h) => series.some((s) => s.label.startsWith('CTAS_COUNTS') && s.label.endsWith(' @ ' + h) && s.points > 0 && s.max > 0)); })()`,
		strings.Join(hosts, " ")))
	page.tallShot("metrics-hosts", `#charts`)

	// The other server stops: its figures are missing, and the page says
	// so (it is not alive, so it is not asked).
	a.kill()
	page.until("the stopped host marked in the metrics", fmt.Sprintf(`!!document.querySelector('[data-metrics-host-error=%q]')`, hosts[0]))
	page.shot("metrics-host-down")
	page.do("the query's graph again", chromedp.Click(chromedp.CSS(`#tabs button[data-tab="topology-panel"]`)))
	page.until("the stopped host marked", fmt.Sprintf(`!!document.querySelector('[data-host-error=%q]')`, hosts[0]))
	page.shot("host-down")
	page.checkClean()
}

// TestConsoleOverHTTPS: on an https:// listener the console is served
// over TLS like the API; the browser, trusting only the server's key,
// loads it, and its statements and catalog requests go to the same https
// origin.
func TestConsoleOverHTTPS(t *testing.T) {
	t.Parallel()
	browserPath(t)
	n, _, cert := startHTTPSNode(t)
	b := newBrowser(t, n.URL, chromedp.Flag("ignore-certificate-errors-spki-list", spkiHash(t, cert)))
	b.do("opening the console over HTTPS", chromedp.Navigate(n.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="sources"] li[data-source="KSQL_PROCESSING_LOG"]`)))
	b.sql("CREATE STREAM secure (id INT KEY, v VARCHAR) WITH (KAFKA_TOPIC='secure', VALUE_FORMAT='JSON', PARTITIONS=1);")
	b.do("the stream in the list", chromedp.WaitVisible(chromedp.CSS(`[data-testid="sources"] li[data-source="SECURE"]`)))
	if origin := eval[string](b, `location.origin`); origin != n.URL {
		t.Errorf("the page's origin is %s, want %s", origin, n.URL)
	}
	b.shot("https")
	b.checkClean()
}

// spkiHash is the base64 SHA-256 of a PEM certificate's public key, what
// Chromium's --ignore-certificate-errors-spki-list trusts.
func spkiHash(t *testing.T, certFile string) string {
	t.Helper()
	raw, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		t.Fatalf("%s holds no PEM block", certFile)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// TestConsoleGlobalStoreAndUpgrade: a stream–global table join's graph
// gives the description's "Sub-topology 1 for global store" section its
// figures like every other node: records loaded by its source and
// materializing processor, the store's rows and its lag behind the
// table's topic. After CREATE OR REPLACE adds a filter, the page says the
// query was upgraded, the source's count goes on from the records before
// the upgrade, and the filter, new in the plan, counts from then.
func TestConsoleGlobalStoreAndUpgrade(t *testing.T) {
	t.Parallel()
	browserPath(t)
	n := startNode(t)
	n.mustKsql(`CREATE STREAM orders (id VARCHAR KEY, region VARCHAR, total INT) WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	n.mustKsql(`CREATE GLOBAL TABLE regions (rid VARCHAR PRIMARY KEY, name VARCHAR) WITH (KAFKA_TOPIC='regions', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	produce(t, n.Kafka, "regions", "north", `{"NAME":"North"}`, "south", `{"NAME":"South"}`, "east", `{"NAME":"East"}`)
	n.mustKsql(`CREATE STREAM by_region AS SELECT o.id, r.name, o.total FROM orders o JOIN regions r ON o.region = r.rid;`)
	insertRows(t, n, "ORDERS", `{"ID":"a","REGION":"north","TOTAL":1}`, `{"ID":"b","REGION":"south","TOTAL":2}`)

	b := newBrowser(t, n.URL)
	// The list is drawn again at each poll: click it from the page.
	open := `(() => { const e = document.querySelector('[data-testid="queries"] li[data-query^="CSAS_BY_REGION"]'); if (e) e.click(); return !!e; })()`
	b.do("opening the console", chromedp.Navigate(n.URL+"/"))
	b.until("opening the join's graph", open)
	node := func(name string) string {
		return `((document.querySelector('[data-testid="topology"] [data-node="` + name + `"]') || {}).textContent || '')`
	}
	b.until("the global section's source counts the rows loaded", `/(^|[^0-9])3 records in per host/.test(`+node("Source-REGIONS")+`)`)
	b.until("the materializing processor too", `/(^|[^0-9])3 records in per host/.test(`+node("REGIONS-GlobalStore-Materialize")+`)`)
	b.until("the global store's rows and topic lag", `/3 rows, ~/.test(`+node("REGIONS-GlobalStore")+`) && /topic lag 0/.test(`+node("REGIONS-GlobalStore")+`)`)
	b.until("the global section's records/s", `/records\/s/.test(`+node("Source-REGIONS")+`)`)
	if sub := eval[string](b, `document.querySelector('[data-testid="topology"] [data-sub="1"] text').textContent`); sub != "sub-topology 1 (global store)" {
		t.Errorf("the global section is labelled %q", sub)
	}
	b.until("the stream's source", `/(^|[^0-9])2 records in/.test(`+node("Source-ORDERS")+`)`)
	b.tallShot("global-store", `[data-testid="tasks"]`)

	n.mustKsql(`CREATE OR REPLACE STREAM by_region AS SELECT o.id, r.name, o.total FROM orders o JOIN regions r ON o.region = r.rid WHERE o.total > 1;`)
	insertRows(t, n, "ORDERS", `{"ID":"c","REGION":"east","TOTAL":3}`)
	b.until("opening the upgraded query", open)
	b.until("the upgrade said", `/upgraded in place/.test((document.querySelector('[data-testid="upgraded"]') || {}).textContent || '')`)
	b.until("the source's count goes on", `/(^|[^0-9])3 records in/.test(`+node("Source-ORDERS")+`)`)
	b.until("the new filter counts from the upgrade", `/(^|[^0-9])1 records in since \d\d:\d\d:\d\d/.test(`+node("WhereFilter")+`)`)
	b.tallShot("upgraded", `[data-testid="tasks"]`)
	b.checkClean()
}
