package broker

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// segmentBatch renders a record batch as kfake's segment files hold it,
// with its CRC.
func segmentBatch(offset, pid int64, epoch int16, attrs int16) []byte {
	b := kmsg.RecordBatch{FirstOffset: offset, Magic: 2, Attributes: attrs, ProducerID: pid,
		ProducerEpoch: epoch, NumRecords: 1, Records: []byte{0}}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}

// TestScanFindsOpenTransactions: a transactional batch opens its
// producer's transaction, a control batch of the producer ends it, plain
// batches do neither, and the scan stops at a corrupt batch and at a torn
// one as kfake's loader does.
func TestScanFindsOpenTransactions(t *testing.T) {
	dir := t.TempDir()
	var seg []byte
	seg = append(seg, segmentBatch(0, 1, 0, attrTransactional)...)
	seg = append(seg, segmentBatch(1, 1, 0, attrTransactional|attrControl)...)
	seg = append(seg, segmentBatch(2, 2, 3, attrTransactional)...)
	seg = append(seg, segmentBatch(3, -1, -1, 0)...)
	seg = append(seg, segmentBatch(4, 3, 7, attrTransactional)...)
	seg = append(seg, segmentBatch(5, 3, 7, attrTransactional)...)
	if err := os.WriteFile(filepath.Join(dir, "0.dat"), seg, 0o644); err != nil {
		t.Fatal(err)
	}
	corrupt := segmentBatch(6, 4, 0, attrTransactional)
	corrupt[len(corrupt)-1] ^= 1
	torn := segmentBatch(7, 5, 0, attrTransactional)
	next := append(append(segmentBatch(6, 2, 3, attrTransactional|attrControl), corrupt...), torn[:len(torn)-1]...)
	if err := os.WriteFile(filepath.Join(dir, "6.dat"), next, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := partitionOpenTxns(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []openTxn{{producerID: 3, epoch: 7, firstOffset: 4}}
	if !slices.Equal(got, want) {
		t.Fatalf("open transactions %+v, want %+v", got, want)
	}
}

// TestReplaysSegments mirrors kfake's choice between its snapshot and a
// replay: a partition replays when a segment's size or base differs from
// the snapshot's list, or the snapshot is missing or unreadable; it loads
// from a matching snapshot, and a partition without segments loads
// nothing.
func TestReplaysSegments(t *testing.T) {
	dir := t.TempDir()
	check := func(what string, want bool) {
		t.Helper()
		got, err := replaysSegments(dir)
		if err != nil || got != want {
			t.Fatalf("%s: replays %v (%v), want %v", what, got, err, want)
		}
	}
	check("no segment", false)
	seg := segmentBatch(0, 1, 0, attrTransactional)
	if err := os.WriteFile(filepath.Join(dir, "0.dat"), seg, 0o644); err != nil {
		t.Fatal(err)
	}
	check("no snapshot", true)
	snapshot := func(body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "snapshot.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snapshot(fmt.Sprintf(`{"segments":[{"base_offset":0,"size":%d}]}`, len(seg)))
	check("a matching snapshot", false)
	if err := os.Truncate(filepath.Join(dir, "0.dat"), int64(len(seg)-1)); err != nil {
		t.Fatal(err)
	}
	check("a torn tail", true)
	snapshot(fmt.Sprintf(`{"segments":[{"base_offset":1,"size":%d}]}`, len(seg)-1))
	check("another base", true)
	snapshot(`{"segments":`)
	check("an unreadable snapshot", true)
}

// BenchmarkOpenTxnsScan measures the scan of a data directory of 256 MiB
// (4 partitions of 2 segments of 32 MiB, in 16 KiB transactional
// batches), what a start after an unclean shutdown reads, against the
// stats and snapshot reads of replaysSegments, what a start after a clean
// one does.
func BenchmarkOpenTxnsScan(b *testing.B) {
	dir := b.TempDir()
	const partitions, segments, segBytes, batchBytes = 4, 2, 32 << 20, 16 << 10
	batch := func(offset int64) []byte {
		rb := kmsg.RecordBatch{FirstOffset: offset, Magic: 2, Attributes: attrTransactional, ProducerID: 1,
			NumRecords: 1, Records: make([]byte, batchBytes)}
		raw := rb.AppendTo(nil)
		binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
		binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
		return raw
	}
	topics := `{"topics":[{"name":"big","partitions":4}]}`
	if err := os.WriteFile(filepath.Join(dir, "topics.json"), []byte(topics), 0o644); err != nil {
		b.Fatal(err)
	}
	for p := range int32(partitions) {
		pdir := partitionDir(dir, "big", p)
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			b.Fatal(err)
		}
		var snap []string
		for s, offset := 0, int64(0); s < segments; s++ {
			var seg []byte
			base := offset
			for len(seg) < segBytes {
				seg = append(seg, batch(offset)...)
				offset++
			}
			if err := os.WriteFile(filepath.Join(pdir, strconv.FormatInt(base, 10)+".dat"), seg, 0o644); err != nil {
				b.Fatal(err)
			}
			snap = append(snap, fmt.Sprintf(`{"base_offset":%d,"size":%d}`, base, len(seg)))
		}
		body := `{"segments":[` + strings.Join(snap, ",") + `]}`
		if err := os.WriteFile(filepath.Join(pdir, "snapshot.json"), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name string
		scan func(string, int32) (bool, error)
		want int
	}{{"every-partition", everyPartition, partitions}, {"replayed-only", replayedBy(dir), 0}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(partitions * segments * segBytes)
			for b.Loop() {
				txns, err := openTxns(dir, bc.scan)
				if err != nil || len(txns) != bc.want {
					b.Fatalf("open transactions %d (%v), want %d", len(txns), err, bc.want)
				}
			}
		})
	}
}
