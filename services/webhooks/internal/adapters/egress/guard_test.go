package egress

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"

	"code.dny.dev/ssrf"
)

// fakeResolver answers from a map; a host with several entries gets them in
// turn (the last one repeats), which is how the rebinding test changes its
// answer between lookups.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][][]string
	calls   map[string]int
}

func newFakeResolver(answers map[string][][]string) *fakeResolver {
	return &fakeResolver{answers: answers, calls: map[string]int{}}
}

func (r *fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.calls[host]
	r.calls[host]++
	seq, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	ans := seq[min(n, len(seq)-1)]
	out := make([]net.IPAddr, 0, len(ans))
	for _, a := range ans {
		out = append(out, net.IPAddr{IP: net.ParseIP(a)})
	}
	return out, nil
}

func (r *fakeResolver) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		n += c
	}
	return n
}

const publicIP = "93.184.215.14"

func testResolver() *fakeResolver {
	return newFakeResolver(map[string][][]string{
		"hooks.example.com":    {{publicIP}},
		"v6.example.com":       {{"2606:2800:21f:cb07:6820:80da:af6b:8b2c"}},
		"internal.example.com": {{"10.0.0.5"}},
		"mixed.example.com":    {{publicIP, "192.168.1.10"}},
		"mixed6.example.com":   {{publicIP, "::1"}},
		"meta.example.com":     {{"169.254.169.254"}},
		"mapped.example.com":   {{"::ffff:127.0.0.1"}},
		"empty.example.com":    {{}},
	})
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		name      string
		url       string
		allowHTTP bool
		want      error // nil: accepted
		reason    string
	}{
		{"public https name", "https://hooks.example.com/acct", false, nil, ""},
		{"public https name with port", "https://hooks.example.com:8443/acct?x=1", false, nil, ""},
		{"public IPv6 name", "https://v6.example.com/", false, nil, ""},
		{"public literal", "https://93.184.215.14/hook", false, nil, ""},
		{"public literal http allowed", "http://93.184.215.14:8080/hook", true, nil, ""},

		{"ftp", "ftp://hooks.example.com/", false, ErrInvalidURL, `scheme "ftp"`},
		{"file", "file:///etc/passwd", false, ErrInvalidURL, `scheme "file"`},
		{"javascript", "javascript:alert(1)", false, ErrInvalidURL, `scheme "javascript"`},
		{"no scheme", "hooks.example.com/x", false, ErrInvalidURL, "scheme missing"},
		{"no host", "https:///path", false, ErrInvalidURL, "host missing"},
		{"only a dot", "https://./", false, ErrInvalidURL, "host missing"},
		{"opaque", "https:hooks.example.com", false, ErrInvalidURL, "host"},
		{"userinfo", "https://user:pw@hooks.example.com/", false, ErrInvalidURL, "credentials"},
		{"user only", "https://user@hooks.example.com/", false, ErrInvalidURL, "credentials"},
		{"port zero", "https://hooks.example.com:0/", false, ErrInvalidURL, "port"},
		{"port too big", "https://hooks.example.com:70000/", false, ErrInvalidURL, "port"},
		{"unparsable", "https://[::1/", false, ErrInvalidURL, "parsed"},
		{"http refused by default", "http://hooks.example.com/", false, ErrInvalidURL, "must be https"},

		{"loopback", "https://127.0.0.1/", false, ErrRefused, "127.0.0.1 is a loopback address"},
		{"rfc1918 10", "https://10.1.2.3/", false, ErrRefused, "private"},
		{"rfc1918 172", "https://172.16.0.1/", false, ErrRefused, "private"},
		{"rfc1918 192", "https://192.168.1.1:8443/", false, ErrRefused, "private"},
		{"cgnat", "https://100.64.0.1/", false, ErrRefused, "carrier-grade NAT"},
		{"unspecified", "https://0.0.0.0/", false, ErrRefused, "unspecified"},
		{"v6 loopback", "https://[::1]/", false, ErrRefused, "loopback"},
		{"v6 ula", "https://[fc00::1]/", false, ErrRefused, "private"},
		{"v6 link-local", "https://[fe80::1]/", false, ErrRefused, "link-local"},
		{"v6 link-local with zone", "https://[fe80::1%25eth0]/", false, ErrRefused, "link-local"},
		{"v4-mapped loopback", "https://[::ffff:127.0.0.1]/", false, ErrRefused, "127.0.0.1 is a loopback"},
		{"v4-mapped metadata", "https://[::ffff:169.254.169.254]/", false, ErrRefused, "metadata"},
		{"multicast", "https://224.0.0.1/", false, ErrRefused, "multicast"},
		{"documentation range", "https://192.0.2.10/", false, ErrRefused, "special-purpose address (192.0.2.0/24)"},
		{"v6 documentation range", "https://[2001:db8::1]/", false, ErrRefused, "special-purpose address (2001:db8::/32)"},
		{"v6 discard prefix", "https://[100::1]/", false, ErrRefused, "outside the IPv6 global unicast range"},
		{"v6 nat64 loopback", "https://[64:ff9b::7f00:1]/", false, ErrRefused, "outside the IPv6 global unicast range"},
		{"aws metadata", "http://169.254.169.254/latest/meta-data/", true, ErrRefused, "metadata"},
		{"aws metadata v6", "https://[fd00:ec2::254]/", false, ErrRefused, "metadata"},
		{"alibaba metadata", "https://100.100.100.200/", false, ErrRefused, "metadata"},
		{"azure wireserver", "https://168.63.129.16/", false, ErrRefused, "metadata"},
		{"nat64 metadata", "https://[64:ff9b::a9fe:a9fe]/", false, ErrRefused, "metadata"},

		{"name to private", "https://internal.example.com/", false, ErrRefused, "internal.example.com resolves to 10.0.0.5, a private address"},
		{"name to public and private", "https://mixed.example.com/", false, ErrRefused, "192.168.1.10"},
		{"name to public and v6 loopback", "https://mixed6.example.com/", false, ErrRefused, "::1"},
		{"name to metadata", "https://meta.example.com/", false, ErrRefused, "metadata"},
		{"name to mapped loopback", "https://mapped.example.com/", false, ErrRefused, "127.0.0.1"},
		{"gcp metadata name", "https://metadata.google.internal/computeMetadata/v1/", false, ErrRefused, "metadata host"},
		{"gcp metadata name upper, trailing dot", "https://METADATA.Google.Internal./", false, ErrRefused, "metadata host"},
		{"bare metadata name", "https://metadata/", false, ErrRefused, "metadata host"},
		{"metadata.goog", "https://metadata.goog/", false, ErrRefused, "metadata host"},

		{"unknown name", "https://nope.example.com/", false, ErrUnresolvable, "nope.example.com"},
		{"no addresses", "https://empty.example.com/", false, ErrUnresolvable, "no address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{AllowHTTP: tt.allowHTTP, Resolver: testResolver()})
			err := c.CheckURL(context.Background(), tt.url)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckURL(%q) = %v, want accepted", tt.url, err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("CheckURL(%q) = %v, want %v", tt.url, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("CheckURL(%q) = %q, want the reason to mention %q", tt.url, err, tt.reason)
			}
		})
	}
}

func TestCheckURLKeepsLibraryAndDNSErrors(t *testing.T) {
	c := New(Options{Resolver: testResolver()})
	err := c.CheckURL(context.Background(), "https://10.1.2.3/")
	if !errors.Is(err, ssrf.ErrProhibitedIP) {
		t.Errorf("private refusal %v does not wrap ssrf.ErrProhibitedIP", err)
	}
	err = c.CheckURL(context.Background(), "https://nope.example.com/")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Errorf("unresolvable %v does not wrap the *net.DNSError", err)
	}
}

func TestCheckURLAllowPrivate(t *testing.T) {
	tests := []struct {
		url      string
		accepted bool
	}{
		{"http://127.0.0.1:8080/", true},
		{"https://10.1.2.3/", true},
		{"https://172.16.0.1/", true},
		{"https://192.168.1.1/", true},
		{"https://100.64.0.1/", true},
		{"https://[::1]/", true},
		{"https://[fc00::1]/", true},
		{"https://[::ffff:127.0.0.1]/", true},
		{"https://internal.example.com/", true},
		{"https://mixed.example.com/", true},
		{"https://hooks.example.com/", true},

		{"https://169.254.169.254/", false},
		{"https://[::ffff:169.254.169.254]/", false},
		{"https://169.254.170.2/", false},
		{"https://169.254.1.1/", false},
		{"https://[fe80::1]/", false},
		{"https://[fd00:ec2::254]/", false},
		{"https://[fd20:ce::254]/", false},
		{"https://100.100.100.200/", false},
		{"https://168.63.129.16/", false},
		{"https://meta.example.com/", false},
		{"https://metadata.google.internal/", false},
		{"https://metadata/", false},
		{"https://Metadata.Goog./", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			c := New(Options{AllowPrivate: true, AllowHTTP: true, Resolver: testResolver()})
			err := c.CheckURL(context.Background(), tt.url)
			if tt.accepted && err != nil {
				t.Fatalf("CheckURL(%q) = %v, want accepted with AllowPrivate", tt.url, err)
			}
			if !tt.accepted && !errors.Is(err, ErrRefused) {
				t.Fatalf("CheckURL(%q) = %v, want ErrRefused even with AllowPrivate", tt.url, err)
			}
		})
	}
}

// TestControl drives the dialer hook directly with the addresses the
// kernel would be asked to connect to.
func TestControl(t *testing.T) {
	tests := []struct {
		network, address string
		allowPrivate     bool
		want             error
	}{
		{"tcp4", "93.184.215.14:443", false, nil},
		{"tcp4", "93.184.215.14:9999", false, nil}, // any port
		{"tcp6", "[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:443", false, nil},
		{"tcp4", "127.0.0.1:80", false, ErrRefused},
		{"tcp4", "10.0.0.1:443", false, ErrRefused},
		{"tcp6", "[::1]:443", false, ErrRefused},
		{"tcp6", "[::ffff:127.0.0.1]:443", false, ErrRefused},
		{"tcp6", "[fe80::1%eth0]:443", true, ErrRefused},
		{"tcp6", "[::ffff:169.254.169.254]:80", true, ErrRefused},
		{"tcp4", "169.254.169.254:80", true, ErrRefused},
		{"tcp4", "100.100.100.200:80", true, ErrRefused},
		{"tcp4", "127.0.0.1:80", true, nil},
		{"udp4", "93.184.215.14:53", false, ErrRefused},
		{"tcp4", "not-an-address", false, ErrRefused},
	}
	for _, tt := range tests {
		t.Run(tt.network+" "+tt.address, func(t *testing.T) {
			c := New(Options{AllowPrivate: tt.allowPrivate})
			err := c.control(tt.network, tt.address, nil)
			if tt.want == nil && err != nil {
				t.Fatalf("control = %v, want allowed", err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("control = %v, want %v", err, tt.want)
			}
		})
	}
}

func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://hooks.example.com/acct",
		"http://hooks.example.com:8080/",
		"https://127.0.0.1/",
		"https://[::ffff:169.254.169.254]/",
		"https://[fe80::1%25eth0]:443/",
		"https://user:pw@hooks.example.com/",
		"https://metadata.google.internal./",
		"ftp://x/",
		"javascript:alert(1)",
		"https:///",
		"https://hooks.example.com:99999/",
		"//hooks.example.com/",
		"",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	// Every name resolves to a public address, so whatever fails is the
	// URL's form or a literal address.
	public := resolverFunc(func(context.Context, string) ([]net.IPAddr, error) {
		return []net.IPAddr{{IP: net.ParseIP(publicIP)}}, nil
	})
	f.Fuzz(func(t *testing.T, raw string, allowHTTP bool) {
		c := New(Options{AllowHTTP: allowHTTP, Resolver: public})
		err := c.CheckURL(context.Background(), raw)
		if err != nil {
			if !errors.Is(err, ErrInvalidURL) && !errors.Is(err, ErrRefused) && !errors.Is(err, ErrUnresolvable) {
				t.Fatalf("CheckURL(%q) = %v: not one of the package's errors", raw, err)
			}
			return
		}
		u, perr := url.Parse(raw)
		if perr != nil {
			t.Fatalf("CheckURL accepted %q, which does not parse: %v", raw, perr)
		}
		if u.Scheme != "https" && !(allowHTTP && u.Scheme == "http") {
			t.Fatalf("CheckURL accepted %q with scheme %q (allowHTTP=%v)", raw, u.Scheme, allowHTTP)
		}
		if u.Hostname() == "" || u.User != nil || u.Opaque != "" {
			t.Fatalf("CheckURL accepted %q: host %q, user %v, opaque %q", raw, u.Hostname(), u.User, u.Opaque)
		}
	})
}

type resolverFunc func(context.Context, string) ([]net.IPAddr, error)

func (f resolverFunc) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	return f(ctx, host)
}
