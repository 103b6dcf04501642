// Command bugconsumer runs a consumer of the bug catalogue (package bugs)
// for evtool replay:
//
//	bugconsumer -bug c    # or -bug memory-dedupe
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/evtool/evtool/internal/bugs"
)

func main() {
	name := flag.String("bug", "correct", "the consumer: a..g or its name (see package bugs)")
	flag.Parse()
	log.SetPrefix("bugconsumer: ")
	bug, err := bugs.Parse(*name)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bugs.Run(ctx, bug); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}
