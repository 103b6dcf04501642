package replay

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/evtool/evtool/internal/supervise"
)

// consumer is the consumer under test across its restarts: its instances
// (consumer.instances processes of consumer.run in one group, plus those
// rebalance faults join), each started from the same supervise.Spec every
// time (environment, work directories, group, topic).
type consumer struct {
	sp *supervise.Spawner
	// spec returns the supervise.Spec of instance i.
	spec func(i int) supervise.Spec

	mu      sync.Mutex
	insts   []*instance
	started time.Time
}

// instance is one process slot of the group: EVTOOL_INSTANCE i.
type instance struct {
	index  int
	spec   supervise.Spec
	proc   *supervise.Process
	all    []*supervise.Process // every start, for their notes
	starts int
	// away: the harness killed, stopped or paused it (its exit is not the
	// consumer's); gone: it is not running and will not come back.
	away, gone, paused bool
}

// startConsumer starts n instances.
func startConsumer(sp *supervise.Spawner, n int, spec func(i int) supervise.Spec) (*consumer, error) {
	c := &consumer{sp: sp, spec: spec, started: time.Now()}
	for range n {
		if _, err := c.join(); err != nil {
			c.stop(time.Second)
			return nil, err
		}
	}
	return c, nil
}

// join starts one more instance and returns its index.
func (c *consumer) join() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := len(c.insts)
	spec := c.spec(i)
	p, err := c.sp.Start(spec)
	if err != nil {
		return i, err
	}
	c.insts = append(c.insts, &instance{index: i, spec: spec, proc: p, all: []*supervise.Process{p}, starts: 1})
	return i, nil
}

func (c *consumer) current() *supervise.Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.insts[0].proc
}

// count is the number of instances started so far (running or not).
func (c *consumer) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.insts)
}

// running returns the indexes of the instances that run (not away).
func (c *consumer) running() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	for _, in := range c.insts {
		if !in.away && !in.gone {
			out = append(out, in.index)
		}
	}
	return out
}

// pid returns the pid of instance i's current process.
func (c *consumer) pid(i int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.insts[i].proc.Pid()
}

// exited reports an exit the harness did not cause, naming the instance
// when there are several.
func (c *consumer) exited() (bool, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, in := range c.insts {
		if in.away || in.gone {
			continue
		}
		if ok, how := in.proc.Exited(); ok {
			if len(c.insts) > 1 {
				how = fmt.Sprintf("instance %d: %s", in.index, how)
			}
			return true, how
		}
	}
	return false, ""
}

// kill SIGKILLs every instance for a crash fault; restart must follow. It
// returns the pid of instance 0.
func (c *consumer) kill() (pid int) {
	c.mu.Lock()
	var procs []*supervise.Process
	for _, in := range c.insts {
		if !in.gone {
			in.away = true
			procs = append(procs, in.proc)
		}
	}
	pid = c.insts[0].proc.Pid()
	c.mu.Unlock()
	for _, p := range procs {
		p.Resume()
		p.Kill()
	}
	return pid
}

// restart starts every instance that is away again (after a crash); it
// returns instance 0's process.
func (c *consumer) restart() (*supervise.Process, error) {
	c.mu.Lock()
	var away []int
	for _, in := range c.insts {
		if in.away && !in.gone {
			away = append(away, in.index)
		}
	}
	c.mu.Unlock()
	for _, i := range away {
		if _, err := c.restartInstance(i); err != nil {
			return nil, err
		}
	}
	return c.current(), nil
}

// killInstance SIGKILLs instance i (a rebalance fault); it stays away
// until restartInstance.
func (c *consumer) killInstance(i int) int {
	p := c.markAway(i)
	p.Resume()
	p.Kill()
	return p.Pid()
}

// leaveInstance stops instance i with SIGTERM (it leaves its group) and
// returns how it ended.
func (c *consumer) leaveInstance(i int, grace time.Duration) string {
	return c.markAway(i).Stop(grace)
}

// pauseInstance SIGSTOPs instance i; resumeInstance SIGCONTs it.
func (c *consumer) pauseInstance(i int) int {
	c.mu.Lock()
	in := c.insts[i]
	in.paused = true
	p := in.proc
	c.mu.Unlock()
	p.Pause()
	return p.Pid()
}

func (c *consumer) resumeInstance(i int) {
	c.mu.Lock()
	in := c.insts[i]
	in.paused = false
	p := in.proc
	c.mu.Unlock()
	p.Resume()
}

func (c *consumer) markAway(i int) *supervise.Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.insts[i].away = true
	return c.insts[i].proc
}

// retire marks an instance that left or was killed as gone for good.
func (c *consumer) retire(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.insts[i].gone = true
}

// restartInstance starts instance i again with its spec (its logs go to
// <name>.<n>.stdout and .stderr).
func (c *consumer) restartInstance(i int) (*supervise.Process, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	in := c.insts[i]
	in.starts++
	spec := in.spec
	spec.Name = fmt.Sprintf("%s.%d", in.spec.Name, in.starts)
	p, err := c.sp.Start(spec)
	if err != nil {
		return nil, err
	}
	in.proc, in.away, in.paused = p, false, false
	in.all = append(in.all, p)
	return p, nil
}

// stop stops every instance (a paused one is resumed first) and returns
// how they ended.
func (c *consumer) stop(grace time.Duration) string {
	c.mu.Lock()
	insts := append([]*instance(nil), c.insts...)
	c.mu.Unlock()
	var wg sync.WaitGroup
	hows := make([]string, len(insts))
	for k, in := range insts {
		wg.Go(func() {
			in.proc.Resume()
			hows[k] = in.proc.Stop(grace)
		})
	}
	wg.Wait()
	if len(hows) == 1 {
		return hows[0]
	}
	var parts []string
	for k, h := range hows {
		parts = append(parts, fmt.Sprintf("instance %d: %s", k, h))
	}
	return strings.Join(parts, "; ")
}

// stderr returns the last lines of the instance that exited by itself, or
// of instance 0.
func (c *consumer) stderr() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, in := range c.insts {
		if ok, _ := in.proc.Exited(); ok && !in.away && !in.gone {
			return in.proc.Stderr()
		}
	}
	return c.insts[0].proc.Stderr()
}

// notes collects what the harness had to kill or abandon across the
// consumer's processes, each once, naming the pid.
func (c *consumer) notes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, in := range c.insts {
		for _, p := range in.all {
			for _, n := range p.Notes() {
				who := "the consumer"
				if len(c.insts) > 1 {
					who = fmt.Sprintf("instance %d", in.index)
				}
				out = append(out, fmt.Sprintf("%s (pid %d) %s", who, p.Pid(), n))
			}
		}
	}
	return out
}
