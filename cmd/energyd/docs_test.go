package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The repository's Markdown, read from the root: each folder documents itself, and the root
// README links to those documents, so a moved section must not leave a dead link behind.
const repoRoot = "../.."

var (
	fencedBlock = regexp.MustCompile("(?ms)^```.*?^```[^\n]*$")
	inlineCode  = regexp.MustCompile("`[^`\n]*`")
	mdLink      = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading   = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$`)
)

// markdownFiles lists the .md files of the repository, outside var/ (runs' data) and hidden folders.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != repoRoot && (strings.HasPrefix(name, ".") || name == "var" || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// withoutCode drops fenced blocks and inline code, where brackets are not links.
func withoutCode(md []byte) []byte {
	return inlineCode.ReplaceAll(fencedBlock.ReplaceAll(md, nil), nil)
}

// anchorOf is the fragment GitHub gives a heading: lower case, letters, digits, '-' and '_'
// kept, spaces turned into '-', everything else dropped.
func anchorOf(heading string) string {
	heading = inlineCode.ReplaceAllStringFunc(heading, func(s string) string { return strings.Trim(s, "`") })
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors lists the fragments of a Markdown file's headings, with GitHub's -1, -2… for repeats.
func anchors(md []byte) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, m := range mdHeading.FindAllSubmatch(fencedBlock.ReplaceAll(md, nil), -1) {
		a := anchorOf(string(m[1]))
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestDocLinksResolve follows every relative link of every Markdown file of the repository: the
// file or folder it names exists, and so does the heading its fragment names.
func TestDocLinksResolve(t *testing.T) {
	files := markdownFiles(t)
	if len(files) < 5 {
		t.Fatalf("found only %d Markdown files under %s: %v", len(files), repoRoot, files)
	}
	checked := 0
	for _, file := range files {
		md, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repoRoot, file)
		for _, m := range mdLink.FindAllSubmatch(withoutCode(md), -1) {
			link := string(m[1])
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			checked++
			target, fragment, _ := strings.Cut(link, "#")
			path := file
			if target != "" {
				path = filepath.Join(filepath.Dir(file), filepath.FromSlash(target))
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s links to %s: %v", rel, link, err)
				continue
			}
			if fragment == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(path, ".md") {
				t.Errorf("%s links to %s: a fragment on something that is not a Markdown file", rel, link)
				continue
			}
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(body)[fragment] {
				t.Errorf("%s links to %s: no heading gives #%s", rel, link, fragment)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links checked: has the link syntax changed?", checked)
	}
}

// TestRootREADMEIsShort keeps the root README what a newcomer reads in a few minutes: what the
// service is, the two commands, a tour and links; the rest lives in the folders' READMEs.
func TestRootREADMEIsShort(t *testing.T) {
	md, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(md, []byte("\n")); n > 300 {
		t.Errorf("README.md has %d lines, more than 300: move the detail into the README of the folder it documents", n)
	}
	for _, doc := range []string{"deploy/README.md", "apidocs/README.md", "schema/README.md", "bench/README.md"} {
		if !bytes.Contains(md, []byte("("+doc+")")) {
			t.Errorf("README.md does not link to %s", doc)
		}
	}
}

func TestAnchorOfFollowsGitHub(t *testing.T) {
	for heading, want := range map[string]string{
		"How one site's answer is read":    "how-one-sites-answer-is-read",
		"Running on a ClickHouse cluster":  "running-on-a-clickhouse-cluster",
		"Scale (`make bench-scale`)":       "scale-make-bench-scale",
		"Heating schedule, heating model":  "heating-schedule-heating-model",
		"Recommendations (advice jobs)":    "recommendations-advice-jobs",
		"A short tour: an archive in, out": "a-short-tour-an-archive-in-out",
	} {
		if got := anchorOf(heading); got != want {
			t.Errorf("anchorOf(%q) = %q, want %q", heading, got, want)
		}
	}
	if a := anchors([]byte("# Notes\n\n## Notes\n\n```\n# not a heading\n```\n")); !a["notes"] || !a["notes-1"] || a["not-a-heading"] {
		t.Errorf("anchors = %v, want notes and notes-1 only", a)
	}
}
