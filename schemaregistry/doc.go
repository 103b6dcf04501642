// Package schemaregistry is evtool's interop with Confluent-compatible schema
// registries (Confluent Schema Registry, Redpanda, Apicurio's ccompat API,
// Karapace).
//
// The client side, built on franz-go's pkg/sr, keeps a registry in step
// with the catalog, which stays the source of truth: Push registers the
// catalog's versions and sets compatibility levels (idempotently), Pull
// writes a catalog from a registry, Diff reports drift, and LoadBase makes
// a registry the base of `evtool compat check --against registry:URL`.
// Versions that $ref shared catalog files are registered self-contained
// (their registry form bundles them under $defs); Avro and Protobuf
// versions are registered as written, with references to the shared
// schemas they use, which their format's provider finds
// (format.RegistryFormer) and push registers first. Credentials never reach errors: Client scrubs them.
//
// evtool's own registry server (`evtool registry serve`) is package
// registryserver, which uses this package's subjects and strategies; what
// both share of the registry API (the registry forms of catalog versions,
// the media type, each format's schemaType and references) is
// schemaregistry/internal/wire.
package schemaregistry
