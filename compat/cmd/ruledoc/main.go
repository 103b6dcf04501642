// Command ruledoc prints docs/rules.md, the table of compatibility rules,
// from the engine's rule table:
//
//	go run ./compat/cmd/ruledoc > docs/rules.md
//
// compat's tests fail when docs/rules.md is stale.
package main

import (
	"fmt"

	"github.com/evtool/evtool/compat"
)

func main() {
	fmt.Print(compat.RulesMarkdown())
}
