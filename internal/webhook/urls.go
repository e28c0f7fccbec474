package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// Policy decides which URLs a webhook may call: https, and hosts that
// resolve to public addresses only (no loopback, private, link-local,
// unspecified or multicast address), so that a webhook cannot reach the
// service's own network. AllowInsecure (DEBTQL_WEBHOOK_ALLOW_INSECURE, for
// development and tests) lifts both rules.
type Policy struct {
	AllowInsecure bool
	// Resolver resolves hosts; net.DefaultResolver when nil.
	Resolver *net.Resolver
}

// MaxURLLength bounds a webhook URL.
const MaxURLLength = 2048

// CheckURL refuses a URL the policy does not allow, with the reason; it
// resolves the host (the check is repeated at every delivery, on the
// address connected to: Client).
func (p Policy) CheckURL(ctx context.Context, raw string) error {
	if len(raw) > MaxURLLength {
		return fmt.Errorf("must be at most %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return errors.New("must be an absolute https URL")
	}
	if u.User != nil {
		return errors.New("must not hold a user name or password")
	}
	if p.AllowInsecure {
		return nil
	}
	if u.Scheme != "https" {
		return errors.New("must use https")
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		if !Public(a) {
			return fmt.Errorf("must not point to a loopback, private or link-local address (%s)", a)
		}
		return nil
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("host %s does not resolve", host)
	}
	for _, a := range addrs {
		if !Public(a) {
			return fmt.Errorf("host %s resolves to a loopback, private or link-local address (%s)", host, a.Unmap())
		}
	}
	return nil
}

// Public reports whether a is an address a webhook may call.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsValid() && !a.IsLoopback() && !a.IsPrivate() && !a.IsLinkLocalUnicast() &&
		!a.IsLinkLocalMulticast() && !a.IsInterfaceLocalMulticast() && !a.IsMulticast() &&
		!a.IsUnspecified() && !sharedAddressSpace.Contains(a)
}

// sharedAddressSpace is carrier-grade NAT (RFC 6598), private in effect.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// errNotPublic refuses a connection to an address that is not public.
var errNotPublic = errors.New("webhook: the URL resolves to a loopback, private or link-local address")

// Timeout is how long a receiver has to answer a delivery.
const Timeout = 10 * time.Second

// Client is the HTTP client of deliveries: it follows no redirect (a
// redirect's answer is the receiver's answer), uses no proxy, and, unless
// the policy allows it, refuses to connect to any address that is not
// public, checked on the address actually dialled, after resolution, at
// every delivery (so a name that resolves elsewhere later is caught).
func (p Policy) Client() *http.Client {
	dialer := &net.Dialer{Timeout: Timeout}
	if !p.AllowInsecure {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !Public(ap.Addr()) {
				return errNotPublic
			}
			return nil
		}
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   Timeout,
		ResponseHeaderTimeout: Timeout,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport:     transport,
		Timeout:       Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
