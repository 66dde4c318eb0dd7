package main

import (
	"net"
	"net/url"
	"os"
	"time"
)

// delayed is a TCP proxy to upstream that makes loopback look like a link
// with this round-trip time: every byte arrives half of it after it was
// sent, each way, and a new connection takes a whole one before it
// carries anything (TCP's handshake; TLS, which a cluster adds, would take
// one more). It answers its address.
func delayed(upstream string, rtt time.Duration) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go relay(c.(*net.TCPConn), upstream, rtt)
		}
	}()
	return l.Addr().String(), nil
}

func relay(c *net.TCPConn, upstream string, rtt time.Duration) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	time.Sleep(rtt)
	done := make(chan struct{}, 2)
	go func() { lag(u.(*net.TCPConn), c, rtt/2); done <- struct{}{} }()
	go func() { lag(c, u.(*net.TCPConn), rtt/2); done <- struct{}{} }()
	<-done
	<-done
}

// lag copies from src to dst, each piece written d after it was read; the
// end of src closes dst's writing side once all is written.
func lag(dst, src *net.TCPConn, d time.Duration) {
	type piece struct {
		b   []byte
		due time.Time
	}
	q := make(chan piece, 4096)
	go func() {
		defer close(q)
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				q <- piece{b[:n], time.Now().Add(d)}
			}
			if err != nil {
				return
			}
		}
	}()
	for p := range q {
		time.Sleep(time.Until(p.due))
		if _, err := dst.Write(p.b); err != nil {
			_ = src.Close()
			for range q {
			}
			return
		}
	}
	_ = dst.CloseWrite()
}

// throughDelay points the emulator's base URL (the variable every abx
// process reads) and the envd URL at a delayed proxy of rtt.
func throughDelay(c *config, rtt time.Duration) error {
	const base = "ABX_ALICLOUD_CONTAINER_BASE_URL"
	u, err := url.Parse(os.Getenv(base))
	if err != nil {
		return err
	}
	addr, err := delayed(u.Host, rtt)
	if err != nil {
		return err
	}
	u.Host = addr
	if err := os.Setenv(base, u.String()); err != nil {
		return err
	}
	e, err := url.Parse(c.envdURL)
	if err != nil {
		return err
	}
	e.Host = addr
	c.envdURL = e.String()
	return nil
}
