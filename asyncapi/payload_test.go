package asyncapi

import (
	"errors"

	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/format/protobuf"
)

// avroPayloadSchema is the schema an Avro payload embeds, as the document
// carries it (the provider's JSON text decoded in order).
func avroPayloadSchema(s *avro.Schema) (any, error) {
	p, err := avro.Provider{}.AsyncAPIPayload(s, nil)
	if err != nil {
		return nil, err
	}
	return decodeOrdered(p.JSON)
}

// protoPayloadSchema is the .proto text a Protobuf payload embeds; a
// bundle that failed (embedded as written, with a warning) is an error.
func protoPayloadSchema(text []byte, s *protobuf.Schema) (string, error) {
	p, err := protobuf.Provider{}.AsyncAPIPayload(s, text)
	if err != nil {
		return "", err
	}
	if p.Warning != "" {
		return "", errors.New(p.Warning)
	}
	return p.Text, nil
}
