package docx

import (
	"strings"

	"ragd/internal/ingest/document"
)

// docxPictureText finds the block position, caption and surrounding text
// of a picture from the paragraphs around it.
func docxPictureText(pars []docxImgPar, pic docxPic) (position int, caption, nearby string) {
	if pic.par < 0 || pic.par >= len(pars) {
		return 0, document.Clip(pic.alt, document.MaxCaptionChars), ""
	}
	own := pars[pic.par]
	position = int(own.block)
	// the nearest non-empty paragraph on each side
	near := func(from, step int) int {
		for j := from + step; j >= 0 && j < len(pars); j += step {
			if pars[j].text != "" {
				return j
			}
		}
		return -1
	}
	prev, next := near(pic.par, -1), near(pic.par, 1)
	capIdx := -1
	switch {
	case next >= 0 && pars[next].caption:
		capIdx = next
	case prev >= 0 && pars[prev].caption:
		capIdx = prev
	case own.caption:
		capIdx = pic.par
	}
	if capIdx >= 0 {
		caption = pars[capIdx].text
	} else {
		caption = pic.alt
	}
	caption = document.Clip(caption, document.MaxCaptionChars)

	// context: the picture's own paragraph, then the paragraphs before and
	// after it (not the caption), at most three on each side
	ownText := ""
	if capIdx != pic.par {
		ownText = document.Clip(own.text, document.NearbyChars)
	}
	room := document.NearbyChars - len(ownText)
	gather := func(step, budget int) []string {
		var parts []string
		n := 0
		for j := pic.par + step; j >= 0 && j < len(pars) && len(parts) < 3 && n < budget; j += step {
			if j == capIdx || pars[j].text == "" {
				continue
			}
			parts = append(parts, pars[j].text)
			n += len(pars[j].text) + 1
		}
		return parts
	}
	var before string
	if b := gather(-1, room/2); len(b) > 0 {
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		before = document.ClipTail(strings.Join(b, " "), room/2)
	}
	room -= len(before)
	var after string
	if a := gather(1, room); len(a) > 0 {
		after = document.Clip(strings.Join(a, " "), room)
	}
	var parts []string
	for _, s := range []string{before, ownText, after} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return position, caption, strings.Join(parts, " ")
}
