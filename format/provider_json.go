package format

import (
	"errors"
	"io/fs"
)

// UnwrapPathError is the cause of a *fs.PathError (err itself when it is
// not one): messages name the path themselves, once.
func UnwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
