package apperr

// Violations collects every offending field of one request so that a
// client learns all its mistakes from one answer. The error's enum is the
// one of the first violation recorded, so callers record the most telling
// checks first; a field keeps its first reason.
type Violations struct {
	typ    Type
	fields map[string]string
	enum   string
	extra  map[string]any
}

// NewViolations starts a collection for an error of category t
// (InvalidPayload for bodies, InvalidParameters for queries).
func NewViolations(t Type) *Violations {
	return &Violations{typ: t, fields: map[string]string{}}
}

// Add records a violation of field with its enum and reason.
func (v *Violations) Add(field, enum, reason string) {
	if _, dup := v.fields[field]; dup {
		return
	}
	if v.enum == "" {
		v.enum = enum
	}
	v.fields[field] = reason
}

// Meta adds a meta entry besides the fields (e.g. an expected total).
func (v *Violations) Meta(key string, value any) {
	if v.extra == nil {
		v.extra = map[string]any{}
	}
	v.extra[key] = value
}

// Has reports whether field already has a violation.
func (v *Violations) Has(field string) bool { _, ok := v.fields[field]; return ok }

// Any reports whether anything was recorded.
func (v *Violations) Any() bool { return len(v.fields) > 0 }

// Merge copies the field violations of a 4xx *Error (from pkg/tags or
// pkg/money, say) into v; anything else (nil included) is returned for the
// caller to pass on.
func (v *Violations) Merge(err error) error {
	if err == nil {
		return nil
	}
	ae := From(err)
	if ae.Status() >= 500 {
		return err
	}
	fields, _ := ae.Meta["fields"].(map[string]string)
	enum := ae.Enum
	if enum == "" {
		enum = string(ae.Type)
	}
	if len(fields) == 0 {
		v.Add("", enum, ae.Message)
		return nil
	}
	for f, r := range fields {
		v.Add(f, enum, r)
	}
	return nil
}

// Err is the 400 naming every violation (with the meta entries), or nil.
func (v *Violations) Err() error {
	if !v.Any() {
		return nil
	}
	e := FieldErrors(v.typ, v.fields).WithEnum(v.enum)
	for k, val := range v.extra {
		e.WithMeta(k, val)
	}
	return e
}
