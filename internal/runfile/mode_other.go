//go:build !unix

package runfile

// ModesMatter is false here: access is an ACL's, which mode bits do not
// show.
const ModesMatter = false
