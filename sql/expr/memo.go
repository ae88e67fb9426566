package expr

import (
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Share compiles cs again as one group in which every deterministic
// subexpression that occurs more than once (in one member or across
// members: a WHERE and the SELECT over the same row) gets a slot of a
// Memo, so that evaluating the group's members with one Memo per row
// computes it once. q14 repeats CAST(FORMAT_TIMESTAMP(date_time, 'HH')
// AS INT) four times, q21 LCASE(channel) five times and a REGEXP_EXTRACT
// in both WHERE and SELECT.
//
// The sharing is lazy: a slot is filled where its subexpression is first
// evaluated, so a CASE branch or the right side of AND/OR that is not
// evaluated today is not evaluated either; a later occurrence returns the
// value or error the first computed and reports again the function errors
// the first reported (to the later one's error log), so what the
// processing log sees is unchanged. Never shared: constants and column
// reads (nothing to save), subexpressions containing a volatile call
// (RANDOM, UUID, UNIX_TIMESTAMP, …) and anything inside a lambda body.
//
// out holds the members in cs's order, each with cs's error log;
// evaluated without a Memo (Eval) they compute everything as before.
// slots is the number of shared subexpressions; when it is 0 out is cs.
// Members must have been compiled over the same row layout.
func Share(cs []*Compiled) (out []*Compiled, slots int) {
	for _, c := range cs {
		if c == nil || c.src == nil {
			return cs, 0
		}
	}
	counts := &sharer{counts: map[string]int{}}
	for _, c := range cs {
		if _, err := c.recompile(counts); err != nil {
			return cs, 0
		}
	}
	assign := &sharer{slots: map[string]int{}}
	for k, n := range counts.counts {
		if n > 1 {
			assign.slots[k] = -1
		}
	}
	if len(assign.slots) == 0 {
		return cs, 0
	}
	out = make([]*Compiled, len(cs))
	for i, c := range cs {
		n, err := c.recompile(assign)
		if err != nil {
			return cs, 0
		}
		out[i] = n
	}
	return out, assign.next
}

// recompile compiles c's source again with s watching its subexpressions.
func (c *Compiled) recompile(s *sharer) (*Compiled, error) {
	cc := &compiler{scope: c.scope, reg: c.reg, share: s}
	n, err := cc.compile(c.src)
	if err != nil {
		return nil, err
	}
	return &Compiled{n: n, env: c.env, cols: c.cols, src: c.src, scope: c.scope, reg: c.reg}, nil
}

// sharer identifies the subexpressions of a group. In the counting pass
// (slots nil) it counts each subexpression's key; in the second it gives
// the repeated ones (slots[key] = -1 until their first occurrence) a
// slot and wraps their nodes in memoNode.
type sharer struct {
	counts map[string]int
	slots  map[string]int
	next   int // slots handed out
	// refs are the columns read so far, as index:type, in compile order;
	// volatile counts the volatile calls compiled so far. A
	// subexpression's are those added while it compiled.
	refs     []string
	volatile int
	// keys are the counted nodes' keys, for retract.
	keys map[*node]string
}

// retract uncounts n, whose parent evaluates it some other way (a fused
// SPLIT(s, d)[i] never evaluates the SPLIT), so that it alone does not
// make a slot that nothing reads.
func (s *sharer) retract(n *node) {
	if k, ok := s.keys[n]; ok && s.slots == nil {
		s.counts[k]--
	}
}

// shareMark is where a subexpression's compilation started.
type shareMark struct{ refs, volatile int }

func (s *sharer) begin() shareMark { return shareMark{refs: len(s.refs), volatile: s.volatile} }

// end counts or shares the compiled node n of e.
func (s *sharer) end(c *compiler, e ast.Expr, m shareMark, n *node) *node {
	if n.isConst || len(c.lambdaVars) > 0 || s.volatile != m.volatile {
		return n
	}
	switch e.(type) {
	case *ast.Literal, *ast.ColumnRef:
		return n
	}
	// The text alone could name different columns in different scopes;
	// the resolved columns and the type pin the computation down.
	key := ast.FormatExpr(e) + "\x00" + strings.Join(s.refs[m.refs:], ",") + "\x00" + n.typ.String()
	if s.slots == nil {
		s.counts[key]++
		if s.keys == nil {
			s.keys = map[*node]string{}
		}
		s.keys[n] = key
		return n
	}
	slot, ok := s.slots[key]
	if !ok {
		return n
	}
	if slot < 0 {
		slot = s.next
		s.next++
		s.slots[key] = slot
	}
	return memoNode(n, slot)
}

// memoNode evaluates n through slot of the evaluation's Memo, if any.
func memoNode(n *node, slot int) *node {
	inner := n.eval
	m := *n
	m.eval = func(row *types.Row, env *evalEnv) (any, error) {
		if env == nil || env.memo == nil {
			return inner(row, env)
		}
		return env.memo.eval(slot, inner, row, env)
	}
	m.i64, m.f64 = nil, nil
	return withFastPaths(&m)
}

// Memo holds one row's values of a shared group's subexpressions (see
// Share). It belongs to the one goroutine evaluating that group (a task's
// operators); Reset it before each row.
type Memo struct {
	gen   uint64
	slots []memoSlot
	// errs are the function errors reported during this row, so that a
	// shared value reports again the ones its computation reported.
	errs []error
}

type memoSlot struct {
	gen    uint64 // the row the value belongs to; stale unless Memo.gen
	v      any
	err    error
	lo, hi int // the function errors its computation reported, in errs
}

// NewMemo returns a memo for a group with slots shared subexpressions.
func NewMemo(slots int) *Memo { return &Memo{gen: 1, slots: make([]memoSlot, slots)} }

// Reset forgets the values of the previous row.
func (m *Memo) Reset() {
	m.gen++
	clear(m.errs)
	m.errs = m.errs[:0]
}

func (m *Memo) eval(slot int, inner evalFn, row *types.Row, env *evalEnv) (any, error) {
	if s := &m.slots[slot]; s.gen == m.gen {
		for i := s.lo; i < s.hi; i++ {
			env.report(m.errs[i])
		}
		return s.v, s.err
	}
	lo := len(m.errs)
	v, err := inner(row, env)
	m.slots[slot] = memoSlot{gen: m.gen, v: v, err: err, lo: lo, hi: len(m.errs)}
	return v, err
}

// Bound is a Compiled evaluating with a Memo: like the memo it belongs to
// one goroutine.
type Bound struct {
	c   *Compiled
	env evalEnv
}

// Bind returns c evaluating its shared subexpressions through m.
func (c *Compiled) Bind(m *Memo) *Bound {
	b := &Bound{c: c, env: evalEnv{memo: m}}
	if c.env != nil {
		b.env.log = c.env.log
	}
	return b
}

// Eval is Compiled.Eval through the memo.
func (b *Bound) Eval(row *types.Row) (v any, err error) {
	defer recoverEval(&err)
	return b.c.n.eval(row, &b.env)
}

// EvalBool is Compiled.EvalBool through the memo.
func (b *Bound) EvalBool(row *types.Row) (ok bool, err error) {
	defer recoverEval(&err)
	v, err := b.c.n.eval(row, &b.env)
	ok, _ = v.(bool)
	return ok, err
}
