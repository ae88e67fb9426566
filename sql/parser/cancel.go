package parser

import (
	"context"
	"fmt"
)

// checkEvery is how many steps of the parser's passes run between two
// looks at the context: often enough that a cancelled request stops
// within microseconds, rarely enough that the look costs nothing.
const checkEvery = 256

// WithContext makes Parse watch ctx: once it is done (the client left,
// the request timed out), the lexer, the rewriter and the converter stop
// at their next step and Parse returns an error wrapping ctx.Err().
// Default: context.Background(), never cancelled.
func WithContext(ctx context.Context) Option {
	return func(s *session) { s.ctx = ctx }
}

// check counts one step of a pass at token t and, every checkEvery
// steps, returns an error if the session's context is done.
func (s *session) check(t token) error {
	if s.ctx == nil {
		return nil
	}
	if s.steps++; s.steps%checkEvery != 0 {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("parsing stopped at line %d:%d: %w", t.P.Line, t.P.Col, err)
	}
	return nil
}
