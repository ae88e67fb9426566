package peer

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// maxGetBody bounds a peer's answer to Get (a /tasks answer of many
// queries is some hundred KiB).
const maxGetBody = 16 << 20

// Get reads path (GET /tasks) on the server at endpoint as a peer:
// signed by auth like every inter-node request, with the user's
// Authorization header passed on ("" for none) so the peer checks the
// user too, as a forwarded pull query does. It returns the 200 answer's
// body; any other status is an error with the peer's message.
func Get(ctx context.Context, auth *Auth, endpoint, path, authorization string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	auth.Sign(req, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s on %s: %w", path, endpoint, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s on %s: %s", path, endpoint, remoteError(resp.Body, resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxGetBody+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s on %s: %w", path, endpoint, err)
	}
	if len(body) > maxGetBody {
		return nil, fmt.Errorf("GET %s on %s: the answer is over %d bytes", path, endpoint, maxGetBody)
	}
	return body, nil
}
