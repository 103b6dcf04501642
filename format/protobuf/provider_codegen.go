package protobuf

import "github.com/evtool/evtool/format"

var _ format.GoElsewhere = Provider{}

// NoGoCode points at protoc-gen-go and buf generate: Go code for Protobuf
// messages is theirs to write.
func (Provider) NoGoCode() string {
	return "Protobuf event types get no Go code from evtool; generate the messages with protoc-gen-go or buf generate (evtool's catalog files are ordinary .proto files)"
}

// SkipNote is gen go's warning about one Protobuf type among others.
func (Provider) SkipNote() string {
	return "no Go code generated for it (use protoc-gen-go or buf generate for its messages)"
}
