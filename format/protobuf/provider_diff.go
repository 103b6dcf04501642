package protobuf

import (
	"strings"

	"github.com/evtool/evtool/format"
)

var (
	_ format.MessagePicker = Provider{}
	_ format.PathLoader    = Provider{}
)

// ShortName is the message's name after its package's last dot.
func (Provider) ShortName(message string) string {
	return message[strings.LastIndex(message, ".")+1:]
}

// LoadPath is LoadFile.
func (Provider) LoadPath(file, message string, dirs []string) (format.Schema, error) {
	s, err := LoadFile(file, message, dirs)
	if err != nil {
		return nil, err
	}
	return s, nil
}
