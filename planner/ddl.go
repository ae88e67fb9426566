package planner

import (
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Pseudo column names: they come from record metadata and may not be
// declared as columns.
var pseudoColumns = map[string]bool{
	"ROWTIME": true, "ROWPARTITION": true, "ROWOFFSET": true,
	"WINDOWSTART": true, "WINDOWEND": true,
}

// IsPseudoColumn reports whether name is a system column.
func IsPseudoColumn(name string) bool { return pseudoColumns[name] }

// CreateSource turns CREATE STREAM/TABLE into a Source. It validates
// columns, keys and WITH properties but does not touch Kafka: the caller
// checks or creates the topic (Partitions > 0 means "create if missing").
func (p *Planner) CreateSource(s *ast.CreateSource) (*Source, error) {
	old, exists := p.Catalog.Get(s.Name)
	if s.OrReplace && (s.Source || (exists && old.ReadOnly)) {
		return nil, sqlerr.New(sqlerr.Semantic, s.P, "Cannot add %s '%s': CREATE OR REPLACE is not supported on source %ss.",
			strings.ToLower(s.Kind.String()), s.Name, strings.ToLower(s.Kind.String()))
	}
	if exists && old.Kind != s.Kind {
		return nil, sqlerr.New(sqlerr.Exists, s.P, "Cannot add %s '%s': A %s with the same name already exists",
			strings.ToLower(s.Kind.String()), s.Name, strings.ToLower(old.Kind.String()))
	}
	if exists && !s.OrReplace && !s.IfNotExists {
		return nil, sqlerr.New(sqlerr.Exists, s.P, "Cannot add %s '%s': A %s with the same name already exists",
			strings.ToLower(s.Kind.String()), s.Name, strings.ToLower(s.Kind.String()))
	}
	w, err := newWithProps(s.Props)
	if err != nil {
		return nil, err
	}
	schema, err := columnSchema(s)
	if err != nil {
		return nil, err
	}
	src := &Source{Name: s.Name, Kind: s.Kind, Schema: schema, ReadOnly: s.Source, Global: s.Global, SQL: s.Text()}
	topic, pos, ok := w.str("KAFKA_TOPIC")
	if !ok {
		return nil, sqlerr.New(sqlerr.Semantic, s.P, "Missing required property \"KAFKA_TOPIC\" which has no default value")
	}
	if err := validTopic(topic, pos); err != nil {
		return nil, err
	}
	src.Topic = topic
	if err := p.applyCommon(src, w, nil); err != nil {
		return nil, err
	}
	if err := p.inferColumns(src, s.P); err != nil {
		return nil, err
	}
	// As ksqlDB, TIMESTAMP='col' may name an inferred column: it is
	// checked once the registry's columns are in the schema.
	if err := p.applyTimestamp(src, w); err != nil {
		return nil, err
	}
	if err := p.validateSource(src, s.P); err != nil {
		return nil, err
	}
	if exists && s.OrReplace {
		return src, checkUpgrade(old, src, s.P)
	}
	return src, nil
}

func columnSchema(s *ast.CreateSource) (*types.Schema, error) {
	var keys, vals []types.Column
	seen := map[string]bool{}
	headers := headerKeys{}
	for _, c := range s.Columns {
		if seen[c.Name] {
			return nil, sqlerr.New(sqlerr.Semantic, c.P, "Duplicate column names: %s", c.Name)
		}
		seen[c.Name] = true
		if pseudoColumns[c.Name] {
			return nil, sqlerr.New(sqlerr.Semantic, c.P, "'%s' is a reserved column name. You cannot use it as a name for a column.", c.Name)
		}
		col := types.Column{Name: c.Name, Type: c.Type}
		switch c.Constraint {
		case ast.KeyColumn:
			if s.Kind == ast.Table {
				return nil, sqlerr.New(sqlerr.Semantic, c.P, "Column `%s` is a 'KEY' column: please use 'PRIMARY KEY' for tables.\nTables have PRIMARY KEYs, which are unique and NON NULL.\nStreams have KEYs, which have no uniqueness or NON NULL constraints.", c.Name)
			}
			col.NS = types.KeyNS
			keys = append(keys, col)
			continue
		case ast.PrimaryKeyColumn:
			if s.Kind == ast.Stream {
				return nil, sqlerr.New(sqlerr.Semantic, c.P, "Column `%s` is a 'PRIMARY KEY' column: please use 'KEY' for streams.\nTables have PRIMARY KEYs, which are unique and NON NULL.\nStreams have KEYs, which have no uniqueness or NON NULL constraints.", c.Name)
			}
			col.NS = types.KeyNS
			keys = append(keys, col)
			continue
		case ast.HeadersColumn, ast.HeaderColumn:
			if err := checkHeaderType(c); err != nil {
				return nil, err
			}
			if err := headers.add(c); err != nil {
				return nil, err
			}
			col.NS = types.HeaderNS
			col.HeaderKey = c.HeaderKey
		}
		vals = append(vals, col)
	}
	return &types.Schema{Columns: append(keys, vals...)}, nil
}

// headerKeys are the headers a schema's columns read so far: "" for a
// HEADERS column (every header), else the key of a HEADER('key') column.
type headerKeys map[string]bool

// add refuses, as ksqlDB's schema builder does, a header column after a
// HEADERS column (it already reads every header) and a second column of
// one header key; a HEADERS column after HEADER('key') columns is fine.
func (h headerKeys) add(c ast.ColumnDef) error {
	if h[""] {
		return sqlerr.New(sqlerr.Semantic, c.P, "Schema already contains a HEADERS column.")
	}
	key := ""
	if c.Constraint == ast.HeaderColumn {
		key = c.HeaderKey
		if h[key] {
			return sqlerr.New(sqlerr.Semantic, c.P, "Schema already contains a HEADER('%s') column.", key)
		}
	}
	h[key] = true
	return nil
}

// headersType is the type a HEADERS column must have.
func headersType() *types.Type {
	return types.ArrayOf(types.StructOf(types.Field{Name: "KEY", Type: types.StringType}, types.Field{Name: "VALUE", Type: types.BytesType}))
}

func checkHeaderType(c ast.ColumnDef) error {
	if c.Constraint == ast.HeaderColumn {
		if c.Type.Kind != types.KindBytes {
			return sqlerr.New(sqlerr.Type, c.P, "Invalid type for HEADER('%s') column: expected BYTES, got %s", c.HeaderKey, c.Type)
		}
		return nil
	}
	if want := headersType(); !c.Type.Equal(want) {
		return sqlerr.New(sqlerr.Type, c.P, "Invalid type for HEADERS column: expected %s, got %s", want, c.Type)
	}
	return nil
}

// applyCommon applies the WITH properties shared by CREATE and CREATE AS
// SELECT: formats, partitions, replicas. from is the source a CREATE AS
// SELECT reads (nil for CREATE), whose formats are inherited. TIMESTAMP is
// the caller's (applyTimestamp): CREATE checks it only after inferring
// columns from the registry, as the column it names may be one of them.
func (p *Planner) applyCommon(src *Source, w *withProps, from *Source) error {
	if err := p.applyFormats(src, w, from); err != nil {
		return err
	}
	if err := checkFormatProps(src, w); err != nil {
		return err
	}
	if n, ok, err := w.integer("PARTITIONS"); err != nil {
		return err
	} else if ok {
		if n <= 0 {
			return sqlerr.New(sqlerr.Semantic, posOf(w, "PARTITIONS"), "Invalid number of partitions: %d", n)
		}
		src.Partitions = int32(n)
	}
	if n, ok, err := w.integer("REPLICAS"); err != nil {
		return err
	} else if ok {
		src.Replicas = int16(n)
	}
	if err := p.applyWindowType(src, w); err != nil {
		return err
	}
	return applyHistoryRetention(src, w)
}

func posOf(w *withProps, name string) ast.Pos {
	if pr, ok := w.props.Get(name); ok {
		return pr.P
	}
	return ast.Pos{}
}

func (p *Planner) applyFormats(src *Source, w *withProps, from *Source) error {
	fmtAll, fpos, hasAll := w.str("FORMAT")
	keyF, kpos, hasKey := w.str("KEY_FORMAT")
	valF, vpos, hasVal := w.str("VALUE_FORMAT")
	if hasAll && (hasKey || hasVal) {
		other := "VALUE_FORMAT"
		if hasKey {
			other = "KEY_FORMAT"
		}
		return sqlerr.New(sqlerr.Semantic, fpos, "Cannot supply both '%s' and 'FORMAT' properties, as 'FORMAT' sets both key and value formats.\nEither use just 'FORMAT', or use 'KEY_FORMAT' and 'VALUE_FORMAT'.", other)
	}
	if hasAll {
		keyF, kpos, hasKey = fmtAll, fpos, true
		valF, vpos, hasVal = fmtAll, fpos, true
	}
	switch {
	case hasKey:
	case from != nil:
		keyF, hasKey = from.KeyFormat.Name, true
	default:
		keyF, hasKey = p.Defaults.KeyFormat, true
	}
	switch {
	case hasVal:
	case from != nil:
		valF, hasVal = from.ValueFormat.Name, true
	case p.Defaults.ValueFormat != "":
		valF, hasVal = p.Defaults.ValueFormat, true
	default:
		return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "Statement is missing the 'VALUE_FORMAT' property from the WITH clause.\nEither provide one or set a default via the 'ksql.persistence.default.format.value' config.")
	}
	var err error
	if src.KeyFormat, err = formatSpec(keyF, kpos, w, "KEY_DELIMITER", nil); err != nil {
		return err
	}
	wrap, hasWrap, err := w.boolean("WRAP_SINGLE_VALUE")
	if err != nil {
		return err
	}
	var wrapPtr *bool
	if hasWrap {
		wrapPtr = &wrap
	} else if p.Defaults.WrapSingle != nil && len(valueColumns(src.Schema)) == 1 {
		wrapPtr = p.Defaults.WrapSingle
	}
	if src.ValueFormat, err = formatSpec(valF, vpos, w, "VALUE_DELIMITER", wrapPtr); err != nil {
		return err
	}
	if from != nil && !w.has("VALUE_DELIMITER") && src.ValueFormat.Name == from.ValueFormat.Name {
		src.ValueFormat.Delimiter = from.ValueFormat.Delimiter
	}
	if from != nil && !w.has("KEY_DELIMITER") && src.KeyFormat.Name == from.KeyFormat.Name {
		src.KeyFormat.Delimiter = from.KeyFormat.Delimiter
	}
	return nil
}

func formatSpec(name string, pos ast.Pos, w *withProps, delimProp string, wrap *bool) (format.Spec, error) {
	spec := format.Spec{Name: strings.ToUpper(name), WrapSingle: wrap}
	if d, dpos, ok := w.str(delimProp); ok {
		r, err := format.ParseDelimiter(delimProp, d)
		if err != nil {
			return spec, atPos(err, dpos)
		}
		spec.Delimiter = r
	}
	if !knownFormats[spec.Name] {
		return spec, sqlerr.New(sqlerr.Semantic, pos, "Unknown format: %s", name)
	}
	return spec, applySchemaProps(&spec, w, strings.TrimSuffix(delimProp, "_DELIMITER"))
}

func (p *Planner) applyTimestamp(src *Source, w *withProps) error {
	col, pos, ok := w.str("TIMESTAMP")
	if !ok {
		if _, fpos, has := w.str("TIMESTAMP_FORMAT"); has {
			return sqlerr.New(sqlerr.Semantic, fpos, "TIMESTAMP_FORMAT requires TIMESTAMP to name a column")
		}
		return nil
	}
	name := normalizeIdent(col)
	i := src.Schema.Find(name)
	if i < 0 {
		return sqlerr.New(sqlerr.Unknown, pos, "The TIMESTAMP column set in the WITH clause does not exist in the schema: '%s'", name)
	}
	t := src.Schema.Columns[i].Type.Kind
	tsFormat, _, hasFormat := w.str("TIMESTAMP_FORMAT")
	switch {
	case t == types.KindBigint || t == types.KindTimestamp:
	case t == types.KindString && hasFormat:
	case t == types.KindString:
		return sqlerr.New(sqlerr.Semantic, pos, "A String timestamp field has been specified without also specifying the TIMESTAMP_FORMAT")
	default:
		return sqlerr.New(sqlerr.Type, pos, "Timestamp column, `%s`, should be LONG(INT64), TIMESTAMP, or a String with a timestamp_format specified.", name)
	}
	src.TimestampColumn, src.TimestampFormat = name, tsFormat
	return nil
}

// normalizeIdent applies the identifier case rule to a name given inside a
// string (e.g. TIMESTAMP='col'): backticked keeps case, otherwise upper.
func normalizeIdent(s string) string {
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return s[1 : len(s)-1]
	}
	return strings.ToUpper(s)
}

func (p *Planner) applyWindowType(src *Source, w *withProps) error {
	wt, pos, ok := w.str("WINDOW_TYPE")
	if !ok {
		return nil
	}
	info := &WindowInfo{}
	switch strings.ToUpper(wt) {
	case "TUMBLING":
		info.Kind = ast.Tumbling
	case "HOPPING":
		info.Kind = ast.Hopping
	case "SESSION":
		info.Kind = ast.Session
	default:
		return sqlerr.New(sqlerr.Semantic, pos, "Unknown WINDOW_TYPE '%s': expected SESSION, HOPPING or TUMBLING", wt)
	}
	size, spos, hasSize := w.str("WINDOW_SIZE")
	if info.Kind != ast.Session {
		if !hasSize {
			return sqlerr.New(sqlerr.Semantic, pos, "Tumbling and Hopping window types should set WINDOW_SIZE in the WITH clause.")
		}
		d, err := ParseDuration(size)
		if err != nil {
			return sqlerr.New(sqlerr.Semantic, spos, "Invalid WINDOW_SIZE '%s': %v", size, err)
		}
		info.Size = d
	} else if hasSize {
		return sqlerr.New(sqlerr.Semantic, spos, "'WINDOW_SIZE' should not be set for SESSION windows.")
	}
	src.Window = info
	return nil
}

// columnsText lists columns as ksqlDB's messages do: `K` INTEGER KEY, ….
func columnsText(cols []types.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = "`" + c.Name + "` " + c.Type.String()
		if c.NS == types.KeyNS {
			parts[i] += " KEY"
		}
	}
	return strings.Join(parts, ", ")
}

func (p *Planner) validateSource(src *Source, pos ast.Pos) error {
	if err := p.bindRegistry(src, pos); err != nil {
		return err
	}
	if len(src.Schema.Columns) == 0 {
		return sqlerr.New(sqlerr.Semantic, pos, "The statement does not define any columns.")
	}
	keys := src.Schema.Keys()
	if src.Kind == ast.Table && len(keys) == 0 {
		return sqlerr.New(sqlerr.Semantic, pos, "Tables require a PRIMARY KEY. Please define the PRIMARY KEY.\nUse a partial schema to define the primary key and still load the value columns from the Schema Registry, for example:\n   CREATE TABLE %s (ID INT PRIMARY KEY) WITH (...);", src.Name)
	}
	if src.Windowed() && len(keys) == 0 {
		return sqlerr.New(sqlerr.Semantic, pos, "Windowed sources require a key column.")
	}
	if src.KeyFormat.Name == "NONE" && len(keys) > 0 {
		return sqlerr.New(sqlerr.Semantic, pos, "The 'NONE' format can only be used when no columns are defined. Got: [%s]", columnsText(keys))
	}
	if _, err := format.NewKeyCodec(src.KeyFormat, keys); err != nil {
		return sqlerr.New(sqlerr.Semantic, pos, "%v", err)
	}
	if _, err := format.NewValueCodec(src.ValueFormat, valueColumns(src.Schema)); err != nil {
		return sqlerr.New(sqlerr.Semantic, pos, "%v", err)
	}
	return nil
}

// valueColumns returns the columns serialized in the record value (header
// columns excluded).
func valueColumns(s *types.Schema) []types.Column {
	var out []types.Column
	for _, c := range s.Columns {
		if c.NS == types.ValueNS {
			out = append(out, c)
		}
	}
	return out
}

// atPos gives a position-less SQL error the position of the clause that
// caused it.
func atPos(err error, pos ast.Pos) error {
	if se, ok := err.(*sqlerr.Error); ok && se.Pos.Line == 0 {
		cp := *se
		cp.Pos = pos
		return &cp
	}
	return err
}
