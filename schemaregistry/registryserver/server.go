package registryserver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/sr"
	"go.yaml.in/yaml/v3"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// DefaultMaxBody bounds request bodies (a schema is sent as a JSON string
// inside one).
const DefaultMaxBody = 4 << 20

// ServerOptions configure a Server.
type ServerOptions struct {
	// Dir holds the catalog's evtool.yaml.
	Dir string
	// ReadOnly refuses registrations and config changes (42205).
	ReadOnly bool
	// AllowConfigWrites lets PUT and DELETE /config change compatibility
	// levels in evtool.yaml and event.yaml. Without it a level lives in
	// git: a change is refused (42205) and a PUT of the level the catalog
	// already has succeeds without writing. Clients set levels on their
	// own (@kafkajs/confluent-schema-registry's register() sends BACKWARD
	// for a subject without one), which would silently weaken the gate.
	AllowConfigWrites bool
	// MaxBody bounds request bodies in bytes (default DefaultMaxBody).
	MaxBody int64
	// Basic auth (User and Password) and/or a bearer Token; when neither
	// is set the API is open.
	User, Password, Token string
	// Logf receives server-side problems (never credentials or request
	// bodies); nil discards them.
	Logf func(format string, args ...any)
	// LoopbackHostsOnly refuses requests whose Host header is not a
	// loopback name or address (403): a server on 127.0.0.1 is then out of
	// reach of DNS rebinding, a web page that resolves its own name to
	// 127.0.0.1 to call the API from the developer's browser.
	LoopbackHostsOnly bool

	// Strategy maps subjects to catalog types (default StrategyType). A
	// registration creates or extends only the type its subject maps to.
	Strategy schemaregistry.Strategy
	// CheckTimeout bounds each compatibility check (default
	// DefaultCheckTimeout): a registration whose check does not finish in
	// time is answered with 50002 and writes nothing.
	CheckTimeout time.Duration

	// commitHook (tests) runs between writing a temporary file and moving
	// it into place.
	commitHook func(tmp, final string) error
	// checkHook (tests) runs before each compatibility check of a
	// registration.
	checkHook func(ctx context.Context, subject string)
}

// DefaultCheckTimeout bounds a compatibility check of `registry serve`.
const DefaultCheckTimeout = 30 * time.Second

// answerMargin is the time a response may take beyond the compatibility
// check (reading the body, loading the catalog, writing): the server's
// write timeout is CheckTimeout plus this, so a check that finishes in
// time can always be answered.
const answerMargin = 90 * time.Second

// Server is a Confluent Schema Registry compatible REST API over a catalog
// directory: subjects are the catalog's types, subject versions its
// versions, and compatibility is decided by evtool's engine under each
// type's mode and profile. A registration that passes writes the next
// v<N>.json into the catalog; PUT /config writes compat.mode into
// evtool.yaml or the type's event.yaml.
type Server struct {
	opts  ServerOptions
	store *store
	lock  *dirLock
	logf  func(format string, args ...any)
}

// NewServer loads the catalog (it must load cleanly), removes temporary
// files an interrupted write left behind and assigns schema ids to
// versions that have none.
func NewServer(opts ServerOptions) (*Server, error) {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.CheckTimeout <= 0 {
		opts.CheckTimeout = DefaultCheckTimeout
	}
	if (opts.User == "") != (opts.Password == "") {
		return nil, errors.New("server basic auth needs both a user and a password")
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	// The lock first: a second server must not even remove the temporary
	// files of the first one's writes in progress.
	_, cfgStrategy, err := servedConfig(opts.Dir)
	if err != nil {
		return nil, err
	}
	lock, err := lockCatalog(filepath.Join(opts.Dir, StateDir), opts.ReadOnly)
	if err != nil {
		return nil, err
	}
	if opts.Strategy == "" {
		opts.Strategy = schemaregistry.Strategy(cfgStrategy)
	}
	strategy, err := schemaregistry.ParseStrategy(string(opts.Strategy))
	if err != nil {
		lock.release()
		return nil, err
	}
	st, removed, err := openStore(opts.Dir, opts.ReadOnly, strategy)
	if err != nil {
		lock.release()
		return nil, err
	}
	st.hook = opts.commitHook
	for _, r := range removed {
		logf("removed %s, left over by an interrupted write", r)
	}
	return &Server{opts: opts, store: st, lock: lock, logf: logf}, nil
}

// servedConfig reads what the server needs of evtool.yaml before it loads
// the catalog: the catalog root and registry.subject_strategy.
func servedConfig(dir string) (root, strategy string, err error) {
	data, err := os.ReadFile(filepath.Join(dir, catalog.ConfigName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", "", fmt.Errorf("no %s in %s: serve needs a catalog (run `evtool init %s` to create one)", catalog.ConfigName, dir, dir)
		}
		return "", "", err
	}
	if root, err = schemasRoot(dir, data); err != nil {
		return "", "", err
	}
	var cfg struct {
		Registry struct {
			SubjectStrategy string `yaml:"subject_strategy"`
		} `yaml:"registry"`
	}
	_ = yaml.Unmarshal(data, &cfg) // the loader reports a malformed file
	return root, cfg.Registry.SubjectStrategy, nil
}

// Announce records url in the lock file as the address of this server,
// for the message of a second server on the catalog (Serve does too).
func (s *Server) Announce(url string) { s.lock.announce(url) }

// Close releases the catalog's lock; the server must not be used after.
func (s *Server) Close() {
	s.lock.release()
	s.lock = nil
}

// Subjects returns the subjects served (for tests and start-up messages).
func (s *Server) Subjects() []string { return append([]string(nil), s.store.current().names...) }

// Serve accepts connections on ln until ctx is done, then shuts down
// gracefully.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      s.opts.CheckTimeout + answerMargin,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(logWriter{s.logf}, "", 0),
	}
	s.lock.announce("http://" + ln.Addr().String())
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		case <-done:
		}
	}()
	err := srv.Serve(ln)
	close(done)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

type logWriter struct{ logf func(string, ...any) }

func (w logWriter) Write(p []byte) (int, error) {
	w.logf("%s", strings.TrimSpace(string(p)))
	return len(p), nil
}

// statusWriter remembers whether a response was started.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// ServeHTTP answers one request. A panic is answered with 50001 and logged;
// no stack trace ever reaches the client.
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &statusWriter{ResponseWriter: rw}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.logf("internal error serving %s %s: %v", r.Method, r.URL.Path, v)
			if w.status == 0 {
				writeError(w, apiErr(500, codeStore, "internal error"))
			}
		}
	}()
	if s.opts.LoopbackHostsOnly && !loopbackHostHeader(r.Host) {
		writeError(w, apiErr(403, codeForbidden, "Host %q is not a loopback name: this server answers requests to localhost or a loopback address only", r.Host))
		return
	}
	if !s.authorized(r) {
		if s.opts.Token != "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="evtool"`)
		} else {
			w.Header().Set("WWW-Authenticate", `Basic realm="evtool"`)
		}
		writeError(w, apiErr(401, codeUnauthorized, "unauthorized"))
		return
	}
	if (r.Method == http.MethodPost || r.Method == http.MethodPut) && !acceptedMediaType(r.Header.Get("Content-Type")) {
		// Also what keeps a web page from writing to the catalog: the
		// media types a browser may send cross-site without a CORS
		// preflight (text/plain, forms) are refused.
		writeError(w, apiErr(415, codeUnsupportedMedia, "HTTP 415 Unsupported Media Type: Content-Type %q; send %s or application/json", r.Header.Get("Content-Type"), wire.ContentType))
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBody)
	}
	v, aerr := s.route(r)
	if aerr != nil {
		if aerr.Status >= 500 {
			s.logf("%s %s: %s", r.Method, r.URL.Path, aerr.Msg)
		}
		writeError(w, aerr)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) authorized(r *http.Request) bool {
	if s.opts.User == "" && s.opts.Token == "" {
		return true
	}
	h := r.Header.Get("Authorization")
	if s.opts.Token != "" {
		if tok, ok := strings.CutPrefix(h, "Bearer "); ok && subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1 {
			return true
		}
	}
	if s.opts.User != "" {
		if u, p, ok := r.BasicAuth(); ok {
			uok := subtle.ConstantTimeCompare([]byte(u), []byte(s.opts.User))
			pok := subtle.ConstantTimeCompare([]byte(p), []byte(s.opts.Password))
			return uok&pok == 1
		}
	}
	return false
}

// rawJSON is a response body written as it is (GET .../schema).
type rawJSON []byte

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", wire.ContentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if raw, ok := v.(rawJSON); ok {
		w.WriteHeader(status)
		_, _ = w.Write(raw)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		w.WriteHeader(500)
		_, _ = w.Write([]byte(`{"error_code":50001,"message":"internal error"}` + "\n"))
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.Status, map[string]any{"error_code": e.Code, "message": e.Msg})
}

// route dispatches on the path's segments.
func (s *Server) route(r *http.Request) (any, *apiError) {
	segs, err := segments(r.URL)
	if err != nil {
		return nil, apiErr(404, codeNotFound, "HTTP 404 Not Found")
	}
	m := r.Method
	allow := func(methods ...string) *apiError {
		for _, x := range methods {
			if m == x || (x == http.MethodGet && m == http.MethodHead) {
				return nil
			}
		}
		return apiErr(405, codeMethodNotAllowed, "HTTP 405 Method Not Allowed")
	}
	snap := s.store.current()
	q := r.URL.Query()
	n := len(segs)
	if i := subjectSegment(segs); i > 0 {
		subject, ok, aerr := snap.recordSubject(segs[i], s.store.strategy)
		if aerr != nil {
			return nil, aerr
		}
		if ok {
			segs[i] = subject // a record-name subject: its type's
		}
	}
	switch {
	case n == 0:
		if e := allow(http.MethodGet); e != nil {
			return nil, e
		}
		return map[string]any{}, nil

	case segs[0] == "subjects" && n == 1:
		if e := allow(http.MethodGet); e != nil {
			return nil, e
		}
		out := []string{}
		prefix := q.Get("subjectPrefix")
		for _, name := range snap.names {
			if strings.HasPrefix(name, prefix) {
				out = append(out, name)
			}
		}
		return out, nil

	case segs[0] == "subjects" && n == 2:
		switch m {
		case http.MethodPost:
			return s.lookup(r, snap, segs[1])
		case http.MethodDelete:
			return nil, s.notPermittedDelete()
		}
		return nil, allow(http.MethodPost, http.MethodDelete)

	case segs[0] == "subjects" && n == 3 && segs[2] == "versions":
		switch m {
		case http.MethodGet, http.MethodHead:
			if snap.shared[segs[1]] != nil || snap.wellKnown[segs[1]] != nil {
				return []int{1}, nil
			}
			st := snap.subjects[segs[1]]
			if st == nil {
				return nil, subjectNotFound(segs[1])
			}
			out := make([]int, len(st.versions))
			for i := range st.versions {
				out[i] = i + 1
			}
			return out, nil
		case http.MethodPost:
			return s.register(r, segs[1])
		}
		return nil, allow(http.MethodGet, http.MethodPost)

	case segs[0] == "subjects" && n >= 4 && segs[2] == "versions" && n <= 5:
		if m == http.MethodDelete && n == 4 {
			return nil, s.notPermittedDelete()
		}
		if e := allow(http.MethodGet); e != nil {
			return nil, e
		}
		vs, aerr := snap.version(segs[1], segs[3])
		if aerr != nil {
			return nil, aerr
		}
		if n == 4 {
			out := subjectVersion(segs[1], vs)
			if rec := snap.byID[vs.id]; rec != nil && q.Get("format") == "serialized" && descriptors(rec.form.Kind) {
				text, aerr := snap.serializedForm(rec)
				if aerr != nil {
					return nil, aerr
				}
				out["schema"] = text
			}
			return out, nil
		}
		switch segs[4] {
		case "schema":
			return rawJSON(vs.form.Text), nil
		case "referencedby":
			return snap.referencedBy(segs[1]), nil
		}
		return nil, apiErr(404, codeNotFound, "HTTP 404 Not Found")

	case segs[0] == "schemas" && n == 2 && segs[1] == "types":
		if e := allow(http.MethodGet); e != nil {
			return nil, e
		}
		// Confluent's order.
		return schemaTypes(), nil

	case segs[0] == "schemas" && n >= 3 && n <= 4 && segs[1] == "ids":
		if e := allow(http.MethodGet); e != nil {
			return nil, e
		}
		id, err := strconv.Atoi(segs[2])
		rec := snap.byID[id]
		if err != nil || rec == nil {
			return nil, apiErr(404, codeSchemaNotFound, "schema %s not found", wire.Clip(segs[2]))
		}
		if n == 3 {
			out := map[string]any{"schema": string(rec.form.Text), "schemaType": rec.form.SchemaType().String()}
			if q.Get("format") == "serialized" && descriptors(rec.form.Kind) {
				text, aerr := snap.serializedForm(rec)
				if aerr != nil {
					return nil, aerr
				}
				out["schema"] = text
			}
			if refs := servedRefs(rec.form); len(refs) > 0 {
				out["references"] = refs
			}
			return out, nil
		}
		switch segs[3] {
		case "schema":
			return rawJSON(rec.form.Text), nil
		case "versions":
			return rec.usages, nil
		case "subjects":
			var out []string
			seen := map[string]bool{}
			for _, u := range rec.usages {
				if !seen[u.Subject] {
					seen[u.Subject] = true
					out = append(out, u.Subject)
				}
			}
			return out, nil
		}
		return nil, apiErr(404, codeNotFound, "HTTP 404 Not Found")

	case segs[0] == "config" && n == 1:
		switch m {
		case http.MethodGet, http.MethodHead:
			return map[string]any{"compatibilityLevel": string(snap.globalLevel())}, nil
		case http.MethodPut:
			return s.setConfig(r, "")
		}
		return nil, allow(http.MethodGet, http.MethodPut)

	case segs[0] == "config" && n == 2:
		subject := segs[1]
		switch m {
		case http.MethodGet, http.MethodHead:
			if lvl := snap.subjectLevel(subject); lvl != "" {
				return map[string]any{"compatibilityLevel": string(lvl)}, nil
			}
			if q.Get("defaultToGlobal") == "true" {
				return map[string]any{"compatibilityLevel": string(snap.globalLevel())}, nil
			}
			return nil, apiErr(404, codeLevelNotConfigured, "subject %q does not have subject-level compatibility configured", wire.Clip(subject))
		case http.MethodPut:
			return s.setConfig(r, subject)
		case http.MethodDelete:
			return s.deleteConfig(subject)
		}
		return nil, allow(http.MethodGet, http.MethodPut, http.MethodDelete)

	case segs[0] == "compatibility" && n >= 4 && n <= 5 && segs[1] == "subjects" && segs[3] == "versions":
		if e := allow(http.MethodPost); e != nil {
			return nil, e
		}
		version := ""
		if n == 5 {
			version = segs[4]
		}
		return s.compatibility(r, snap, segs[2], version)

	case segs[0] == "mode" && n <= 2:
		if m == http.MethodGet || m == http.MethodHead {
			mode := "READWRITE"
			if s.opts.ReadOnly {
				mode = "READONLY"
			}
			return map[string]any{"mode": mode}, nil
		}
		return nil, apiErr(422, codeNotPermitted, "the mode of an evtool registry is set with `evtool registry serve --read-only`")
	}
	return nil, apiErr(404, codeNotFound, "HTTP 404 Not Found")
}

// segments splits the escaped path and unescapes each segment, so a
// subject may hold an escaped '/'.
func segments(u *url.URL) ([]string, error) {
	p := strings.Trim(u.EscapedPath(), "/")
	if p == "" {
		return nil, nil
	}
	raw := strings.Split(p, "/")
	out := make([]string, len(raw))
	for i, r := range raw {
		s, err := url.PathUnescape(r)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// clip shortens what a request named for a message, as the client does.

func subjectNotFound(subject string) *apiError {
	return apiErr(404, codeSubjectNotFound, "subject %q not found", wire.Clip(subject))
}

func (s *Server) notPermittedDelete() *apiError {
	return apiErr(422, codeNotPermitted, "evtool does not delete schemas: published versions are immutable; remove a type or deprecate a version in the catalog in git")
}

// version resolves "latest", "-1" or a number.
func (snap *snapshot) version(subject, version string) (*versionState, *apiError) {
	if vs, aerr := snap.wellKnownVersion(subject, version); vs != nil || aerr != nil {
		return vs, aerr
	}
	st := snap.subjects[subject]
	n, aerr := parseVersion(version)
	if aerr != nil {
		return nil, aerr
	}
	if vs := snap.shared[subject]; vs != nil {
		if n != -1 && n != 1 {
			return nil, apiErr(404, codeVersionNotFound, "version %d of subject %q not found (it is a shared file of the catalog and has version 1 only)", n, wire.Clip(subject))
		}
		return vs, nil
	}
	if st == nil {
		return nil, subjectNotFound(subject)
	}
	if n == -1 {
		n = len(st.versions)
	}
	if n < 1 || n > len(st.versions) {
		return nil, apiErr(404, codeVersionNotFound, "version %d of subject %q not found (it has versions 1..%d)", n, wire.Clip(subject), len(st.versions))
	}
	return st.versions[n-1], nil
}

func parseVersion(v string) (int, *apiError) {
	if v == "latest" || v == "-1" {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1<<31-1 {
		return 0, apiErr(422, codeInvalidVersion, "the version %q is invalid: use a positive integer, or latest", wire.Clip(v))
	}
	return n, nil
}

func subjectVersion(subject string, vs *versionState) map[string]any {
	out := map[string]any{"subject": subject, "version": vs.v.Number, "id": vs.id, "schemaType": vs.form.SchemaType().String(), "schema": string(vs.form.Text)}
	if refs := servedRefs(vs.form); len(refs) > 0 {
		out["references"] = refs
	}
	return out
}

// servedRefs are the schema references of a served form: every shared
// schema of the catalog has version 1 only.
func servedRefs(f *wire.Form) []sr.SchemaReference {
	return f.References(func(*wire.SharedSchema) int { return 1 })
}

// schemaRequest is the body of POST /subjects/{s}/versions, POST
// /subjects/{s} and POST /compatibility/...: unknown fields are ignored,
// as registries do.
type schemaRequest struct {
	Schema     *string           `json:"schema"`
	SchemaType *string           `json:"schemaType"`
	References []json.RawMessage `json:"references"`
}

// readBody reads a request body within the size limit.
func readBody(r *http.Request) ([]byte, *apiError) {
	if r.Body == nil {
		return nil, nil
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apiErr(http.StatusRequestEntityTooLarge, codeSchemaTooLarge, "request body is larger than %d bytes", mbe.Limit)
		}
		return nil, apiErr(400, codeMalformedRequest, "cannot read the request body")
	}
	return data, nil
}

// schemaReq is a decoded schema request.
type schemaReq struct {
	text []byte
	// doc is the decoded JSON Schema; nil for the other formats.
	doc  any
	kind format.Kind
	refs []sr.SchemaReference
}

// decodeSchemaRequest parses a schema request body and its schema. The
// schemaType is JSON, AVRO (the default, as Confluent's) or PROTOBUF; a
// JSON Schema must be self-contained (no schema references) and
// well-formed JSON (no duplicate keys), so must an Avro schema; Avro and
// Protobuf schemas may carry references (name, subject, version).
func decodeSchemaRequest(body []byte) (*schemaReq, *apiError) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, apiErr(400, codeMalformedRequest, "malformed request: empty body; send {\"schemaType\": \"JSON\", \"schema\": \"...\"}")
	}
	// encoding/json replaces invalid UTF-8 and lone surrogate escapes with
	// U+FFFD: the catalog would hold a schema the client never sent.
	if !utf8.Valid(body) {
		return nil, apiErr(422, codeInvalidSchema, "invalid request: the body is not valid UTF-8 (byte %d); send UTF-8 JSON", jsonstrict.InvalidUTF8Offset(body))
	}
	if off := loneSurrogate(body); off >= 0 {
		return nil, apiErr(422, codeInvalidSchema, "invalid request: a \\u escape at byte %d is a lone UTF-16 surrogate, which is not a character", off)
	}
	var req schemaRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, apiErr(422, codeInvalidSchema, "invalid request: field %q has the wrong type (%s)", te.Field, te.Value)
		}
		return nil, apiErr(400, codeMalformedRequest, "malformed request: the body is not valid JSON: %s", wire.Clip(err.Error()))
	}
	if dec.More() {
		return nil, apiErr(400, codeMalformedRequest, "malformed request: data after the JSON object")
	}
	if req.Schema == nil {
		return nil, apiErr(422, codeInvalidSchema, "invalid request: no schema (send {\"schemaType\": \"JSON\", \"schema\": \"...\"})")
	}
	st := ""
	if req.SchemaType != nil {
		st = *req.SchemaType
	}
	kind, ok := wire.KindOfSchemaType(st)
	if !ok {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: schemaType %s is not supported; evtool serves %s", wire.Clip(strings.ToUpper(st)), servedSchemaTypes())
	}
	out := &schemaReq{kind: kind, text: []byte(*req.Schema)}
	if len(req.References) > 0 && !wire.WithRefs(kind) {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: schema references are not supported for %s; make the schema self-contained (definitions under $defs)", kind.Name())
	}
	for i, raw := range req.References {
		var r struct {
			Name    *string `json:"name"`
			Subject *string `json:"subject"`
			Version *int    `json:"version"`
		}
		if err := json.Unmarshal(raw, &r); err != nil || r.Name == nil || r.Subject == nil || r.Version == nil || *r.Name == "" || *r.Subject == "" {
			return nil, apiErr(422, codeInvalidSchema, "invalid schema: reference %d is not {\"name\": ..., \"subject\": ..., \"version\": ...}", i)
		}
		if *r.Version < 1 && *r.Version != -1 {
			return nil, apiErr(422, codeInvalidSchema, "invalid schema: reference %q: version %d is neither a version nor -1 (latest)", wire.Clip(*r.Name), *r.Version)
		}
		out.refs = append(out.refs, sr.SchemaReference{Name: *r.Name, Subject: *r.Subject, Version: *r.Version})
	}
	if len(out.text) > catalog.MaxFileSize {
		return nil, apiErr(http.StatusRequestEntityTooLarge, codeSchemaTooLarge, "schema is larger than %d bytes", catalog.MaxFileSize)
	}
	if off := loneSurrogate(out.text); off >= 0 && !descriptors(kind) {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: a \\u escape at byte %d of the schema is a lone UTF-16 surrogate, which is not a character", off)
	}
	if descriptors(kind) {
		if df, ok := descriptorFormer(kind); ok {
			text, err := df.RegistryText(out.text)
			if err != nil {
				return nil, apiErr(422, codeInvalidSchema, "invalid schema: %s", wire.Clip(err.Error()))
			}
			out.text = text
		}
		return out, nil
	}
	doc, err := jsonstrict.Decode(out.text)
	if err != nil {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: not valid JSON: %s", wire.Clip(err.Error()))
	}
	if wire.WithRefs(kind) {
		// Avro: any JSON text, which its compiler reads.
		return out, nil
	}
	switch doc.(type) {
	case map[string]any, bool:
	default:
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: a %s is an object or a boolean", kind.Name())
	}
	out.doc = doc
	return out, nil
}

// loneSurrogate returns the offset of the first \u escape in JSON text that
// is a UTF-16 surrogate without its pair, or -1. Text outside strings has no
// backslashes, so every backslash starts an escape.
func loneSurrogate(data []byte) int {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' || i+1 >= len(data) {
			continue
		}
		r, ok := hex4(i)
		if !ok {
			i++ // a two-character escape such as \\ or \"
			continue
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xDC00:
			if lo, ok := hex4(i + 6); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				i += 11
				continue
			}
			return i
		case utf16.IsSurrogate(r):
			return i
		}
		i += 5
	}
	return -1
}

// prettyText indents a compact schema for the catalog file (whitespace
// only: keys, numbers and strings keep their spelling).
func prettyText(text []byte) []byte {
	if bytes.Contains(bytes.TrimSpace(text), []byte("\n")) {
		return format.EnsureNL(text)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, text, "", "  "); err != nil {
		return format.EnsureNL(text)
	}
	return format.EnsureNL(buf.Bytes())
}

func (s *Server) lookup(r *http.Request, snap *snapshot, subject string) (any, *apiError) {
	body, aerr := readBody(r)
	if aerr != nil {
		return nil, aerr
	}
	req, aerr := decodeSchemaRequest(body)
	if aerr != nil {
		return nil, aerr
	}
	if wire.WellKnown(subject) && snap.shared[subject] == nil && snap.subjects[subject] == nil {
		return snap.lookupWellKnown(subject, req)
	}
	if vs := snap.shared[subject]; vs != nil {
		d, aerr := snap.sharedDigest(req)
		if aerr != nil {
			return nil, aerr
		}
		if d == vs.form.Digest {
			return subjectVersion(subject, vs), nil
		}
		return nil, apiErr(404, codeSchemaNotFound, "schema not found in subject %q", wire.Clip(subject))
	}
	st := snap.subjects[subject]
	if st == nil {
		return nil, subjectNotFound(subject)
	}
	if !wire.WithRefs(req.kind) {
		if vs := snap.registered(subject, req.doc); vs != nil {
			return subjectVersion(subject, vs), nil
		}
	} else if snap.checkKind(subject, req.kind) == nil {
		cand, aerr := snap.prepare(subject, st.t.Name, req.kind, prettyText(req.text), nil)
		if aerr != nil {
			return nil, aerr
		}
		if aerr := snap.checkRefs(req.refs, cand.form.Shared); aerr != nil {
			return nil, aerr
		}
		if vs := snap.registeredDigest(subject, cand.form.Digest); vs != nil {
			return subjectVersion(subject, vs), nil
		}
	}
	return nil, apiErr(404, codeSchemaNotFound, "schema not found in subject %q", wire.Clip(subject))
}

// registered returns the version of subject that is doc, or nil: the same
// canonical JSON as served or as the file is, or the same but for a root
// `$schema` naming the draft the catalog reads a schema without one as. A
// catalog pulled from a registry names the registry's draft (draft-07) in
// every schema, and the registry's serializers go on sending the schema
// without it: a new version for it would be a second id for one schema.
func (snap *snapshot) registered(subject string, doc any) *versionState {
	st := snap.subjects[subject]
	if st == nil {
		return nil
	}
	d := jsonvalue.Digest(doc)
	for _, vs := range st.versions {
		if vs.form.Digest == d || vs.v.Digest == d {
			return vs
		}
	}
	draft := snap.cat.Draft
	bare := undialectedDigest(doc, draft)
	if bare == "" {
		return nil
	}
	for _, vs := range st.versions {
		if undialectedDigest(vs.form.Doc, draft) == bare || undialectedDigest(vs.v.Doc, draft) == bare {
			return vs
		}
	}
	return nil
}

func (s *Server) compatibility(r *http.Request, snap *snapshot, subject, version string) (any, *apiError) {
	var olds []*catalog.Version
	st := snap.subjects[subject]
	if vs := snap.shared[subject]; vs != nil {
		return s.sharedCompatibility(r, snap, subject, vs)
	}
	if version != "" {
		vs, aerr := snap.version(subject, version)
		if aerr != nil {
			return nil, aerr
		}
		olds = []*catalog.Version{vs.v}
	}
	if st == nil {
		return nil, subjectNotFound(subject)
	}
	body, aerr := readBody(r)
	if aerr != nil {
		return nil, aerr
	}
	req, aerr := decodeSchemaRequest(body)
	if aerr != nil {
		return nil, aerr
	}
	if aerr := snap.checkKind(subject, req.kind); aerr != nil {
		return nil, aerr
	}
	mode, profile := snap.mode(subject)
	cand, aerr := snap.prepare(subject, st.t.Name, req.kind, prettyText(req.text), nil)
	if aerr != nil {
		return nil, aerr
	}
	if wire.WithRefs(req.kind) {
		// As registration: a schema the registry could not even parse
		// without its references is not "compatible".
		if aerr := snap.checkRefs(req.refs, cand.form.Shared); aerr != nil {
			return nil, aerr
		}
	}
	if version == "" {
		olds = priorVersions(cand.t, cand.v.Number, mode)
	} else {
		olds = []*catalog.Version{cand.t.Version(olds[0].Number)}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.CheckTimeout)
	defer cancel()
	fs := compatFindings(ctx, cand.cat, cand.t, cand.v, olds, mode, profile)
	if aerr := s.checkDeadline(ctx, subject); aerr != nil {
		return nil, aerr
	}
	out := map[string]any{"is_compatible": !failing(fs)}
	if r.URL.Query().Get("verbose") == "true" {
		out["messages"] = messages(fs)
	}
	return out, nil
}

// priorVersions are the versions a new version n is checked against.
func priorVersions(t *catalog.EventType, n int, mode catalog.Mode) []*catalog.Version {
	if n < 2 || mode == catalog.ModeNone {
		return nil
	}
	if mode.Transitive() {
		return t.Versions[:n-1]
	}
	return []*catalog.Version{t.Versions[n-2]}
}

// refuseSymlink refuses to write rel (a slash path inside the catalog
// directory) through a symlinked directory.
func (s *Server) refuseSymlink(rel string) *apiError {
	link, err := symlinkOnPath(s.opts.Dir, rel)
	if err != nil {
		return apiErr(500, codeStore, "cannot write %s: %v", rel, err)
	}
	if link != "" {
		return apiErr(422, codeNotPermitted, "%s would be written through %s, a symlink: serve writes only inside the catalog directory", rel, link)
	}
	return nil
}

func (s *Server) readOnlyErr() *apiError {
	return apiErr(422, codeNotPermitted, "this registry is read-only (evtool registry serve --read-only): change the catalog in git")
}

// register implements POST /subjects/{s}/versions. The compatibility
// check runs outside the store lock, so registrations of other subjects do
// not wait for it, and under a deadline (CheckTimeout). Under the lock the
// server then makes sure that nothing the check depended on changed (else
// it checks again) and writes only while the answer can still be given.
func (s *Server) register(r *http.Request, subject string) (any, *apiError) {
	body, aerr := readBody(r)
	if aerr != nil {
		return nil, aerr
	}
	req, aerr := decodeSchemaRequest(body)
	if aerr != nil {
		return nil, aerr
	}
	if field := unsupportedRegistrationField(body); field != "" {
		return nil, apiErr(422, codeInvalidSchema, "invalid request: field %q is not supported: an evtool registry keeps the schema only (in git), and assigns ids and versions itself; nothing was registered", wire.Clip(field))
	}
	if s.opts.ReadOnly {
		return nil, s.readOnlyErr()
	}
	if snap := s.store.current(); snap.shared[subject] == nil && snap.subjects[subject] == nil {
		if aerr := refuseRecordSubject(req, subject); aerr != nil {
			return nil, aerr
		}
	}
	if snap := s.store.current(); snap.shared[subject] != nil || (snap.subjects[subject] == nil && sharedSubject(req, subject)) {
		return s.registerShared(r, subject, req)
	}
	if _, _, aerr := s.store.current().typeFor(subject, s.store.strategy); aerr != nil {
		return nil, aerr
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.CheckTimeout)
	defer cancel()
	unlock, err := s.store.subjects.lock(ctx, subject)
	if err != nil {
		return nil, s.checkDeadline(ctx, subject)
	}
	defer unlock()
	text := prettyText(req.text)
	s.store.mu.Lock()
	snap, err := s.store.refreshLocked()
	s.store.mu.Unlock()
	if err != nil {
		return nil, apiErr(500, codeStore, "the catalog cannot be read: %v", err)
	}
	for {
		// Already registered: the same schema (as served, or as the file
		// is) returns its id and creates no version.
		if !wire.WithRefs(req.kind) {
			if vs := snap.registered(subject, req.doc); vs != nil {
				return map[string]any{"id": vs.id, "version": vs.v.Number, "subject": subject}, nil
			}
		}
		if aerr := snap.checkKind(subject, req.kind); aerr != nil {
			return nil, aerr
		}
		typ, meta, aerr := snap.typeFor(subject, s.store.strategy)
		if aerr != nil {
			return nil, aerr
		}
		cand, aerr := snap.prepare(subject, typ, req.kind, text, meta)
		if aerr != nil {
			return nil, aerr
		}
		if wire.WithRefs(req.kind) {
			// References first: a Confluent registry cannot even parse a
			// schema without them.
			if aerr := snap.checkRefs(req.refs, cand.form.Shared); aerr != nil {
				return nil, aerr
			}
			if vs := snap.registeredDigest(subject, cand.form.Digest); vs != nil {
				return map[string]any{"id": vs.id, "version": vs.v.Number, "subject": subject}, nil
			}
		}
		mode, profile := snap.mode(subject)
		if s.opts.checkHook != nil {
			s.opts.checkHook(ctx, subject)
		}
		fs := compatFindings(ctx, cand.cat, cand.t, cand.v, priorVersions(cand.t, cand.v.Number, mode), mode, profile)
		if aerr := s.checkDeadline(ctx, subject); aerr != nil {
			return nil, aerr
		}
		if failing(fs) {
			return nil, incompatibleErr(subject, mode, profile, fs)
		}
		s.store.mu.Lock()
		cur, err := s.store.refreshLocked()
		if err != nil {
			s.store.mu.Unlock()
			return nil, apiErr(500, codeStore, "the catalog cannot be read: %v", err)
		}
		if unchangedFor(snap, cur, subject, typ) {
			if cur != snap {
				cand = nil // prepared without the files others added meanwhile
			}
			res, aerr := s.commitLocked(ctx, cur, subject, typ, req.kind, text, meta, cand)
			s.store.mu.Unlock()
			return res, aerr
		}
		s.store.mu.Unlock()
		snap = cur // the subject, its settings or a file it may use changed: check again
	}
}

// checkDeadline answers a check that ran out of time (or whose client went
// away): nothing is written for it.
func (s *Server) checkDeadline(ctx context.Context, subject string) *apiError {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return apiErr(500, codeTimeout, "the compatibility check for subject %q did not finish within its %s deadline (evtool registry serve --check-timeout; the time waiting for earlier registrations of the subject counts); nothing was written: simplify the schema, or raise --check-timeout", wire.Clip(subject), s.opts.CheckTimeout)
	case ctx.Err() != nil:
		return apiErr(500, codeTimeout, "the request for subject %q was cancelled (the client went away); nothing was written", wire.Clip(subject))
	}
	return nil
}

func incompatibleErr(subject string, mode catalog.Mode, profile catalog.Profile, fs []report.Finding) *apiError {
	var errs []string
	for _, m := range messages(fs) {
		if !strings.HasPrefix(m, "warning: ") && !strings.HasPrefix(m, "approved: ") {
			errs = append(errs, m)
		}
	}
	if len(errs) > 10 {
		errs = append(errs[:10], fmt.Sprintf("and %d more", len(errs)-10))
	}
	level := string(mode)
	if profile != "" { // Avro has no profiles
		level += ", profile " + string(profile)
	}
	return apiErr(409, codeIncompatible, "schema being registered is incompatible with an earlier schema for subject %q (%s): %s",
		subject, level, strings.Join(errs, "; "))
}

// unchangedFor reports whether a check of subject against old still holds
// in cur: every file of old is unchanged (so every schema, setting and
// approval the check read is), files were only added outside the subject's
// own directory (nothing of old can refer to them) and the subject's pending
// level is the same.
func unchangedFor(old, cur *snapshot, subject, typ string) bool {
	if old == cur {
		return true
	}
	if old.root != cur.root || old.pending[subject] != cur.pending[subject] {
		return false
	}
	for name, f := range old.files {
		g, ok := cur.files[name]
		if !ok || !bytes.Equal(f.Data, g.Data) || f.Mode.IsDir() != g.Mode.IsDir() {
			return false
		}
	}
	own := path.Join(old.root, typ)
	for name := range cur.files {
		if _, ok := old.files[name]; !ok && (name == own || strings.HasPrefix(name, own+"/")) {
			return false
		}
	}
	return true
}

// commitLocked writes text, checked, as the next version of subject in
// snap (the store lock held); cand is text prepared in snap, or nil.
func (s *Server) commitLocked(ctx context.Context, snap *snapshot, subject, typ string, kind format.Kind, text, meta []byte, cand *candidate) (any, *apiError) {
	if cand == nil {
		var aerr *apiError
		if cand, aerr = snap.prepare(subject, typ, kind, text, meta); aerr != nil {
			return nil, aerr
		}
	}
	// The last moment to give up: after this the version is written and
	// answered.
	if aerr := s.checkDeadline(ctx, subject); aerr != nil {
		return nil, aerr
	}
	// The id first: a crash after this leaves an id for a schema not in
	// the catalog (harmless: the same schema gets it back), never a
	// version without one.
	id, ok := snap.ids[cand.form.Digest]
	newIDs := map[string]int{}
	next := snap.nextID
	if !ok {
		id = next
		next++
		newIDs[cand.form.Digest] = id
	}
	if err := s.store.persistIDs(snap, newIDs); err != nil {
		return nil, apiErr(500, codeStore, "cannot write the ids file: %v", err)
	}
	if aerr := s.refuseSymlink(cand.rel); aerr != nil {
		return nil, aerr
	}
	final := filepath.Join(s.opts.Dir, filepath.FromSlash(cand.rel))
	if err := mkdirDurable(filepath.Dir(final)); err != nil {
		return nil, apiErr(500, codeStore, "cannot create %s: %v", path.Dir(cand.rel), err)
	}
	if err := writeAtomic(final, cand.files[cand.rel].Data, true, s.store.hook); err != nil {
		if errors.Is(err, errExists) {
			return nil, apiErr(500, codeStore, "%s appeared on disk while registering (the catalog changed outside the server); retry", cand.rel)
		}
		return nil, apiErr(500, codeStore, "cannot write %s: %v", cand.rel, err)
	}
	files, cat := cand.files, cand.cat
	if meta != nil {
		// A new type's event.yaml: the topic its subject names, and a
		// level set before the subject existed.
		metaRel := path.Join(snap.root, typ, "event.yaml")
		if err := writeAtomic(filepath.Join(s.opts.Dir, filepath.FromSlash(metaRel)), meta, true, s.store.hook); err != nil {
			// Take the version back: without its event.yaml (its topic)
			// the type would not be the one the subject names, and the
			// registration is answered as failed.
			if rerr := os.Remove(final); rerr == nil {
				typeDir := filepath.Dir(final)
				if os.Remove(typeDir) == nil { // only when nothing else is in it
					typeDir = filepath.Dir(typeDir)
				}
				_ = syncDir(typeDir)
			} else {
				s.logf("cannot remove %s after failing to write %s: %v", cand.rel, metaRel, rerr)
			}
			return nil, apiErr(500, codeStore, "cannot write %s: %v; nothing was registered", metaRel, err)
		}
		if _, ok := snap.pending[subject]; ok {
			pending := maps.Clone(snap.pending)
			delete(pending, subject)
			if err := s.store.persistPending(snap.root, pending); err != nil {
				s.logf("cannot update %s: %v", ConfigFile, err)
			}
		}
	}
	ns, err := s.store.build(files, snap.root, cat)
	if err != nil {
		return nil, apiErr(500, codeStore, "the catalog does not load after writing %s: %v", cand.rel, err)
	}
	s.store.snap.Store(ns)
	return map[string]any{"id": id, "version": cand.v.Number, "subject": subject}, nil
}

// configRequest is the body of PUT /config[/{s}].
type configRequest struct {
	Compatibility      *string `json:"compatibility"`
	CompatibilityLevel *string `json:"compatibilityLevel"`
}

func (s *Server) setConfig(r *http.Request, subject string) (any, *apiError) {
	body, aerr := readBody(r)
	if aerr != nil {
		return nil, aerr
	}
	var req configRequest
	if err := json.Unmarshal(body, &req); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, apiErr(422, codeInvalidLevel, "invalid compatibility level: field %q has the wrong type", te.Field)
		}
		return nil, apiErr(400, codeMalformedRequest, "malformed request: the body is not valid JSON: %s", wire.Clip(err.Error()))
	}
	if field := unsupportedConfigField(body); field != "" {
		return nil, apiErr(422, codeNotPermitted, "config field %q is not supported: an evtool registry keeps only the compatibility level (in git); nothing was changed", wire.Clip(field))
	}
	lvl := req.Compatibility
	if lvl == nil {
		lvl = req.CompatibilityLevel
	} else if req.CompatibilityLevel != nil && !strings.EqualFold(*req.CompatibilityLevel, *lvl) {
		return nil, apiErr(422, codeInvalidLevel, "invalid compatibility level: compatibility %q and compatibilityLevel %q disagree; send one", wire.Clip(*lvl), wire.Clip(*req.CompatibilityLevel))
	}
	if lvl == nil {
		return nil, apiErr(422, codeInvalidLevel, "invalid compatibility level: send {\"compatibility\": \"FULL_TRANSITIVE\"} (NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE)")
	}
	mode, err := catalog.ParseMode(*lvl)
	if err != nil {
		return nil, apiErr(422, codeInvalidLevel, "invalid compatibility level: %v", err)
	}
	if s.opts.ReadOnly {
		return nil, s.readOnlyErr()
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	snap, err := s.store.refreshLocked()
	if err != nil {
		return nil, apiErr(500, codeStore, "the catalog cannot be read: %v", err)
	}
	if subject != "" {
		if _, _, aerr := snap.typeFor(subject, s.store.strategy); aerr != nil {
			return nil, aerr
		}
	}
	current := snap.globalLevel()
	if subject != "" {
		current, _ = snap.mode(subject)
	}
	if !s.opts.AllowConfigWrites {
		if mode == current {
			return map[string]any{"compatibility": string(mode)}, nil
		}
		return nil, s.configInGitErr(subject, current)
	}
	if subject != "" && snap.subjects[subject] == nil {
		pending := maps.Clone(snap.pending)
		pending[subject] = mode
		if err := s.store.persistPending(snap.root, pending); err != nil {
			return nil, apiErr(500, codeStore, "cannot write %s: %v", ConfigFile, err)
		}
		ns := *snap
		ns.pending = pending
		s.store.snap.Store(&ns)
		return map[string]any{"compatibility": string(mode)}, nil
	}
	rel := catalog.ConfigName
	if subject != "" {
		rel = path.Join(snap.root, snap.subjects[subject].t.Name, "event.yaml")
	}
	var data []byte
	if f := snap.files[rel]; f != nil {
		data = f.Data
	}
	out, err := setCompatMode(data, string(mode))
	if err != nil {
		return nil, apiErr(500, codeStore, "cannot edit %s: %v", rel, err)
	}
	if aerr := s.writeCatalogFile(snap, rel, out); aerr != nil {
		return nil, aerr
	}
	return map[string]any{"compatibility": string(mode)}, nil
}

// unsupportedConfigField returns the first field of a PUT /config body
// other than the level that sets something (normalize, alias,
// compatibilityGroup, metadata and rule sets): acknowledging it while
// keeping nothing would tell the client a setting holds that does not.
func unsupportedConfigField(body []byte) string {
	return firstSetField(body, func(name string) bool { return name != "compatibility" && name != "compatibilityLevel" })
}

// unsupportedRegistrationField returns the first field of a registration
// that asks for what the catalog cannot keep: metadata and rule sets
// (data contracts), or an id or version of the client's choosing (import
// mode). Registered without them, the client would believe they hold.
func unsupportedRegistrationField(body []byte) string {
	return firstSetField(body, func(name string) bool {
		switch name {
		case "metadata", "ruleSet", "id", "version":
			return true
		}
		return false
	})
}

// firstSetField returns the alphabetically first top-level field of a JSON
// object that check selects and whose value sets something. Unset values
// (null, false, 0, -1, "", {} and []), as clients fill a request struct,
// are ignored.
func firstSetField(body []byte, check func(name string) bool) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return ""
	}
	var names []string
	for name, raw := range fields {
		if !check(name) {
			continue
		}
		switch string(bytes.Join(bytes.Fields(raw), nil)) {
		case "null", "false", "0", "-1", `""`, "{}", "[]":
			continue
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return names[0]
}

// configInGitErr refuses a change of compatibility level.
func (s *Server) configInGitErr(subject string, current catalog.Mode) *apiError {
	where := catalog.ConfigName + " (compat.mode)"
	what := "the global compatibility level"
	if subject != "" {
		snap := s.store.current()
		typ := subject
		if st := snap.subjects[subject]; st != nil {
			typ = st.t.Name
		}
		where = path.Join(snap.root, typ, "event.yaml") + " (compat.mode)"
		what = fmt.Sprintf("the compatibility level of subject %q", wire.Clip(subject))
	}
	return apiErr(422, codeNotPermitted, "%s is %s and lives in git: change it in %s and commit it; this server changes levels only when started with `evtool registry serve --allow-config-writes`", what, current, where)
}

func (s *Server) deleteConfig(subject string) (any, *apiError) {
	if s.opts.ReadOnly {
		return nil, s.readOnlyErr()
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	snap, err := s.store.refreshLocked()
	if err != nil {
		return nil, apiErr(500, codeStore, "the catalog cannot be read: %v", err)
	}
	if snap.subjects[subject] == nil {
		lvl, ok := snap.pending[subject]
		if !ok {
			return nil, apiErr(404, codeLevelNotConfigured, "subject %q does not have subject-level compatibility configured", wire.Clip(subject))
		}
		if !s.opts.AllowConfigWrites {
			return nil, s.configInGitErr(subject, lvl)
		}
		pending := maps.Clone(snap.pending)
		delete(pending, subject)
		if err := s.store.persistPending(snap.root, pending); err != nil {
			return nil, apiErr(500, codeStore, "cannot write %s: %v", ConfigFile, err)
		}
		ns := *snap
		ns.pending = pending
		s.store.snap.Store(&ns)
		return map[string]any{"compatibilityLevel": string(lvl)}, nil
	}
	rel := path.Join(snap.root, snap.subjects[subject].t.Name, "event.yaml")
	f := snap.files[rel]
	if f == nil {
		return nil, apiErr(404, codeLevelNotConfigured, "subject %q does not have subject-level compatibility configured", wire.Clip(subject))
	}
	out, old, empty, err := removeCompatMode(f.Data)
	if err != nil {
		return nil, apiErr(500, codeStore, "cannot edit %s: %v", rel, err)
	}
	if old == "" {
		return nil, apiErr(404, codeLevelNotConfigured, "subject %q does not have subject-level compatibility configured", wire.Clip(subject))
	}
	if !s.opts.AllowConfigWrites {
		return nil, s.configInGitErr(subject, catalog.Mode(old))
	}
	if empty {
		out = nil // nothing but comments left: remove the file
	}
	if aerr := s.writeCatalogFile(snap, rel, out); aerr != nil {
		return nil, aerr
	}
	return map[string]any{"compatibilityLevel": old}, nil
}

// writeCatalogFile replaces (or, with nil data, removes) a catalog file
// after checking that the catalog still loads with the change.
func (s *Server) writeCatalogFile(snap *snapshot, rel string, data []byte) *apiError {
	files := maps.Clone(snap.files)
	if data == nil {
		delete(files, rel)
	} else {
		files[rel] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	cat, err := catalog.LoadFSCached(files, ".", snap.cache)
	if err != nil {
		return apiErr(500, codeStore, "the catalog would not load after changing %s: %v", rel, err)
	}
	p := filepath.Join(s.opts.Dir, filepath.FromSlash(rel))
	if data == nil {
		if err := os.Remove(p); err != nil {
			return apiErr(500, codeStore, "cannot remove %s: %v", rel, err)
		}
		if err := syncDir(filepath.Dir(p)); err != nil {
			return apiErr(500, codeStore, "cannot sync %s: %v", path.Dir(rel), err)
		}
	} else if err := writeAtomic(p, data, false, s.store.hook); err != nil {
		return apiErr(500, codeStore, "cannot write %s: %v", rel, err)
	}
	ns, err := s.store.build(files, snap.root, cat)
	if err != nil {
		return apiErr(500, codeStore, "%v", err)
	}
	s.store.snap.Store(ns)
	return nil
}

// acceptedMediaType reports whether a request body's Content-Type is one
// the Schema Registry API accepts.
func acceptedMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	switch mt {
	case wire.ContentType, "application/vnd.schemaregistry+json", "application/json", "application/octet-stream":
		return true
	}
	return false
}

// IsLoopbackHost reports whether host (no port) is localhost or a
// loopback address.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackHostHeader reports whether a Host header (host[:port]) names a
// loopback host.
func loopbackHostHeader(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return IsLoopbackHost(strings.Trim(host, "[]"))
}
