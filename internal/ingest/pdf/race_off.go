//go:build !race

package pdf

const raceEnabled = false
