package ragd_test

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The import rules docs/ARCHITECTURE.md gives per area hold: every
// package is in an area, imports only its own area and the areas its row
// names, a confined third-party module is imported only where the
// second table says, and a job runner only where the third says. The rules are read from the document, so the
// document cannot drift from the code.
func TestArchitectureImportRules(t *testing.T) {
	areas, allowed, confined := readArchitectureRules(t, "docs/ARCHITECTURE.md")
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}|{{join .Imports \",\"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), "|")
		if pkg != "ragd" && !strings.HasPrefix(pkg, "ragd/") {
			continue
		}
		from := areaOf(areas, pkg)
		if from == "" {
			t.Errorf("%s is in no area of docs/ARCHITECTURE.md", pkg)
			continue
		}
		for _, imp := range strings.Split(imports, ",") {
			checkImport(t, areas, allowed, confined, pkg, from, imp)
		}
	}
}

func checkImport(t *testing.T, areas map[string]string, allowed map[string][]string, confined map[string][]string, pkg, from, imp string) {
	t.Helper()
	if imp == "ragd" || strings.HasPrefix(imp, "ragd/") {
		to := areaOf(areas, imp)
		if to != from && !slices.Contains(allowed[from], to) && !slices.Contains(allowed[from], "*") {
			t.Errorf("%s (area %s) imports %s (area %s): docs/ARCHITECTURE.md lets %s import only %v", pkg, from, imp, to, from, allowed[from])
		}
	}
	if slices.Contains(allowed[from], "*") {
		return // test support and suites may use any module
	}
	for module, users := range confined {
		if (imp == module || strings.HasPrefix(imp, module+"/")) && !slices.Contains(users, strings.TrimPrefix(pkg, "ragd/")) && pkg != module {
			t.Errorf("%s imports %s: docs/ARCHITECTURE.md confines %s to %v", pkg, imp, module, users)
		}
	}
}

// areaOf is the area of the longest folder that holds pkg.
func areaOf(areas map[string]string, pkg string) string {
	dir := strings.TrimPrefix(strings.TrimPrefix(pkg, "ragd"), "/")
	best, area := -1, ""
	for folder, a := range areas {
		switch {
		case folder == ".":
			if dir == "" && best < 0 {
				best, area = 0, a
			}
		case dir == strings.TrimSuffix(folder, "/") || strings.HasPrefix(dir, folder):
			if len(folder) > best {
				best, area = len(folder), a
			}
		}
	}
	return area
}

// readArchitectureRules reads the tables under "## Areas and their
// import rules": folder -> area, area -> the areas it may import, and
// module or runner -> the packages that alone may import it.
func readArchitectureRules(t *testing.T, path string) (areas map[string]string, allowed, confined map[string][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	areas, allowed, confined = map[string]string{}, map[string][]string{}, map[string][]string{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Areas and their import rules"
			continue
		}
		cells := tableCells(line)
		if !in || len(cells) < 2 || strings.HasPrefix(cells[0], "---") || cells[0] == "area" || cells[0] == "module" || cells[0] == "runner" {
			continue
		}
		if len(cells) == 3 {
			for _, folder := range backticked(cells[1]) {
				areas[folder] = cells[0]
			}
			allowed[cells[0]] = listOf(cells[2])
		} else {
			confined[backticked(cells[0])[0]] = backticked(cells[1])
		}
	}
	if len(areas) == 0 || len(confined) == 0 {
		t.Fatalf("%s: no area or module table under \"## Areas and their import rules\"", path)
	}
	return areas, allowed, confined
}

func tableCells(line string) []string {
	if !strings.HasPrefix(line, "|") {
		return nil
	}
	var cells []string
	for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
		cells = append(cells, strings.TrimSpace(c))
	}
	return cells
}

// backticked is the `quoted` words of a cell.
func backticked(cell string) []string {
	var out []string
	for i, part := range strings.Split(cell, "`") {
		if i%2 == 1 {
			out = append(out, part)
		}
	}
	return out
}

// listOf is a cell's comma-separated areas; "—" is none.
func listOf(cell string) []string {
	var out []string
	for _, a := range strings.Split(cell, ",") {
		if a = strings.TrimSpace(a); a != "" && a != "—" {
			out = append(out, a)
		}
	}
	return out
}
