//go:build unix

package runfile

// ModesMatter is true here: permission bits say who may read and write a
// file (a private file whose bits let others in is refused, as ssh
// refuses a key).
const ModesMatter = true
