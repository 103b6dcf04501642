package catalog

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
// is compiled at ("" when no format reads the root's files). Versions of
// every format are named in the first root-compiled format's URL space:
// finding fingerprints include the URL, and approvals in evtool.yaml name
// fingerprints, so Avro and Protobuf versions keep the URLs they had.
func (c *Catalog) versionURL(rel string) string {
	if rfs := c.allRootFiles(); len(rfs) > 0 {
		return rfs[0].URL(rel)
	}
	return ""
}
