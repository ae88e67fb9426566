package commandlog

import (
	"bytes"
	"crypto/hmac"
	"errors"
	"fmt"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// The command chain: a signature over a record's content alone would let
// anyone who can write to the command topic append an old signed record
// again (a DROP STREAM x DELETE TOPIC after x was re-created), and every
// server would run it. So a record of format 2 is signed over its
// content and the signature of the record accepted before it (its
// previous, also in the header previousHeader); a server runs it only
// when that previous is the last record it accepted (the chain's head).
// A copied record names a previous that is no longer the head and is
// refused and logged, on the running servers and on every restart; so is
// a record out of order. Records refused do not move the head, so the
// next record the engine appends chains after the last accepted one.
//
// The chain begins with a chain-start record (key chainStartKey, no
// statement, previous empty) that the first server of this release on a
// topic appends during its start, before it serves (commandLog.startChain).
// It fixes where the topic's legacy part ends and it binds the topic to
// one key: a server with another key (or none: a lost key file, a
// copy started without the shared secret) finds signed records none of
// which verify, and refuses to start (commandLog.verifiable).
//
// Records of earlier releases are accepted only as a contiguous prefix,
// before the chain start: unsigned ones below the fence (see
// command_signing.go), and format 1 records (signed over topic, key and
// value, no format header) that verify. A legacy record after the chain
// start is refused: it can only be a copy (or a server of the previous
// release still appending: upgrade all servers of a service id
// together). A copy appended into the legacy prefix by the previous
// release, before this one's chain start, cannot be told apart and runs,
// as it did then.
//
// Not covered: a command topic deleted and created again starts a new
// chain, and a copy of the old topic's first records would verify there.
// And a client that can write the topic before a new service's first
// start can stop that start with a record carrying any signature header
// (the server finds signed records it cannot verify); as nothing of the
// service is in such a topic yet, deleting it is the way out.
const (
	formatHeader   = "sqlstream-command-format"
	previousHeader = "sqlstream-previous"
	formatV2       = "2"
	chainStartKey  = "sqlstream-chain-start"
)

// commandChain is the verified history of the command topic as this
// server has read it.
type commandChain struct {
	head      []byte // signature of the last accepted format 2 record
	started   bool   // the chain start was accepted: no legacy record from here
	signed    int    // signed records read
	authentic int    // of them, those this server's key signed (in place or not)
}

// verdict is what to do with one record.
type verdict int

const (
	rejected       verdict = iota
	unsignedLegacy         // before signing, below the fence: runs
	signedLegacy           // format 1, before the chain start: runs
	chained                // format 2, next in the chain: runs
	chainStarted           // the chain start: moves the head, runs nothing
)

var (
	errBadSignature  = fmt.Errorf("bad signature: written with another key or altered (servers sharing a command topic need the same %s)", props.CommandSecret)
	errOutOfSequence = errors.New("signed with this server's key but not the next record in sequence: a copy of an earlier record, or out of order")
	errLegacyAfter   = errors.New("a record of an earlier release's format after the command chain started: a copy of an earlier record (or a server of the earlier release still appending)")
)

// check decides r's verdict and moves the head past an accepted format 2
// record. fence is from commandSigner.fence.
func (ch *commandChain) check(s *commandSigner, r *physical.InRecord, fence int64) (verdict, error) {
	sig, ok := headerOf(r, signatureHeader)
	if !ok {
		if r.Offset < fence && !ch.started {
			return unsignedLegacy, nil
		}
		return rejected, errUnsigned
	}
	ch.signed++
	switch format, _ := headerOf(r, formatHeader); string(format) {
	case "":
		return ch.checkV1(s, r, sig)
	case formatV2:
		return ch.checkV2(s, r, sig)
	default:
		return rejected, fmt.Errorf("unknown command record format %q (written by a newer release?)", format)
	}
}

func (ch *commandChain) checkV1(s *commandSigner, r *physical.InRecord, sig []byte) (verdict, error) {
	if !hmac.Equal(sig, s.signatureV1(r.Topic, r.Key, r.Value)) {
		return rejected, errBadSignature
	}
	ch.authentic++
	if ch.started {
		return rejected, errLegacyAfter
	}
	return signedLegacy, nil
}

func (ch *commandChain) checkV2(s *commandSigner, r *physical.InRecord, sig []byte) (verdict, error) {
	prev, _ := headerOf(r, previousHeader)
	if !hmac.Equal(sig, s.signatureV2(r.Topic, r.Key, r.Value, prev)) {
		return rejected, errBadSignature
	}
	ch.authentic++
	if !bytes.Equal(prev, ch.head) {
		return rejected, fmt.Errorf("%w (it follows %s, the last record accepted is %s)", errOutOfSequence, short(prev), short(ch.head))
	}
	ch.head, ch.started = sig, true
	if string(r.Key) == chainStartKey {
		return chainStarted, nil
	}
	return chained, nil
}

// short names a signature in a message.
func short(sig []byte) string {
	switch {
	case len(sig) == 0:
		return "the chain start's empty previous"
	case len(sig) > 12:
		return "signature " + string(sig[:12]) + "…"
	}
	return "signature " + string(sig)
}

// unverifiable reports a topic that holds signed records none of which
// this server's key signed.
func (ch *commandChain) unverifiable() bool { return ch.signed > 0 && ch.authentic == 0 }

// chainStartRecord is the record that begins the chain of topic.
func chainStartRecord(topic string) *physical.OutRecord {
	return &physical.OutRecord{Topic: topic, Partition: 0, Key: []byte(chainStartKey),
		Value:     []byte(`{"format":2,"note":"start of the signed command chain; records of earlier formats after it are refused"}`),
		Timestamp: time.Now().UnixMilli()}
}
