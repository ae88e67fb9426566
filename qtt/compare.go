package qtt

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/sqlstream/sqlstream/sql/types"
)

// doubleTolerance is how far apart two DOUBLE values may be and still
// match (absolute, or relative for magnitudes above 1).
const doubleTolerance = 1e-6

// Mismatch says where and how an actual value differs from the expected
// one; Path is "" at the top, then ".FIELD" and "[i]" steps.
type Mismatch struct {
	Path     string
	Expected any
	Actual   any
	Why      string
}

func (m *Mismatch) Error() string {
	at := m.Path
	if at == "" {
		at = "value"
	}
	exp, act := renderJSON(m.Expected), renderJSON(m.Actual)
	switch m.Why {
	case whyMissing:
		act = "no such field"
	case whyUnexpected:
		exp = "no such field"
	}
	return fmt.Sprintf("%s: %s: expected %s, got %s", at, m.Why, exp, act)
}

// Why texts of an object field present on one side only.
const (
	whyMissing    = "missing field"
	whyUnexpected = "unexpected field"
)

// CompareValues compares an expected JSON-ish value with an actual one.
// t, when known, is the SQL type the value was written with: it decides
// between exact DECIMAL comparison (scale included: 1.50 ≠ 1.5) and
// tolerant DOUBLE comparison. Object field names match case-insensitively.
// It returns nil when the values match.
func CompareValues(expected, actual any, t *types.Type) *Mismatch {
	return compareAt("", expected, actual, t)
}

func compareAt(path string, exp, act any, t *types.Type) *Mismatch {
	fail := func(why string) *Mismatch { return &Mismatch{Path: path, Expected: exp, Actual: act, Why: why} }
	if exp == nil || act == nil {
		if exp == nil && act == nil {
			return nil
		}
		return fail("null mismatch")
	}
	switch e := exp.(type) {
	case map[string]any:
		a, ok := act.(map[string]any)
		if !ok {
			return fail("expected an object")
		}
		return compareObjects(path, e, a, t)
	case []any:
		a, ok := act.([]any)
		if !ok {
			return fail("expected an array")
		}
		return compareArrays(path, e, a, t)
	case json.Number:
		a, ok := act.(json.Number)
		if !ok {
			return fail("expected a number")
		}
		if why := compareNumbers(e, a, t); why != "" {
			return fail(why)
		}
		return nil
	case string:
		if a, ok := act.(json.Number); ok && t != nil && t.Kind == types.KindDecimal {
			return compareAt(path, json.Number(e), a, t)
		}
		if exp != act {
			return fail("different values")
		}
		return nil
	default:
		if exp != act {
			return fail("different values")
		}
		return nil
	}
}

func compareObjects(path string, exp, act map[string]any, t *types.Type) *Mismatch {
	unmatched := make(map[string]bool, len(act))
	for k := range act {
		unmatched[k] = true
	}
	for _, k := range sortedMapKeys(exp) {
		ak, ok := matchField(k, unmatched)
		if !ok && exp[k] == nil && len(exp) == len(act) {
			// As ksqlDB's ExpectedRecordComparator: objects of the same size
			// match a missing field against an expected null.
			continue
		}
		if !ok {
			return &Mismatch{Path: path + "." + k, Expected: exp[k], Why: whyMissing}
		}
		delete(unmatched, ak)
		if m := compareAt(path+"."+k, exp[k], act[ak], memberType(t, k)); m != nil {
			return m
		}
	}
	if len(exp) == len(act) {
		return nil // unmatched actual fields stood in for expected nulls
	}
	for _, k := range sortedMapKeys(unmatched) {
		return &Mismatch{Path: path + "." + k, Actual: act[k], Why: whyUnexpected}
	}
	return nil
}

// matchField finds the actual field for expected name k among the
// unmatched ones: the exact name first (STRUCT<FOO, `foo`> has both), else
// the first, in sorted order, that equals it ignoring case.
func matchField(k string, unmatched map[string]bool) (string, bool) {
	if unmatched[k] {
		return k, true
	}
	for _, ak := range sortedMapKeys(unmatched) {
		if strings.EqualFold(ak, k) {
			return ak, true
		}
	}
	return "", false
}

func compareArrays(path string, exp, act []any, t *types.Type) *Mismatch {
	var elem *types.Type
	if t != nil && t.Kind == types.KindArray {
		elem = t.Elem
	}
	for i := 0; i < len(exp) && i < len(act); i++ {
		if m := compareAt(fmt.Sprintf("%s[%d]", path, i), exp[i], act[i], elem); m != nil {
			return m
		}
	}
	if len(exp) != len(act) {
		return &Mismatch{Path: path, Expected: exp, Actual: act,
			Why: fmt.Sprintf("expected %d elements, got %d", len(exp), len(act))}
	}
	return nil
}

// memberType is the type of field/key name inside t (STRUCT or MAP).
func memberType(t *types.Type, name string) *types.Type {
	if t == nil {
		return nil
	}
	switch t.Kind {
	case types.KindStruct:
		if i := t.Field(name); i >= 0 {
			return t.Fields[i].Type
		}
	case types.KindMap:
		return t.Elem
	}
	return nil
}

// compareNumbers returns "" when the numbers match under t's rules.
func compareNumbers(exp, act json.Number, t *types.Type) string {
	ed, _, err1 := apd.NewFromString(exp.String())
	ad, _, err2 := apd.NewFromString(act.String())
	if err1 != nil || err2 != nil {
		return "malformed number"
	}
	if t != nil && t.Kind == types.KindDecimal {
		if ed.Cmp(ad) != 0 || ed.Exponent != ad.Exponent {
			return "decimals differ (value or scale)"
		}
		return ""
	}
	if ed.Cmp(ad) == 0 {
		return ""
	}
	if t != nil && t.Kind != types.KindDouble {
		return "numbers differ"
	}
	ef, _ := ed.Float64()
	af, _ := ad.Float64()
	if math.Abs(ef-af) <= doubleTolerance*math.Max(1, math.Abs(ef)) {
		return ""
	}
	return "numbers differ"
}

func sortedMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// renderJSON prints a JSON-ish value compactly for messages.
func renderJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
