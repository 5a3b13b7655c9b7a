// Package clientip finds the address of the client behind a request for the
// gateway's per-IP rate limits. X-Forwarded-For is believed only as far as
// it was written by configured trusted proxies: the header is read from the
// right (the hop nearest the gateway) and the first address that is not a
// trusted proxy is the client. Anything to its left was written by the
// client itself and could be anything.
//
// Fiber's own ProxyHeader/TrustedProxies support is not used because it
// takes the leftmost address of the header, which a client chooses: behind
// a load balancer that appends, every request could claim a fresh IP and a
// fresh rate-limit bucket.
package clientip

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/valyala/fasthttp"
)

// headerForwardedFor is the header trusted proxies append the client to.
const headerForwardedFor = "X-Forwarded-For"

// Resolver resolves client addresses. The zero value trusts nobody and
// always answers the peer address.
type Resolver struct {
	trusted []netip.Prefix
}

// New parses trusted proxies: IP addresses or CIDR prefixes (IPv4 or IPv6).
func New(trusted []string) (*Resolver, error) {
	r := &Resolver{}
	for _, raw := range trusted {
		s := strings.TrimSpace(raw)
		if s == "" {
			continue
		}
		if strings.Contains(s, "/") {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q: %w", s, err)
			}
			r.trusted = append(r.trusted, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: %w", s, err)
		}
		a = a.Unmap()
		r.trusted = append(r.trusted, netip.PrefixFrom(a, a.BitLen()))
	}
	return r, nil
}

// Trusts reports whether a is a trusted proxy.
func (r *Resolver) Trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ClientIP is the client address of the request: the peer, unless the peer
// is a trusted proxy, in which case the rightmost X-Forwarded-For entry that
// is not itself a trusted proxy (or the leftmost entry when all are
// trusted). A malformed entry stops the walk at the last trusted hop: what
// lies beyond it cannot be believed.
func (r *Resolver) ClientIP(ctx *fasthttp.RequestCtx) netip.Addr {
	peer := peerAddr(ctx)
	if len(r.trusted) == 0 || !r.Trusts(peer) {
		return peer
	}
	client := peer
	values := ctx.Request.Header.PeekAll(headerForwardedFor)
	// Several header lines form one list, in order (RFC 9110 5.3).
	for i := len(values) - 1; i >= 0; i-- {
		v := values[i]
		for len(v) > 0 {
			j := bytes.LastIndexByte(v, ',')
			entry := bytes.TrimSpace(v[j+1:])
			if j < 0 {
				v = nil
			} else {
				v = v[:j]
			}
			a, ok := parseEntry(entry)
			if !ok {
				return client
			}
			client = a
			if !r.Trusts(a) {
				return a
			}
		}
	}
	return client
}

// parseEntry reads one X-Forwarded-For element: an address, possibly with a
// port ("1.2.3.4:5", "[::1]:5").
func parseEntry(b []byte) (netip.Addr, bool) {
	s := string(b)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

func peerAddr(ctx *fasthttp.RequestCtx) netip.Addr {
	if tcp, ok := ctx.RemoteAddr().(*net.TCPAddr); ok {
		if a, ok := netip.AddrFromSlice(tcp.IP); ok {
			return a.Unmap()
		}
	}
	a, _ := netip.ParseAddr(ctx.RemoteIP().String())
	return a.Unmap()
}

// LimitKey is the rate-limit bucket of a client address: an IPv4 address
// itself, an IPv6 address's /64 (one subscriber's network: a host picks
// any of its 2^64 addresses at will, so a per-address bucket would limit
// nothing).
func LimitKey(a netip.Addr) string {
	a = a.Unmap()
	if a.Is4() || !a.IsValid() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}
