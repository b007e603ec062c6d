//go:build race

package pipelines_test

const raceEnabled = true
