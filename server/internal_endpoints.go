package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/sqlstream/sqlstream/api"
)

// Peering is an optional Engine extension: the inter-node endpoints of
// servers sharing a service id. Every inter-node request carries a
// signature header (PeerHeaderName) the engine verifies; without a valid
// one /heartbeat and /lag answer 400 (40005, inter-node only) and so
// does a /query-stream request carrying ksqlDB's internal request
// properties (a forwarded pull query). Without Peering these requests
// are refused the same way.
type Peering interface {
	// VerifyPeer checks the signature header value over method, path and
	// body.
	VerifyPeer(method, path, signature string, body []byte) error
	Heartbeat(api.HeartbeatMessage)
	LagReport(api.LagReportingMessage)
	// PeerQuery runs a forwarded pull query over the listed partitions
	// ("0,2") of the local state only.
	PeerQuery(ctx context.Context, sql string, props map[string]any, partitions string) (api.RowStream, error)
}

// PeerHeaderName is the header carrying an inter-node signature.
const PeerHeaderName = "X-Sqlstream-Peer"

// Request properties of a forwarded pull query (ksqlDB's
// KsqlRequestConfig).
const (
	reqSkipForwarding = "request.ksql.query.pull.skip.forwarding"
	reqPartitions     = "request.ksql.query.pull.partitions"
)

// peerOnly refuses a request that is not from a peer.
func peerOnly(err error) *api.ErrorMessage {
	return &api.ErrorMessage{ErrorCode: api.CodeInternalOnly, Message: err.Error()}
}

// verifiedPeer checks that r (with body) comes from a peer.
func (s *Server) verifiedPeer(r *http.Request, body []byte) (Peering, *api.ErrorMessage) {
	p, ok := s.engine.(Peering)
	if !ok {
		return nil, peerOnly(fmt.Errorf("%s is an inter-node endpoint and this server has no peers", r.URL.Path))
	}
	if err := p.VerifyPeer(r.Method, r.URL.Path, r.Header.Get(PeerHeaderName), body); err != nil {
		s.cfg.logger.Warn("refused an inter-node request that is not from a peer", "path", r.URL.Path, "remote", r.RemoteAddr)
		return nil, peerOnly(err)
	}
	return p, nil
}

// handleHeartbeat serves POST /heartbeat (inter-node).
func (s *Server) handleHeartbeat(w http.ResponseWriter, r *http.Request) {
	var m api.HeartbeatMessage
	p, bad := s.peerBody(w, r, &m)
	if bad != nil {
		writeErrorBody(w, bad)
		return
	}
	p.Heartbeat(m)
	answer(w, r, http.StatusOK, api.PeerResponse{IsOk: true})
}

// handleLag serves POST /lag (inter-node).
func (s *Server) handleLag(w http.ResponseWriter, r *http.Request) {
	var m api.LagReportingMessage
	p, bad := s.peerBody(w, r, &m)
	if bad != nil {
		writeErrorBody(w, bad)
		return
	}
	p.LagReport(m)
	answer(w, r, http.StatusOK, api.PeerResponse{IsOk: true})
}

// peerBody reads and verifies an inter-node request and decodes its body
// into v.
func (s *Server) peerBody(w http.ResponseWriter, r *http.Request, v any) (Peering, *api.ErrorMessage) {
	body, bad := s.readBody(w, r)
	if bad != nil {
		return nil, bad
	}
	p, bad := s.verifiedPeer(r, body)
	if bad != nil {
		return nil, bad
	}
	if err := json.Unmarshal(body, v); err != nil {
		return nil, badRequest("Invalid JSON in inter-node request: " + err.Error())
	}
	return p, nil
}

// isPeerPath reports whether path is an inter-node endpoint that
// authenticates by signature instead of user credentials.
func isPeerPath(path string) bool { return path == "/heartbeat" || path == "/lag" }

// forwardedPull reads a /query-stream body's internal request properties:
// ok is false for an ordinary request; partitions are those to read.
func forwardedPull(args *api.QueryStreamArgs) (partitions string, ok bool) {
	if len(args.RequestProperties) == 0 {
		return "", false
	}
	partitions, _ = args.RequestProperties[reqPartitions].(string)
	return partitions, true
}
