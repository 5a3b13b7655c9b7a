package httpx

import (
	"io"
	"net"
	"sync/atomic"
	"time"
)

// Lingering close. fasthttp closes a connection right after answering when
// it will not read the rest of the request: a body over the limit (refused
// from its Content-Length before any handler runs), headers over the read
// buffer, a handler that set Connection: close without reading a streamed
// body. Closing a socket whose receive queue still holds (or keeps
// receiving) the client's bytes makes the kernel send a reset instead of a
// FIN, and a client still writing its body then gets "connection reset by
// peer" and loses the answer it was about to read (the 413 error object).
//
// lingerListener's connections close the way net/http's server and nginx
// do: shut down the sending side (the answer is already written, so the
// client reads it and then EOF), read and discard what the client still
// sends until it closes, and only then close, bounded by lingerBytes and
// lingerTimeout so a client that never stops cannot hold the socket.
const (
	lingerTimeout = 5 * time.Second
	lingerBytes   = 64 << 20
)

type lingerListener struct{ net.Listener }

// LingeringListener is ln whose connections close lingering (see above):
// what Serve listens with, for servers started another way (tests).
func LingeringListener(ln net.Listener) net.Listener { return lingerListener{ln} }

func (l lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		return &lingerConn{TCPConn: tc}, nil
	}
	return c, nil
}

// lingerConn is a TCP connection whose Close lingers (see above). Close
// returns at once; the discarding runs on its own goroutine.
//
// A Close while a Read is blocked comes from another goroutine: the
// server's shutdown closing a keep-alive connection idle between requests.
// Nothing of a request is unread there, and the blocked Read must fail now
// (the shutdown waits for it), so that Close is immediate.
type lingerConn struct {
	*net.TCPConn
	reading atomic.Int32
}

func (c *lingerConn) Read(p []byte) (int, error) {
	c.reading.Add(1)
	defer c.reading.Add(-1)
	return c.TCPConn.Read(p)
}

func (c *lingerConn) Close() error {
	if c.reading.Load() > 0 {
		return c.TCPConn.Close()
	}
	if err := c.TCPConn.CloseWrite(); err != nil {
		// Already reset or closed by the peer: nothing to protect.
		return c.TCPConn.Close()
	}
	go c.linger()
	return nil
}

func (c *lingerConn) linger() {
	defer c.TCPConn.Close()
	if err := c.TCPConn.SetReadDeadline(time.Now().Add(lingerTimeout)); err != nil {
		return
	}
	_, _ = io.CopyN(io.Discard, c.TCPConn, lingerBytes)
}
