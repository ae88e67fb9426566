package ast

// Pos is a position in the user's original statement text: 1-based line and
// column, and the 0-based byte offset. Every node keeps the position of its
// first token so errors can point into the text the user typed.
type Pos struct {
	Line, Col, Offset int
}
