package broker

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
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
