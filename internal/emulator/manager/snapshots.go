package manager

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/e2bapi"
)

// Snapshots as sandbox-manager serves them (docs/protocol.md, "Snapshots"):
// POST /sandboxes/{id}/snapshots takes one of a running sandbox, GET
// /snapshots lists them, DELETE /templates/{id} deletes one (204 whether or
// not it was there), and a create whose template is a snapshot's ID makes
// a clone. A cluster's checkpoint controller takes the snapshot; here the
// files of it are the emulator's to keep (Options.Snapshots).

// Snapshot is the fake's record of one snapshot, with what a clone of it
// starts from: the sandbox's template, environment and network, and its
// envd access token (a clone's is the checkpoint's).
type Snapshot struct {
	ID              string
	SandboxID       string
	Template        string
	EnvVars         map[string]string
	EnvdAccessToken string
	AllowInternet   bool
	Network         *e2bapi.Network
	Contents        []string
	CreatedAt       time.Time
	// ExpiresAt ends it (its TTL); zero keeps it until deleted.
	ExpiresAt time.Time
	seq       int
}

// SnapshotStore keeps the files of snapshots: Take copies a sandbox's into
// a snapshot (while it is taken, the sandbox's processes are the store's
// to freeze), Clone makes a new sandbox's from a snapshot's before the
// sandbox is made, Drop removes a snapshot's. The manager calls them
// without its lock.
type SnapshotStore interface {
	Take(sandboxID, snapshotID string) error
	Clone(snapshotID, sandboxID string) error
	Drop(snapshotID string)
}

// defaultSnapshotWait is how long a snapshot is waited for when the
// request does not say (x-e2b-kruise-snapshot-wait-success-seconds 0).
const defaultSnapshotWait = 60 * time.Second

// snapshotOptions are a snapshot request's extension headers, read as
// sandbox-manager reads them.
type snapshotOptions struct {
	keepRunning *bool
	ttl         time.Duration
	contents    []string
	wait        time.Duration
}

func readSnapshotOptions(h http.Header) (snapshotOptions, error) {
	var o snapshotOptions
	// Only "true" and "false" count; anything else leaves the default.
	switch h.Get(e2bapi.HeaderSnapshotKeepRunning) {
	case "true":
		t := true
		o.keepRunning = &t
	case "false":
		f := false
		o.keepRunning = &f
	}
	if v := h.Get(e2bapi.HeaderSnapshotTTL); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return o, fmt.Errorf("invalid TTL format %q: %w", v, err)
		}
		o.ttl = d
	}
	if v := h.Get(e2bapi.HeaderSnapshotContents); v != "" {
		for _, c := range strings.Split(v, ",") {
			c = strings.TrimSpace(c)
			if c == "" {
				continue
			}
			if c != "memory" && c != "filesystem" {
				return o, fmt.Errorf(`invalid persistent content %q, only "memory" and "filesystem" are allowed`, c)
			}
			if !slices.Contains(o.contents, c) {
				o.contents = append(o.contents, c)
			}
		}
	}
	if v := h.Get(e2bapi.HeaderSnapshotWait); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return o, fmt.Errorf("invalid WaitSuccessSeconds format %q: %w", v, err)
		}
		if n < 0 {
			return o, fmt.Errorf("WaitSuccessSeconds %s cannot be negative", v)
		}
		o.wait = time.Duration(n) * time.Second
	}
	return o, nil
}

// snapshot takes a snapshot of a running sandbox: its files (the store's
// Take), waited for as the request says; then, where the request says the
// sandbox does not keep running, the sandbox is paused.
func (s *Server) snapshot(w http.ResponseWriter, r *http.Request, b *Sandbox) {
	var req e2bapi.NewSnapshot
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, r, http.StatusInternalServerError, 0, err.Error())
		return
	}
	opts, err := readSnapshotOptions(r.Header)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, http.StatusBadRequest, "Bad extension param: "+err.Error())
		return
	}
	if opts.contents == nil {
		// The sandbox's own: an emulated one keeps its files.
		opts.contents = []string{"filesystem"}
	}
	if slices.Contains(opts.contents, "memory") {
		// A box's processes cannot be checkpointed here: say so rather
		// than keep files and call them memory (docs/snapshots.md).
		writeError(w, r, http.StatusBadRequest, http.StatusBadRequest,
			`Bad extension param: the emulator keeps a sandbox's files only: persistent content "memory" is a cluster's`)
		return
	}
	mark, ok := s.lockLive(w, r, b)
	if !ok {
		return
	}
	if b.State != "running" {
		s.unlock(mark)
		writeError(w, r, http.StatusBadRequest, http.StatusBadRequest,
			fmt.Sprintf("Sandbox %s is not running; sandboxResource=%s", b.ID, resourceOf(b)))
		return
	}
	s.snapSeq++
	id := newSnapshotID()
	for s.snaps[id] != nil {
		id = newSnapshotID()
	}
	snap := &Snapshot{ID: id, SandboxID: b.ID, Template: b.Template,
		EnvVars: b.EnvVars, EnvdAccessToken: b.EnvdAccessToken, AllowInternet: b.AllowInternet, Network: b.Network,
		Contents: opts.contents, seq: s.snapSeq}
	s.unlock(mark)

	wait := opts.wait
	if wait == 0 {
		wait = defaultSnapshotWait
	}
	done := make(chan error, 1)
	go func() {
		var err error
		if s.store != nil {
			err = s.store.Take(b.ID, snap.ID)
		}
		if err == nil {
			now := s.opts.Now()
			snap.CreatedAt = now
			if opts.ttl > 0 {
				snap.ExpiresAt = now.Add(opts.ttl)
			}
			mark := s.lock()
			s.snaps[snap.ID] = snap
			s.emitLocked("snapshot", Sandbox{ID: snap.SandboxID})
			s.unlock(mark)
		}
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(wait):
		// As a cluster's: the snapshot is not given up, and is listed
		// once it is taken.
		err = fmt.Errorf("failed to wait checkpoint ready: object is not satisfied during double check")
	}
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, 0, fmt.Sprintf("%v; sandboxResource=%s", err, resourceOf(b)))
		return
	}
	if opts.keepRunning != nil && !*opts.keepRunning {
		// The emulator's reading of a checkpoint that does not keep its
		// sandbox running: the sandbox is paused (docs/snapshots.md).
		if mark, ok := s.lockLive(w, r, b); ok {
			if b.State == "running" {
				b.State, b.EndAt = "paused", s.opts.Now().Add(pausedFor)
				s.emitLocked("paused", *b)
			}
			s.unlock(mark)
		} else {
			return
		}
	}
	writeJSON(w, http.StatusCreated, e2bapi.SnapshotInfo{SnapshotID: snap.ID})
}

// resourceOf names a sandbox as sandbox-manager's errors do: its
// namespace/name.
func resourceOf(b *Sandbox) string {
	ns, name, ok := strings.Cut(b.ID, "--")
	if !ok {
		return "default/" + b.ID
	}
	return ns + "/" + name
}

// newSnapshotID is a checkpoint's ID, of one length whatever it was taken
// of: a clone's generated name starts with it, and a clone of a clone's
// snapshot must not grow past a name's 63 characters.
func newSnapshotID() string {
	return "snap-" + letters5() + letters5()
}

// listSnapshots answers GET /snapshots: the snapshots taken, oldest
// first, a page of limit (1 to 100, 100 by default), the next page's
// cursor in x-next-token.
func (s *Server) listSnapshots(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := maxListLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListLimit {
			writeError(w, r, http.StatusBadRequest, http.StatusBadRequest,
				fmt.Sprintf("Invalid limit: %s, must be between 1 and %d", v, maxListLimit))
			return
		}
		limit = n
	}
	after := 0
	if tok := q.Get("nextToken"); tok != "" {
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		n, cerr := strconv.Atoi(string(raw))
		if err != nil || cerr != nil {
			writeError(w, r, http.StatusBadRequest, http.StatusBadRequest, "Invalid nextToken: "+tok)
			return
		}
		after = n
	}
	sandbox := q.Get("sandboxID")
	mark := s.lock()
	s.expireLocked()
	var list []*Snapshot
	for _, sn := range s.snaps {
		if sn.seq > after && (sandbox == "" || sn.SandboxID == sandbox) {
			list = append(list, sn)
		}
	}
	s.unlock(mark)
	slices.SortFunc(list, func(a, b *Snapshot) int { return a.seq - b.seq })
	out := make([]e2bapi.SnapshotInfo, 0, limit)
	for i, sn := range list {
		if i == limit {
			w.Header().Set("X-Next-Token", base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(list[i-1].seq))))
			break
		}
		out = append(out, e2bapi.SnapshotInfo{SnapshotID: sn.ID})
	}
	writeJSON(w, http.StatusOK, out)
}

// deleteTemplate answers DELETE /templates/{templateID}: a snapshot is
// deleted (204, whether it was there or not); a template of the server's
// own is not the API's to delete.
func (s *Server) deleteTemplate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("templateID")
	if s.knownTemplate(id) {
		writeError(w, r, http.StatusUnauthorized, http.StatusUnauthorized,
			"Deleting SandboxSet-backed templates through the E2B API is not supported")
		return
	}
	mark := s.lock()
	_, had := s.snaps[id]
	delete(s.snaps, id)
	if had {
		s.emitLocked("snapshot-deleted", Sandbox{})
	}
	s.unlock(mark)
	if had && s.store != nil {
		s.store.Drop(id)
	}
	w.WriteHeader(http.StatusNoContent)
}

// expireSnapshotsLocked drops the snapshots whose TTL has run out; their
// files go after the lock is released (dropLater).
func (s *Server) expireSnapshotsLocked(now time.Time) {
	for id, sn := range s.snaps {
		if !sn.ExpiresAt.IsZero() && !sn.ExpiresAt.After(now) {
			delete(s.snaps, id)
			s.dropped = append(s.dropped, id)
			s.emitLocked("snapshot-deleted", Sandbox{})
		}
	}
}

// dropExpired hands the store the snapshots expired since the last call.
func (s *Server) dropExpired() {
	s.mu.Lock()
	ids := s.dropped
	s.dropped = nil
	s.mu.Unlock()
	if s.store == nil {
		return
	}
	for _, id := range ids {
		s.store.Drop(id)
	}
}

// A clone's name, as sandbox-manager checks it: a DNS-1123 label (the
// generated one with five letters added).
var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// cloneName reads the clone's name from a create's metadata, taking its
// keys out: the name, "" and the prefix of a generated one, or neither.
func cloneName(md map[string]string) (name, generate string, err error) {
	name, hasName := md[e2bapi.MetadataSandboxName]
	generate, hasGen := md[e2bapi.MetadataSandboxGenerateName]
	delete(md, e2bapi.MetadataSandboxName)
	delete(md, e2bapi.MetadataSandboxGenerateName)
	switch {
	case hasName && hasGen:
		return "", "", fmt.Errorf("sandbox-name and sandbox-generate-name are mutually exclusive")
	case hasName && name == "":
		return "", "", fmt.Errorf("sandbox-name must not be empty")
	case hasGen && generate == "":
		return "", "", fmt.Errorf("sandbox-generate-name must not be empty")
	case hasName && (len(name) > 63 || !dns1123Label.MatchString(name)):
		return "", "", fmt.Errorf("invalid sandbox-name [%s]: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", name)
	case hasGen && (len(generate)+5 > 63 || !dns1123Label.MatchString(generate+"abcde")):
		return "", "", fmt.Errorf("invalid sandbox-generate-name [%s]: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", generate)
	}
	return name, generate, nil
}

// KeepSnapshots gives the server the store of its snapshots' files,
// before it serves.
func (s *Server) KeepSnapshots(st SnapshotStore) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store = st
}

// Snapshots returns the snapshots kept, oldest first (the emulator saves
// them with its sandboxes).
func (s *Server) Snapshots() []Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Snapshot, 0, len(s.snaps))
	for _, sn := range s.snaps {
		out = append(out, *sn)
	}
	slices.SortFunc(out, func(a, b Snapshot) int { return a.seq - b.seq })
	return out
}

// RestoreSnapshots adds snapshots saved from an earlier run.
func (s *Server) RestoreSnapshots(list []Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sn := range list {
		s.snapSeq++
		sn.seq = s.snapSeq
		s.snaps[sn.ID] = &sn
	}
}
