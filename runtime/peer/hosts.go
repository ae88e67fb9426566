package peer

import "net/url"

// HostKey is the "host:port" of an endpoint URL: how ksqlDB's
// /clusterStatus keys a server, and how peers are told apart.
func HostKey(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return endpoint
	}
	return u.Host
}
