//go:build !unix

package profile

// modesMatter: here access is an ACL's, which mode bits do not show.
const modesMatter = false
