package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/kafka"
)

func (a *app) brokerCommand() *cobra.Command {
	var (
		addr              string
		brokers, parts    int
		dataDir           string
		defaultPartitions = 3
	)
	c := &cobra.Command{
		Use:   "broker",
		Short: "Run an embedded Kafka cluster until interrupted",
		Long: `Run franz-go's kfake, an in-memory Kafka cluster, as a standalone process: for
local development, for consumers under test, and for evtool replay --brokers.

Once every broker listens, it prints one line per broker on stdout,
"listening HOST:PORT", and nothing else; stop it with SIGINT or SIGTERM
(Ctrl-C), which shuts it down cleanly (flushing --data-dir).

--addr is the first broker's address; further brokers take the following
ports. Port 0 picks free ports. Topics are created on first use with
--partitions partitions. With --data-dir the log, topics and committed
offsets survive a restart.`,
		Example: `  evtool broker
  evtool broker --addr 127.0.0.1:0 --brokers 3 --partitions 6
  evtool replay scenario.yaml --brokers 127.0.0.1:9092`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if brokers < 1 || brokers > 64 {
				return usagef("--brokers %d: must be between 1 and 64", brokers)
			}
			if parts < 1 || parts > 10000 {
				return usagef("--partitions %d: must be between 1 and 10000", parts)
			}
			b, err := kafka.StartBroker(kafka.BrokerConfig{Addr: addr, Brokers: brokers, Partitions: parts, DataDir: dataDir})
			if err != nil {
				return err
			}
			defer b.Close()
			for _, l := range b.Addrs() {
				fmt.Fprintf(a.stdout, "listening %s\n", l)
			}
			fmt.Fprintf(a.stderr, "evtool broker: %d broker(s) ready (EVTOOL_BROKERS=%s); stop with Ctrl-C\n", brokers, strings.Join(b.Addrs(), ","))
			<-cmd.Context().Done()
			b.Close()
			fmt.Fprintln(a.stderr, "evtool broker: stopped")
			return nil
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:9092", "listen address of the first broker (port 0: free ports)")
	c.Flags().IntVar(&brokers, "brokers", 1, "number of brokers")
	c.Flags().IntVar(&parts, "partitions", defaultPartitions, "partitions of auto-created topics")
	c.Flags().StringVar(&dataDir, "data-dir", "", "persist the log in this directory across restarts")
	return c
}
