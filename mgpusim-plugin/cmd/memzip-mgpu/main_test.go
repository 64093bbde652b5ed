package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
