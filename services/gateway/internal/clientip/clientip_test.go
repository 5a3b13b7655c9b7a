package clientip

import (
	"net"
	"net/netip"
	"testing"

	"github.com/valyala/fasthttp"
)

func request(peer string, xff ...string) *fasthttp.RequestCtx {
	var req fasthttp.Request
	req.SetRequestURI("/x")
	for _, v := range xff {
		req.Header.Add(headerForwardedFor, v)
	}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.ParseIP(peer), Port: 40000}, nil)
	return &ctx
}

func TestClientIP(t *testing.T) {
	tests := []struct {
		name    string
		trusted []string
		peer    string
		xff     []string
		want    string
	}{
		{"no trusted proxies: header ignored", nil, "203.0.113.9", []string{"1.2.3.4"}, "203.0.113.9"},
		{"untrusted peer: header ignored", []string{"10.0.0.0/8"}, "203.0.113.9", []string{"1.2.3.4"}, "203.0.113.9"},
		{"trusted peer: last entry", []string{"10.0.0.0/8"}, "10.1.2.3", []string{"198.51.100.7"}, "198.51.100.7"},
		{"spoofed left entries ignored", []string{"10.0.0.0/8"}, "10.1.2.3", []string{"6.6.6.6, 198.51.100.7"}, "198.51.100.7"},
		{"chain of trusted proxies", []string{"10.0.0.0/8", "192.168.1.1"}, "10.1.2.3", []string{"6.6.6.6, 198.51.100.7, 192.168.1.1, 10.9.9.9"}, "198.51.100.7"},
		{"several header lines", []string{"10.0.0.0/8"}, "10.1.2.3", []string{"6.6.6.6", "198.51.100.7, 10.0.0.5"}, "198.51.100.7"},
		{"all trusted: leftmost", []string{"10.0.0.0/8"}, "10.1.2.3", []string{"10.0.0.1, 10.0.0.2"}, "10.0.0.1"},
		{"trusted peer, no header", []string{"10.0.0.0/8"}, "10.1.2.3", nil, "10.1.2.3"},
		{"malformed entry stops at last trusted hop", []string{"10.0.0.0/8"}, "10.1.2.3", []string{"6.6.6.6, junk, 10.0.0.7"}, "10.0.0.7"},
		{"entry with port", []string{"10.0.0.0/8"}, "10.1.2.3", []string{"198.51.100.7:5555"}, "198.51.100.7"},
		{"ipv6 entries", []string{"fd00::/8"}, "fd00::1", []string{"2001:db8::5, [fd00::2]:80"}, "2001:db8::5"},
		{"single trusted address", []string{"127.0.0.1"}, "127.0.0.1", []string{"198.51.100.7"}, "198.51.100.7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.ClientIP(request(tt.peer, tt.xff...)).String(); got != tt.want {
				t.Fatalf("ClientIP = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestNewRejectsBadEntries(t *testing.T) {
	for _, bad := range []string{"10.0.0.0/33", "not-an-ip", "10.0.0/8"} {
		if _, err := New([]string{bad}); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	if _, err := New([]string{" 10.0.0.0/8 ", "", "::1"}); err != nil {
		t.Fatalf("valid list rejected: %v", err)
	}
}

func TestLimitKey(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"203.0.113.7", "203.0.113.7"},
		{"::ffff:203.0.113.7", "203.0.113.7"},
		{"2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"::1", "::/64"},
	}
	for _, tt := range tests {
		if got := LimitKey(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("LimitKey(%s) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}
