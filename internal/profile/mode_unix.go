//go:build unix

package profile

// modesMatter: permission bits say who may read and write a file.
const modesMatter = true
