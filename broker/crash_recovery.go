package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// runningFile, in a data directory, says a broker runs on it. Start
// writes it before kfake loads the directory and Close removes it once
// kfake has persisted its state, so finding it at Start means the last
// broker on the directory did not shut down cleanly (SIGKILL, a power
// loss, a failed persistence).
const runningFile = "sqlstream-broker.running"

// uncleanShutdown reports whether the last broker on dataDir did not shut
// down cleanly: it left runningFile and kfake wrote no session state.
// kfake writes session_state.json only when it closes (with the open
// transactions, which it restores on load) and removes it when it loads
// it, so its presence proves a clean close even if runningFile was left
// (a kill between kfake's close and its removal): those transactions
// are alive and must not be aborted.
func uncleanShutdown(dataDir string) (bool, error) {
	running, err := exists(filepath.Join(dataDir, runningFile))
	if err != nil || !running {
		return false, err
	}
	session, err := exists(filepath.Join(dataDir, "session_state.json"))
	return !session, err
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func markRunning(dataDir string) error {
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dataDir, runningFile),
		[]byte("a sqlstream broker runs on this directory, or did not shut down cleanly\n"), 0o644)
}

func markStopped(dataDir string) error {
	err := os.Remove(filepath.Join(dataDir, runningFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// abortOpenTxns ends every transaction kfake's load would count aborted
// without a marker: each gets an abort marker in each of its partitions,
// before any client can connect. After an unclean shutdown that is every
// transaction open in the segments; after a clean one, those open in the
// partitions kfake replays (replaysSegments), such as a transaction whose
// marker was torn off the end of a segment. See the package documentation
// for why kfake's own recovery is not enough.
func abortOpenTxns(cfg config) error {
	unclean, err := uncleanShutdown(cfg.dataDir)
	if err != nil {
		return err
	}
	scan, why := replayedBy(cfg.dataDir), "a segment no longer matches its snapshot (a torn or truncated tail, or a lost snapshot): aborting the transactions open in it"
	if unclean {
		scan, why = everyPartition, "the broker did not shut down cleanly: aborting the transactions it left open"
	}
	txns, err := openTxns(cfg.dataDir, scan)
	if err != nil {
		return fmt.Errorf("looking for open transactions: %w", err)
	}
	if len(txns) == 0 {
		return nil
	}
	cfg.logger.Warn(why, "data_dir", cfg.dataDir, "open_transactions", len(txns))
	starts, err := forceReplay(cfg.dataDir, txns)
	if err != nil {
		return err
	}
	return writeAbortMarkers(cfg, txns, starts)
}

// forceReplay removes the snapshot of every partition with an open
// transaction, so that kfake loads it by replaying its segments, the only
// load that counts an unfinished transaction as aborted (its records stay
// hidden from read_committed consumers). It returns the log start offsets
// the snapshots held (a replay starts the log at its first batch), to be
// restored with DeleteRecords.
func forceReplay(dataDir string, txns []openTxn) (kadm.Offsets, error) {
	starts := kadm.Offsets{}
	for _, tx := range txns {
		if _, done := starts.Lookup(tx.topic, tx.partition); done {
			continue
		}
		path := filepath.Join(partitionDir(dataDir, tx.topic, tx.partition), "snapshot.json")
		start, err := snapshotLogStart(path)
		if err != nil {
			return nil, err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		starts.Add(kadm.Offset{Topic: tx.topic, Partition: tx.partition, At: start})
	}
	return starts, nil
}

// snapshotLogStart reads the log start offset of a partition snapshot; 0
// when there is none or it is unreadable (kfake would replay then too).
func snapshotLogStart(path string) (int64, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var snap struct {
		LogStartOffset int64 `json:"log_start_offset"`
	}
	if json.Unmarshal(raw, &snap) != nil {
		return 0, nil
	}
	return snap.LogStartOffset, nil
}

// writeAbortMarkers starts kfake on the data directory on a private
// loopback port, writes an abort marker for every open transaction
// through the Kafka API (WriteTxnMarkers), restores the log start offsets
// and stops it, persisting the result.
func writeAbortMarkers(cfg config, txns []openTxn, starts kadm.Offsets) error {
	private := cfg
	private.listen = "127.0.0.1:0"
	shutdown := &shutdownErrors{}
	var bound string
	cluster, err := kfake.NewCluster(kfakeOptions(private, shutdown, &bound)...)
	if err != nil {
		return err
	}
	err = func() error {
		cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...))
		if err != nil {
			return err
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := requestAborts(ctx, cl, txns); err != nil {
			return fmt.Errorf("writing abort markers: %w", err)
		}
		if err := restoreLogStarts(ctx, kadm.NewClient(cl), starts); err != nil {
			return fmt.Errorf("restoring log start offsets: %w", err)
		}
		return nil
	}()
	shutdown.begin()
	cluster.Close()
	return errors.Join(err, shutdown.err())
}

// requestAborts sends one WriteTxnMarkers request with an abort marker
// per open transaction and checks every partition's answer.
func requestAborts(ctx context.Context, cl *kgo.Client, txns []openTxn) error {
	req := kmsg.NewPtrWriteTxnMarkersRequest()
	for _, tx := range txns {
		m := kmsg.NewWriteTxnMarkersRequestMarker()
		m.ProducerID, m.ProducerEpoch, m.Committed = tx.producerID, tx.epoch, false
		t := kmsg.NewWriteTxnMarkersRequestMarkerTopic()
		t.Topic, t.Partitions = tx.topic, []int32{tx.partition}
		m.Topics = append(m.Topics, t)
		req.Markers = append(req.Markers, m)
	}
	var errs []error
	for _, shard := range cl.RequestSharded(ctx, req) {
		if shard.Err != nil {
			errs = append(errs, shard.Err)
			continue
		}
		for _, m := range shard.Resp.(*kmsg.WriteTxnMarkersResponse).Markers {
			for _, t := range m.Topics {
				for _, p := range t.Partitions {
					if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
						errs = append(errs, fmt.Errorf("producer %d, %s partition %d: %w", m.ProducerID, t.Topic, p.Partition, err))
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

// restoreLogStarts moves each partition's log start offset back up to the
// one its snapshot held.
func restoreLogStarts(ctx context.Context, adm *kadm.Client, starts kadm.Offsets) error {
	cut := kadm.Offsets{}
	starts.Each(func(o kadm.Offset) {
		if o.At > 0 {
			cut.Add(o)
		}
	})
	if len(cut) == 0 {
		return nil
	}
	resp, err := adm.DeleteRecords(ctx, cut)
	if err != nil {
		return err
	}
	return resp.Error()
}
