package apidocs

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
)

// strictJSONLimit bounds how much of a JSON body is held to be checked; a larger body goes on
// unchecked to the operation, whose own size limit refuses it.
const strictJSONLimit = 32 << 20

// rejectAmbiguousJSON answers 400 INVALID_PARAMETER, after routing and authentication and
// before the operation runs, to a JSON body that names one member twice in an object
// (decoders disagree on which value wins: the last one would win silently) or holds a NUL
// character in a string (ClickHouse strings keep it, and most tools cut the text there).
// The message names the field. A body without Content-Type is checked too: Huma reads it as JSON.
func rejectAmbiguousJSON(ctx huma.Context, next func(huma.Context)) {
	r, w := humachi.Unwrap(ctx)
	if ct := r.Header.Get("Content-Type"); r.Body == nil || r.Body == http.NoBody || (ct != "" && !isJSON(ct)) {
		next(ctx)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, strictJSONLimit+1))
	if err != nil || len(body) > strictJSONLimit {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		next(ctx)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if field, problem := ambiguity(body); problem != "" {
		writeError(w, BadParam("body field %s: %s", field, problem))
		return
	}
	next(ctx)
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// jsonFrame is one open object or array while a body is scanned.
type jsonFrame struct {
	object bool
	keys   map[string]bool
	key    string // member being read (object)
	index  int    // next element (array)
	path   string
}

// ambiguity returns the path of the first duplicated member or NUL-holding string and what is
// wrong with it; "" when there is none or the body is not valid JSON (the decoder reports that).
func ambiguity(body []byte) (field, problem string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var stack []*jsonFrame
	// here is the path of the value about to be read.
	here := func() string {
		if len(stack) == 0 {
			return "(the body)"
		}
		f := stack[len(stack)-1]
		if f.object {
			if f.path == "" {
				return f.key
			}
			return f.path + "." + f.key
		}
		return f.path + "[" + strconv.Itoa(f.index) + "]"
	}
	// done marks a value of the enclosing container as read.
	done := func() {
		if len(stack) > 0 {
			if f := stack[len(stack)-1]; f.object {
				f.key = ""
			} else {
				f.index++
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", ""
		}
		top := (*jsonFrame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		// A string where an object expects a member name is that name.
		if s, ok := tok.(string); ok && top != nil && top.object && top.key == "" {
			top.key = s
			if strings.ContainsRune(s, 0) {
				return here(), "the member name contains a NUL character (\\u0000)"
			}
			if top.keys[s] {
				return here(), "given twice in one object"
			}
			top.keys[s] = true
			continue
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				path := ""
				if len(stack) > 0 {
					path = here()
				}
				stack = append(stack, &jsonFrame{object: t == '{', keys: map[string]bool{}, path: path})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			if strings.ContainsRune(t, 0) {
				return here(), "contains a NUL character (\\u0000)"
			}
			done()
		default:
			done()
		}
		if len(stack) == 0 && !dec.More() {
			return "", ""
		}
	}
}
