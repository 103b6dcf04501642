package kafka

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestOnGroupCommitReadsGroup: a commit hook may read the group, and what
// it reads holds every commit handled before the one it sees, however
// quickly they follow each other (the replay harness finds rewinds so).
func TestOnGroupCommitReadsGroup(t *testing.T) {
	b, err := StartBroker(BrokerConfig{Partitions: 1, Topics: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var mu sync.Mutex
	var seen []string
	remove := b.OnGroupCommit("g", func(c Commit) bool {
		before := "none"
		if st := b.Group("g", "t"); st != nil {
			before = fmt.Sprint(st.Committed[0])
		}
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s→%d", before, c.Topics[0].Offsets[0]))
		mu.Unlock()
		return false
	})
	defer remove()
	opts, _ := ClientConfig{Brokers: b.Addrs()}.Options()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, o := range []int64{10, 5, 7} {
		offs := kadm.Offsets{}
		offs.AddOffset("t", 0, o, -1)
		if err := adm.CommitAllOffsets(ctx, "g", offs); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// The group does not exist before its first commit.
	want := []string{"none→10", "10→5", "5→7"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("hook saw %v, want %v", seen, want)
	}
}
