package main

import (
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
)

// Started under nohup (SIGHUP ignored), evtool does not catch SIGHUP:
// signal.Notify would undo the ignore and a closed terminal would stop it.
func TestStopSignalsKeepNohup(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child consumers or producers through kfake end to end (minutes on a loaded machine); TestScripts and TestDocSamples stand for the CLI in the short tier")
	}
	if signal.Ignored(syscall.SIGHUP) {
		t.Skip("the test itself runs under nohup")
	}
	if !slices.Contains(stopSignals(), os.Signal(syscall.SIGHUP)) {
		t.Error("SIGHUP does not stop a command")
	}
	signal.Ignore(syscall.SIGHUP)
	defer signal.Reset(syscall.SIGHUP)
	if slices.Contains(stopSignals(), os.Signal(syscall.SIGHUP)) {
		t.Error("SIGHUP caught although ignored (nohup)")
	}
}
