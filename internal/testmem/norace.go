//go:build !race

package testmem

const raceEnabled = false
