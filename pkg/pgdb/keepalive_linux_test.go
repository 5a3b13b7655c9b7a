package pgdb

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// TestKeepAliveDialer: connections are dialled with keepalive probes after
// 10 s idle, 5 s apart, 3 of them (read back from the socket).
func TestKeepAliveDialer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			defer c.Close()
			time.Sleep(time.Second)
		}
	}()
	conn, err := keepAliveDialer(&pgdriver.Config{DialTimeout: time.Second})(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	raw, err := conn.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ level, opt, value int }{
		"SO_KEEPALIVE":  {syscall.SOL_SOCKET, syscall.SO_KEEPALIVE, 1},
		"TCP_KEEPIDLE":  {syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE, 10},
		"TCP_KEEPINTVL": {syscall.IPPROTO_TCP, syscall.TCP_KEEPINTVL, 5},
		"TCP_KEEPCNT":   {syscall.IPPROTO_TCP, syscall.TCP_KEEPCNT, 3},
	}
	for name, w := range want {
		var got int
		var serr error
		if err := raw.Control(func(fd uintptr) { got, serr = syscall.GetsockoptInt(int(fd), w.level, w.opt) }); err != nil || serr != nil {
			t.Fatalf("%s: %v %v", name, err, serr)
		}
		if got != w.value {
			t.Errorf("%s = %d, want %d", name, got, w.value)
		}
	}
}
