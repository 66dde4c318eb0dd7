package alicloudcontainer

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
)

// Snapshot sends POST /sandboxes/{id}/snapshots, with the options as
// sandbox-manager's extension headers (docs/protocol.md, "Snapshots"). It
// is sent once: a snapshot taken twice is two snapshots.
func (c *Client) Snapshot(ctx context.Context, id string, opts provider.SnapshotOptions) (*provider.Snapshot, error) {
	path, err := sandboxPath(id)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	if opts.KeepRunning != nil {
		h.Set(e2bapi.HeaderSnapshotKeepRunning, strconv.FormatBool(*opts.KeepRunning))
	}
	if opts.TTL > 0 {
		h.Set(e2bapi.HeaderSnapshotTTL, opts.TTL.String())
	}
	if len(opts.Contents) > 0 {
		h.Set(e2bapi.HeaderSnapshotContents, strings.Join(opts.Contents, ","))
	}
	if opts.Wait > 0 {
		h.Set(e2bapi.HeaderSnapshotWait, strconv.FormatInt(int64(opts.Wait.Seconds()), 10))
	}
	var ans *e2bapi.SnapshotInfo
	_, unanswered, err := c.callOnceWith(ctx, http.MethodPost, path+"/snapshots", h, e2bapi.NewSnapshot{}, &ans, http.StatusCreated, http.StatusOK)
	if unanswered {
		e := abxerr.From(err)
		e.Message = "the connection broke after the snapshot request was sent: the snapshot may have been taken (" + e.Message + ")"
		e.Hint = "list the sandbox's snapshots before taking another"
		return nil, e
	}
	if err != nil {
		return nil, err
	}
	if ans == nil || provider.CheckSnapshotID(ans.SnapshotID) != nil {
		return nil, &abxerr.Error{Code: abxerr.BadResponse, Message: "the service answered a snapshot without a valid snapshot ID"}
	}
	return &provider.Snapshot{SnapshotID: ans.SnapshotID, SandboxID: id, Names: names(ans.Names)}, nil
}

// Snapshots sends GET /snapshots, following its pages (X-Next-Token) as
// far as the limit, with the bounds of every listing (pages).
func (c *Client) Snapshots(ctx context.Context, opts provider.SnapshotListOptions) ([]provider.Snapshot, error) {
	q := url.Values{}
	if opts.SandboxID != "" {
		if err := provider.CheckSandboxID(opts.SandboxID); err != nil {
			return nil, err
		}
		q.Set("sandboxID", opts.SandboxID)
	}
	out := []provider.Snapshot{}
	ids := map[string]bool{}
	err := pages(ctx, c, "/snapshots", q, opts.Limit, "snapshots", func(page []*e2bapi.SnapshotInfo) (int, error) {
		for _, s := range page {
			if s == nil || provider.CheckSnapshotID(s.SnapshotID) != nil {
				return 0, &abxerr.Error{Code: abxerr.BadResponse, Message: "the service listed a snapshot without a valid snapshot ID"}
			}
			if !ids[s.SnapshotID] {
				ids[s.SnapshotID] = true
				out = append(out, provider.Snapshot{SnapshotID: s.SnapshotID, Names: names(s.Names)})
			}
		}
		return len(out), nil
	})
	if err != nil {
		return nil, err
	}
	if opts.Limit > 0 && len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	return out, nil
}

// DeleteSnapshot sends DELETE /templates/{id}: a snapshot is a template
// of the manager's, and one that is not there is answered 204 too.
func (c *Client) DeleteSnapshot(ctx context.Context, snapshotID string) error {
	if err := provider.CheckSnapshotID(snapshotID); err != nil {
		return err
	}
	_, err := c.call(ctx, http.MethodDelete, "/templates/"+snapshotID, nil, nil, nil, http.StatusNoContent, http.StatusOK)
	return err
}

// names is never nil: JSON shows [] where the manager sends null.
func names(n []string) []string {
	if n == nil {
		return []string{}
	}
	return n
}
