package format

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/sqlstream/sqlstream/sql/format/internal/boxes"
	"github.com/sqlstream/sqlstream/sql/types"
)

// jsonNode is the decode plan of one SQL type, built once per codec so
// that decoding a record does no type analysis.
type jsonNode struct {
	t    *types.Type
	elem *jsonNode      // ARRAY element, MAP value
	obj  *jsonObject    // STRUCT fields
	box  unsafe.Pointer // STRING and the 8-byte scalars: their Go type's word, for the arenas
}

// jsonObject matches JSON object keys to a fixed list of names the way
// ksqlDB does: an exact match wins, otherwise the key upper-cased must
// equal the name.
type jsonObject struct {
	names []string
	nodes []*jsonNode
	index map[string]int // exact names → position; nil for few names
	// skip marks the names whose values are checked, not decoded (the
	// columns a query does not read, NewValueDecoder); nil: none.
	skip []bool
}

// smallObject is the number of names below which a linear scan beats a map.
const smallObject = 8

func newJSONNode(t *types.Type) *jsonNode {
	n := &jsonNode{t: t, box: boxTypeWord(t.Kind)}
	switch t.Kind {
	case types.KindArray, types.KindMap:
		n.elem = newJSONNode(t.Elem)
	case types.KindStruct:
		names := make([]string, len(t.Fields))
		fts := make([]*types.Type, len(t.Fields))
		for i, f := range t.Fields {
			names[i], fts[i] = f.Name, f.Type
		}
		n.obj = newJSONObject(names, fts)
	}
	return n
}

// boxTypeWord is the type word of the Go type a node of kind k decodes
// to, for the kinds boxed in an arena: STRING, and BIGINT, TIMESTAMP and
// DOUBLE (boxNumber). nil for the others.
func boxTypeWord(k types.Kind) unsafe.Pointer {
	switch k {
	case types.KindString:
		return boxes.TypeWord("")
	case types.KindBigint:
		return boxes.TypeWord(int64(0))
	case types.KindTimestamp:
		return boxes.TypeWord(types.Timestamp(0))
	case types.KindDouble:
		return boxes.TypeWord(0.0)
	}
	return nil
}

// boxCounts counts the STRING columns, whose values a record boxes in
// its arena (the size of the arena's first chunk of strings).
func boxCounts(ts []*types.Type) (strs int) {
	for _, t := range ts {
		if t.Kind == types.KindString {
			strs++
		}
	}
	return strs
}

func newJSONObject(names []string, ts []*types.Type) *jsonObject {
	o := &jsonObject{names: names, nodes: make([]*jsonNode, len(ts))}
	for i, t := range ts {
		o.nodes[i] = newJSONNode(t)
	}
	if len(names) > smallObject {
		o.index = make(map[string]int, len(names))
		for i := len(names) - 1; i >= 0; i-- {
			o.index[names[i]] = i
		}
	}
	return o
}

// lookup returns the position of key and whether it matched exactly, or -1.
func (o *jsonObject) lookup(key []byte) (int, bool) {
	if o.index != nil {
		if i, ok := o.index[string(key)]; ok {
			return i, true
		}
	} else {
		for i, n := range o.names {
			if n == string(key) {
				return i, true
			}
		}
	}
	return o.lookupUpper(key), false
}

// lookupUpper finds the name equal to key upper-cased.
func (o *jsonObject) lookupUpper(key []byte) int {
	for i, n := range o.names {
		if len(n) == len(key) && equalUpper(key, n) {
			return i
		}
	}
	for _, c := range key {
		if c >= 0x80 {
			up := strings.ToUpper(string(key))
			for i, n := range o.names {
				if n == up {
					return i
				}
			}
			break
		}
	}
	return -1
}

// equalUpper reports whether ASCII key upper-cased equals name.
func equalUpper(key []byte, name string) bool {
	for i := range len(key) {
		c := key[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}

// decodeInto decodes a JSON object into dst (one slot per name; missing
// names are NULL, unknown keys are skipped). A nil dst checks the object
// as decoding it would, materializing nothing.
func (o *jsonObject) decodeInto(s *scanner, dst []any) error {
	return o.decodeSeen(s, dst, nil)
}

// decodeSeen is decodeInto that resolves the member names memo saw in
// the same places of the last records without a lookup (nil: none).
func (o *jsonObject) decodeSeen(s *scanner, dst []any, memo *memberMemo) error {
	clear(dst)
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	var exact exactSet
	for k := 0; ; k++ {
		if err := o.member(s, dst, &exact, memo.at(k, len(o.names))); err != nil {
			return err
		}
		if done, err := s.next('}'); done || err != nil {
			return err
		}
	}
}

// exactSet holds the positions already set by an exact key match, so a
// later upper-cased match does not override them.
type exactSet struct {
	small uint64
	large map[int]bool // positions >= 64
}

func (e *exactSet) has(i int) bool {
	if i < 64 {
		return e.small&(1<<i) != 0
	}
	return e.large[i]
}

func (e *exactSet) add(i int) {
	if i < 64 {
		e.small |= 1 << i
		return
	}
	if e.large == nil {
		e.large = make(map[int]bool)
	}
	e.large[i] = true
}

// memberMemo is what one task's decoder (NewTaskValueDecoder) remembers
// of the record objects it decoded: per member position, the last name
// found there and what lookup made of it. A producer writes one schema's
// members in one order and spelling, so the next record's name at that
// position is most often the same bytes, and lookup (a pure function of
// the name) would give the same answer: one compare instead of the scan
// of the name and the lookup (case-insensitive for names that are not
// the columns' exact spelling, such as Nexmark's lower-case ones).
type memberMemo struct {
	seen []seenMember
}

// seenMember is the name last seen at one member position.
type seenMember struct {
	name  []byte // as in the record; escaped names are not kept
	col   int    // lookup's position, or -1 (an unknown member)
	exact bool   // lookup's exactness
	ok    bool   // name, col and exact hold a name
}

// at returns the memo of member position k, or nil when there is no memo
// or k is past a bound of names+8 (a record of many unknown members does
// not grow it).
func (m *memberMemo) at(k, names int) *seenMember {
	switch {
	case m == nil:
		return nil
	case k < len(m.seen):
		return &m.seen[k]
	case k > names+8:
		return nil
	}
	m.seen = append(m.seen, seenMember{})
	return &m.seen[k]
}

// key reads a member's name at s.pos (a '"') and resolves it as lookup
// does; a name that is seen's byte for byte takes seen's answer.
func (o *jsonObject) key(s *scanner, seen *seenMember) (int, bool, error) {
	if seen != nil && seen.ok && s.sameString(seen.name) {
		return seen.col, seen.exact, nil
	}
	name, at, err := s.strSpan()
	if err != nil {
		return 0, false, err
	}
	i, isExact := o.lookup(name)
	if seen != nil {
		seen.ok = at >= 0
		seen.name = append(seen.name[:0], name...)
		seen.col, seen.exact = i, isExact
	}
	return i, isExact, nil
}

// member decodes one "key": value pair; seen is the memo of its position
// (nil: none).
func (o *jsonObject) member(s *scanner, dst []any, exact *exactSet, seen *seenMember) error {
	if s.peek() != '"' {
		return s.syntax("object key")
	}
	i, isExact, err := o.key(s, seen)
	if err != nil {
		return err
	}
	if err := s.expect(':'); err != nil {
		return err
	}
	if i < 0 || !isExact && exact.has(i) {
		return s.skip()
	}
	if isExact {
		exact.add(i)
	}
	v, err := o.nodes[i].read(s, dst == nil || o.skip != nil && o.skip[i])
	if err != nil {
		return prefixColumn(err, "`"+o.names[i]+"`")
	}
	if dst != nil {
		dst[i] = v
	}
	return nil
}

// read decodes one value, or with checkOnly checks it (nil value).
func (n *jsonNode) read(s *scanner, checkOnly bool) (any, error) {
	if checkOnly {
		return nil, n.check(s)
	}
	return n.decode(s)
}

// decode decodes one JSON value into the Go representation of n.t.
func (n *jsonNode) decode(s *scanner) (any, error) {
	c := s.peek()
	if c == 'n' {
		return nil, s.literal("null")
	}
	switch n.t.Kind {
	case types.KindString:
		return n.decodeString(s, c)
	case types.KindInteger, types.KindDate, types.KindTime:
		return n.decodeInt32(s, c)
	case types.KindBigint, types.KindTimestamp:
		return n.decodeInt64(s, c)
	case types.KindBoolean:
		return n.decodeBool(s, c)
	case types.KindDouble:
		return n.decodeDouble(s, c)
	case types.KindDecimal:
		return n.decodeDecimal(s, c)
	case types.KindBytes:
		return n.decodeBytes(s, c)
	case types.KindArray:
		return n.decodeArray(s, c)
	case types.KindMap:
		return n.decodeMap(s, c)
	case types.KindStruct:
		return n.decodeStruct(s, c)
	}
	return nil, s.fail(n.t.String(), "unsupported type")
}

// check reads one JSON value as decode does, with the same errors, but
// materializes nothing: the value of a column the query does not read.
// DECIMAL and BYTES (rare) are decoded and dropped.
func (n *jsonNode) check(s *scanner) error {
	c := s.peek()
	if c == 'n' {
		return s.literal("null")
	}
	var err error
	switch n.t.Kind {
	case types.KindString:
		return n.checkString(s, c)
	case types.KindInteger, types.KindDate, types.KindTime:
		_, err = n.integer(s, c, 32)
	case types.KindBigint, types.KindTimestamp:
		_, err = n.integer(s, c, 64)
	case types.KindBoolean:
		_, err = n.decodeBool(s, c)
	case types.KindDouble:
		_, err = n.double(s, c)
	case types.KindArray:
		return n.checkArray(s, c)
	case types.KindMap:
		return n.checkMap(s, c)
	case types.KindStruct:
		if c != '{' {
			return n.mismatch(s, c)
		}
		return n.obj.decodeInto(s, nil)
	default:
		_, err = n.decode(s)
	}
	return err
}

// checkString is decodeString without the string.
func (n *jsonNode) checkString(s *scanner, c byte) error {
	switch c {
	case '"':
		_, _, err := s.strSpan()
		return err
	case '{', '[', 't', 'f':
		return s.skip()
	}
	if c == '-' || isDigit(c) {
		_, _, err := s.number()
		return err
	}
	return n.mismatch(s, c)
}

// checkArray is decodeArray without the array.
func (n *jsonNode) checkArray(s *scanner, c byte) error {
	if c != '[' {
		return n.mismatch(s, c)
	}
	s.pos++
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := n.elem.check(s); err != nil {
			return prefixColumn(err, "["+strconv.Itoa(i)+"]")
		}
		if done, err := s.next(']'); done || err != nil {
			return err
		}
	}
}

// checkMap is decodeMap without the map.
func (n *jsonNode) checkMap(s *scanner, c byte) error {
	if c != '{' {
		return n.mismatch(s, c)
	}
	s.pos++
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		if s.peek() != '"' {
			return s.syntax("object key")
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := n.elem.check(s); err != nil {
			return prefixColumn(err, "['"+string(key)+"']")
		}
		if done, err := s.next('}'); done || err != nil {
			return err
		}
	}
}

// mismatch reports a JSON value of the wrong kind for n.t.
func (n *jsonNode) mismatch(s *scanner, c byte) error {
	if c == 0 {
		return s.syntax(n.t.String())
	}
	return s.fail(n.t.String(), "cannot convert JSON "+tokenName(c)+" to "+n.t.Kind.String())
}

func (n *jsonNode) coerceFail(s *scanner, start int) error {
	e := s.fail(n.t.String(), "cannot coerce string to "+n.t.Kind.String())
	e.Offset, e.Text = start, s.token(start)
	return e
}

func (n *jsonNode) decodeString(s *scanner, c byte) (any, error) {
	start := s.pos
	switch c {
	case '"':
		b, at, err := s.strSpan()
		if err != nil {
			return nil, err
		}
		if at < 0 {
			return n.boxString(s, string(b)), nil
		}
		return n.boxString(s, s.stringAt(at, at+len(b))), nil
	case '{', '[':
		if err := s.skip(); err != nil {
			return nil, err
		}
		// skip refused invalid UTF-8 in the strings, and JSON has no
		// other place for bytes past ASCII.
		return n.boxString(s, string(compactJSON(nil, s.data[start:s.pos]))), nil
	case 't', 'f':
		if err := s.skip(); err != nil {
			return nil, err
		}
		return n.boxString(s, s.stringAt(start, s.pos)), nil
	}
	if c == '-' || isDigit(c) {
		if _, _, err := s.number(); err != nil {
			return nil, err
		}
		return n.boxString(s, s.stringAt(start, s.pos)), nil
	}
	return nil, n.mismatch(s, c)
}

func (n *jsonNode) decodeBool(s *scanner, c byte) (any, error) {
	switch c {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return nil, n.mismatch(s, c)
}

// integerText returns the integer value of a JSON number or numeric string.
func (n *jsonNode) integer(s *scanner, c byte, bits int) (int64, error) {
	start := s.pos
	switch {
	case c == '-' || isDigit(c):
		if v, ok := s.plainInt(bits); ok {
			return v, nil
		}
		text, isInt, err := s.number()
		if err != nil {
			return 0, err
		}
		return n.numberToInt(s, start, text, isInt, bits)
	case c == '"':
		b, err := s.str()
		if err != nil {
			return 0, err
		}
		v, perr := strconv.ParseInt(string(b), 10, bits)
		if perr != nil {
			return 0, n.coerceFail(s, start)
		}
		return v, nil
	}
	return 0, n.mismatch(s, c)
}

func (n *jsonNode) numberToInt(s *scanner, start int, text []byte, isInt bool, bits int) (int64, error) {
	if isInt {
		if v, ok := parseIntBytes(text, bits); ok {
			return v, nil
		}
	} else if f, err := strconv.ParseFloat(string(text), 64); err == nil {
		limit := math.Ldexp(1, bits-1)
		if t := math.Trunc(f); t >= -limit && t < limit {
			return int64(t), nil
		}
	}
	e := s.fail(n.t.String(), "number out of range for "+n.t.Kind.String())
	e.Offset, e.Text = start, s.token(start)
	return 0, e
}

// parseIntBytes parses a JSON integer (optional '-', digits) that must fit
// in bits.
func parseIntBytes(b []byte, bits int) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		u = u*10 + uint64(c-'0')
	}
	limit := uint64(1) << (bits - 1)
	if neg {
		return -int64(u), u <= limit
	}
	return int64(u), u < limit
}

func (n *jsonNode) decodeInt32(s *scanner, c byte) (any, error) {
	v, err := n.integer(s, c, 32)
	if err != nil {
		return nil, err
	}
	switch n.t.Kind {
	case types.KindDate:
		return types.Date(v), nil
	case types.KindTime:
		return types.Time(v), nil
	}
	return int32(v), nil
}

func (n *jsonNode) decodeInt64(s *scanner, c byte) (any, error) {
	v, err := n.integer(s, c, 64)
	if err != nil {
		return nil, err
	}
	switch {
	case s.task == nil && n.t.Kind == types.KindTimestamp:
		return types.Timestamp(v), nil
	case s.task == nil:
		return v, nil
	case n.t.Kind == types.KindTimestamp:
		return boxes.Word(&s.task.boxes, n.box, types.Timestamp(v)), nil
	}
	return boxes.Int(&s.task.boxes, n.box, v), nil
}

func (n *jsonNode) decodeDouble(s *scanner, c byte) (any, error) {
	f, err := n.double(s, c)
	if err != nil {
		return nil, err
	}
	if s.task != nil {
		return boxes.Word(&s.task.boxes, n.box, f), nil
	}
	return f, nil
}

// double reads a DOUBLE: a JSON number or a string holding one.
func (n *jsonNode) double(s *scanner, c byte) (float64, error) {
	start := s.pos
	text, err := n.numberText(s, c)
	if err != nil {
		return 0, err
	}
	f, perr := strconv.ParseFloat(strings.TrimSpace(string(text)), 64)
	if perr != nil && !isRangeErr(perr) {
		return 0, n.coerceFail(s, start)
	}
	return f, nil
}

// boxString boxes a decoded STRING in the scanner's arena (or the
// task's).
func (n *jsonNode) boxString(s *scanner, v string) any {
	if s.task != nil {
		return boxes.String(&s.task.boxes, n.box, v)
	}
	return boxes.String(&s.arena, n.box, v)
}

// numberText reads a JSON number, or a string that should hold one, as
// text for a DOUBLE or DECIMAL field.
func (n *jsonNode) numberText(s *scanner, c byte) ([]byte, error) {
	switch {
	case c == '-' || isDigit(c):
		text, _, err := s.number()
		return text, err
	case c == '"':
		return s.str()
	}
	return nil, n.mismatch(s, c)
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func (n *jsonNode) decodeDecimal(s *scanner, c byte) (any, error) {
	start := s.pos
	text, err := n.numberText(s, c)
	if err != nil {
		return nil, err
	}
	d, derr := parseDecimal(string(text), n.t)
	if derr != nil {
		e := s.fail(n.t.String(), derr.Error())
		e.Offset, e.Text = start, s.token(start)
		return nil, e
	}
	return d, nil
}

func (n *jsonNode) decodeBytes(s *scanner, c byte) (any, error) {
	if c != '"' {
		return nil, n.mismatch(s, c)
	}
	start := s.pos
	b, err := s.str()
	if err != nil {
		return nil, err
	}
	out, ok := decodeBase64(b)
	if !ok {
		e := s.fail("base64 BYTES", "invalid base64")
		e.Offset, e.Text = start, s.token(start)
		return nil, e
	}
	return out, nil
}

// decodeBase64 accepts standard base64 with or without padding, as Java's
// Base64 decoder does.
func decodeBase64(b []byte) ([]byte, bool) {
	enc := base64.StdEncoding
	if len(b)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	out := make([]byte, enc.DecodedLen(len(b)))
	n, err := enc.Decode(out, b)
	return out[:n], err == nil
}

func (n *jsonNode) decodeArray(s *scanner, c byte) (any, error) {
	if c != '[' {
		return nil, n.mismatch(s, c)
	}
	s.pos++
	out := make([]any, 0, 4)
	if s.peek() == ']' {
		s.pos++
		return out, nil
	}
	for i := 0; ; i++ {
		v, err := n.elem.decode(s)
		if err != nil {
			return nil, prefixColumn(err, "["+strconv.Itoa(i)+"]")
		}
		out = append(out, v)
		if done, err := s.next(']'); done || err != nil {
			return out, err
		}
	}
}

func (n *jsonNode) decodeMap(s *scanner, c byte) (any, error) {
	if c != '{' {
		return nil, n.mismatch(s, c)
	}
	s.pos++
	out := make(map[string]any)
	if s.peek() == '}' {
		s.pos++
		return out, nil
	}
	for {
		if err := n.mapEntry(s, out); err != nil {
			return nil, err
		}
		if done, err := s.next('}'); done || err != nil {
			return out, err
		}
	}
}

// mapEntry decodes one "key": value pair of a MAP.
func (n *jsonNode) mapEntry(s *scanner, out map[string]any) error {
	if s.peek() != '"' {
		return s.syntax("object key")
	}
	kb, err := s.str()
	if err != nil {
		return err
	}
	key := string(kb)
	if err := s.expect(':'); err != nil {
		return err
	}
	v, err := n.elem.decode(s)
	if err != nil {
		return prefixColumn(err, "['"+key+"']")
	}
	out[key] = v
	return nil
}

func (n *jsonNode) decodeStruct(s *scanner, c byte) (any, error) {
	if c != '{' {
		return nil, n.mismatch(s, c)
	}
	vals := make([]any, len(n.obj.names))
	if err := n.obj.decodeInto(s, vals); err != nil {
		return nil, err
	}
	return &types.StructValue{Type: n.t, Values: vals}, nil
}
