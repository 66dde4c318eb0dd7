//go:build linux

package envd

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
)

// The cost of one GET /metrics, on loopback: without isolation (the
// machine's numbers), in a box, and in a box whose home holds 10,000
// files that the count walks.
func BenchmarkMetrics(b *testing.B) {
	for _, tc := range []struct {
		name     string
		isolated bool
		files    int
	}{{"machine", false, 0}, {"box", true, 0}, {"box with 10000 files", true, 10000}} {
		b.Run(tc.name, func(b *testing.B) {
			opts := Options{Root: filepath.Join(b.TempDir(), "sandbox"), AccessToken: token}
			if tc.isolated {
				jailtest.Need(b)
				opts.Isolated, opts.Hide = true, []string{filepath.Dir(opts.Root)}
			}
			s := New(opts)
			ts := httptest.NewServer(s)
			b.Cleanup(func() { s.Close(); ts.Close() })
			if tc.isolated {
				if _, err := s.box(); err != nil {
					b.Fatal(err)
				}
			}
			for i := range tc.files {
				dir := filepath.Join(opts.Root, "home", "user", strconv.Itoa(i%100))
				_ = os.MkdirAll(dir, 0o755)
				if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)), []byte("x"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			req, _ := http.NewRequest(http.MethodGet, ts.URL+"/metrics", nil)
			req.Header.Set("X-Access-Token", token)
			for b.Loop() {
				resp, err := ts.Client().Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatal(resp.Status)
				}
			}
		})
	}
}
