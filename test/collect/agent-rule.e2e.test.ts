// The run agent's hang rule in Go, on the profiles it wrote in real runs
// (test/fixtures/leak-profiles): the agent's test-package source is compiled, in a go 1.12
// module, with a Go test that feeds each profile to schedlabAgentHung — a test binary whose
// goroutine 1 is leaked hangs; a main program parked in its own receive hangs only when every
// other goroutine is leaked too (a daemon's live ticker keeps it alive); a main blocked deeper
// (a WaitGroup) hangs whoever else runs; an end profile never hangs.

import { execa } from "execa";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { AGENT_TEST_FILE, agentSource } from "../../src/collect/index.js";

const PROFILES = fileURLToPath(new URL("../fixtures/leak-profiles/", import.meta.url));

const RULE_TEST = `package agentrule

import (
	"io/ioutil"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// profile is a fixture without the agent's first line: the runtime's text, as the watchdog reads it.
func profile(t *testing.T, name string) string {
	data, err := ioutil.ReadFile(filepath.Join(os.Getenv("PROFILES"), name))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	return text[strings.Index(text, "\\n")+1:]
}

const wgMain = \`goroutine 1 [sync.WaitGroup.Wait (leaked)]:
sync.runtime_SemacquireWaitGroup(0x0?, 0x0?)
	/usr/local/go/src/runtime/sema.go:114 +0x2e
sync.(*WaitGroup).Wait(0x0?)
	/usr/local/go/src/sync/waitgroup.go:206 +0x85
main.schedlabUserMain()
	/src/m/main.go:20 +0x1a
main.main()
	/src/m/zz_schedlab_harness.go:54 +0x158

goroutine 9 [sleep]:
time.Sleep(0x2faf080)
	/usr/local/go/src/runtime/time.go:363 +0x165
main.schedlabUserMain.func1()
	/src/m/main.go:12 +0x1a
created by main.schedlabUserMain in goroutine 1
	/src/m/main.go:10 +0x1a
\`

func TestHangRule(t *testing.T) {
	daemon := profile(t, "daemon-deadline.txt")
	tickerLeaked := strings.Replace(daemon, "goroutine 21 [chan receive]:", "goroutine 21 [chan receive (leaked)]:", 1)
	for _, c := range []struct {
		name   string
		text   string
		isMain bool
		hung   bool
		wait   string
	}{
		{"a test binary whose goroutine 1 is leaked", profile(t, "test-hang.txt"), false, true, "chan receive"},
		{"a test binary at its end", profile(t, "test-own-testmain-end.txt"), false, false, ""},
		{"a main program at its end", profile(t, "main-end.txt"), true, false, ""},
		{"a main parked in its own receive, every other goroutine leaked", profile(t, "main-hang.txt"), true, true, "chan receive"},
		{"a daemon in select {} with a live ticker", daemon, true, false, ""},
		{"the same daemon once its ticker is leaked too", tickerLeaked, true, true, "select (no cases)"},
		{"a main blocked in a WaitGroup while a sleeper lives", wgMain, true, true, "sync.WaitGroup.Wait"},
		{"the same profile read as a test binary's", wgMain, false, true, "sync.WaitGroup.Wait"},
	} {
		schedlabAgentIsMain = c.isMain
		wait, hung := schedlabAgentHung([]byte(c.text))
		if hung != c.hung || wait != c.wait {
			t.Errorf("%s: hung %v (%q), want %v (%q)", c.name, hung, wait, c.hung, c.wait)
		}
	}
}
`;

describe("the run agent's hang rule, in Go", () => {
  const dir = mkdtempSync(join(tmpdir(), "schedlab-agent-rule-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("decides each real profile as the rule says, compiled at go 1.12", async () => {
    writeFileSync(join(dir, "go.mod"), "module agentrule\n\ngo 1.12\n");
    writeFileSync(join(dir, AGENT_TEST_FILE), agentSource("test", "agentrule"));
    writeFileSync(join(dir, "rule_test.go"), RULE_TEST);
    const env = { ...process.env, PROFILES, GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local" };
    const vet = await execa("go", ["vet", "."], { cwd: dir, env, reject: false, all: true });
    expect(vet.all).toBe("");
    const test = await execa("go", ["test", "-count=1", "-v", "."], { cwd: dir, env, reject: false, all: true });
    expect(test.all).toContain("--- PASS: TestHangRule");
    expect(test.exitCode).toBe(0);
  }, 120_000);
});
