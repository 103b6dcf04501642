package report

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShellWord: every word, pasted into bash, is the exact bytes it
// quotes, and the quoted form holds nothing Escape would escape (no raw
// control byte reaches a terminal or a CI log).
func TestShellWord(t *testing.T) {
	words := []string{
		"plain", "orders.yaml", "com.example.order:/lines/0/sku", "", "two words", "it's", `back\slash`, `$HOME`, "`id`", "a;b|c&d", "!x", "*?[]",
		"/a\nb", "TYPE:/a\nb", "tab\there", "cr\rlf", "esc\x1b[31mred", "bell\a", "del\x7f", "c1\u0085", "bidi\u202eevil", "zw\u200bj",
		"bad\xffutf8", "quote'and\nnewline", "back\\slash\nnewline", "::error::x\n::error::y", "\u2028sep", "ünïcödé", "emoji 😀",
		"\x1ba", "\x01f", // a hex digit right after an escape stays a character
	}
	for _, w := range words {
		q := ShellWord(w)
		if Escape(q) != q {
			t.Errorf("ShellWord(%q) = %q holds characters Escape escapes", w, q)
		}
		if strings.ContainsAny(q, "\n\r") {
			t.Errorf("ShellWord(%q) = %q breaks the line", w, q)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to paste the words into")
	}
	var script strings.Builder
	for _, w := range words {
		script.WriteString("printf '%s\\0' " + ShellWord(w) + "\n")
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script.String())
	cmd.Env = []string{"LC_ALL=C", "HOME=/nonexistent"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(words) {
		t.Fatalf("bash printed %d words, want %d: %q", len(got), len(words), got)
	}
	for i, w := range words {
		if got[i] != w {
			t.Errorf("pasted %s: bash gave %q, want %q", ShellWord(w), got[i], w)
		}
	}
}
