package protobuf

// ExampleForm is the JSON mapping: a catalog's Protobuf examples are
// messages in it.
func (Provider) ExampleForm() string { return "the JSON mapping" }

// SelectsMessage: a .proto file may declare several messages, of which
// event.yaml's message selects the event's.
func (Provider) SelectsMessage() {}
