package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
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
type Agent struct {
	cfg    AgentConfig
	peers  Peers
	client *http.Client
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	inflight map[string]bool // URLs with a request under way
	sends    sync.WaitGroup
}

// Peers is what the agent needs of the engine's view of the other
// servers.
type Peers interface {
	// Targets are the URLs of the other servers to send to.
	Targets() []string
	// Prune forgets the servers that left, before each heartbeat round.
	Prune(now time.Time)
	// LagReport is this server's /lag message as host.
	LagReport(host api.HostInfo) api.LagReportingMessage
}

// AgentConfig is what the agent sends, how often and as whom.
type AgentConfig struct {
	Self   string        // this server's advertised URL
	Beat   time.Duration // between heartbeats; 0: none (ksql.heartbeat.enable=false)
	Lag    time.Duration // between lag reports; 0: none (ksql.lag.reporting.enable=false)
	Window time.Duration // ksql.heartbeat.window.ms: a request's timeout is half of it
	Auth   *Auth         // signs every request
	Logger *slog.Logger
}

// StartAgent starts sending heartbeats and lag reports to peers; nil when
// this server has no endpoint or no key to sign with.
func StartAgent(cfg AgentConfig, peers Peers) *Agent {
	if cfg.Self == "" || !cfg.Auth.Keyed() {
		return nil
	}
	a := &Agent{cfg: cfg, peers: peers, done: make(chan struct{}), inflight: map[string]bool{},
		client: &http.Client{Timeout: max(cfg.Window/2, 100*time.Millisecond)}}
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	go a.run(ctx)
	return a
}

// Stop ends the agent and waits for its requests under way.
func (a *Agent) Stop() {
	if a == nil {
		return
	}
	a.cancel()
	<-a.done
}

func (a *Agent) run(ctx context.Context) {
	defer close(a.done)
	defer a.sends.Wait()
	beat, lag := ticker(a.cfg.Beat), ticker(a.cfg.Lag)
	defer beat.Stop()
	defer lag.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
			a.peers.Prune(time.Now())
			a.sendAll(ctx, "/heartbeat", api.HeartbeatMessage{HostInfo: a.hostInfo(), Timestamp: time.Now().UnixMilli()})
		case <-lag.C:
			a.sendAll(ctx, "/lag", a.peers.LagReport(a.hostInfo()))
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

func (a *Agent) hostInfo() api.HostInfo {
	host, port, _ := net.SplitHostPort(HostKey(a.cfg.Self))
	n, _ := strconv.Atoi(port)
	return api.HostInfo{Host: host, Port: n}
}

// sendAll posts msg to path on every other server, each in its own
// goroutine so that a server that does not answer delays no other; while
// a request to one is under way, the next to it is skipped. An
// unreachable server is dead for as long as it sends no heartbeats
// itself.
func (a *Agent) sendAll(ctx context.Context, path string, msg any) {
	body, err := json.Marshal(msg)
	if err != nil {
		return
	}
	for _, u := range a.peers.Targets() {
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
				a.cfg.Logger.Debug("inter-node request failed", "to", target, "err", err)
			}
			a.mu.Lock()
			delete(a.inflight, target)
			a.mu.Unlock()
		}()
	}
}

func (a *Agent) post(ctx context.Context, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	a.cfg.Auth.Sign(req, body)
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
