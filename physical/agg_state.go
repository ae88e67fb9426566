package physical

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// aggState is the serialization of an aggregate store's values (after
// their 8-byte timestamp), so of its changelog's: one column per
// accumulator, in the query's value format (the first source's, under
// the changelog's own subject; see internalFormats.aggStateSpec).
//
// Each accumulator's column is named after its call, not its position
// (accumulatorName): KSQL_AGG_<FUNCTION>_<hash of the call's text and
// its state type>. ksqlDB numbers them KSQL_AGG_VARIABLE_n; a name that
// follows the call is what lets an upgraded query keep its state: the
// codecs of every format but the positional ones (DELIMITED, KAFKA,
// PROTOBUF_NOSR) read columns by name, so a row written before an
// aggregate was added reads that column as missing, and Decode gives it
// the aggregate's initial value; a dropped aggregate's column is not
// read and leaves the row at its next update. Rows of either layout may
// sit side by side in the store and its changelog, so a restore after
// an upgrade needs nothing but the new plan (no version recorded, no
// rewrite of the store). The same call in another position keeps its
// accumulator.
//
// Queries of commands recorded before (Options.LegacyStoreJSON) keep
// JSON columns STATE_0…n by position.
type aggState struct {
	calls []planner.AggCall
	cols  []types.Column
	codec format.Codec
}

// stateFormat is how an aggregate store's values are written.
type stateFormat struct {
	spec   format.Spec
	legacy bool // STATE_i columns (Options.LegacyStoreJSON)
}

// newAggState compiles the codec of n's accumulators.
func newAggState(n *planner.Aggregate, f stateFormat) (*aggState, error) {
	cols := accumulatorColumns(n, f.legacy)
	c, err := format.NewValueCodec(f.spec, cols)
	if err != nil {
		return nil, fmt.Errorf("%s values: %w", aggregateStore, err)
	}
	return &aggState{calls: n.Calls, cols: cols, codec: c}, nil
}

// Encode appends the accumulators accs to buf.
func (s *aggState) Encode(buf []byte, accs []any) ([]byte, error) { return s.codec.Encode(buf, accs) }

// Decode reads a stored row's accumulators into accs; an accumulator the
// row does not carry (its aggregate was added by an upgrade) starts from
// its initial value.
func (s *aggState) Decode(b []byte, accs []any) error {
	clear(accs) // a codec leaves the columns a row lacks as they were
	if err := s.codec.Decode(b, accs); err != nil {
		return err
	}
	for i, a := range accs {
		if a == nil {
			accs[i] = s.calls[i].Agg.Init()
		}
	}
	return nil
}

// accumulatorColumns are the columns of n's accumulators: named after
// their calls, or STATE_i for legacy stores.
func accumulatorColumns(n *planner.Aggregate, legacy bool) []types.Column {
	cols := make([]types.Column, len(n.Calls))
	seen := map[string]int{}
	for i, c := range n.Calls {
		name := "STATE_" + strconv.Itoa(i)
		if !legacy {
			name = accumulatorName(c)
			if k := seen[name]; k > 0 {
				name += "_" + strconv.Itoa(k)
			}
			seen[accumulatorName(c)]++
		}
		cols[i] = types.Column{Name: name, Type: c.Agg.StateType()}
	}
	return cols
}

// accumulatorName names c's accumulator column after the call's text
// and its state type: the same call over the same types has the same
// column in every version of a query, a changed argument or argument
// type another.
func accumulatorName(c planner.AggCall) string {
	h := fnv.New32a()
	h.Write([]byte(accumulatorIdentity(c)))
	return fmt.Sprintf("KSQL_AGG_%s_%08X", identifierPart(c.Call.Name), h.Sum32())
}

// accumulatorIdentity is what an accumulator's column name is derived
// from: the call as written (canonical) and its state type.
func accumulatorIdentity(c planner.AggCall) string {
	return ast.FormatExpr(c.Call) + " " + c.Agg.StateType().String()
}

// identifierPart keeps the letters, digits and underscores of s (upper
// case), so the name is a valid Avro and protobuf field name.
func identifierPart(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r == '_' || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// aggStateSpec is the format of an aggregate store's values: the first
// source's value format under the changelog's value subject (JSON where
// that format cannot hold the accumulators, and for legacy stores;
// protobuf with wrapped scalars, so a NULL accumulator stays NULL).
func (f internalFormats) aggStateSpec(src format.Spec, changelog string, n *planner.Aggregate) stateFormat {
	if f.legacyStore {
		return stateFormat{spec: format.Spec{Name: format.JSON}, legacy: true}
	}
	return stateFormat{spec: f.nullsKept(src, changelog, accumulatorColumns(n, false))}
}

// positionalFormat reports whether a format reads a value's columns by
// position rather than by name: an aggregate store in it cannot gain or
// lose accumulators.
func positionalFormat(name string) bool {
	return name == format.Delimited || name == format.Kafka || name == format.ProtobufNoSR
}
