package provider

// The ports of the servers in every sandbox of the abx family
// (docs/protocol.md). They are written here, not in the clients of those
// servers, because the providers, the doors and the emulator all need
// them and the clients need none (a client is handed its endpoint): a
// provider reads them without linking the clients' code.
const (
	// EnvdPort is where envd listens: a provider's default for it, and a
	// port that runs anything as anyone (Endpoint.Privileged).
	EnvdPort = 49983
	// CodeInterpreterPort is where the code interpreter listens; it runs
	// code, and hands the envd token on, so it is privileged too.
	CodeInterpreterPort = 49999
)
