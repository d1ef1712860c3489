package eval

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// ManPages are the section-1 manual pages of the man corpus: commands of
// Debian's essential packages (coreutils, findutils, grep, sed, tar, gzip,
// diffutils), so every Debian machine has them.
var ManPages = []string{
	"cat", "chmod", "chown", "comm", "cp", "cut", "date", "dd", "df", "diff",
	"du", "env", "find", "grep", "gzip", "head", "install", "join", "ln", "ls",
	"mkdir", "mv", "nice", "nohup", "paste", "readlink", "realpath", "rm", "sed", "seq",
	"shuf", "sort", "split", "stat", "tail", "tar", "tee", "timeout", "touch", "tr",
	"uniq", "wc", "xargs",
}

func buildMan(_ Sources, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range ManPages {
		text, err := renderMan(name)
		if err != nil {
			return err
		}
		md := ManMarkdown(name, text)
		if err := os.WriteFile(filepath.Join(dir, name+".md"), md, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// renderMan formats a page as plain text 80 columns wide, without
// hyphenation or justification, so line breaks do not split words.
func renderMan(name string) (string, error) {
	cmd := exec.Command("man", "--no-hyphenation", "--no-justification", "-E", "UTF-8", "-P", "cat", "1", name)
	cmd.Env = append(os.Environ(), "MANWIDTH=80", "MAN_KEEP_FORMATTING=", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "MANOPT=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("eval: man 1 %s (install man-db and the page's package): %w: %s", name, err, strings.TrimSpace(stderr.String()))
	}
	return overstrike.ReplaceAllString(string(out), ""), nil
}

// overstrike matches grotty's bold and underline sequences (c\bc, _\bc).
var overstrike = regexp.MustCompile(".\b")

// mdSpecial are the characters escaped so that Markdown keeps them as text.
var mdSpecial = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "<", `\<`, "[", `\[`, "`", "\\`")

// ManMarkdown turns a rendered page into Markdown: "# name(1)", each
// unindented line (a section title such as DESCRIPTION) a level-2 heading,
// every other line unindented and escaped; the running header and footer
// lines are dropped.
func ManMarkdown(name, text string) []byte {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) > 2 {
		lines = lines[1 : len(lines)-1] // running header and footer
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s(1)\n", name)
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		switch {
		case l == "":
			b.WriteString("\n")
		case l[0] != ' ' && l[0] != '\t':
			fmt.Fprintf(&b, "\n## %s\n\n", mdSpecial.Replace(l))
		default:
			t := mdSpecial.Replace(strings.TrimSpace(l))
			if strings.ContainsAny(t[:1], "#+>=|") {
				t = `\` + t
			} else if m := leadingNumber.FindStringIndex(t); m != nil {
				t = t[:m[1]-1] + `\` + t[m[1]-1:]
			}
			b.WriteString(t + "\n")
		}
	}
	return b.Bytes()
}

// leadingNumber is an ordered-list marker Markdown would read.
var leadingNumber = regexp.MustCompile(`^\d+[.)]`)
