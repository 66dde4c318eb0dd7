// Command abx manages cloud sandboxes and works inside them.
package main

import (
	"os"

	"github.com/abx-dev/abx/internal/cli"
)

func main() { os.Exit(cli.Main()) }
