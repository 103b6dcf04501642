// Command ruledoc prints docs/rules.md, the table of compatibility rules,
// from the engine's rule table:
//
//	go run ./compat/cmd/ruledoc > docs/rules.md
//
// compat/formats' tests fail when docs/rules.md is stale.
package main

import (
	"fmt"

	"github.com/evtool/evtool/compat/formats"
)

func main() {
	fmt.Print(formats.RulesMarkdown())
}
