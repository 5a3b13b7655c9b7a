package httpx

import (
	"bytes"
	"errors"
	"io"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/apperr"
)

// streamDrain is how much of a streamed body its handler left unread is
// read and dropped after the answer is written, so that the connection can
// carry the next request; beyond it the connection is closed (lingering,
// see linger.go, so the answer still reaches the client).
const streamDrain = 1 << 20

// boundBodies is the middleware of Options.StreamBody. With streaming on,
// fasthttp hands every handler a body stream; the requests that do not
// stream get their body read here, at most limit bytes, so c.Body() stays
// bounded everywhere.
//
// A streamed body may take longer to arrive than the server's read timeout,
// which fasthttp sets once for the whole request: while it keeps arriving,
// each read moves the connection's read deadline to idle from now (so a
// stalled upload still ends after idle), but never past total from the
// request's start.
func boundBodies(limit int, idle, total time.Duration, streams func(c *fiber.Ctx) bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		rc := c.Context()
		stream := rc.RequestBodyStream()
		if stream == nil {
			return c.Next()
		}
		if streams(c) {
			body := &endedStream{r: stream, conn: rc.Conn(), idle: idle, until: time.Now().Add(total)}
			c.Locals(localStream, body)
			err := c.Next()
			if !body.ended {
				if _, derr := io.CopyN(io.Discard, body, streamDrain); derr != nil || !body.ended {
					rc.SetConnectionClose()
				}
			}
			return err
		}
		if rc.Request.Header.ContentLength() > limit {
			rc.SetConnectionClose()
			return tooLarge()
		}
		body, err := io.ReadAll(io.LimitReader(stream, int64(limit)+1))
		if err != nil {
			rc.SetConnectionClose()
			return apperr.New(apperr.InvalidPayload, "the request body could not be read")
		}
		if len(body) > limit {
			rc.SetConnectionClose()
			return tooLarge()
		}
		rc.Request.SetBody(body)
		return c.Next()
	}
}

// Streamed reports whether c's body is read as it arrives
// (Options.StreamBody): middleware must leave such a body to its handler.
func Streamed(c *fiber.Ctx) bool {
	_, ok := c.Locals(localStream).(*endedStream)
	return ok
}

// localStream holds the *endedStream of a streamed request.
const localStream = "httpx_stream"

// endedStream is a request body stream that remembers its end: fasthttp's
// chunked stream, read again after its last chunk, waits for another one
// until the read timeout.
//
// It also keeps the connection's read deadline idle ahead of the last read
// (never past until), moved at most once per deadlineStep.
type endedStream struct {
	r     io.Reader
	ended bool

	conn     net.Conn // nil: deadlines left alone
	idle     time.Duration
	until    time.Time
	extended time.Time // when the deadline was last moved
}

// deadlineStep is how often at most a streamed body's read deadline is
// moved on (a quarter of the idle time when that is shorter).
const deadlineStep = time.Second

func (s *endedStream) Read(b []byte) (int, error) {
	if s.ended {
		return 0, io.EOF
	}
	if s.conn != nil && s.idle > 0 {
		if now := time.Now(); now.Sub(s.extended) >= min(deadlineStep, s.idle/4) {
			s.extended = now
			d := now.Add(s.idle)
			if d.After(s.until) {
				d = s.until
			}
			// A connection that no longer takes deadlines fails the read
			// below anyway.
			_ = s.conn.SetReadDeadline(d)
		}
	}
	n, err := s.r.Read(b)
	if errors.Is(err, io.EOF) {
		s.ended = true
	}
	return n, err
}

func tooLarge() error { return apperr.New(apperr.PayloadTooLarge, "request body too large") }

// ErrStreamTooLarge is what StreamedBody and LimitedReader answer once
// more than their limit was read.
var ErrStreamTooLarge = errors.New("httpx: request body over its limit")

// StreamedBody is the body of a request that Options.StreamBody names, as
// it arrives: a reader failing with ErrStreamTooLarge once more than limit
// bytes came. For any other request it is the body already read.
func StreamedBody(c *fiber.Ctx, limit int64) io.Reader {
	if stream, ok := c.Locals(localStream).(*endedStream); ok {
		return LimitedReader(stream, limit)
	}
	return LimitedReader(bytes.NewReader(c.Body()), limit)
}

// LimitedReader is r failing with ErrStreamTooLarge once more than limit
// bytes were read (io.LimitReader would end quietly at the limit).
func LimitedReader(r io.Reader, limit int64) io.Reader {
	return &limitedStream{r: r, left: limit}
}

// limitedStream fails once more than left bytes are read.
type limitedStream struct {
	r    io.Reader
	left int64
}

func (l *limitedStream) Read(b []byte) (int, error) {
	if l.left < 0 {
		return 0, ErrStreamTooLarge
	}
	if int64(len(b)) > l.left+1 {
		b = b[:l.left+1]
	}
	n, err := l.r.Read(b)
	l.left -= int64(n)
	if l.left < 0 {
		return 0, ErrStreamTooLarge
	}
	return n, err
}
