package outbound

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Policy says which servers outbound calls may reach.
type Policy struct {
	// Public lets calls reach public internet addresses.
	Public bool
	// Hosts are names called at whatever address they resolve to, private
	// ones included: the operator vouches for their DNS. Lower case,
	// without a trailing dot.
	Hosts []string
	// Nets are address blocks called even though they are not public (a
	// school's own catalogue server on its network).
	Nets []netip.Prefix
}

// NewPolicy reads an allow list, comma-separated host names, addresses and
// CIDRs (koha.school.lan, 10.20.0.5, 10.20.0.0/16, fd12::/48), into a
// policy; public says whether the internet is allowed too.
func NewPolicy(allow string, public bool) (Policy, error) {
	p := Policy{Public: public}
	var bad []string
	for _, entry := range strings.Split(allow, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if pre, err := netip.ParsePrefix(entry); err == nil {
			p.Nets = append(p.Nets, pre.Masked())
			continue
		}
		if a, err := netip.ParseAddr(entry); err == nil && a.Zone() == "" {
			a = a.Unmap()
			p.Nets = append(p.Nets, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		if name, ok := hostName(entry); ok {
			p.Hosts = append(p.Hosts, name)
			continue
		}
		bad = append(bad, fmt.Sprintf("%q", entry))
	}
	if len(bad) > 0 {
		return Policy{}, fmt.Errorf("%s: each entry must be a host name (koha.school.lan), an address (10.20.0.5) or a CIDR (10.20.0.0/16), without scheme, port or path",
			strings.Join(bad, ", "))
	}
	return p, nil
}

// WithHosts is p with hosts allowed by name too (the identity providers the
// operator configured).
func (p Policy) WithHosts(hosts ...string) Policy {
	out := p
	out.Hosts = slices.Clone(p.Hosts)
	for _, h := range hosts {
		if name, ok := hostName(h); ok {
			out.Hosts = append(out.Hosts, name)
		} else if a, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
			a = a.WithZone("").Unmap()
			out.Nets = append(slices.Clone(out.Nets), netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return out
}

// String is the policy as the start-up log shows it.
func (p Policy) String() string {
	parts := slices.Clone(p.Hosts)
	for _, n := range p.Nets {
		parts = append(parts, n.String())
	}
	allow := strings.Join(parts, ",")
	if allow == "" {
		allow = "nothing private"
	}
	if p.Public {
		return "public internet and " + allow
	}
	return "only " + allow
}

// allowsName reports whether host is called by name, at any address.
func (p Policy) allowsName(host string) bool {
	name, ok := hostName(host)
	return ok && slices.Contains(p.Hosts, name)
}

// allowsAddr says why a call to addr is refused, or "" when it is allowed.
func (p Policy) allowsAddr(addr netip.Addr) string {
	bare := addr.WithZone("")
	for _, n := range p.Nets {
		if n.Contains(bare) || n.Contains(bare.Unmap()) {
			return ""
		}
	}
	if why := refusal(bare); why != "" {
		return why
	}
	if !p.Public {
		return "public address, and only the allow list may be called"
	}
	return ""
}

// hostName is h as a DNS name (lower case, no trailing dot) if it is one:
// letters, digits and hyphens in labels of at most 63, 253 in all, and not
// all digits and dots (an address, which the nets judge).
func hostName(h string) (string, bool) {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" || len(h) > 253 {
		return "", false
	}
	digits := true
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return "", false
		}
		for _, c := range label {
			switch {
			case c >= 'a' && c <= 'z', c == '-':
				digits = false
			case c >= '0' && c <= '9':
			default:
				return "", false
			}
		}
	}
	return h, !digits
}
