package avro

// FileText returns the text of one of the schema's files (Files) as it was
// read, for exports that keep what the compiled form drops (doc, the names
// as written).
func (s *Schema) FileText(file string) ([]byte, bool) {
	text, ok := s.texts[file]
	return text, ok
}
