package physical

import (
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// rowEval evaluates an expression against a row: an *expr.Compiled, or an
// *expr.Bound sharing subexpressions through the task's memo.
type rowEval interface {
	Eval(row *types.Row) (any, error)
}

// sharedExprs is a filter's condition and the projection that follows it
// (or either alone) compiled as one expr.Share group: a subexpression
// they repeat (q21's REGEXP_EXTRACT in WHERE and SELECT, q14's hour CASE)
// is computed once per row. The builder fills it before any task is
// built; the tasks only read it.
type sharedExprs struct {
	filter  *planner.Filter
	project *planner.Project
	// pred and cols are the group's members (pred nil without a filter,
	// cols nil without a projection); slots == 0: nothing is shared and
	// they are the planner's expressions.
	pred  *expr.Compiled
	cols  []*expr.Compiled
	slots int
}

// share compiles the group of what s holds.
func (s *sharedExprs) share() {
	var members []*expr.Compiled
	if s.filter != nil {
		members = append(members, s.filter.Pred)
	}
	if s.project != nil {
		for _, c := range s.project.Columns {
			members = append(members, c.Eval)
		}
	}
	out, slots := expr.Share(members)
	s.slots = slots
	if s.filter != nil {
		s.pred, out = out[0], out[1:]
	}
	if s.project != nil {
		s.cols = out
	}
}

// memo returns the task's memo of the group, nil when nothing is shared:
// the filter and the projection of one task evaluate one row after the
// other, on the task's goroutine, through one memo.
func (s *sharedExprs) memo(env *TaskEnv) *expr.Memo {
	if s.slots == 0 {
		return nil
	}
	if env.memos == nil {
		env.memos = map[*sharedExprs]*expr.Memo{}
	}
	m, ok := env.memos[s]
	if !ok {
		m = expr.NewMemo(s.slots)
		env.memos[s] = m
	}
	return m
}
