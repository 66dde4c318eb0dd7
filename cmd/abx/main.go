// Command abx manages cloud sandboxes and works inside them.
package main

import (
	"os"

	"github.com/abx-dev/abx/internal/cmd/root"
	"github.com/abx-dev/abx/internal/emulator/jail"
)

func main() {
	// abx started as the emulator's sandbox init never gets further.
	jail.Init()
	os.Exit(root.Main())
}
