package expr

import "github.com/sqlstream/sqlstream/sql/types"

// newRowEvaluator evaluates cs (a WHERE first when filtered, then the
// SELECT items into out) as one Share group through one memo.
func newRowEvaluator(cs []*Compiled) func(row *types.Row, filtered bool, out []any) error {
	group, slots := Share(cs)
	m := NewMemo(slots)
	bound := make([]*Bound, len(group))
	for i, c := range group {
		bound[i] = c.Bind(m)
	}
	return func(row *types.Row, filtered bool, out []any) error {
		m.Reset()
		items := bound
		if filtered {
			ok, err := bound[0].EvalBool(row)
			if err != nil || !ok {
				return err
			}
			items = bound[1:]
		}
		for i, c := range items {
			v, err := c.Eval(row)
			if err != nil {
				return err
			}
			out[i] = v
		}
		return nil
	}
}
