package api

import "context"

// authorizationKey keys a request's Authorization header in its context.
type authorizationKey struct{}

// WithAuthorization returns ctx carrying the request's Authorization
// header, so that a server forwarding the request to a peer (a pull
// query routed to the host of a partition) sends the user's credentials
// along.
func WithAuthorization(ctx context.Context, header string) context.Context {
	return context.WithValue(ctx, authorizationKey{}, header)
}

// AuthorizationFrom returns the Authorization header WithAuthorization
// put in ctx, or "".
func AuthorizationFrom(ctx context.Context) string {
	s, _ := ctx.Value(authorizationKey{}).(string)
	return s
}
