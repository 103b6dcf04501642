package format

import "strings"

// InputScanner is a FileCompiler that tells, from a schema file's bytes
// alone and without compiling, which other files compiling it can read:
// an incremental check compares those between its base and the work
// tree to know which types cannot have changed (catalog.Unchanged,
// catalog.PrefilterGit).
type InputScanner interface {
	// Imports are the files data (one schema file of the format) names,
	// as paths relative to the catalog's schemas root, to be scanned in
	// turn; all is true when the scan cannot read them (every file of
	// the format must then count).
	Imports(data []byte) (imports []string, all bool)
	// ReadsShared reports that compiling a version reads every file of
	// the format in the catalog's shared directories, named or not.
	ReadsShared() bool
}

// ReferenceScanner is a RootCompiler whose files reference each other by
// path, by URL (an id a file declares) or by last path segment (a
// relative reference resolved against an id), that tells from one file's
// bytes alone, before the root is read, what the file references and the
// ids it declares: the incremental gate's prefilter
// (catalog.PrefilterGit) hides the types that reach no changed file
// without parsing a schema. A RootCompiler that is not one makes every
// file of its format count as referencing anything.
type ReferenceScanner interface {
	// ScanReferences scans data, the file at rel (its slash path
	// relative to the catalog's schemas root). It may find references
	// that are not (a key inside another string): more is safe, less is
	// not.
	ScanReferences(rel string, data []byte) References
}

// References are what a ReferenceScanner found in one file, as match
// keys.
type References struct {
	// Refs are the keys of what the file references.
	Refs []RefKey
	// IDs are the keys the file declares for itself besides its path and
	// name (its ids: URLKey, and SegmentKey of their last segment).
	IDs []RefKey
	// Anything is true when the file has a reference the scan cannot
	// place: it may reach every file.
	Anything bool
}

// RefKey is a match key of the incremental gate's scans: a reference and
// a file it may reach share one. A file is reached by PathKey of its
// path, SegmentKey of its name and the keys of its ids
// (References.IDs). Paths and segments match without case: on a
// case-insensitive file system a reference to Common/S1.json reads
// common/s1.json.
type RefKey string

// PathKey is the key of the file at rel (a slash path relative to the
// schemas root).
func PathKey(rel string) RefKey { return RefKey("p:" + strings.ToLower(rel)) }

// SegmentKey is the key of a last path segment (a file's name, or the
// last segment of a reference or id).
func SegmentKey(seg string) RefKey { return RefKey("s:" + strings.ToLower(seg)) }

// URLKey is the key of an absolute URL without fragment (an id, or a
// reference that names one).
func URLKey(url string) RefKey { return RefKey("u:" + url) }

// IsURL reports whether k is a URLKey: a reference through it can reach a
// file that declares the URL as its id.
func (k RefKey) IsURL() bool { return strings.HasPrefix(string(k), "u:") }

// IsFileURL reports whether k is the URLKey of a file: URL, which can
// name a catalog file by a path the path keys do not follow.
func (k RefKey) IsFileURL() bool { return strings.HasPrefix(strings.ToLower(string(k)), "u:file:") }
