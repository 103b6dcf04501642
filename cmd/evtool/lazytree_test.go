package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCommandsTableMatchesTree: the table that lets a command line build
// only its command names every command of the tree, by its name, and no
// command can be called by another name (an alias would miss the table
// and cost only speed, but the table should say so).
func TestCommandsTableMatchesTree(t *testing.T) {
	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	var table []string
	for _, c := range a.commands() {
		table = append(table, c.name)
	}
	var tree []string
	for _, c := range a.rootCommand().Commands() {
		tree = append(tree, c.Name())
		if len(c.Aliases) > 0 {
			t.Errorf("%s has aliases %q, which rootCommandFor does not know", c.Name(), c.Aliases)
		}
	}
	slices.Sort(table)
	slices.Sort(tree)
	if !slices.Equal(table, tree) {
		t.Errorf("commands() names %q, the tree has %q", table, tree)
	}
}

// TestCommandForArgsLikeFullTree: for every command path, its help and
// an unknown flag print the same bytes and exit the same whether the root
// holds every command or only the one the command line names.
func TestCommandForArgsLikeFullTree(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			p := append(slices.Clone(path), sub.Name())
			paths = append(paths, p)
			walk(sub, p)
		}
	}
	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	walk(a.rootCommand(), nil)
	if len(paths) < 16 {
		t.Fatalf("only %d command paths", len(paths))
	}
	exec := func(full bool, args []string) string {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
		root := a.rootCommandFor(args)
		if full {
			root = a.rootCommand()
		}
		code := a.execute(context.Background(), root, args)
		return "stdout:\n" + stdout.String() + "stderr:\n" + stderr.String() + "exit: " + string(rune('0'+code))
	}
	for _, p := range paths {
		for _, args := range [][]string{
			append(slices.Clone(p), "--help"),
			append(slices.Clone(p), "-h"),
			append(slices.Clone(p), "--no-such-flag"),
		} {
			full, one := exec(true, args), exec(false, args)
			if full != one {
				t.Errorf("evtool %s: with every command\n%s\nwith only %s\n%s", strings.Join(args, " "), full, p[0], one)
			}
			if !strings.Contains(full, "exit: ") || len(full) < 40 {
				t.Errorf("evtool %s: printed almost nothing:\n%s", strings.Join(args, " "), full)
			}
		}
	}
}
