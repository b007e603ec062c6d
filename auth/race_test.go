//go:build race

package auth_test

// raceEnabled: the race detector adds allocations, so allocation counts
// are not checked under it.
const raceEnabled = true
