// Command ruledoc prints docs/rules.md, the table of every rule evtool
// emits, from the rule table (package rules):
//
//	go run ./compat/cmd/ruledoc > docs/rules.md
//
// The rules package's tests fail when docs/rules.md is stale.
package main

import (
	"fmt"

	"github.com/evtool/evtool/rules"
)

func main() {
	fmt.Print(rules.Markdown())
}
