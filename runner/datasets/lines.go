package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"strconv"
)

// maxLine bounds one JSON line (a QMSum meeting is under 1 MB).
const maxLine = 64 << 20

// eachLine calls fn with every non-blank line of file, numbered from 1.
func eachLine(fsys fs.FS, file string, fn func(n int, line []byte) error) error {
	f, err := fsys.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading line %d: %w", n+1, err)
	}
	return nil
}

// flexInt decodes a JSON number or a string holding one (QMSum writes
// span indices as strings).
type flexInt int

// UnmarshalJSON implements json.Unmarshaler.
func (v *flexInt) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("index %q is not a number", s)
		}
		*v = flexInt(n)
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("index %s is not a number", b)
	}
	*v = flexInt(n)
	return nil
}
