package profile

import (
	"fmt"
	"os"
	"time"
)

// lockWait bounds the wait for another abx's hold of the file's lock: one
// stopped with Ctrl-Z while it updates the file holds the lock for as
// long as it stays stopped, and no command waits on it for ever.
var lockWait = 10 * time.Second

// lock takes the file's lock, waiting for another holder lockWait at
// most; unlock lets go (and so does the process's end, however it comes).
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockWait)
	for {
		ok, err := tryLock(f)
		switch {
		case err != nil:
			_ = f.Close()
			return nil, err
		case ok:
			return func() { _ = f.Close() }, nil
		case time.Now().After(deadline):
			_ = f.Close()
			return nil, fmt.Errorf("another abx has held it for %s (a stopped one? 'jobs' lists a shell's)", lockWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
