package catalog

// ShowPath joins a display prefix (a directory, or "REF:" for a git tree)
// and a slash path the way the loader names catalog files in findings, so
// files read beside the catalog (consumer contracts) are named alike.
func ShowPath(display, p string) string { return showPath(display, p) }
