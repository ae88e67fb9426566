package broker

import "net"

// advertisedListener reports a connectable address for a listener bound to
// all interfaces: kfake advertises whatever Addr returns, and 0.0.0.0 is not
// an address a client can dial.
type advertisedListener struct {
	net.Listener
	addr net.Addr
}

func (l advertisedListener) Addr() net.Addr { return l.addr }

func advertise(ln net.Listener) net.Listener {
	tcp, ok := ln.Addr().(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return ln
	}
	loop := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: tcp.Port}
	return advertisedListener{Listener: ln, addr: loop}
}
