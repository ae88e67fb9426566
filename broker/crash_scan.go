package broker

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// openTxn is a transaction that a crash left open in one partition: its
// producer wrote transactional batches there and no control batch (commit
// or abort marker) after them.
type openTxn struct {
	topic       string
	partition   int32
	producerID  int64
	epoch       int16
	firstOffset int64
}

// openTxns lists the transactions left open in the partitions of the
// topics of dataDir's topics.json for which scan reports true, in topic,
// partition, producer order.
func openTxns(dataDir string, scan func(topic string, p int32) (bool, error)) ([]openTxn, error) {
	topics, err := dataDirTopics(dataDir)
	if err != nil {
		return nil, err
	}
	var all []openTxn
	for _, t := range topics {
		for p := range int32(t.Partitions) {
			if ok, err := scan(t.Name, p); err != nil || !ok {
				if err != nil {
					return nil, fmt.Errorf("topic %s partition %d: %w", t.Name, p, err)
				}
				continue
			}
			txns, err := partitionOpenTxns(partitionDir(dataDir, t.Name, p))
			if err != nil {
				return nil, fmt.Errorf("topic %s partition %d: %w", t.Name, p, err)
			}
			for _, tx := range txns {
				tx.topic, tx.partition = t.Name, p
				all = append(all, tx)
			}
		}
	}
	return all, nil
}

type dataDirTopic struct {
	Name       string `json:"name"`
	Partitions int    `json:"partitions"`
}

// dataDirTopics reads the topics of dataDir's topics.json, sorted by name.
func dataDirTopics(dataDir string) ([]dataDirTopic, error) {
	path := filepath.Join(dataDir, "topics.json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Topics []dataDirTopic `json:"topics"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	slices.SortFunc(doc.Topics, func(a, b dataDirTopic) int { return strings.Compare(a.Name, b.Name) })
	return doc.Topics, nil
}

// partitionDir is where kfake keeps a partition's segments.
func partitionDir(dataDir, topic string, p int32) string {
	return filepath.Join(dataDir, "partitions", fmt.Sprintf("%s-%d", url.PathEscape(topic), p))
}

// partitionOpenTxns reads the segments of a partition directory in offset
// order and returns the transactions still open at its end, by producer
// id order.
func partitionOpenTxns(dir string) ([]openTxn, error) {
	bases, err := segmentBases(dir)
	if err != nil {
		return nil, err
	}
	open := map[int64]openTxn{}
	for _, base := range bases {
		if err := scanSegment(filepath.Join(dir, strconv.FormatInt(base, 10)+".dat"), open); err != nil {
			return nil, err
		}
	}
	txns := make([]openTxn, 0, len(open))
	for _, tx := range open {
		txns = append(txns, tx)
	}
	slices.SortFunc(txns, func(a, b openTxn) int { return cmp.Compare(a.producerID, b.producerID) })
	return txns, nil
}

// everyPartition is the scan of openTxns after an unclean shutdown.
func everyPartition(string, int32) (bool, error) { return true, nil }

// replayedBy returns the scan of openTxns after a clean shutdown: the
// partitions kfake will load by replaying their segments rather than
// from their snapshot (see replaysSegments).
func replayedBy(dataDir string) func(string, int32) (bool, error) {
	return func(topic string, p int32) (bool, error) {
		return replaysSegments(partitionDir(dataDir, topic, p))
	}
}

// replaysSegments reports whether kfake will load the partition in dir by
// replaying its segments: it has segments, and no snapshot.json whose
// segment list (base offsets and sizes) matches the segment files, which
// is kfake's test. After a clean stop that means a segment changed under
// the snapshot (a torn or truncated tail, kfake cuts away) or the
// snapshot is gone; the replay then counts every transaction it finds
// open as aborted, in memory only.
func replaysSegments(dir string) (bool, error) {
	bases, err := segmentBases(dir)
	if err != nil || len(bases) == 0 {
		return false, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "snapshot.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	var snap struct {
		Segments []struct {
			BaseOffset int64 `json:"base_offset"`
			Size       int64 `json:"size"`
		} `json:"segments"`
	}
	if json.Unmarshal(raw, &snap) != nil || len(snap.Segments) != len(bases) {
		return true, nil
	}
	for i, s := range snap.Segments {
		info, err := os.Stat(filepath.Join(dir, strconv.FormatInt(bases[i], 10)+".dat"))
		if err != nil {
			return false, err
		}
		if s.BaseOffset != bases[i] || s.Size != info.Size() {
			return true, nil
		}
	}
	return false, nil
}

// segmentBases returns the base offsets of the segment files (<base>.dat)
// in dir, ascending; none when dir does not exist.
func segmentBases(dir string) ([]int64, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var bases []int64
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".dat")
		if !ok {
			continue
		}
		if base, err := strconv.ParseInt(name, 10, 64); err == nil {
			bases = append(bases, base)
		}
	}
	slices.Sort(bases)
	return bases, nil
}

// Where a record batch (Kafka's RecordBatch v2, which kfake's segment
// files hold back to back) says its length and checksum, and what its
// attributes flag; kmsg.RecordBatch decodes the rest.
const (
	batchHeaderLen    = 61 // through the record count
	batchLengthEnd    = 12 // baseOffset(8) + batchLength(4)
	batchCRCAt        = 17 // + partitionLeaderEpoch(4) + magic(1)
	batchAttrsAt      = 21 // the checksum covers the batch from here
	attrTransactional = 0x10
	attrControl       = 0x20
)

// scanSegment reads the batches of one segment file and updates open:
// a transactional data batch opens its producer's transaction (if not
// open), a control batch ends it. Like kfake's loader, it stops at the
// first torn or corrupt batch, which kfake truncates away.
func scanSegment(path string, open map[int64]openTxn) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	var batch []byte
	for {
		head, err := r.Peek(batchLengthEnd)
		if err != nil {
			return nil // end of the segment (or a torn header)
		}
		n := int(int32(binary.BigEndian.Uint32(head[8:batchLengthEnd])))
		if n < batchHeaderLen-batchLengthEnd || n > 1<<30 {
			return nil
		}
		batch = slices.Grow(batch[:0], batchLengthEnd+n)[:batchLengthEnd+n]
		if _, err := io.ReadFull(r, batch); err != nil {
			return nil // torn batch
		}
		var b kmsg.RecordBatch
		if binary.BigEndian.Uint32(batch[batchCRCAt:batchAttrsAt]) != crc32.Checksum(batch[batchAttrsAt:], castagnoli) ||
			b.UnsafeReadFrom(batch) != nil {
			return nil
		}
		applyBatch(&b, open)
	}
}

// applyBatch updates open with one complete record batch.
func applyBatch(b *kmsg.RecordBatch, open map[int64]openTxn) {
	if b.Attributes&attrTransactional == 0 {
		return
	}
	if b.Attributes&attrControl != 0 {
		delete(open, b.ProducerID)
		return
	}
	if _, ok := open[b.ProducerID]; !ok {
		open[b.ProducerID] = openTxn{producerID: b.ProducerID, epoch: b.ProducerEpoch, firstOffset: b.FirstOffset}
	}
}
