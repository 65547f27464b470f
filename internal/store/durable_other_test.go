//go:build !linux

package store

// hintsWriteback: only Linux starts the writing of a commit's frames before the sync (startWriteback).
const hintsWriteback = false
