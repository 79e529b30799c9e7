// Command kubeschemas writes the JSON schemas that kubeconform validates deploy/k8s against,
// offline: one self-contained ("standalone") strict schema per kind, from Kubernetes' OpenAPI
// definitions (a _definitions.json as kubeconform's registry publishes it) and from
// CustomResourceDefinition files (their openAPIV3Schema). Strict: an object with listed
// properties accepts no other one, so a misspelt field fails. Descriptions are dropped to keep
// the files small. See deploy/schemas/README.md for the sources and the command line.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// builtinKinds are the Kubernetes kinds deploy/k8s uses: group/version, kind and their
// definition's name.
var builtinKinds = []struct{ apiVersion, kind, definition string }{
	{"v1", "ConfigMap", "io.k8s.api.core.v1.ConfigMap"},
	{"v1", "Namespace", "io.k8s.api.core.v1.Namespace"},
	{"v1", "Secret", "io.k8s.api.core.v1.Secret"},
	{"v1", "Service", "io.k8s.api.core.v1.Service"},
	{"v1", "ServiceAccount", "io.k8s.api.core.v1.ServiceAccount"},
	{"apps/v1", "StatefulSet", "io.k8s.api.apps.v1.StatefulSet"},
	{"policy/v1", "PodDisruptionBudget", "io.k8s.api.policy.v1.PodDisruptionBudget"},
	{"networking.k8s.io/v1", "NetworkPolicy", "io.k8s.api.networking.v1.NetworkPolicy"},
}

func main() {
	definitions := flag.String("definitions", "", "Kubernetes' _definitions.json")
	out := flag.String("out", "deploy/schemas", "directory the schemas are written to")
	flag.Parse()
	if err := run(*definitions, flag.Args(), *out); err != nil {
		fmt.Fprintln(os.Stderr, "kubeschemas:", err)
		os.Exit(1)
	}
}

func run(definitionsFile string, crdFiles []string, out string) error {
	if definitionsFile != "" {
		b, err := os.ReadFile(definitionsFile)
		if err != nil {
			return err
		}
		var doc struct {
			Definitions map[string]any `json:"definitions"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", definitionsFile, err)
		}
		for _, k := range builtinKinds {
			def, ok := doc.Definitions[k.definition]
			if !ok {
				return fmt.Errorf("%s has no definition %s", definitionsFile, k.definition)
			}
			schema := inline(def, doc.Definitions, 0)
			if err := write(out, k.apiVersion, k.kind, strict(schema)); err != nil {
				return err
			}
		}
	}
	for _, f := range crdFiles {
		if err := crdSchemas(f, out); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

// crdSchemas writes the schema of every served version of the CRDs in file.
func crdSchemas(file, out string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var crd struct {
		Spec struct {
			Group string `yaml:"group"`
			Names struct {
				Kind string `yaml:"kind"`
			} `yaml:"names"`
			Versions []struct {
				Name   string `yaml:"name"`
				Served bool   `yaml:"served"`
				Schema struct {
					OpenAPIV3Schema map[string]any `yaml:"openAPIV3Schema"`
				} `yaml:"schema"`
			} `yaml:"versions"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		return err
	}
	if crd.Spec.Names.Kind == "" || len(crd.Spec.Versions) == 0 {
		return fmt.Errorf("not a CustomResourceDefinition with versions")
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		if err := write(out, crd.Spec.Group+"/"+v.Name, crd.Spec.Names.Kind, strict(v.Schema.OpenAPIV3Schema)); err != nil {
			return err
		}
	}
	return nil
}

// write names the file as kubeconform's schema location template
// {{ .ResourceKind }}{{ .KindSuffix }}.json does: kind-group's first label-version.
func write(out, apiVersion, kind string, schema any) error {
	group, version, found := strings.Cut(apiVersion, "/")
	suffix := "-" + strings.ToLower(strings.Split(group, ".")[0])
	if found {
		suffix += "-" + strings.ToLower(version)
	}
	b, err := json.MarshalIndent(schema, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, strings.ToLower(kind)+suffix+".json"), append(b, '\n'), 0o644)
}

// inline replaces every "#/definitions/..." reference by a copy of the definition.
func inline(v any, definitions map[string]any, depth int) any {
	if depth > 64 {
		panic("definitions nest deeper than 64: a recursive type")
	}
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/definitions/")
			def, ok := definitions[name]
			if !ok {
				panic("unknown definition " + ref)
			}
			return inline(def, definitions, depth+1)
		}
		m := make(map[string]any, len(x))
		for k, child := range x {
			m[k] = inline(child, definitions, depth+1)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, child := range x {
			s[i] = inline(child, definitions, depth+1)
		}
		return s
	}
	return v
}

// strict drops descriptions, closes every object that lists its properties (unless it keeps
// unknown fields), and turns the CRDs' OpenAPI extensions into JSON schema: an int-or-string
// field accepts both, a nullable one null.
func strict(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, child := range x {
			if k == "description" {
				if _, isText := child.(string); isText {
					continue
				}
			}
			if k == "properties" || k == "patternProperties" || k == "definitions" {
				// A map of property names: each value is a schema, a name is never a keyword.
				props := map[string]any{}
				for name, s := range child.(map[string]any) {
					props[name] = strict(s)
				}
				m[k] = props
				continue
			}
			m[k] = strict(child)
		}
		if m["x-kubernetes-int-or-string"] == true {
			delete(m, "type")
			m["oneOf"] = []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}
		}
		if m["nullable"] == true {
			if t, ok := m["type"].(string); ok {
				m["type"] = []any{t, "null"}
			}
		}
		_, hasProps := m["properties"]
		_, hasAdditional := m["additionalProperties"]
		if hasProps && !hasAdditional && m["x-kubernetes-preserve-unknown-fields"] != true {
			m["additionalProperties"] = false
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, child := range x {
			s[i] = strict(child)
		}
		return s
	}
	return v
}
