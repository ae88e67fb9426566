package broker

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// helperDirEnv names the environment variable that turns this test binary
// into a broker process (TestBrokerProcessHelper) on the directory it
// holds, so that a test can kill a real broker with SIGKILL: nothing of
// kfake's shutdown persistence runs, as after a crash.
const (
	helperDirEnv    = "SQLSTREAM_BROKER_TEST_DATA_DIR"
	helperListenEnv = "SQLSTREAM_BROKER_TEST_LISTEN"
)

// TestBrokerProcessHelper is not a test: run by crashBroker with
// helperDirEnv set, it starts a broker on that data directory and
// helperListenEnv's address, prints its address and serves until it is
// killed (or closes it on SIGTERM).
func TestBrokerProcessHelper(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		t.Skip("helper process for the crash tests")
	}
	b, err := Start(WithListen(os.Getenv(helperListenEnv)), WithDataDir(dir), WithCompactionInterval(time.Hour))
	if err != nil {
		fmt.Println("error=" + err.Error())
		os.Exit(1)
	}
	fmt.Println("addr=" + b.Addrs()[0])
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	<-sig
	if err := b.Close(); err != nil {
		fmt.Println("error=" + err.Error())
		os.Exit(1)
	}
	os.Exit(0)
}

// brokerProcess is a broker running in a child process on a data
// directory.
type brokerProcess struct {
	t    *testing.T
	dir  string
	cmd  *exec.Cmd
	addr string
}

func crashBroker(t *testing.T) *brokerProcess {
	t.Helper()
	p := &brokerProcess{t: t, dir: t.TempDir(), addr: freeAddr(t)}
	p.start()
	t.Cleanup(func() {
		if p.cmd != nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	return p
}

// start runs the helper process and waits for its address.
func (p *brokerProcess) start() {
	p.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokerProcessHelper$")
	cmd.Env = append(os.Environ(), helperDirEnv+"="+p.dir, helperListenEnv+"="+p.addr)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("starting the broker process: %v", err)
	}
	p.cmd = cmd
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		line := lines.Text()
		if strings.HasPrefix(line, "addr=") {
			go func() { // drain the rest
				for lines.Scan() {
				}
			}()
			return
		}
		if msg, ok := strings.CutPrefix(line, "error="); ok {
			p.t.Fatalf("the broker process failed to start: %s", msg)
		}
	}
	p.t.Fatalf("the broker process exited without an address: %v", cmd.Wait())
}

// freeAddr returns a loopback address with a free port, for a broker
// restarted on the same address.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// kill stops the broker process with SIGKILL.
func (p *brokerProcess) kill() {
	p.t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		p.t.Fatal(err)
	}
	_ = p.cmd.Wait()
	p.cmd = nil
}

// stop stops the broker process with SIGTERM: it closes the broker,
// which persists its state, and exits 0.
func (p *brokerProcess) stop() {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		p.t.Fatalf("the broker process after SIGTERM: %v", err)
	}
	p.cmd = nil
}

// client returns a client of the current broker process.
func (p *brokerProcess) client(opts ...kgo.Opt) *kgo.Client {
	p.t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(p.addr),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
	}, opts...)...)
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(cl.Close)
	return cl
}

// txnWrite writes kvs to partition 0 of topic in a transaction of the
// transactional id and commits it when commit is set; else it leaves it
// open and returns the producer.
func (p *brokerProcess) txnWrite(txid, topic string, commit bool, kvs ...string) *kgo.Client {
	p.t.Helper()
	cl := p.client(kgo.TransactionalID(txid), kgo.TransactionTimeout(time.Minute))
	if err := cl.BeginTransaction(); err != nil {
		p.t.Fatalf("begin transaction %s: %v", txid, err)
	}
	produce(p.t, cl, topic, kvs...)
	if commit {
		endTxn(p.t, cl, kgo.TryCommit)
	}
	return cl
}

// committedView waits for the last stable offset of partition 0 of topic
// to reach its high watermark (no transaction is open), failing after a
// while, and returns what readCommitted reads.
func (p *brokerProcess) committedView(topic string) []string {
	p.t.Helper()
	cl := p.client()
	adm := kadm.NewClient(cl)
	ctx := testCtx(p.t)
	var hwm, lso int64
	for {
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err != nil {
			p.t.Fatal(err)
		}
		committed, err := adm.ListCommittedOffsets(ctx, topic)
		if err != nil {
			p.t.Fatal(err)
		}
		hwm, lso = ends[topic][0].Offset, committed[topic][0].Offset
		if lso == hwm {
			break
		}
		select {
		case <-ctx.Done():
			p.t.Fatalf("%s: last stable offset stuck at %d, high watermark %d", topic, lso, hwm)
		case <-time.After(50 * time.Millisecond):
		}
	}
	return p.readCommitted(topic)
}

// readCommitted reads partition 0 of topic from the start, read_committed,
// up to a sentinel record it writes first (outside transactions), and
// returns the records but the sentinels as key=value in offset order.
func (p *brokerProcess) readCommitted(topic string) []string {
	p.t.Helper()
	sentinel := strconv.FormatInt(time.Now().UnixNano(), 10)
	produce(p.t, p.client(), topic, "end", sentinel)
	rd := p.client(kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx := testCtx(p.t)
	got := []string{}
	for {
		fs := rd.PollFetches(ctx)
		if ctx.Err() != nil {
			p.t.Fatalf("%s: sentinel not read; read %v", topic, got)
		}
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			if string(r.Key) == "end" {
				done = done || string(r.Value) == sentinel
				return
			}
			got = append(got, string(r.Key)+"="+string(r.Value))
		})
		if done {
			return got
		}
	}
}

// TestOpenTransactionAtBrokerCrash: a transaction open when the broker is
// SIGKILLed must end aborted, with its markers, so that read_committed
// consumers see every committed record after it — also those of the
// transactional id that reopens it (same producer id, as every restarted
// engine) — and the aborted records never come back, not even after a
// second crash.
func TestOpenTransactionAtBrokerCrash(t *testing.T) {
	br := crashBroker(t)
	createTopic(t, br.client(), "out", 1, nil)
	br.txnWrite("t1", "out", true, "a", "1")
	br.txnWrite("t1", "out", false, "b", "2") // open at the crash
	br.kill()
	br.start()
	assertView(t, "after the crash", br.committedView("out"), "a=1")

	br.txnWrite("t1", "out", true, "c", "3") // the same transactional id again
	br.txnWrite("t2", "out", true, "d", "4")
	assertView(t, "after the crash and new commits", br.committedView("out"), "a=1", "c=3", "d=4")

	br.kill()
	br.start()
	assertView(t, "after a second crash", br.committedView("out"), "a=1", "c=3", "d=4")
}

// TestOpenTransactionAtBrokerCrashFencesItsProducer: the producer of a
// transaction open at the crash, still running, cannot go on with it or
// commit it against the restarted broker; none of its records appear.
func TestOpenTransactionAtBrokerCrashFencesItsProducer(t *testing.T) {
	br := crashBroker(t)
	createTopic(t, br.client(), "out", 1, nil)
	zombie := br.txnWrite("t1", "out", false, "b", "1")
	br.kill()
	br.start()
	r := &kgo.Record{Topic: "out", Key: []byte("b"), Value: []byte("2")}
	produceErr := zombie.ProduceSync(testCtx(t), r).FirstErr()
	commitErr := zombie.EndTransaction(testCtx(t), kgo.TryCommit)
	if produceErr == nil && commitErr == nil {
		t.Fatal("the producer of a transaction open at the crash committed it after the restart")
	}
	t.Logf("the old producer: produce %v, commit %v", produceErr, commitErr)
	assertView(t, "after the crash", br.committedView("out"))
}

// TestOpenTransactionAtCleanStopSurvives: a clean stop (SIGTERM) keeps an
// open transaction (kfake persists it); the restart must not abort it, so
// its producer commits it whole.
func TestOpenTransactionAtCleanStopSurvives(t *testing.T) {
	br := crashBroker(t)
	createTopic(t, br.client(), "out", 1, nil)
	cl := br.txnWrite("t1", "out", false, "b", "1")
	br.stop()
	br.start()
	produce(t, cl, "out", "b", "2")
	endTxn(t, cl, kgo.TryCommit)
	assertView(t, "after the clean stop", br.committedView("out"), "b=1", "b=2")
}

// TestOpenTransactionAcrossCleanStopThenCrash: a transaction kept by a
// clean stop and then left open by a crash of the next broker, before
// anything else is written to its partition (kfake then loads the
// partition from its snapshot, which knows nothing of the transaction),
// also ends aborted.
func TestOpenTransactionAcrossCleanStopThenCrash(t *testing.T) {
	br := crashBroker(t)
	createTopic(t, br.client(), "out", 1, nil)
	br.txnWrite("t1", "out", true, "a", "1")
	br.txnWrite("t1", "out", false, "b", "2")
	br.stop()
	br.start()
	br.kill()
	br.start()
	assertView(t, "after the stop and the crash", br.committedView("out"), "a=1")
	br.txnWrite("t1", "out", true, "c", "3")
	assertView(t, "after a new commit", br.committedView("out"), "a=1", "c=3")
	br.stop()
	br.start()
	assertView(t, "after another clean stop", br.committedView("out"), "a=1", "c=3")
}

// TestCrashRecoveryKeepsLogStart: forcing kfake to replay a partition
// with an open transaction (see forceReplay) keeps the log start offset
// its snapshot held: deleted records stay deleted.
func TestCrashRecoveryKeepsLogStart(t *testing.T) {
	br := crashBroker(t)
	cl := br.client()
	createTopic(t, cl, "out", 1, nil)
	produce(t, cl, "out", "a", "1", "b", "2")
	adm := kadm.NewClient(cl)
	resp, err := adm.DeleteRecords(testCtx(t), kadm.Offsets{"out": {0: {Topic: "out", Partition: 0, At: 1}}})
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("delete records: %v", err)
	}
	br.stop()
	br.start()
	br.txnWrite("t1", "out", false, "c", "3")
	br.kill()
	br.start()
	starts, err := kadm.NewClient(br.client()).ListStartOffsets(testCtx(t), "out")
	if err != nil {
		t.Fatal(err)
	}
	if got := starts["out"][0].Offset; got != 1 {
		t.Fatalf("log start offset after the crash: %d, want 1", got)
	}
	assertView(t, "after the crash", br.committedView("out"), "b=2")
}

// TestTornCommitMarker: a commit marker torn off the end of a segment
// after a clean stop leaves its transaction open in the log, which kfake's
// replay counts aborted without a marker. The start must write the abort
// marker, so that the next commit of the same transactional id (a new
// epoch of the same producer id) is visible to read_committed readers,
// and stays so after a restart.
func TestTornCommitMarker(t *testing.T) {
	br := crashBroker(t)
	createTopic(t, br.client(), "out", 1, nil)
	br.txnWrite("t1", "out", true, "a", "1")
	br.txnWrite("t1", "out", true, "b", "2")
	br.stop()
	tearLastBatch(t, partitionDir(br.dir, "out", 0))
	br.start()
	assertView(t, "after the torn marker", br.committedView("out"), "a=1")

	br.txnWrite("t1", "out", true, "c", "3")
	assertView(t, "after a new commit", br.committedView("out"), "a=1", "c=3")
	br.stop()
	br.start()
	assertView(t, "after a clean stop", br.committedView("out"), "a=1", "c=3")
	br.kill()
	br.start()
	assertView(t, "after a crash", br.committedView("out"), "a=1", "c=3")
}

// TestTornCommitMarkerKeepsLiveTransaction: the recovery of a torn
// commit marker (a private kfake run on the data directory) keeps a
// transaction the clean stop kept open in another partition: its
// producer goes on and commits it whole.
func TestTornCommitMarkerKeepsLiveTransaction(t *testing.T) {
	br := crashBroker(t)
	createTopic(t, br.client(), "out", 1, nil)
	createTopic(t, br.client(), "live", 1, nil)
	br.txnWrite("t1", "out", true, "a", "1")
	live := br.txnWrite("t2", "live", false, "b", "1")
	br.stop()
	tearLastBatch(t, partitionDir(br.dir, "out", 0))
	br.start()
	produce(t, live, "live", "b", "2")
	endTxn(t, live, kgo.TryCommit)
	assertView(t, "the live transaction", br.committedView("live"), "b=1", "b=2")
	assertView(t, "the torn one", br.committedView("out"))
}

// tearLastBatch cuts the last record batch of the last segment of a
// partition directory in half, as a crash in its write would.
func tearLastBatch(t *testing.T, dir string) {
	t.Helper()
	bases, err := segmentBases(dir)
	if err != nil || len(bases) == 0 {
		t.Fatalf("no segment in %s: %v", dir, err)
	}
	seg := filepath.Join(dir, strconv.FormatInt(bases[len(bases)-1], 10)+".dat")
	raw, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	last := 0
	for p := 0; p+batchLengthEnd <= len(raw); p += batchLengthEnd + int(binary.BigEndian.Uint32(raw[p+8:p+batchLengthEnd])) {
		last = p
	}
	if err := os.Truncate(seg, int64(last+(len(raw)-last)/2)); err != nil {
		t.Fatal(err)
	}
}
