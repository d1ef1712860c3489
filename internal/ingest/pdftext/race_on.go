//go:build race

package pdftext

// raceEnabled: the race detector's shadow memory counts as data, so no
// data-segment limit can be set under it.
const raceEnabled = true
