package e2bapi

import (
	"fmt"
	"net"
	"regexp"
	"strings"
)

// Network is a sandbox's network settings as E2B's API carries them: at
// create, in a describe, and (without AllowPublicTraffic) in the body of
// PUT /sandboxes/{id}/network. sandbox-manager reads the egress rules
// alone (docs/protocol.md, "Egress rules").
type Network struct {
	// AllowPublicTraffic false asks that the sandbox's ports need a token
	// (E2B's traffic token); sandbox-manager does not read it.
	AllowPublicTraffic *bool `json:"allowPublicTraffic,omitempty"`
	// AllowOut are the destinations allowed despite DenyOut: CIDRs, IPs
	// or domain names (no wildcards).
	AllowOut []string `json:"allowOut,omitempty"`
	// DenyOut are the destinations denied: CIDRs or IPs.
	DenyOut []string `json:"denyOut,omitempty"`
}

// MaxEgressRules bounds each list of egress rules, as sandbox-manager does.
const MaxEgressRules = 100

// domainName is a fully qualified name as sandbox-manager takes one in
// allowOut: labels of letters, digits and inner hyphens, a top level of
// two letters or more, no wildcard.
var domainName = regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,}$`)

// CheckEgress applies sandbox-manager's rules to a pair of egress lists:
// at most MaxEgressRules each; allowOut entries are CIDRs, IPs or domain
// names without wildcards; denyOut entries CIDRs or IPs. The error is the
// manager's words.
func CheckEgress(allowOut, denyOut []string) error {
	if len(allowOut) > MaxEgressRules {
		return fmt.Errorf("allowOut list exceeds maximum of %d entries", MaxEgressRules)
	}
	for _, e := range allowOut {
		if strings.Contains(e, "*") {
			return fmt.Errorf("invalid allowOut entry: %q wildcard domains are not supported, use a concrete domain instead", e)
		}
		if !isCIDROrIP(e) && !domainName.MatchString(e) {
			return fmt.Errorf("invalid allowOut entry: %q is not a valid CIDR, IP, or domain", e)
		}
	}
	if len(denyOut) > MaxEgressRules {
		return fmt.Errorf("denyOut list exceeds maximum of %d entries", MaxEgressRules)
	}
	for _, e := range denyOut {
		if !isCIDROrIP(e) {
			return fmt.Errorf("domains are not supported in denyOut: %q is not a valid CIDR or IP address", e)
		}
	}
	return nil
}

func isCIDROrIP(s string) bool {
	if _, _, err := net.ParseCIDR(s); err == nil {
		return true
	}
	return net.ParseIP(s) != nil
}
