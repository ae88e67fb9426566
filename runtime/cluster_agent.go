package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/api"
)

// The peer agent (KLIP-12's HeartbeatAgent and LagReportingAgent): every
// ksql.heartbeat.send.interval.ms this server POSTs /heartbeat to every
// other server it knows of, and every ksql.lag.reporting.send.interval.ms
// /lag with its store lags and query states. A server is alive for the
// others while its heartbeats arrive within ksql.heartbeat.window.ms.
type peerAgent struct {
	e      *Engine
	client *http.Client
	beat   time.Duration // 0: no heartbeats
	lag    time.Duration // 0: no lag reports
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	inflight map[string]bool // URLs with a request under way
	sends    sync.WaitGroup
}

// startPeerAgent starts the agent if this server has an endpoint and the
// key to sign with.
func (e *Engine) startPeerAgent() {
	p := e.peers
	if p == nil || p.self == "" || p.key == nil {
		return
	}
	a := &peerAgent{e: e, done: make(chan struct{}), inflight: map[string]bool{}}
	a.beat = e.cfg.HeartbeatInterval // 0: off
	a.lag = e.cfg.LagReportInterval  // 0: off
	a.client = &http.Client{Timeout: max(p.window/2, 100*time.Millisecond)}
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	e.agent = a
	go a.run(ctx)
}

func (a *peerAgent) stop() {
	if a == nil {
		return
	}
	a.cancel()
	<-a.done
}

func (a *peerAgent) run(ctx context.Context) {
	defer close(a.done)
	defer a.sends.Wait()
	beat, lag := ticker(a.beat), ticker(a.lag)
	defer beat.Stop()
	defer lag.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
			a.e.peers.prune(time.Now())
			a.sendAll(ctx, "/heartbeat", api.HeartbeatMessage{HostInfo: a.hostInfo(), Timestamp: nowMillis()})
		case <-lag.C:
			a.sendAll(ctx, "/lag", a.e.lagReport(a.hostInfo()))
		}
	}
}

// ticker ticks every d, never for d = 0.
func ticker(d time.Duration) *time.Ticker {
	if d <= 0 {
		t := time.NewTicker(time.Hour)
		t.Stop()
		return t
	}
	return time.NewTicker(d)
}

func (a *peerAgent) hostInfo() api.HostInfo {
	host, port, _ := net.SplitHostPort(hostKey(a.e.peers.self))
	n, _ := strconv.Atoi(port)
	return api.HostInfo{Host: host, Port: n}
}

// sendAll posts msg to path on every other server, each in its own
// goroutine so that a server that does not answer delays no other; while
// a request to one is under way, the next to it is skipped. An
// unreachable server is dead for as long as it sends no heartbeats
// itself.
func (a *peerAgent) sendAll(ctx context.Context, path string, msg any) {
	body, err := json.Marshal(msg)
	if err != nil {
		return
	}
	for _, u := range a.e.peers.targets() {
		target := u + path
		a.mu.Lock()
		busy := a.inflight[target]
		a.inflight[target] = true
		a.mu.Unlock()
		if busy {
			continue
		}
		a.sends.Add(1)
		go func() {
			defer a.sends.Done()
			if err := a.post(ctx, target, body); err != nil && ctx.Err() == nil {
				a.e.logger.Debug("inter-node request failed", "to", target, "err", err)
			}
			a.mu.Lock()
			delete(a.inflight, target)
			a.mu.Unlock()
		}()
	}
}

func (a *peerAgent) post(ctx context.Context, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	a.e.peers.sign(req, body)
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return &api.ErrorMessage{ErrorCode: resp.StatusCode * 100, Message: resp.Status}
	}
	return nil
}

// lagReport is this server's /lag message: its store lags and the state
// of each persistent query.
func (e *Engine) lagReport(host api.HostInfo) api.LagReportingMessage {
	msg := api.LagReportingMessage{HostInfo: host, QueryStates: map[string]string{}}
	msg.HostStoreLags = api.HostStoreLags{StateStoreLags: map[string]api.QueryStoreLags{}, UpdateTimeMs: nowMillis()}
	e.mu.Lock()
	queries := e.sortedQueries()
	e.mu.Unlock()
	for _, q := range queries {
		msg.QueryStates[q.id] = q.State().String()
		if lags := q.hostLags(); len(lags) > 0 {
			msg.HostStoreLags.StateStoreLags[q.id] = api.QueryStoreLags{LagByPartition: lags}
		}
	}
	return msg
}

// Heartbeat records a peer's heartbeat (POST /heartbeat, verified by the
// server first).
func (e *Engine) Heartbeat(m api.HeartbeatMessage) {
	if e.peers != nil {
		e.peers.heard(net.JoinHostPort(m.HostInfo.Host, strconv.Itoa(m.HostInfo.Port)))
	}
}

// LagReport records a peer's lag report (POST /lag, verified by the
// server first).
func (e *Engine) LagReport(m api.LagReportingMessage) {
	if e.peers != nil {
		e.peers.reported(net.JoinHostPort(m.HostInfo.Host, strconv.Itoa(m.HostInfo.Port)), m.HostStoreLags, m.QueryStates)
	}
}
