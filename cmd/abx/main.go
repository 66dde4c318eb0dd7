// Command abx manages cloud sandboxes and works inside them.
package main

import (
	"os"

	"github.com/abx-dev/abx/internal/cmd/root"
)

func main() { os.Exit(root.Main()) }
