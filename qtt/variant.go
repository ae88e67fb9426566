package qtt

import (
	"regexp"
	"sort"
	"strings"
)

// Variant is one runnable expansion of a Test: one entry of "format" and
// one of "config" substituted into statements and properties.
type Variant struct {
	File       string // display name of the file
	Format     string // the format the file was read as (QTTFormat, or a Format's Name)
	Name       string // test name, plus " - FORMAT" / " - CONFIG" per expansion
	Statements []string
	Inputs     []RecordSpec
	Outputs    []RecordSpec
	Properties map[string]string
	Expect     *ExpectedException
	Post       *Post
	Topics     []TopicSpec
	// Disabled is set for tests marked "enabled": false.
	Disabled bool
	// Hard lists why the variant is not "easy" (formats needing a schema
	// registry, UDFs from jars); empty when it is easy.
	Hard []string
	// LoadErr stands for a whole file that did not parse: the variant
	// fails with it without running.
	LoadErr error
}

// ID is "file/name", the string --filter matches.
func (v *Variant) ID() string { return v.File + "/" + v.Name }

// Expand turns every test of f into its variants, in file order.
func Expand(f *File) []*Variant {
	var out []*Variant
	for i := range f.Tests {
		out = append(out, ExpandTest(f.Path, &f.Tests[i])...)
	}
	return out
}

// ExpandTest turns t, a test of file, into its variants.
func ExpandTest(file string, t *Test) []*Variant {
	formats := orOne(t.Format)
	configs := orOne(t.Config)
	var out []*Variant
	for _, fm := range formats {
		for _, cf := range configs {
			out = append(out, newVariant(file, t, fm, cf))
		}
	}
	return out
}

// orOne returns xs, or a single empty entry when there is none.
func orOne(xs []string) []string {
	if len(xs) == 0 {
		return []string{""}
	}
	return xs
}

func newVariant(file string, t *Test, format, config string) *Variant {
	sub := strings.NewReplacer("{FORMAT}", format, "{CONFIG}", config)
	v := &Variant{
		File:     file,
		Name:     variantName(t.Name, format, config),
		Inputs:   t.Inputs,
		Outputs:  t.Outputs,
		Expect:   t.ExpectedException,
		Post:     t.Post,
		Topics:   t.Topics,
		Disabled: t.Enabled != nil && !*t.Enabled,
	}
	for _, s := range t.Statements {
		v.Statements = append(v.Statements, sub.Replace(s))
	}
	v.Properties = make(map[string]string, len(t.Properties))
	for k, p := range t.Properties {
		v.Properties[k] = sub.Replace(propertyString(p))
	}
	v.Hard = hardReasons(v)
	return v
}

func variantName(name, format, config string) string {
	for _, part := range []string{format, config} {
		if part != "" {
			name += " - " + part
		}
	}
	return name
}

// Formats and functions that make a variant "hard": they need a schema
// registry or UDF jars that ksqlDB's test suite ships.
var (
	hardFormatRe = regexp.MustCompile(`(?i)\b(AVRO|PROTOBUF_NOSR|PROTOBUF|JSON_SR)\b`)
	formatPropRe = regexp.MustCompile(`(?i)\b(VALUE_|KEY_)?FORMAT\s*=\s*'([A-Z_]+)'`)
	schemaIDRe   = regexp.MustCompile(`(?i)\b(KEY|VALUE)_SCHEMA_(ID|FULL_NAME)\b`)
	jarUDFRe     = regexp.MustCompile(`(?i)\b(` + strings.Join(testJarUDFs, "|") + `)\s*\(`)
)

// testJarUDFs are the functions QTT files call that are not ksqlDB
// built-ins but come from jars its test suite loads: the test UDFs,
// UDAFs and UDTFs of ksqldb-engine's tests (TEST_UDF … WHENRESULT) and
// udf-example.jar, the example extension jar of the functional tests
// (TOSTRUCT). A variant calling one needs those jars, so --only-easy
// skips it; the engine does not fake them.
var testJarUDFs = []string{
	"TEST_UDF", "TEST_UDAF", "TEST_UDTF", "BAD_UDF",
	"VAR_ARG", "GENERIC_VAR_ARG", "MID_VAR_ARG", "MULTI_ARG", "FOUR_ARG", "FIVE_ARG",
	"OBJ_COL_ARG", "SUM_LIST", "WHENCONDITION", "WHENRESULT",
	"TOSTRUCT",
}

// hardReasons lists, sorted and deduplicated, what keeps v from being easy.
func hardReasons(v *Variant) []string {
	set := map[string]bool{}
	for _, s := range v.Statements {
		for _, m := range formatPropRe.FindAllStringSubmatch(s, -1) {
			if hardFormatRe.MatchString(m[2]) {
				set["format "+strings.ToUpper(m[2])] = true
			}
		}
		if schemaIDRe.MatchString(s) {
			set["schema registry"] = true
		}
		for _, m := range jarUDFRe.FindAllStringSubmatch(s, -1) {
			set["UDF "+strings.ToUpper(m[1])+" from a jar"] = true
		}
	}
	for k, p := range v.Properties {
		if strings.Contains(k, "format") && hardFormatRe.MatchString(p) {
			set["format "+strings.ToUpper(hardFormatRe.FindString(p))] = true
		}
	}
	for _, t := range v.Topics {
		if t.NeedsSchemaRegistry() {
			set["schema registry"] = true
		}
		for _, f := range []*FormatSpec{t.KeyFormat, t.ValueFormat, t.Format} {
			if f != nil && hardFormatRe.MatchString(f.Format) {
				set["format "+strings.ToUpper(f.Format)] = true
			}
		}
	}
	return sortedKeys(set)
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
