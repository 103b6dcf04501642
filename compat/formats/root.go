package formats

import (
	"fmt"
	"os"
)

// openRoot opens a directory as the only place a schema may read from.
func openRoot(dir string) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("directory %s: %w", dir, err)
	}
	return root, nil
}
