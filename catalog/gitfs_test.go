package catalog

import "testing"

// The hint names a refspec that creates the remote-tracking ref, so that
// the revision exists after running it in a shallow clone.
func TestFetchHint(t *testing.T) {
	for _, c := range []struct{ rev, want string }{
		{"origin/main", "In CI, fetch it first (actions/checkout with fetch-depth: 0, or `git fetch --depth=1 origin main:refs/remotes/origin/main`) and pass it as origin/main"},
		{"main", "In CI, fetch it first (actions/checkout with fetch-depth: 0, or `git fetch --depth=1 origin main:refs/remotes/origin/main`) and pass it as origin/main"},
		{"upstream/release/2.x", "In CI, fetch it first (actions/checkout with fetch-depth: 0, or `git fetch --depth=1 upstream release/2.x:refs/remotes/upstream/release/2.x`) and pass it as upstream/release/2.x"},
		{"refs/remotes/origin/dev", "In CI, fetch it first (actions/checkout with fetch-depth: 0, or `git fetch --depth=1 origin dev:refs/remotes/origin/dev`) and pass it as origin/dev"},
		{"refs/heads/dev", "In CI, fetch it first (actions/checkout with fetch-depth: 0, or `git fetch --depth=1 origin dev:refs/remotes/origin/dev`) and pass it as origin/dev"},
		{"0123abcd", "In CI, fetch it first (actions/checkout with fetch-depth: 0, or `git fetch --depth=1 origin 0123abcd`)"},
	} {
		if got := fetchHint(c.rev); got != c.want {
			t.Errorf("fetchHint(%q) =\n%s\nwant\n%s", c.rev, got, c.want)
		}
	}
}
