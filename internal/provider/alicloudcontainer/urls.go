package alicloudcontainer

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// The URL rules of docs/protocol.md, "Gateway URLs and protocols", live here
// and nowhere else.
//
//	           native                       private
//	API        https://api.{domain}         https://{domain}/kruise/api
//	port P     https://{P}-{id}.{domain}    https://{domain}/kruise/{id}/{P}
//
// base_url replaces the API base. With the private protocol the data plane
// shares the API's origin, so it takes base_url's scheme and host (this is
// what makes an http:// port-forward work); a sandbox's own domain from the
// server is preferred to the configured one otherwise.

// APIBase is the origin and path prefix of the control-plane API.
func (c *Config) APIBase() string {
	if c.BaseURL != "" {
		return strings.TrimRight(c.BaseURL, "/")
	}
	if c.Protocol == ProtocolPrivate {
		return "https://" + c.Domain + "/kruise/api"
	}
	return "https://api." + c.Domain
}

// PortURL is the URL of port on sandbox id. sandboxDomain is the domain the
// server reported for that sandbox, or "" to use the configured one.
func (c *Config) PortURL(id, sandboxDomain string, port int) (string, error) {
	if err := provider.CheckSandboxID(id); err != nil {
		return "", err.Suggest(abxerr.StepList, "")
	}
	if port < 1 || port > 65535 {
		return "", abxerr.New(abxerr.InvalidInput, "port %d is out of range 1..65535", port)
	}
	domain := sandboxDomain
	if domain == "" {
		domain = c.Domain
	} else if (c.Protocol != ProtocolPrivate || c.BaseURL == "") && !isHost(domain) {
		// The server's answer, unlike the configured domain, was never
		// checked: a path, query or user part in it would move the URL.
		return "", abxerr.New(abxerr.BadResponse, "the server gave sandbox %s the domain %q, which is not a host name", id, domain)
	}
	p := strconv.Itoa(port)
	if c.Protocol == ProtocolPrivate {
		origin := "https://" + domain
		if c.BaseURL != "" {
			u, err := url.Parse(c.BaseURL)
			if err != nil {
				return "", abxerr.New(abxerr.InvalidConfig, "base URL %q is not a URL", c.BaseURL)
			}
			origin = u.Scheme + "://" + u.Host
		}
		if origin == "https://" {
			return "", noDataPlaneDomain()
		}
		return origin + "/kruise/" + url.PathEscape(id) + "/" + p, nil
	}
	if domain == "" {
		return "", noDataPlaneDomain()
	}
	if strings.HasPrefix(domain, "[") {
		return "", ipDomain(domain)
	}
	if !isHostLabel(id) {
		return "", abxerr.New(abxerr.InvalidInput, "sandbox ID %q cannot be part of a host name", id).
			WithHint("native URLs need IDs of letters, digits and '-'; use --protocol private for others")
	}
	return "https://" + p + "-" + id + "." + domain, nil
}

func noDataPlaneDomain() error {
	return abxerr.New(abxerr.MissingConfig, "no domain for the sandbox data plane").
		WithHint("set %sDOMAIN or --domain; base_url only gives the API origin with the native protocol", envPrefix)
}

// ipDomain refuses an IPv6 literal as the native protocol's domain: the
// sandbox's name would go in front of it, which makes no host.
func ipDomain(domain string) error {
	return abxerr.New(abxerr.InvalidConfig, "the native protocol needs a domain name, not the address %s", domain).
		WithHint("set %sDOMAIN or --domain to a name, or use --protocol private", envPrefix)
}

func isHostLabel(s string) bool {
	for _, r := range s {
		if !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

// isHost reports whether s is a host with an optional port and nothing
// else, as the authority of an https URL.
func isHost(s string) bool {
	u, err := url.Parse("https://" + s)
	return err == nil && u.Host == s && u.Hostname() != ""
}
