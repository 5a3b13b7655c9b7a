package clientip

import (
	"bytes"
	"net"
	"testing"

	"github.com/valyala/fasthttp"
)

// FuzzClientIP feeds arbitrary X-Forwarded-For lines from trusted and
// untrusted peers to the gateway's client address resolver (rate limits
// and access logs key on it): an untrusted peer is always its own client;
// any other answer is a valid address that one of the header's entries
// names, so a forged header cannot invent an address.
func FuzzClientIP(f *testing.F) {
	for _, s := range []struct {
		peer         string
		line1, line2 string
	}{
		{"10.0.0.1", "203.0.113.7", ""},
		{"10.0.0.1", "203.0.113.7, 10.0.0.2", "10.1.1.1"},
		{"10.0.0.1", "[2001:db8::1]:443, 198.51.100.2:8080", ""},
		{"10.0.0.1", "::ffff:203.0.113.9", ""},
		{"10.0.0.1", "evil, 203.0.113.7", ""},
		{"10.0.0.1", "10.0.0.3,10.0.0.4", ""},
		{"203.0.113.50", "1.2.3.4", ""},
		{"::1", "fe80::1%eth0", ""},
		{"10.0.0.1", ",,,", " "},
	} {
		f.Add(s.peer, s.line1, s.line2)
	}
	r, err := New([]string{"10.0.0.0/8", "::1"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, peer, line1, line2 string) {
		ip := net.ParseIP(peer)
		if ip == nil {
			return
		}
		var ctx fasthttp.RequestCtx
		ctx.SetRemoteAddr(&net.TCPAddr{IP: ip, Port: 1234})
		for _, l := range []string{line1, line2} {
			if l != "" {
				ctx.Request.Header.Add(headerForwardedFor, l)
			}
		}
		peerAddr := peerAddr(&ctx)
		got := r.ClientIP(&ctx)
		if !got.IsValid() {
			t.Fatalf("invalid client address for peer %s, %q %q", peer, line1, line2)
		}
		if !r.Trusts(peerAddr) && got != peerAddr {
			t.Fatalf("untrusted peer %s answered as %s", peerAddr, got)
		}
		if got == peerAddr {
			return
		}
		for _, l := range ctx.Request.Header.PeekAll(headerForwardedFor) {
			for _, e := range bytes.Split(l, []byte(",")) {
				if a, ok := parseEntry(bytes.TrimSpace(e)); ok && a == got {
					return
				}
			}
		}
		t.Fatalf("client %s is not an entry of %q %q", got, line1, line2)
	})
}
