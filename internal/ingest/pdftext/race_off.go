//go:build !race

package pdftext

const raceEnabled = false
