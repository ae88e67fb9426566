package ast

import "strings"

// formatRight writes a join's right relation, with its FOR SYSTEM_TIME AS
// OF clause between the name and the alias and its GRACE PERIOD after.
func formatRight(b *strings.Builder, j *Join) {
	ref, ok := j.Right.(*TableRef)
	if j.AsOf == nil || !ok {
		formatRelation(b, j.Right)
		return
	}
	b.WriteString(QuoteName(ref.Name) + " FOR SYSTEM_TIME AS OF ")
	formatExpr(b, j.AsOf.Time)
	if ref.Alias != "" {
		b.WriteString(" AS " + QuoteName(ref.Alias))
	}
	if j.AsOf.Grace >= 0 {
		b.WriteString(" GRACE PERIOD " + FormatDuration(j.AsOf.Grace))
	}
}
