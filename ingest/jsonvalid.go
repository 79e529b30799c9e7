package ingest

import "bytes"

// jsonChecker validates a JSON text in one pass, accepting exactly what json.Valid accepts
// (RFC 8259 syntax, any bytes of 0x20 and above inside strings — invalid UTF-8 included — and
// at most maxJSONDepth nested arrays and objects), and counts the elements of the arrays it
// is asked to. Checking and counting in the same pass reads a file once before the decoder
// walks it; FuzzJSONChecker compares it with json.Valid.
type jsonChecker struct {
	b []byte
	i int
}

// maxJSONDepth is encoding/json's nesting limit (maxNestingDepth): json.Valid refuses deeper
// documents, and so does the checker.
const maxJSONDepth = 10000

// jsonPlain marks the bytes that stand for themselves inside a JSON string.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// validJSON is json.Valid.
func validJSON(b []byte) bool {
	c := jsonChecker{b: b}
	c.space()
	if !c.value(0) {
		return false
	}
	c.space()
	return c.i == len(b)
}

func (c *jsonChecker) space() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// value checks the value at c.i, inside depth open arrays and objects, and moves past it.
func (c *jsonChecker) value(depth int) bool {
	if c.i >= len(c.b) {
		return false
	}
	switch c.b[c.i] {
	case '{':
		return c.object(depth + 1)
	case '[':
		_, ok := c.array(depth + 1)
		return ok
	case '"':
		return c.str()
	case 't':
		return c.literal("true")
	case 'f':
		return c.literal("false")
	case 'n':
		return c.literal("null")
	}
	return c.number()
}

// object checks the object opening at c.i, itself at nesting depth.
func (c *jsonChecker) object(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	c.i++
	c.space()
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		return true
	}
	for {
		if !c.member(depth) {
			return false
		}
		if end, ok := c.next('}'); !ok || end {
			return ok
		}
	}
}

// member checks `"key": value` at c.i.
func (c *jsonChecker) member(depth int) bool {
	if c.i >= len(c.b) || c.b[c.i] != '"' || !c.str() {
		return false
	}
	c.space()
	if c.i >= len(c.b) || c.b[c.i] != ':' {
		return false
	}
	c.i++
	c.space()
	return c.value(depth)
}

// next reads what follows a member or an element: a comma (end false) or the closing byte
// (end true); anything else is invalid.
func (c *jsonChecker) next(closing byte) (end, ok bool) {
	c.space()
	if c.i >= len(c.b) {
		return false, false
	}
	switch c.b[c.i] {
	case ',':
		c.i++
		c.space()
		return false, true
	case closing:
		c.i++
		return true, true
	}
	return false, false
}

// array checks the array opening at c.i, itself at nesting depth, and counts its elements.
func (c *jsonChecker) array(depth int) (int, bool) {
	if depth > maxJSONDepth {
		return 0, false
	}
	c.i++
	c.space()
	if c.i < len(c.b) && c.b[c.i] == ']' {
		c.i++
		return 0, true
	}
	for n := 1; ; n++ {
		if !c.value(depth) {
			return 0, false
		}
		if end, ok := c.next(']'); !ok || end {
			return n, ok
		}
	}
}

// str checks the string whose opening quote is at c.i.
func (c *jsonChecker) str() bool {
	b, i := c.b, c.i+1
	for {
		for i < len(b) && jsonPlain[b[i]] {
			i++
		}
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '"':
			c.i = i + 1
			return true
		case '\\':
			if i+1 >= len(b) {
				return false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return false
				}
				i += 6
			default:
				return false
			}
		default: // a control character
			return false
		}
	}
}

func (c *jsonChecker) literal(lit string) bool {
	if !bytes.HasPrefix(c.b[c.i:], []byte(lit)) {
		return false
	}
	c.i += len(lit)
	return true
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at c.i.
func (c *jsonChecker) number() bool {
	b, i := c.b, c.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		if i+1 >= len(b) || !isDigit(b[i+1]) {
			return false
		}
		i = skipDigits(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return false
		}
		i = skipDigits(b, i)
	}
	c.i = i
	return true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
