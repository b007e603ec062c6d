//go:build race

package grok

const raceEnabled = true
