package sandboxes

import (
	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
)

// checkEgress refuses egress rules the manager would refuse, before
// anything is sent, in its words.
func checkEgress(rules provider.Network) error {
	if err := e2bapi.CheckEgress(rules.AllowOut, rules.DenyOut); err != nil {
		return abxerr.New(abxerr.InvalidInput, "invalid egress rules: %v", err).
			WithHint("denyOut takes CIDRs or IPs; allowOut takes CIDRs, IPs or domain names without wildcards; at most %d each", e2bapi.MaxEgressRules)
	}
	return nil
}
