package egress

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

var (
	// ErrInvalidURL is wrapped by every refusal of a URL's form: a scheme
	// other than http(s) (or http without AllowHTTP), no host, userinfo, a
	// bad port. The error text after it is the reason, fit for a 400.
	ErrInvalidURL = errors.New("invalid webhook URL")

	// ErrRefused is wrapped by every refusal of a destination address: at
	// create time by CheckURL, and at connect time by the dialer's Control
	// hook during Post. The error text names the address and why.
	ErrRefused = errors.New("destination refused")

	// ErrUnresolvable is wrapped when CheckURL cannot resolve the host (the
	// resolver's own error, such as a *net.DNSError, is wrapped too, so
	// errors.As tells a missing name from a temporary failure).
	ErrUnresolvable = errors.New("webhook host does not resolve")
)

// Addresses refused whatever AllowPrivate says. A webhook sender that can
// reach the cloud metadata service hands out the instance's credentials to
// whoever registered the URL; no development setting needs to reach it.
var (
	metadataAddrs = map[netip.Addr]string{
		netip.MustParseAddr("169.254.169.254"): "AWS, GCP, Azure, OCI",
		netip.MustParseAddr("169.254.170.2"):   "AWS ECS task metadata",
		netip.MustParseAddr("100.100.100.200"): "Alibaba Cloud",
		netip.MustParseAddr("168.63.129.16"):   "Azure wireserver",
		netip.MustParseAddr("fd00:ec2::254"):   "AWS IPv6",
		netip.MustParseAddr("fd20:ce::254"):    "GCP IPv6",
	}
	// Link-local ranges hold most metadata services (and other per-host
	// agents); nothing a customer's webhook lives on.
	alwaysRefusedPrefixes = []netip.Prefix{
		netip.MustParsePrefix("169.254.0.0/16"),
		netip.MustParsePrefix("fe80::/10"),
	}
	metadataHosts = map[string]bool{
		"metadata.google.internal": true,
		"metadata":                 true,
		"metadata.goog":            true,
	}
	cgnat = netip.MustParsePrefix("100.64.0.0/10")
	// NAT64 addresses carry an IPv4 address in their low 32 bits: a
	// DNS64 resolver can hand out 64:ff9b::a9fe:a9fe for 169.254.169.254.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

// refusal is the error behind ErrRefused: a readable reason, plus the
// ssrf library's own error when the library refused.
type refusal struct {
	host   string     // the name as written in the URL, when there is one
	addr   netip.Addr // invalid when refused by name
	reason string
	cause  error
}

func (r *refusal) Error() string {
	switch {
	case !r.addr.IsValid():
		return fmt.Sprintf("%s: %s is %s", ErrRefused, r.host, r.reason)
	case r.host != "":
		return fmt.Sprintf("%s: %s resolves to %s, %s", ErrRefused, r.host, r.addr, r.reason)
	default:
		return fmt.Sprintf("%s: %s is %s", ErrRefused, r.addr, r.reason)
	}
}

func (r *refusal) Unwrap() []error {
	if r.cause == nil {
		return []error{ErrRefused}
	}
	return []error{ErrRefused, r.cause}
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidURL, fmt.Sprintf(format, args...))
}

// parseWebhookURL checks the form of a webhook URL: http(s) only (http only
// with AllowHTTP), a host, no userinfo, a port in range if one is given. It
// does not look at the address: see CheckURL and the dialer's control.
func (c *Client) parseWebhookURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, invalid("cannot be parsed")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !c.opts.AllowHTTP {
			return nil, invalid("scheme must be https")
		}
	case "":
		return nil, invalid("scheme missing (https://host/...)")
	default:
		return nil, invalid("scheme %q is not allowed (https only)", u.Scheme)
	}
	if u.Opaque != "" {
		return nil, invalid("must be of the form %s://host/...", u.Scheme)
	}
	if u.User != nil {
		return nil, invalid("must not carry credentials (user:password@)")
	}
	if strings.Trim(u.Hostname(), ".") == "" {
		return nil, invalid("host missing")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, invalid("port %q out of range", p)
		}
	}
	return u, nil
}

// LookupTimeout bounds CheckURL's resolution of a host name.
const LookupTimeout = 5 * time.Second

// CheckURL validates a webhook URL when a client registers it: its form
// (ErrInvalidURL) and every address its host resolves to (ErrRefused if any
// one is refused: a name that resolves to a mix of public and private
// addresses could be dialed to the private one). Resolution failures wrap
// ErrUnresolvable.
//
// Passing CheckURL proves nothing about later deliveries, since DNS answers
// change (DNS rebinding): Post checks again the address it actually dials.
func (c *Client) CheckURL(ctx context.Context, rawURL string) error {
	u, err := c.parseWebhookURL(rawURL)
	if err != nil {
		return err
	}
	host := u.Hostname()
	if err := checkHostName(host); err != nil {
		return err
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return c.checkAddr(addr, "")
	}
	// A client chooses the name: its lookup must not hold a request for
	// long.
	lctx, cancel := context.WithTimeout(ctx, LookupTimeout)
	defer cancel()
	addrs, err := c.opts.Resolver.LookupIPAddr(lctx, host)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrUnresolvable, host, err)
	}
	if len(addrs) == 0 {
		return fmt.Errorf("%w: %s has no address", ErrUnresolvable, host)
	}
	for _, a := range addrs {
		addr, ok := netip.AddrFromSlice(a.IP)
		if !ok {
			return &refusal{host: host, reason: "resolved to an unparsable address"}
		}
		if err := c.checkAddr(addr.WithZone(a.Zone), host); err != nil {
			return err
		}
	}
	return nil
}

// checkHostName refuses the metadata services' well-known names before any
// lookup: inside a cloud they resolve to the metadata address, and we would
// rather not depend on the address check alone.
func checkHostName(host string) error {
	name := strings.ToLower(strings.TrimRight(host, "."))
	if metadataHosts[name] {
		return &refusal{host: host, reason: "a cloud metadata host (always refused)"}
	}
	return nil
}

// checkAddr applies the always-refused list, then (unless AllowPrivate)
// the ssrf library's deny list of non-public addresses. host is the name the
// address came from, for the message; empty for literals and dials.
func (c *Client) checkAddr(addr netip.Addr, host string) error {
	// ::ffff:127.0.0.1 is 127.0.0.1 on the wire; a zone would make
	// Prefix.Contains answer false for fe80::1%eth0.
	addr = addr.Unmap().WithZone("")
	if !addr.IsValid() {
		return &refusal{host: host, reason: "not a valid address"}
	}
	if reason := alwaysRefused(addr); reason != "" {
		return &refusal{host: host, addr: addr, reason: reason}
	}
	if c.opts.AllowPrivate {
		return nil
	}
	if err := c.guardian.SafeAddr(addr); err != nil {
		return &refusal{host: host, addr: addr, reason: describe(addr), cause: err}
	}
	return nil
}

func alwaysRefused(addr netip.Addr) string {
	if nat64.Contains(addr) {
		b := addr.As16()
		if r := alwaysRefused(netip.AddrFrom4([4]byte(b[12:]))); r != "" {
			return r + " behind NAT64"
		}
	}
	if who, ok := metadataAddrs[addr]; ok {
		return "a cloud metadata address (" + who + "; always refused)"
	}
	for _, p := range alwaysRefusedPrefixes {
		if p.Contains(addr) {
			return "a link-local address (always refused: cloud metadata services live there)"
		}
	}
	return ""
}

// describe names the kind of a refused address for the error message; the
// ssrf library decided the refusal.
func describe(addr netip.Addr) string {
	switch {
	case addr.IsLoopback():
		return "a loopback address"
	case addr.IsUnspecified():
		return "the unspecified address"
	case addr.IsPrivate():
		return "a private address"
	case cgnat.Contains(addr):
		return "a carrier-grade NAT (shared) address"
	case addr.IsLinkLocalUnicast():
		return "a link-local address"
	case addr.IsMulticast():
		return "a multicast address"
	case addr.Is6() && !ssrf.IPv6GlobalUnicast.Contains(addr):
		return "outside the IPv6 global unicast range " + ssrf.IPv6GlobalUnicast.String()
	}
	for _, p := range slices.Concat(ssrf.IPv4DeniedPrefixes, ssrf.IPv6DeniedPrefixes) {
		if p.Contains(addr) {
			return "a special-purpose address (" + p.String() + ")"
		}
	}
	return "a special-purpose or non-public address"
}

// control is the net.Dialer Control hook: it runs after DNS resolution,
// just before connect(2), with the IP actually being dialed. Checking here,
// and not only at CheckURL, is what defeats DNS rebinding (a name that
// answered with a public address at registration and answers 127.0.0.1 at
// delivery) and happy-eyeballs fallbacks to a second, private address.
func (c *Client) control(network, address string, rc syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &refusal{host: address, reason: "not an ip:port pair"}
	}
	addr := ap.Addr().Unmap().WithZone("")
	if err := c.checkAddr(addr, ""); err != nil {
		return err
	}
	if c.opts.AllowPrivate {
		return nil
	}
	// The library also restricts the network to tcp4/tcp6 (its default);
	// ports are left open (WithAnyPort in New).
	if err := c.guardian.Safe(network, netip.AddrPortFrom(addr, ap.Port()).String(), rc); err != nil {
		return &refusal{addr: addr, reason: "dialed over " + network + ", not tcp4/tcp6", cause: err}
	}
	return nil
}
