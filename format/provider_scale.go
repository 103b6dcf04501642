package format

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
