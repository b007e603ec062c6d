package grok

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
)

// Pattern is a stored grok pattern, Graylog's GrokPattern. It is also the
// stored document.
type Pattern struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Pattern string `json:"pattern"`
	// ContentPack names the content pack that installed the pattern; null
	// for patterns created through the API.
	ContentPack *string `json:"content_pack"`
}

// lineSyntax is Graylog's reading of a patterns file line: a name of word
// characters, blanks, and the pattern.
var lineSyntax = regexp.MustCompile(`^(\w+)[ \t]+(.*)$`)

// ParsePatternsFile reads a patterns file as Graylog's bulk import does: one
// "NAME pattern" per line; blank lines and lines starting with # are
// skipped. Lines that do not read as NAME and pattern are skipped too,
// silently, as Graylog skips them. Invalid UTF-8 becomes U+FFFD, as Java's
// decoder makes it.
func ParsePatternsFile(file []byte) []Pattern {
	var out []Pattern
	sc := bufio.NewScanner(bytes.NewReader(file))
	sc.Buffer(nil, len(file)+1) // a line may be the whole file
	sc.Split(scanLines)
	for sc.Scan() {
		line := strings.ToValidUTF8(trimJava(sc.Text()), "\uFFFD")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if m := lineSyntax.FindStringSubmatch(line); m != nil {
			out = append(out, Pattern{Name: m[1], Pattern: m[2]})
		}
	}
	return out
}

// scanLines splits at \n, \r and \r\n, as Java's BufferedReader does.
func scanLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\r' {
			if i+1 == len(data) && !atEOF {
				return 0, nil, nil // a \n may follow
			}
			if i+1 < len(data) && data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
		}
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// trimJava trims as Java's String.trim: every character up to U+0020.
func trimJava(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}
