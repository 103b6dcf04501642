package registryserver

import (
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// descriptorFormer is the provider of kind when a client may register a
// serialized descriptor in place of its text (Protobuf; descriptors).
func descriptorFormer(kind format.Kind) (format.DescriptorFormer, bool) {
	p, _ := formats.ForKind(kind)
	df, ok := p.(format.DescriptorFormer)
	return df, ok
}

// serializedForm answers format=serialized for a schema whose format's
// provider is a format.DescriptorFormer (Protobuf): it is
// compiled with the shared schemas it references, and named by its file in
// the catalog (a shared schema by its import path, which is what the
// files that import it name).
func (snap *snapshot) serializedForm(rec *schemaRec) (string, *apiError) {
	refs, aerr := snap.refClosure(servedRefs(rec.form))
	if aerr != nil {
		return "", aerr
	}
	s, err := wire.CompileRemote(rec.form.Kind, string(rec.form.Text), refs, "")
	if err != nil {
		return "", apiErr(500, codeStore, "schema %d does not compile: %v", rec.id, err)
	}
	name := ""
	if len(rec.usages) > 0 {
		u := rec.usages[0]
		name = u.Subject
		if st := snap.subjects[u.Subject]; st != nil {
			for _, vs := range st.versions {
				if vs.v.Number == u.Version {
					name = vs.v.RelPath
				}
			}
		}
	}
	df, ok := descriptorFormer(rec.form.Kind)
	if !ok {
		return "", apiErr(500, codeStore, "schema %d cannot be serialized: %s schemas have no serialized form", rec.id, rec.form.Kind.Name())
	}
	out, err := df.SerializedForm(s, name)
	if err != nil {
		return "", apiErr(500, codeStore, "schema %d cannot be serialized: %v", rec.id, err)
	}
	return out, nil
}
