// Command abx manages cloud sandboxes and works inside them.
package main

import (
	"os"

	"github.com/abx-dev/abx/internal/cmd/root"
)

func main() {
	// abx started as an emulated sandbox's init never gets here: package
	// boxinit takes the process over as it is initialised.
	os.Exit(root.Main())
}
