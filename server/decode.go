package server

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
)

// DefaultMaxBody is the default limit of a request body, in bytes.
const DefaultMaxBody = 1 << 20

// DecodeConfig configures a Decoder. The zero value is the default.
type DecodeConfig struct {
	// MaxBody is the largest body accepted, in bytes; 0 or less:
	// DefaultMaxBody.
	MaxBody int64
}

// Decoder decodes JSON request bodies strictly: a body larger than the
// limit is refused without being read past it, the media type must be
// application/json (which also keeps cross-site HTML forms out: they cannot
// send it without a preflight), unknown fields are refused by name,
// malformed JSON by byte position, and nothing may follow the JSON value.
type Decoder struct {
	max int64
}

// NewDecoder returns a Decoder for cfg.
func NewDecoder(cfg DecodeConfig) *Decoder {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	return &Decoder{max: cfg.MaxBody}
}

// Decode reads r's body into dst, a pointer. Its error is an *Error ready
// for WriteError: 415 for another media type, 413 for a body over the
// limit, 400 for the rest.
func (d *Decoder) Decode(w http.ResponseWriter, r *http.Request, dst any) error {
	if err := checkJSONMedia(r); err != nil {
		return err
	}
	// MaxBytesReader also tells the server to close the connection, so the
	// rest of a huge body is never read.
	body := &countReader{r: http.MaxBytesReader(w, r.Body, d.max)}
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return d.decodeError(err, body.n)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		if ae := d.tooLarge(err); ae != nil {
			return ae
		}
		return apiErrorf(http.StatusBadRequest, CodeTrailingData,
			"request body: data after the JSON value that ends at byte %d", end)
	}
	return nil
}

func checkJSONMedia(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return apiErrorf(http.StatusUnsupportedMediaType, CodeUnsupportedMedia,
			"request body: Content-Type %q: want application/json", clip(ct))
	}
	return nil
}

// tooLarge is the 413 for err when the body went over the limit.
func (d *Decoder) tooLarge(err error) *Error {
	var mbe *http.MaxBytesError
	if !errors.As(err, &mbe) {
		return nil
	}
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge,
		Message: "request body larger than the limit of " + itoa(d.max) + " bytes", Err: err}
}

// countReader counts the bytes read: where a body that ends early ends.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// decodeError names what was wrong with the body and where; positions are
// 1-based byte counts (encoding/json's offsets), read is the body's length
// when it ended early.
func (d *Decoder) decodeError(err error, read int64) error {
	var (
		se *json.SyntaxError
		te *json.UnmarshalTypeError
		ie *json.InvalidUnmarshalError
	)
	if ae := d.tooLarge(err); ae != nil {
		return ae
	}
	switch {
	case errors.Is(err, io.EOF):
		return apiErrorf(http.StatusBadRequest, CodeEmptyBody, "request body is empty: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Status: http.StatusBadRequest, Code: CodeMalformedJSON, Err: err,
			Message: "request body: malformed JSON: it ends early, after " + itoa(read) + " bytes"}
	case errors.As(err, &se):
		return &Error{Status: http.StatusBadRequest, Code: CodeMalformedJSON, Err: err,
			Message: "request body: malformed JSON at byte " + itoa(se.Offset) + ": " + strings.TrimPrefix(se.Error(), "json: ")}
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "(the body)"
		}
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Err: err,
			Message: "request body: field " + field + ": JSON " + te.Value + " where " + te.Type.String() + " is wanted (the value ending at byte " + itoa(te.Offset) + ")"}
	case errors.As(err, &ie):
		return err // a programming error: dst is not a pointer (a 500)
	}
	// encoding/json has no type for this one; its message is
	// `json: unknown field "name"`.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &Error{Status: http.StatusBadRequest, Code: CodeUnknownField, Err: err,
			Message: "request body: unknown field " + name + ": not part of this request"}
	}
	return &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Err: err,
		Message: "request body: " + err.Error()}
}
