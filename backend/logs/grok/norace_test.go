//go:build !race

package grok

const raceEnabled = false
