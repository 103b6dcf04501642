package catalog

import "github.com/evtool/evtool/format"

// Questions about the root's files that are not a compile, asked by the
// compatibility gate and by findings (format.RootFiles: the files of the
// formats compiled from the root, what compiled locations name).

// Locate maps a compiled schema location ("url#/pointer") to the display
// path of its catalog file and the JSON pointer inside it. Unknown URLs are
// returned as they are with an empty file.
func (c *Catalog) Locate(location string) (file, pointer string) {
	for _, rf := range c.allRootFiles() {
		if file, pointer = rf.Locate(location); file != "" {
			return file, pointer
		}
	}
	return "", location
}

// FileOfURL describes the catalog file a compiled schema URL belongs to:
// its display path, its path relative to the catalog root and the digest
// of its canonical JSON.
func (c *Catalog) FileOfURL(u string) (display, rel, digest string, ok bool) {
	for _, rf := range c.allRootFiles() {
		if display, rel, digest, ok = rf.FileOfURL(u); ok {
			return display, rel, digest, true
		}
	}
	return "", "", "", false
}

// versionURL is the location the version file rel (relative to the root)
// of format kind is compiled at, in its own format's URL space: "" when
// kind does not compile from the root's files (Avro and Protobuf compile
// each file by itself). Only the JSON Schema engine's fingerprints read a
// version's URL (approvals in evtool.yaml name fingerprints), and JSON
// Schema versions keep the URLs they had.
func (c *Catalog) versionURL(kind format.Kind, rel string) string {
	if rf := c.rootFiles(kind); rf != nil {
		return rf.URL(rel)
	}
	return ""
}
