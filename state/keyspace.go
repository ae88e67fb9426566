package state

import (
	"encoding/binary"
	"fmt"
)

// StoreID names one partition of one store of one application: the unit a
// task owns, restores from its changelog partition and wipes.
type StoreID struct {
	App       string // application id, e.g. "_confluent-ksql-default_query_CTAS_T_1"
	Name      string // store name, e.g. "Aggregate-Aggregate-Materialize"
	Partition int32  // the task's input partition (= changelog partition)
}

// String renders the id as app/name/partition.
func (id StoreID) String() string {
	return fmt.Sprintf("%s/%s/%d", id.App, id.Name, id.Partition)
}

// ChangelogTopic is the compacted topic backing the store:
// <application.id>-<store>-changelog.
func (id StoreID) ChangelogTopic() string {
	return id.App + "-" + id.Name + "-changelog"
}

func (id StoreID) validate() error {
	if id.App == "" || id.Name == "" || id.Partition < 0 {
		return fmt.Errorf("state: invalid store id %q: app and name must be set and partition >= 0", id)
	}
	return nil
}

// Key space of the one Pebble DB:
//
//	0x00 'n'                           → next prefix number (4 bytes)
//	0x00 'p'                           → process id (ProcessID)
//	0x00 'r' <app> <name> <partition>  → prefix number (4 bytes)   registry
//	0x00 'c' <prefix>                  → checkpoint offset (8 bytes)
//	0x00 'k' <prefix>                  → committed key count (8 bytes)
//	0x01 <prefix> <user key>           → user value                data
//
// <prefix> is a 4-byte big-endian number handed out once per StoreID and
// kept in the registry, so it is short and stable across restarts; app and
// name in registry keys are uvarint-length-prefixed.
const (
	metaTag     byte = 0x00
	dataTag     byte = 0x01
	nextTag     byte = 'n'
	registryTag byte = 'r'
	ckptTag     byte = 'c'
	countTag    byte = 'k'
	processTag  byte = 'p'
)

// prefix is the number behind a store partition's key space.
type prefix uint32

// data is the first key of the partition's data: 0x01 + 4 bytes.
func (p prefix) data() []byte {
	return binary.BigEndian.AppendUint32([]byte{dataTag}, uint32(p))
}

// dataEnd is the exclusive end of the partition's data.
func (p prefix) dataEnd() []byte {
	return keySuccessor(p.data())
}

// meta is the partition's metadata key with the given tag.
func (p prefix) meta(tag byte) []byte {
	return binary.BigEndian.AppendUint32([]byte{metaTag, tag}, uint32(p))
}

// dataKey appends key to the partition's data prefix.
func (p prefix) dataKey(key []byte) []byte {
	return p.appendDataKey(make([]byte, 0, 5+len(key)), key)
}

// appendDataKey appends the partition's full key of key to dst.
func (p prefix) appendDataKey(dst, key []byte) []byte {
	return append(binary.BigEndian.AppendUint32(append(dst, dataTag), uint32(p)), key...)
}

func nextKey() []byte { return []byte{metaTag, nextTag} }

func processKey() []byte { return []byte{metaTag, processTag} }

func registryPrefix() []byte { return []byte{metaTag, registryTag} }

func registryKey(id StoreID) []byte {
	k := registryPrefix()
	k = binary.AppendUvarint(k, uint64(len(id.App)))
	k = append(k, id.App...)
	k = binary.AppendUvarint(k, uint64(len(id.Name)))
	k = append(k, id.Name...)
	return binary.BigEndian.AppendUint32(k, uint32(id.Partition))
}

func parseRegistryKey(k []byte) (StoreID, error) {
	rest := k[len(registryPrefix()):]
	app, rest, ok := readLenPrefixed(rest)
	name, rest, ok2 := readLenPrefixed(rest)
	if !ok || !ok2 || len(rest) != 4 {
		return StoreID{}, fmt.Errorf("state: corrupt registry key %x", k)
	}
	return StoreID{App: app, Name: name, Partition: int32(binary.BigEndian.Uint32(rest))}, nil
}

func readLenPrefixed(b []byte) (string, []byte, bool) {
	n, w := binary.Uvarint(b)
	if w <= 0 || uint64(len(b)-w) < n {
		return "", nil, false
	}
	return string(b[w : w+int(n)]), b[w+int(n):], true
}

// keySuccessor is the smallest key greater than every key with prefix k, or
// nil (unbounded) when k is all 0xff.
func keySuccessor(k []byte) []byte {
	out := append([]byte(nil), k...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] != 0xff {
			out[i]++
			return out[:i+1]
		}
	}
	return nil
}

func encodeInt64(v int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(v))
}

func decodeInt64(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("state: corrupt 8-byte value %x", b)
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}
