package catalog

// Questions about the root's files that are not a compile, asked by the
// compatibility gate and by findings (format.RootFiles: JSON Schema's
// files, what compiled locations name).

// Locate maps a compiled schema location ("url#/pointer") to the display
// path of its catalog file and the JSON pointer inside it. Unknown URLs are
// returned as they are with an empty file.
func (c *Catalog) Locate(location string) (file, pointer string) {
	if c.json == nil {
		return "", location
	}
	return c.json.Locate(location)
}

// FileOfURL describes the catalog file a compiled schema URL belongs to:
// its display path, its path relative to the catalog root and the digest
// of its canonical JSON.
func (c *Catalog) FileOfURL(u string) (display, rel, digest string, ok bool) {
	if c.json == nil {
		return "", "", "", false
	}
	return c.json.FileOfURL(u)
}

// versionURL is the location the version file rel (relative to the root)
// is compiled at ("" when no format reads the root's files).
func (c *Catalog) versionURL(rel string) string {
	if c.json == nil {
		return ""
	}
	return c.json.URL(rel)
}
