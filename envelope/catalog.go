package envelope

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/report"
)

// Rule ids of the catalog checks.
const (
	RuleUnknownType        = "unknown-type"
	RuleUnknownVersion     = "unknown-version"
	RuleDataSchemaTemplate = "dataschema-unknown"
	RuleDataSchemaType     = "dataschema-type-mismatch"
	RuleDataSchemaMissing  = "dataschema-missing"
	RuleDataNotJSON        = "data-not-json"
	RuleDataInvalid        = "data-invalid"
	RuleSourceMismatch     = "source-mismatch"
	RuleDeprecatedVersion  = "deprecated-version"
	// RuleDataEncoding: a content type the event's format has no
	// encoding for (application/json for an Avro type is fine;
	// application/protobuf is not).
	RuleDataEncoding = "data-encoding"
)

// Validator checks decoded events against a catalog: the type exists, the
// dataschema names one of its versions (or, absent, the latest is used with
// a warning), the source matches the type's pattern, and the data validates
// against the version's schema.
type Validator struct {
	Catalog *catalog.Catalog
	// IDs are the catalog's registry schema ids: Confluent-framed data
	// must carry one of them (nil: frames are not checked).
	IDs *catalog.SchemaIDs

	once  sync.Once
	cache *lookupCache
}

// lookupCache remembers answers that depend only on an attribute's string
// (a dataschema, a source, a content type): event streams repeat a handful
// of them millions of times. It stops growing at lookupCacheMax entries so
// that an input of all-distinct values cannot make memory grow with it.
type lookupCache struct {
	n                          atomic.Int64
	dataschema, source, ctJSON sync.Map
	uris                       uriCache
}

const lookupCacheMax = 4096

type dataschemaRef struct {
	typ     string
	version int
	err     error
}

func (c *lookupCache) store(m *sync.Map, k, v any) {
	if c.n.Load() < lookupCacheMax {
		c.n.Add(1)
		m.Store(k, v)
	}
}

func (v *Validator) lookups() *lookupCache {
	v.once.Do(func() { v.cache = &lookupCache{} })
	return v.cache
}

func (v *Validator) parseDataSchema(ds string) (string, int, error) {
	c := v.lookups()
	if r, ok := c.dataschema.Load(ds); ok {
		r := r.(dataschemaRef)
		return r.typ, r.version, r.err
	}
	typ, n, err := v.Catalog.Template.Parse(ds)
	c.store(&c.dataschema, ds, dataschemaRef{typ, n, err})
	return typ, n, err
}

func (v *Validator) sourceMatches(t *catalog.EventType, src string) bool {
	c := v.lookups()
	key := t.Name + "\x00" + src
	if ok, hit := c.source.Load(key); hit {
		return ok.(bool)
	}
	ok := t.SourceMatches(src)
	c.store(&c.source, key, ok)
	return ok
}

func (v *Validator) isJSON(ct string) bool {
	c := v.lookups()
	if ok, hit := c.ctJSON.Load(ct); hit {
		return ok.(bool)
	}
	ok := isJSONContentType(ct)
	c.store(&c.ctJSON, ct, ok)
	return ok
}

// Check returns the catalog findings for d, and the version its data was
// checked against (nil when none could be chosen). Pointers are into the
// event ("/type", "/data/items/0/sku").
func (v *Validator) Check(d *Decoded) (*catalog.Version, []report.Finding) {
	return v.check(d, checkAll)
}

// checkScope says what the envelope rules left for the catalog checks: an
// attribute they rejected is absent from the event, and must not be read
// as "not given" (a dataschema as "use the latest version", a content
// type as "JSON").
type checkScope struct {
	data            bool // the data, unless the envelope rules rejected it
	dataschemaGiven bool // a dataschema was given, valid or not
}

var checkAll = checkScope{data: true}

// scopeOf is the checkScope left by the envelope findings of an event.
func scopeOf(fs []report.Finding) checkScope {
	sc := checkScope{data: true}
	for _, f := range fs {
		if f.Severity != report.SeverityError {
			continue
		}
		switch {
		case f.Rule == RuleDataExclusive || f.Rule == RuleDataBase64:
			sc.data = false
		case f.Pointer == "/datacontenttype":
			sc.data = false
		case f.Pointer == "/dataschema":
			sc.data, sc.dataschemaGiven = false, true
		}
	}
	return sc
}

func (v *Validator) check(d *Decoded, scope checkScope) (*catalog.Version, []report.Finding) {
	var out []report.Finding
	add := func(rule string, sev report.Severity, ptr, format string, args ...any) {
		out = append(out, report.Finding{Rule: rule, Severity: sev, Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
	typ := d.Event.Type()
	if typ == "" {
		return nil, nil // the envelope rules already report the missing type
	}
	t := v.Catalog.Lookup(typ)
	if t == nil {
		add(RuleUnknownType, report.SeverityError, "/type", "type %q is not in the catalog", typ)
		return nil, out
	}
	var ver *catalog.Version
	ds := d.DataSchema
	if ds == "" {
		ds = d.Event.DataSchema() // a Decoded built by hand
	}
	if ds != "" {
		dsType, n, err := v.parseDataSchema(ds)
		switch {
		case err != nil:
			add(RuleDataSchemaTemplate, report.SeverityError, "/dataschema", "dataschema %q does not match the catalog's template %s", ds, v.Catalog.Template)
			return nil, out
		case dsType != typ:
			add(RuleDataSchemaType, report.SeverityError, "/dataschema", "dataschema %q names type %q but the event's type is %q", ds, dsType, typ)
			return nil, out
		}
		ver = t.Version(n)
		if ver == nil {
			add(RuleUnknownVersion, report.SeverityError, "/dataschema", "dataschema %q names v%d of %s, which has versions 1..%d", ds, n, typ, len(t.Versions))
			return nil, out
		}
	} else if scope.dataschemaGiven {
		return nil, out // the envelope rules reported the dataschema
	} else {
		ver = t.Latest()
		add(RuleDataSchemaMissing, report.SeverityWarning, "/dataschema", "no dataschema: data checked against the latest version, v%d (set dataschema to %s)", ver.Number, v.Catalog.DataSchema(typ, ver.Number))
	}
	if t.Deprecated(ver.Number) {
		add(RuleDeprecatedVersion, report.SeverityWarning, "/dataschema", "%s v%d is deprecated", typ, ver.Number)
	}
	if src := d.Event.Source(); src != "" && !v.sourceMatches(t, src) {
		add(RuleSourceMismatch, report.SeverityError, "/source", "source %q does not match the pattern %q of %s", src, t.Meta.Source, typ)
	}
	if binaryFormat(ver.Format) {
		if scope.data {
			out = append(out, v.checkFormatData(d, ver)...)
		}
		return ver, out
	}
	if ct := d.Event.DataContentType(); ct != "" && !v.isJSON(ct) {
		add(RuleDataNotJSON, report.SeverityError, "/datacontenttype", "datacontenttype %q is not JSON, but the catalog describes %s data as JSON", ct, typ)
		return ver, out
	}
	if ver.Compiled == nil || !scope.data {
		return ver, out
	}
	vv, ok := ver.Compiled.(format.ValueValidator)
	if !ok {
		return ver, out
	}
	var data any
	if d.HasData {
		data = d.Data
	}
	for _, p := range format.ValueErrors(vv.ValidateValue(data)) {
		msg := p.Message
		if !d.HasData && p.Pointer == "" {
			msg = "event has no data: " + msg
		}
		add(RuleDataInvalid, report.SeverityError, "/data"+p.Pointer, "%s v%d: %s", typ, ver.Number, msg)
	}
	if d.JSONFramed {
		out = append(out, v.checkFrame(d, ver, format.ContentTypeJSON)...)
	}
	return ver, out
}

// checkFormatData checks the data of an Avro or Protobuf event through
// the format seam: the binary encoding for the format's binary content
// type (data_base64 in the JSON format, the record value in Kafka's
// binary mode; Confluent framing accepted), the JSON form (Avro's JSON
// encoding, Protobuf's JSON mapping) for a JSON content type or none.
func (v *Validator) checkFormatData(d *Decoded, ver *catalog.Version) []report.Finding {
	if ver.Compiled == nil {
		return nil // the catalog reports the version that did not load
	}
	s := ver.Compiled
	ct := d.Event.DataContentType()
	ptr := "/data"
	if d.Event.DataBase64 {
		ptr = "/data_base64"
	}
	fail := func(rule, p, msg string) []report.Finding {
		return []report.Finding{{Rule: rule, Severity: report.SeverityError, Pointer: p, Message: msg}}
	}
	json := ct == "" || v.isJSON(ct)
	if !d.HasData {
		return fail(RuleDataInvalid, "/data", fmt.Sprintf("%s v%d: event has no data", ver.Type, ver.Number))
	}
	form := s.Kind().Name() + " binary"
	if json {
		form = ""
		if b, ok := formats.Of(s).(format.BinaryDataer); ok {
			form = b.JSONFormName()
		}
		if ct == "" {
			ct = format.ContentTypeJSON
		}
	}
	err := ValidateData(s, v.Catalog.Framing(v.Catalog.Lookup(ver.Type)), d.RawData, ct)
	switch {
	case errors.Is(err, format.ErrContentType):
		return fail(RuleDataEncoding, "/datacontenttype", fmt.Sprintf("datacontenttype %q is not an encoding of %s v%d, which is %s: use %s", ct, ver.Type, ver.Number, s.Kind().Name(), strings.Join(s.ContentTypes(), " or ")))
	case err != nil:
		return fail(RuleDataInvalid, ptr, fmt.Sprintf("%s v%d: data is not a datum of the schema in %s: %v", ver.Type, ver.Number, form, err))
	}
	return v.checkFrame(d, ver, ct)
}

// Validate decodes one structured-mode JSON event and runs the envelope
// rules and the catalog checks. Findings carry lines relative to raw.
func (v *Validator) Validate(raw []byte) (*Decoded, *catalog.Version, []report.Finding) {
	d, findings := decodeJSON(raw, &v.lookups().uris)
	if d == nil {
		return nil, nil, findings
	}
	ver, more := v.check(d, scopeOf(findings))
	findings = append(findings, more...)
	// In an event spread over lines, a finding points at its own line
	// (the envelope rules' findings too, which carry only a pointer).
	if bytes.IndexByte(raw, '\n') >= 0 {
		for i := range findings {
			if f := &findings[i]; f.Line == 0 && f.Pointer != "" {
				f.Line, f.Column = jsonpos.Find(raw, f.Pointer)
			}
		}
	}
	return d, ver, findings
}

// isJSONContentType reports whether a datacontenttype carries JSON.
func isJSONContentType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && isJSONMediaType(mt)
}
