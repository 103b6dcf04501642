package report

import (
	"fmt"
	"io"
)

// The gate formats (github, junit, markdown, sarif) are implemented with the
// compatibility gate; until then they refuse rather than print nothing.

func writeGitHub(w io.Writer, r *Report) error { return fmt.Errorf("format github: not implemented") }
func writeJUnit(w io.Writer, r *Report) error  { return fmt.Errorf("format junit: not implemented") }
func writeMarkdown(w io.Writer, r *Report) error {
	return fmt.Errorf("format markdown: not implemented")
}
func writeSARIF(w io.Writer, r *Report) error { return fmt.Errorf("format sarif: not implemented") }
