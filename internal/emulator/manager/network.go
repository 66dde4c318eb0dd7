package manager

import (
	"encoding/json"
	"net/http"

	"github.com/abx-dev/abx/internal/e2bapi"
)

// setNetwork serves PUT /sandboxes/{id}/network as sandbox-manager does:
// the body is read and checked before the sandbox is looked up (400 with
// the manager's words); the rules replace the sandbox's (empty lists clear
// them); 204. allow_internet_access is read and not used, as there.
func (s *Server) setNetwork(w http.ResponseWriter, r *http.Request) {
	var req struct {
		AllowInternetAccess *bool    `json:"allow_internet_access,omitempty"`
		AllowOut            []string `json:"allowOut,omitempty"`
		DenyOut             []string `json:"denyOut,omitempty"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, r, http.StatusBadRequest, http.StatusBadRequest, "Failed to decode request body: "+err.Error())
		return
	}
	if err := e2bapi.CheckEgress(req.AllowOut, req.DenyOut); err != nil {
		writeError(w, r, http.StatusBadRequest, http.StatusBadRequest, err.Error())
		return
	}
	s.sandbox(func(w http.ResponseWriter, r *http.Request, b *Sandbox) {
		mark, ok := s.lockLive(w, r, b)
		if !ok {
			return
		}
		b.Network = nil
		if len(req.AllowOut)+len(req.DenyOut) > 0 {
			b.Network = &e2bapi.Network{AllowOut: req.AllowOut, DenyOut: req.DenyOut}
		}
		s.emitLocked("network", *b)
		s.unlock(mark)
		w.WriteHeader(http.StatusNoContent)
	})(w, r)
}
