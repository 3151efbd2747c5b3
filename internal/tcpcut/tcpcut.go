// Package tcpcut is a TCP proxy for tests that must lose a server in the
// middle of their work: it forwards a local port to a target, and Cut
// closes every connection and refuses new ones until Restore, on the same
// port.
package tcpcut

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards Addr to its target.
type Proxy struct {
	// Addr is the proxy's host:port.
	Addr   string
	target string

	mu       sync.Mutex
	ln       net.Listener
	conns    map[net.Conn]struct{}
	accepted int
}

// Accepted counts the connections forwarded: a test proves with it that
// the code under test went through the proxy.
func (p *Proxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// New starts a proxy to target on a free loopback port, closed when tb
// ends.
func New(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, conns: map[net.Conn]struct{}{}}
	p.serve(ln)
	tb.Cleanup(p.Cut)
	return p
}

// Cut closes the listener and every connection.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Restore listens again on the same port.
func (p *Proxy) Restore(tb testing.TB) {
	tb.Helper()
	ln, err := net.Listen("tcp", p.Addr)
	if err != nil {
		tb.Fatal(err)
	}
	p.serve(ln)
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
}

func (p *Proxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut meanwhile
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	p.accepted++
	p.mu.Unlock()
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}
