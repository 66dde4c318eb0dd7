package alicloudcontainer

import (
	"os"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// The retry cases count tries and read what the log says of them: the
	// backoff works the same from a first wait of 10 ms as from 250 ms.
	retryFirstWait = 10 * time.Millisecond
	os.Exit(m.Run())
}
