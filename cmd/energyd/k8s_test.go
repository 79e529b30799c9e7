package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// k8sDocuments renders deploy/k8s as `kubectl kustomize` does, with kubectl when it is
// installed, else by reading the kustomization's resources in order (all this one uses).
func k8sDocuments(t *testing.T) []map[string]any {
	t.Helper()
	dir := "../../deploy/k8s"
	var rendered []byte
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command(kubectl, "kustomize", dir).Output()
		if err != nil {
			t.Fatalf("kubectl kustomize %s: %v", dir, err)
		}
		rendered = out
	} else {
		var k struct {
			Resources []string `yaml:"resources"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, &k); err != nil {
			t.Fatal(err)
		}
		for _, r := range k.Resources {
			b, err := os.ReadFile(filepath.Join(dir, r))
			if err != nil {
				t.Fatalf("resource %s: %v", r, err)
			}
			rendered = append(append(rendered, "\n---\n"...), b...)
		}
	}
	var docs []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(rendered))
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("rendered manifests do not parse: %v", err)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
	return docs
}

// secretRefs collects the Secret names a manifest refers to: secretKeyRef, secretRef (envFrom)
// and secret volumes.
func secretRefs(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			switch k {
			case "secretKeyRef", "secretRef":
				if m, ok := child.(map[string]any); ok {
					if n, ok := m["name"].(string); ok {
						into[n] = true
					}
				}
			case "secret":
				if m, ok := child.(map[string]any); ok {
					if n, ok := m["secretName"].(string); ok {
						into[n] = true
					}
				}
			}
			secretRefs(child, into)
		}
	case []any:
		for _, child := range x {
			secretRefs(child, into)
		}
	}
}

// Every Secret the Kubernetes example refers to is part of its output, so that applying it
// shows what must be filled in instead of a pod stuck on a missing Secret.
func TestKustomizeListsEverySecret(t *testing.T) {
	docs := k8sDocuments(t)
	referenced, defined := map[string]bool{}, map[string]bool{}
	for _, d := range docs {
		if d["kind"] == "Secret" {
			if md, ok := d["metadata"].(map[string]any); ok {
				defined[md["name"].(string)] = true
			}
			continue
		}
		secretRefs(d, referenced)
	}
	if len(referenced) < 2 {
		t.Fatalf("found only %v referenced: the walk misses the manifests' references", referenced)
	}
	var missing []string
	for n := range referenced {
		if !defined[n] {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("Secrets referenced but not in the kustomize output: %s", strings.Join(missing, ", "))
	}
	// The DSN carries no credentials: they come from the Secret, never pasted into a URL.
	workloads := 0
	for _, d := range docs {
		if d["kind"] != "Deployment" && d["kind"] != "StatefulSet" {
			continue
		}
		workloads++
		b, _ := yaml.Marshal(d)
		if strings.Contains(string(b), "$(CLICKHOUSE_PASSWORD)") || !strings.Contains(string(b), "ENERGY_CLICKHOUSE_PASSWORD_FILE") ||
			!strings.Contains(string(b), "startupProbe") {
			t.Fatalf("energyd workload: credentials must come from ENERGY_CLICKHOUSE_PASSWORD_FILE and a startupProbe must be set:\n%s", b)
		}
	}
	if workloads == 0 {
		t.Fatal("no energyd Deployment or StatefulSet in the kustomize output")
	}
}
