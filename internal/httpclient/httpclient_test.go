package httpclient

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestTraceRedactsSecrets(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Next-Token", "cursor-7")
		w.Header().Set("Set-Cookie", "session=s3cr3t")
		w.WriteHeader(http.StatusNoContent)
	}))
	defer ts.Close()
	var trace bytes.Buffer
	req, _ := http.NewRequest("POST", ts.URL+"/sandboxes", nil)
	for k, v := range map[string]string{
		"X-API-Key": "key-1", "X-Access-Token": "tok-2", "E2B-Traffic-Access-Token": "tok-3",
		"Authorization": "Basic dXNlcjo=", "E2b-Sandbox-Id": "sb-1",
	} {
		req.Header.Set(k, v)
	}
	resp, err := New(&trace).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	out := trace.String()
	for _, secret := range []string{"key-1", "tok-2", "tok-3", "dXNlcjo=", "s3cr3t"} {
		if strings.Contains(out, secret) {
			t.Errorf("trace shows %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{"> POST " + ts.URL + "/sandboxes", "> E2b-Sandbox-Id: sb-1", "> X-Api-Key: REDACTED",
		"< 204 No Content", "< X-Next-Token: cursor-7"} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
}

func TestNoTraceByDefault(t *testing.T) {
	if _, ok := New(nil).Transport.(*http.Transport); !ok {
		t.Error("without --debug the transport is not wrapped")
	}
}
