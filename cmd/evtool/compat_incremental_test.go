package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/catalog/catalogtest"
)

// TestCompatCheckIncrementalSameAsFull applies seeded random edits to a
// generated catalog committed in git and checks that `compat check
// --against HEAD` (which skips the types whose files and referenced
// files are unchanged) reports exactly the findings of `--full`.
func TestCompatCheckIncrementalSameAsFull(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	const types = 12
	if err := catalogtest.Generate(dir, catalogtest.GenOptions{Types: types, Versions: 3, Shape: catalogtest.ShapeHeavy, Mix: catalogtest.MixAll, Shared: 6}); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// Type 0's versions reference type 1's v1.json: an edit of type 1
	// must check type 0 again, and an edit of type 0 must load type 1.
	for v := 1; v <= 3; v++ {
		p := filepath.Join(dir, "schemas", catalogtest.TypeName(0), fmt.Sprintf("v%d.json", v))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		peer := fmt.Sprintf(`"properties": {"peer": {"$ref": "../%s/v1.json"}, `, catalogtest.TypeName(1))
		if err := os.WriteFile(p, bytes.Replace(b, []byte(`"properties": {`), []byte(peer), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "base")

	skippedSome, failedSome, unreadSome := false, false, false
	for seed := int64(1); seed <= editKinds; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		// Each kind of edit once, with a random one beside it now and
		// then.
		did := []string{randomEdit(t, dir, rnd, types, int(seed-1))}
		if rnd.Intn(2) == 0 {
			did = append(did, randomEdit(t, dir, rnd, types, rnd.Intn(editKinds)))
		}
		full, fullCode := checkFindings(t, dir, "--full")
		incr, incrCode := checkFindings(t, dir)
		var skipped string
		for i := 0; i < len(incr); i++ {
			if incr[i]["rule"] == "types-unchanged" {
				skipped = incr[i]["message"].(string)
				incr = append(incr[:i], incr[i+1:]...)
				i--
			}
		}
		if skipped != "" {
			skippedSome = true
		}
		if strings.Contains(skipped, "not read") {
			unreadSome = true // the byte-level prefilter left types out
		}
		if fullCode != 0 {
			failedSome = true
		}
		if fullCode != incrCode {
			t.Errorf("seed %d (%s): exit %d incremental, %d full", seed, strings.Join(did, "; "), incrCode, fullCode)
		}
		if diff := cmp.Diff(full, incr); diff != "" {
			t.Errorf("seed %d (%s; %s): incremental findings differ from full (-full +incremental):\n%s", seed, strings.Join(did, "; "), skipped, diff)
		}
		git("checkout", "-q", "--", ".")
		git("clean", "-q", "-fd")
	}
	// The comparison means something only if some edits were skipped
	// around and some broke compatibility.
	if !skippedSome || !failedSome || !unreadSome {
		t.Errorf("the edits never skipped a type (%v), never failed the gate (%v) or the prefilter never left a type unread (%v)", skippedSome, failedSome, unreadSome)
	}
}

// checkFindings runs compat check --against HEAD with extra arguments
// and returns its JSON findings and exit code.
func checkFindings(t *testing.T, dir string, extra ...string) ([]map[string]any, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args := append([]string{"compat", "check", "--dir", dir, "--against", "HEAD", "--format", "json", "--samples", "1"}, extra...)
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	if code == 2 {
		return []map[string]any{{"stderr": stderr.String()}}, code
	}
	var rep struct {
		Findings []map[string]any `json:"findings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %v\n%s\n%s", args, err, stdout.String(), stderr.String())
	}
	return rep.Findings, code
}

// editKinds counts randomEdit's kinds of edit.
const editKinds = 12

// randomEdit makes an edit of kind k (0 <= k < editKinds) to a random
// type or shared file of the generated catalog in dir and says what.
func randomEdit(t *testing.T, dir string, rnd *rand.Rand, types, k int) string {
	t.Helper()
	typ := catalogtest.TypeName(rnd.Intn(types))
	tdir := filepath.Join(dir, "schemas", typ)
	vfile := func(n int) string {
		for _, ext := range []string{".json", ".avsc", ".proto"} {
			p := filepath.Join(tdir, fmt.Sprintf("v%d%s", n, ext))
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		return ""
	}
	edit := func(p, old, new string) {
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			return // removed or renamed by the other edit
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s has no %q", p, old)
		}
		if err := os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shared := rnd.Intn(6)
	switch k {
	case 0: // a shared JSON file narrows: types referencing it break
		edit(filepath.Join(dir, "schemas", "common", fmt.Sprintf("s%d.json", shared)), `"maximum": `, `"maximum": 1`)
		return fmt.Sprintf("common/s%d.json narrowed", shared)
	case 1: // a shared Avro record gains a field without default
		edit(filepath.Join(dir, "schemas", "common", fmt.Sprintf("s%d.avsc", shared)), `"fields": [`, `"fields": [{"name": "extra", "type": "string"},`)
		return fmt.Sprintf("common/s%d.avsc field added", shared)
	case 2: // a shared Protobuf message changes a field's type
		edit(filepath.Join(dir, "schemas", "common", fmt.Sprintf("s%d.proto", shared)), "int64 count = 2;", "string count = 2;")
		return fmt.Sprintf("common/s%d.proto field retyped", shared)
	case 3: // the latest version of a type edited in place
		p := vfile(3)
		switch filepath.Ext(p) {
		case ".json":
			edit(p, `"pattern": "^[a-z]{2}-[0-9]{4}$"`, `"pattern": "^[a-z]{3}-[0-9]{4}$"`)
		case ".avsc":
			edit(p, `{
      "name": "id",
      "type": "string"
    }`, `{
      "name": "id",
      "type": "long"
    }`)
		default:
			edit(p, "string id = 1;", "int32 id = 1;")
		}
		return typ + " v3 edited"
	case 4: // a new version that breaks v1..v3
		p := vfile(3)
		if p == "" {
			return typ + " gone already"
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.Replace(b, []byte(`"id"`), []byte(`"ident"`), -1)
		b = bytes.Replace(b, []byte("string id = 1;"), []byte("bytes id = 1;"), 1)
		if err := os.WriteFile(strings.Replace(p, "v3.", "v4.", 1), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return typ + " v4 added"
	case 5: // a type removed
		if err := os.RemoveAll(tdir); err != nil {
			t.Fatal(err)
		}
		return typ + " removed"
	case 6: // an example edited: nothing compat reads
		if p := filepath.Join(tdir, "examples", "v1", "one.json"); fileExists(p) {
			edit(p, `"ab-1234"`, `"cd-5678"`)
			return typ + " example edited"
		}
		edit(filepath.Join(tdir, "event.yaml"), "description: ", "description: Edited. ")
		return typ + " event.yaml edited"
	case 7: // the mode in evtool.yaml: every type is checked again
		edit(filepath.Join(dir, "evtool.yaml"), "FULL_TRANSITIVE", "BACKWARD")
		return "mode BACKWARD"
	case 8: // type 1's v1, which type 0 references, edited in place
		edit(filepath.Join(dir, "schemas", catalogtest.TypeName(1), "v1.json"), `"pattern": "^[a-z]{2}-[0-9]{4}$"`, `"pattern": "^[a-z]{3}-[0-9]{4}$"`)
		return catalogtest.TypeName(1) + " v1 (referenced by type 0) edited"
	case 9: // a type renamed: one removed, one added (untracked)
		to := filepath.Join(dir, "schemas", strings.Replace(typ, ".t", ".r", 1))
		if !fileExists(tdir) {
			return typ + " gone already"
		}
		if err := os.Rename(tdir, to); err != nil {
			t.Fatal(err)
		}
		return typ + " renamed"
	case 10: // a shared JSON file renamed: its references break
		from := filepath.Join(dir, "schemas", "common", fmt.Sprintf("s%d.json", shared))
		if !fileExists(from) {
			return from + " gone already"
		}
		if err := os.Rename(from, strings.TrimSuffix(from, ".json")+"-moved.json"); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("common/s%d.json renamed", shared)
	default: // a version of type 0, which references type 1, edited in place
		edit(filepath.Join(dir, "schemas", catalogtest.TypeName(0), "v2.json"), `"pattern": "^[a-z]{2}-[0-9]{4}$"`, `"pattern": "^[a-z]{3}-[0-9]{4}$"`)
		return catalogtest.TypeName(0) + " v2 (referencing type 1) edited"
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
