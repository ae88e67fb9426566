package parser

import (
	"strconv"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// unitMillis returns the length of a duration unit in milliseconds.
func unitMillis(word string) (int64, bool) {
	switch word {
	case "MILLISECOND", "MILLISECONDS":
		return 1, true
	case "SECOND", "SECONDS":
		return 1000, true
	case "MINUTE", "MINUTES":
		return 60 * 1000, true
	case "HOUR", "HOURS":
		return 60 * 60 * 1000, true
	case "DAY", "DAYS":
		return 24 * 60 * 60 * 1000, true
	}
	return 0, false
}

// duration parses `n unit` and returns milliseconds.
func (p *parser) duration() (int64, error) {
	t := p.peek()
	if t.Kind != tNumber {
		return 0, p.expected("a duration such as 5 MINUTES")
	}
	n, err := strconv.ParseInt(t.Val, 10, 64)
	if err != nil {
		return 0, p.errAt(t, sqlerr.Syntax, "expected a whole number")
	}
	p.next()
	u := p.peek()
	ms, ok := unitMillis(u.Val)
	if u.Kind != tIdent || !ok {
		return 0, p.expected("a time unit (MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS)")
	}
	if n > maxDuration/ms {
		return 0, p.errAt(t, sqlerr.Syntax, "duration out of range: at most %d milliseconds", int64(maxDuration))
	}
	p.next()
	return n * ms, nil
}

// maxDuration bounds a duration (about 36 million years) so that sums of a
// few durations, such as size + grace, cannot overflow.
const maxDuration = 1 << 60

// window parses TUMBLING|HOPPING|SESSION|SLIDING (…) after WINDOW.
func (p *parser) window() (*ast.WindowExpr, error) {
	if n := p.peekN(1); p.at(tIdent) && n.Kind == tIdent && keywordSet(" TUMBLING HOPPING SESSION SLIDING ", n.Val) {
		if err := p.checkNotReserved(p.peek()); err != nil {
			return nil, err
		}
		p.next() // a window name, which ksqlDB accepts and ignores
	}
	t := p.next()
	w := &ast.WindowExpr{P: t.P, Grace: -1, Retention: -1}
	switch t.Val {
	case "TUMBLING":
		w.Kind = ast.Tumbling
	case "HOPPING":
		w.Kind = ast.Hopping
	case "SESSION":
		w.Kind = ast.Session
	case "SLIDING":
		w.Kind = ast.Sliding
	default:
		p.i--
		return nil, p.expected("TUMBLING, HOPPING, SESSION or SLIDING")
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	for first := true; !p.acceptPunct(")"); first = false {
		if !first {
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
		if err := p.windowOption(w, first); err != nil {
			return nil, err
		}
	}
	return w, p.checkWindow(w, t)
}

// windowOption parses one SIZE, ADVANCE BY, RETENTION or GRACE PERIOD
// option, or the bare gap of a SESSION window.
func (p *parser) windowOption(w *ast.WindowExpr, first bool) error {
	var err error
	switch {
	case p.accept("SIZE"):
		w.Size, err = p.duration()
	case p.accept("ADVANCE"):
		if err = p.expect("BY"); err == nil {
			w.Advance, err = p.duration()
		}
	case p.accept("RETENTION"):
		w.Retention, err = p.duration()
	case p.accept("GRACE"):
		w.Grace, err = p.gracePeriod()
	case first && w.Kind == ast.Session:
		w.Size, err = p.duration()
	default:
		err = p.expected("SIZE, ADVANCE BY, RETENTION or GRACE PERIOD")
	}
	return err
}

// checkWindow validates the options a window kind needs.
func (p *parser) checkWindow(w *ast.WindowExpr, at token) error {
	switch {
	case w.Size <= 0:
		return p.errAt(at, sqlerr.Syntax, "%s window needs a positive size", at.Val)
	case w.Kind == ast.Hopping && w.Advance <= 0:
		return p.errAt(at, sqlerr.Syntax, "HOPPING window needs ADVANCE BY")
	case w.Kind != ast.Hopping && w.Advance != 0:
		return p.errAt(at, sqlerr.Syntax, "ADVANCE BY only applies to HOPPING windows")
	case w.Kind == ast.Hopping && w.Advance > w.Size:
		return p.errAt(at, sqlerr.Semantic, "HOPPING window advance must not exceed its size")
	}
	return nil
}
