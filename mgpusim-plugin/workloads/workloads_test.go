package workloads

import (
	"strings"
	"testing"
)

func TestSizesStartFromTheSampleDefaults(t *testing.T) {
	w, err := Lookup("fir")
	if err != nil {
		t.Fatal(err)
	}
	s, err := w.ParseSizes("length=65536")
	if err != nil {
		t.Fatal(err)
	}
	if s.String() != "length=65536,taps=16" {
		t.Errorf("sizes %s", s)
	}
}

func TestBadSizesNameTheValue(t *testing.T) {
	w, _ := Lookup("kmeans")
	for text, want := range map[string]string{
		"points":            "expected name=value",
		"pointz=3":          "expected one of points, clusters, features, iterations",
		"points=-1":         `points="-1"`,
		"points=x":          `points="x"`,
		"points=1,points=2": "given twice",
	} {
		_, err := w.ParseSizes(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	if _, err := Lookup("gd"); err == nil || !strings.Contains(err.Error(), "aes, fir, kmeans") {
		t.Errorf("unknown benchmark: %v", err)
	}
}
