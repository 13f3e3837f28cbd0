package schema

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// checkSources refuses, before CUE sees them, the .cue files of a spec
// (the file, or every .cue file of the directory) that are not UTF-8 (CUE would read an invalid byte into a
// string and the JSON config would silently hold U+FFFD instead). Each
// error names the file, and the line and column of the first bad byte.
func (l *loader) checkSources(dir string, args []string) Errors {
	var files []string
	if len(args) == 1 && strings.HasSuffix(args[0], ".cue") {
		files = []string{filepath.Join(dir, args[0])}
	} else if m, err := filepath.Glob(filepath.Join(dir, "*.cue")); err == nil {
		files = m
	}
	var errs Errors
	for _, f := range files {
		shown := f
		if rel, err := filepath.Rel(l.cwd, f); err == nil && !strings.HasPrefix(rel, "..") {
			shown = "./" + filepath.ToSlash(rel)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if i := invalidUTF8(b); i >= 0 {
			line := bytes.Count(b[:i], []byte("\n")) + 1
			col := i - bytes.LastIndexByte(b[:i], '\n')
			errs = append(errs, Error{Msg: fmt.Sprintf("invalid UTF-8 (byte 0x%02x): a spec is UTF-8 text", b[i]),
				Positions: []string{fmt.Sprintf("%s:%d:%d", shown, line, col)}})
		}
	}
	return errs
}

// invalidUTF8 is the offset of the first byte of b that is not valid
// UTF-8, or -1.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// checkArgUTF8 refuses -t, --set and -m values that are not UTF-8.
func checkArgUTF8(flag string, values []string) Errors {
	var errs Errors
	for _, v := range values {
		if !utf8.ValidString(v) {
			errs = append(errs, Error{Path: flag, Msg: fmt.Sprintf("invalid UTF-8 in %q", v)})
		}
	}
	return errs
}
