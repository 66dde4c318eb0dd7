//go:build unix

package keystore

// modesMatter: permission bits say who may read a file.
const modesMatter = true
