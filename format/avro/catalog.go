package avro

// ExampleForm is Avro's JSON encoding: a catalog's Avro examples are
// datums in it.
func (Provider) ExampleForm() string { return "Avro's JSON encoding" }
