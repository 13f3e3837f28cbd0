package h1

import (
	"bufio"
	"cmp"
	"context"
	"net"
	"time"
)

// get returns an idle connection to addr fit to reuse, or a new one.
func (c *Client) get(ctx context.Context, addr string) (*conn, error) {
	if cn := c.takeIdle(addr); cn != nil {
		return cn, nil
	}
	d := net.Dialer{Timeout: c.dialTimeout(), KeepAlive: 30 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &conn{nc: nc, br: bufio.NewReaderSize(nc, readBuf), bw: bufio.NewWriterSize(nc, writeBuf)}, nil
}

// takeIdle pops the most recently freed connection to addr that is fit
// to reuse. Connections idle for longer than IdleTimeout are closed; one
// idle for CheckIdleAfter or more is first checked for a close by the
// server (a request written to it would be lost), and closed if so.
func (c *Client) takeIdle(addr string) *conn {
	for {
		c.mu.Lock()
		list := c.idle[addr]
		if len(list) == 0 {
			c.mu.Unlock()
			return nil
		}
		cn := list[len(list)-1]
		list[len(list)-1] = nil
		c.idle[addr] = list[:len(list)-1]
		idle := time.Since(cn.since)
		if idle >= c.idleTimeout() {
			// All older ones are older still.
			for i, old := range c.idle[addr] {
				_ = old.nc.Close()
				c.idle[addr][i] = nil
			}
			delete(c.idle, addr)
			c.mu.Unlock()
			_ = cn.nc.Close()
			return nil
		}
		c.mu.Unlock()
		if idle < c.checkIdleAfter() || open(cn.nc) {
			return cn
		}
		_ = cn.nc.Close()
	}
}

// put keeps cn for the next request to addr, or closes it when the pool
// for addr is full or cn holds bytes no request asked for.
func (c *Client) put(addr string, cn *conn) {
	if cn.br.Buffered() > 0 {
		_ = cn.nc.Close()
		return
	}
	cn.since = time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.idle[addr]) >= c.maxIdle() {
		_ = cn.nc.Close()
		return
	}
	if c.idle == nil {
		c.idle = map[string][]*conn{}
	}
	c.idle[addr] = append(c.idle[addr], cn)
}

// CloseIdleConnections closes the connections no request holds.
func (c *Client) CloseIdleConnections() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for addr, list := range c.idle {
		for _, cn := range list {
			_ = cn.nc.Close()
		}
		delete(c.idle, addr)
	}
}

// Idle returns how many idle connections the pool holds, over all hosts.
func (c *Client) Idle() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, list := range c.idle {
		n += len(list)
	}
	return n
}

// The settings, their defaults where zero.
func (c *Client) maxIdle() int               { return cmp.Or(c.MaxIdle, DefaultMaxIdle) }
func (c *Client) idleTimeout() time.Duration { return cmp.Or(c.IdleTimeout, DefaultIdleTimeout) }
func (c *Client) checkIdleAfter() time.Duration {
	return cmp.Or(c.CheckIdleAfter, DefaultCheckIdleAfter)
}
func (c *Client) dialTimeout() time.Duration { return cmp.Or(c.DialTimeout, DefaultDialTimeout) }
