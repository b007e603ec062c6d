//go:build race

package streams_test

// raceEnabled: the race detector drops sync.Pool items at random, so the
// regular expressions' pooled machines are allocated again and allocation
// counts are not checked under it.
const raceEnabled = true
