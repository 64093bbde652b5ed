package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"memzip/mgpusim-plugin/mgpurun"
)

// Bad input stops with exit status 2 and one line naming the flag and value.
func TestBadInputGivesOneClearLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "-benchmark is required: one of aes, fir"},
		{[]string{"-benchmark", "gd"}, `unknown benchmark "gd"`},
		{[]string{"-benchmark", "fir", "-codec", "zip"}, "-codec zip: invalid codec 'zip'"},
		{[]string{"-benchmark", "fir", "-codec", "bdi:lambda=2"}, "-codec bdi:lambda=2"},
		{[]string{"-benchmark", "fir", "-fabric", "nvlink"}, `fabric must be "bus" or "pcie", got "nvlink"`},
		{[]string{"-benchmark", "fir", "-costs", "cheap"}, `-costs "cheap"`},
		{[]string{"-benchmark", "fir", "-bus-bytes-per-cycle", "0"}, "bus bytes per cycle must be positive, got 0"},
		{[]string{"-benchmark", "fir", "-gpus", "0"}, "gpus must be 1..64, got 0"},
		{[]string{"-benchmark", "fir", "extra"}, `unexpected argument "extra"`},
		{[]string{"-benchmark", "fir", "-size", "lenght=4"}, `size "lenght" of fir: expected one of length, taps`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%v: exit %d, stderr %q; want status 2 and one line with %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// One small run writes a run directory with the records memzip reads.
func TestRunWritesTheRunDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	trace := filepath.Join(dir, "payloads.mztrace")
	var stdout, stderr bytes.Buffer
	code := run([]string{"-benchmark", "matrixtranspose", "-size", "width=64", "-codec", "bdi", "-verify",
		"-trace", trace, "-out", dir}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rec struct {
		Codec, Program, Simulator, OutputCheck string
		OutputOK                               bool `json:"output_ok"`
		Cycles                                 uint64
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil || json.Unmarshal(data, &rec) != nil {
		t.Fatalf("run.json: %v %s", err, data)
	}
	if rec.Codec != "bdi" || rec.Program != "mgpusim/matrixtranspose width=64" || !rec.OutputOK || rec.Cycles == 0 {
		t.Errorf("run.json %s", data)
	}
	if info, err := os.Stat(trace); err != nil || info.Size() == 0 {
		t.Errorf("trace: %v", err)
	}
	if !strings.Contains(stdout.String(), "payloads:") || !strings.Contains(stdout.String(), "verified") {
		t.Errorf("summary %q", stdout.String())
	}
}

// corruptEnv makes the test binary a memzip-mgpu run whose hook flips one
// bit of the given payload (see TestCorruptPayloadIsCaught).
const corruptEnv = "MEMZIP_MGPU_TEST_CORRUPT_PAYLOAD"

func TestMain(m *testing.M) {
	if n := os.Getenv(corruptEnv); n != "" {
		os.Exit(runCorrupted(n, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runCorrupted is run() with the hook's fault injection set.
func runCorrupted(n string, args []string) int {
	opts, err := parse(args, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if opts.Compression.CorruptPayload, err = strconv.ParseUint(n, 10, 64); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if _, err := mgpurun.Run(opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// runWithCorruption runs a 64 x 64 transpose under BDI in a child process
// with payload n corrupted (0: none) and returns its exit status and stderr.
func runWithCorruption(t *testing.T, n int, extra ...string) (int, string) {
	t.Helper()
	args := append([]string{"-benchmark", "matrixtranspose", "-size", "width=64", "-codec", "bdi"}, extra...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", corruptEnv, n))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// One flipped bit in one compressed payload: -verify stops the run at that
// payload; without -verify the receiver gets the wrong decode and the
// transpose's own output check fails. Uncorrupted, the same run passes.
func TestCorruptPayloadIsCaught(t *testing.T) {
	if code, stderr := runWithCorruption(t, 0); code != 0 {
		t.Fatalf("uncorrupted run: exit %d: %s", code, stderr)
	}
	code, stderr := runWithCorruption(t, 100, "-verify")
	if code == 0 || !strings.Contains(stderr, "memzip verify: a ") || !strings.Contains(stderr, "differs from the sent block") {
		t.Errorf("-verify: exit %d, stderr %q", code, stderr)
	}
	code, stderr = runWithCorruption(t, 100)
	if code == 0 || !strings.Contains(stderr, "mismatch at") || strings.Contains(stderr, "memzip verify") {
		t.Errorf("output check: exit %d, stderr %q", code, stderr)
	}
}
