package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/yannh/kubeconform/pkg/resource"
	"github.com/yannh/kubeconform/pkg/validator"
	"go.yaml.in/yaml/v3"
)

// The kustomizations under deploy/k8s: energyd, its Prometheus operator resources, and the
// ClickHouse cluster of the Altinity operator.
var kustomizations = []string{"../../deploy/k8s", "../../deploy/k8s/monitoring", "../../deploy/k8s/clickhouse"}

// exampleSecrets are the Secrets shown for operators to create, kept out of every kustomization.
var exampleSecrets = []string{"../../deploy/k8s/secrets.example.yaml", "../../deploy/k8s/clickhouse/secret.example.yaml"}

// kustomize renders dir as `kubectl kustomize` does, with kubectl when it is installed, else by
// reading the kustomization's resources in order (all these kustomizations use).
func kustomize(t *testing.T, dir string) []byte {
	t.Helper()
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command(kubectl, "kustomize", dir).Output()
		if err != nil {
			t.Fatalf("kubectl kustomize %s: %v", dir, err)
		}
		return out
	}
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
	var rendered []byte
	for _, r := range k.Resources {
		b, err := os.ReadFile(filepath.Join(dir, r))
		if err != nil {
			t.Fatalf("resource %s: %v", r, err)
		}
		rendered = append(append(rendered, "\n---\n"...), b...)
	}
	return rendered
}

func yamlDocuments(t *testing.T, name string, b []byte) []map[string]any {
	t.Helper()
	var docs []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s does not parse: %v", name, err)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
	return docs
}

// k8sDocuments are the rendered documents of dir.
func k8sDocuments(t *testing.T, dir string) []map[string]any {
	t.Helper()
	return yamlDocuments(t, dir, kustomize(t, dir))
}

// field walks m along path (map keys, or list indexes as ints).
func field(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			s, ok := v.([]any)
			if !ok || k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

func named(docs []map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, d := range docs {
		if d["kind"] == kind {
			out = append(out, d)
		}
	}
	return out
}

// only is the one document of kind in docs.
func only(t *testing.T, docs []map[string]any, kind string) map[string]any {
	t.Helper()
	found := named(docs, kind)
	if len(found) != 1 {
		t.Fatalf("%d %s documents, want 1", len(found), kind)
	}
	return found[0]
}

// secretRefs collects the Secret names a manifest refers to: secretKeyRef, secretRef (envFrom)
// and secret volumes.
func secretRefs(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			switch k {
			case "secretKeyRef", "secretRef":
				if n, ok := field(child, "name").(string); ok {
					into[n] = true
				}
			case "secret":
				if n, ok := field(child, "secretName").(string); ok {
					into[n] = true
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

// kubectl apply -k applies no Secret (it would overwrite the real ones with placeholders), and
// every Secret the manifests refer to is shown in an example file, so that an operator knows
// what to create.
func TestKustomizeAppliesNoSecret(t *testing.T) {
	referenced, shown := map[string]bool{}, map[string]bool{}
	for _, dir := range kustomizations {
		for _, d := range k8sDocuments(t, dir) {
			if d["kind"] == "Secret" {
				t.Errorf("kubectl apply -k %s applies the Secret %v", dir, field(d, "metadata", "name"))
			}
			secretRefs(d, referenced)
		}
	}
	for _, f := range exampleSecrets {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range yamlDocuments(t, f, b) {
			shown[field(d, "metadata", "name").(string)] = true
		}
	}
	for _, want := range []string{"energyd-clickhouse", "energyd-pgp-keys", "energyd-notifications", "clickhouse-energy-credentials"} {
		if !referenced[want] {
			t.Errorf("no manifest refers to the Secret %s: the walk misses references (found %v)", want, referenced)
		}
	}
	var missing []string
	for n := range referenced {
		if !shown[n] {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("Secrets referenced but in no example file: %s", strings.Join(missing, ", "))
	}
	// Secrets travel as files or secretKeyRefs, never as values in the manifests.
	sts := only(t, k8sDocuments(t, kustomizations[0]), "StatefulSet")
	env := map[string]any{}
	for _, e := range field(sts, "spec", "template", "spec", "containers", 0, "env").([]any) {
		env[field(e, "name").(string)] = e
	}
	for _, v := range []string{"ENERGY_CLICKHOUSE_PASSWORD_FILE", "ENERGY_SMTP_PASSWORD_FILE", "ENERGY_SMS_GATEWAY_TOKEN_FILE"} {
		if env[v] == nil {
			t.Errorf("energyd's container does not set %s", v)
		}
	}
	for _, v := range []string{"ENERGY_CLICKHOUSE_PASSWORD", "ENERGY_SMTP_PASSWORD", "ENERGY_SMS_GATEWAY_TOKEN"} {
		if env[v] != nil {
			t.Errorf("energyd's container sets %s: give the file variant", v)
		}
	}
}

// podSpecs are the pod templates of the rendered manifests: the StatefulSet's and the
// ClickHouse operator's podTemplates (ClickHouseInstallation, ClickHouseKeeperInstallation).
func podSpecs(t *testing.T) map[string]map[string]any {
	t.Helper()
	specs := map[string]map[string]any{}
	for _, dir := range kustomizations {
		for _, d := range k8sDocuments(t, dir) {
			name := fmt.Sprintf("%s %v", d["kind"], field(d, "metadata", "name"))
			if s, ok := field(d, "spec", "template", "spec").(map[string]any); ok {
				specs[name] = s
			}
			templates, _ := field(d, "spec", "templates", "podTemplates").([]any)
			for _, pt := range templates {
				specs[fmt.Sprintf("%s podTemplate %v", name, field(pt, "name"))] = field(pt, "spec").(map[string]any)
			}
		}
	}
	return specs
}

// Every pod meets the restricted Pod Security Standard, which a namespace labelled
// pod-security.kubernetes.io/enforce=restricted requires: non-root, no privilege escalation,
// every capability dropped, the runtime's seccomp profile, no host namespaces or paths.
func TestPodsMeetTheRestrictedPodSecurityStandard(t *testing.T) {
	specs := podSpecs(t)
	if len(specs) < 3 {
		t.Fatalf("found %d pod specs (%v): want energyd's, ClickHouse's and Keeper's", len(specs), specs)
	}
	for name, spec := range specs {
		for _, host := range []string{"hostNetwork", "hostPID", "hostIPC"} {
			if spec[host] == true {
				t.Errorf("%s: %s", name, host)
			}
		}
		for _, v := range asList(spec["volumes"]) {
			if field(v, "hostPath") != nil {
				t.Errorf("%s: a hostPath volume", name)
			}
		}
		pod := asMap(spec["securityContext"])
		containers := append(asList(spec["containers"]), asList(spec["initContainers"])...)
		if len(containers) == 0 {
			t.Errorf("%s: no container", name)
		}
		for _, c := range containers {
			cname := fmt.Sprintf("%s container %v", name, field(c, "name"))
			sc := asMap(field(c, "securityContext"))
			if sc["allowPrivilegeEscalation"] != false {
				t.Errorf("%s: allowPrivilegeEscalation is not false", cname)
			}
			if sc["privileged"] == true {
				t.Errorf("%s: privileged", cname)
			}
			if !reflect.DeepEqual(field(sc, "capabilities", "drop"), []any{"ALL"}) || field(sc, "capabilities", "add") != nil {
				t.Errorf("%s: capabilities %v, want drop [ALL] and none added", cname, sc["capabilities"])
			}
			if sc["runAsNonRoot"] != true && pod["runAsNonRoot"] != true {
				t.Errorf("%s: runAsNonRoot is not true", cname)
			}
			if uid, ok := sc["runAsUser"].(int); ok && uid == 0 {
				t.Errorf("%s: runs as root", cname)
			}
			seccomp := field(sc, "seccompProfile", "type")
			if seccomp == nil {
				seccomp = field(pod, "seccompProfile", "type")
			}
			if seccomp != "RuntimeDefault" && seccomp != "Localhost" {
				t.Errorf("%s: seccompProfile %v, want RuntimeDefault", cname, seccomp)
			}
		}
	}
	// energyd also writes nothing outside its volumes.
	for name, spec := range specs {
		if strings.HasPrefix(name, "StatefulSet energyd") {
			if field(spec, "containers", 0, "securityContext", "readOnlyRootFilesystem") != true {
				t.Errorf("%s: the root file system is writable", name)
			}
			if spec["automountServiceAccountToken"] != false {
				t.Errorf("%s: mounts a service account token it never uses", name)
			}
		}
	}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asList(v any) []any {
	s, _ := v.([]any)
	return s
}

// A rolling update or a drain loses no request: the pod leaves the endpoints during preStop,
// energyd then drains within the grace period; one replica at a time is evicted, replicas
// spread over nodes, and the limits that GOMEMLIMIT and the decode slots follow are set.
func TestEnergydRollsWithoutLoss(t *testing.T) {
	docs := k8sDocuments(t, kustomizations[0])
	sts := only(t, docs, "StatefulSet")
	spec := field(sts, "spec", "template", "spec").(map[string]any)
	c := field(spec, "containers", 0)
	preStop, _ := field(c, "lifecycle", "preStop", "sleep", "seconds").(int)
	grace, _ := spec["terminationGracePeriodSeconds"].(int)
	// energyd's drain: --shutdown-delay (5 s), then 30 s at most for requests and 30 s for jobs.
	if preStop < 5 || grace < preStop+5+30+30 {
		t.Errorf("preStop sleep %d s, grace period %d s: want a preStop of at least 5 s and a grace period covering it, the 5 s delay and two 30 s drains", preStop, grace)
	}
	if field(c, "readinessProbe", "httpGet", "path") != "/readyz" {
		t.Errorf("readiness probe %v, want /readyz (503 from SIGTERM on)", field(c, "readinessProbe"))
	}
	if field(c, "resources", "limits", "memory") == nil || field(c, "resources", "limits", "cpu") == nil {
		t.Errorf("limits %v: want memory (GOMEMLIMIT follows it) and cpu (GOMAXPROCS and the decode slots follow it)", field(c, "resources", "limits"))
	}
	anti := field(spec, "affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution", 0, "podAffinityTerm")
	if field(anti, "topologyKey") != "kubernetes.io/hostname" ||
		!reflect.DeepEqual(field(anti, "labelSelector", "matchLabels"), field(sts, "spec", "selector", "matchLabels")) {
		t.Errorf("pod anti-affinity %v: want replicas spread over nodes", anti)
	}
	pdb := only(t, docs, "PodDisruptionBudget")
	if field(pdb, "spec", "maxUnavailable") != 1 || !reflect.DeepEqual(field(pdb, "spec", "selector"), field(sts, "spec", "selector")) {
		t.Errorf("PodDisruptionBudget %v: want one energyd evicted at a time", field(pdb, "spec"))
	}
	if r, _ := field(sts, "spec", "replicas").(int); r < 2 {
		t.Errorf("%d replicas: a disruption budget of 1 needs at least 2", r)
	}
	// The NetworkPolicy lets the API ports in and ClickHouse, DNS and the notification channels out.
	np := only(t, docs, "NetworkPolicy")
	if !reflect.DeepEqual(field(np, "spec", "podSelector", "matchLabels"), field(sts, "spec", "selector", "matchLabels")) {
		t.Errorf("NetworkPolicy selects %v, not energyd's pods", field(np, "spec", "podSelector"))
	}
	ports := map[string]bool{}
	for _, dir := range []string{"ingress", "egress"} {
		for _, rule := range asList(field(np, "spec", dir)) {
			for _, p := range asList(field(rule, "ports")) {
				ports[fmt.Sprintf("%s %v/%v", dir, field(p, "port"), field(p, "protocol"))] = true
			}
		}
	}
	for _, want := range []string{"ingress 8080/TCP", "ingress 8081/TCP", "egress 53/UDP", "egress 9000/TCP", "egress 587/TCP", "egress 443/TCP"} {
		if !ports[want] {
			t.Errorf("NetworkPolicy does not allow %s (allows %v)", want, ports)
		}
	}
	// The ServiceMonitor scrapes the Service's main port.
	sm := only(t, k8sDocuments(t, kustomizations[1]), "ServiceMonitor")
	svc := only(t, docs, "Service")
	if !reflect.DeepEqual(field(sm, "spec", "selector", "matchLabels"), field(svc, "metadata", "labels")) || field(sm, "spec", "endpoints", 0, "port") != "http" ||
		field(svc, "spec", "ports", 0, "name") != "http" {
		t.Errorf("ServiceMonitor %v does not select the Service's http port", field(sm, "spec"))
	}
}

// The ClickHouse operator's manifests make the cluster energyd's ConfigMap and DSN name: the
// installation's Service, the cluster name, 2 shards x 2 replicas, coordinated by the Keeper
// ensemble's Service, every server of the release the compose files run.
func TestClickHouseOperatorMatchesEnergyd(t *testing.T) {
	energyd := k8sDocuments(t, kustomizations[0])
	ch := k8sDocuments(t, kustomizations[2])
	chi, chk := only(t, ch, "ClickHouseInstallation"), only(t, ch, "ClickHouseKeeperInstallation")
	cluster := field(only(t, energyd, "ConfigMap"), "data", "ENERGY_CLICKHOUSE_CLUSTER")
	if field(chi, "spec", "configuration", "clusters", 0, "name") != cluster {
		t.Errorf("the installation's cluster is %v, the ConfigMap names %v", field(chi, "spec", "configuration", "clusters", 0, "name"), cluster)
	}
	layout := field(chi, "spec", "configuration", "clusters", 0, "layout")
	if field(layout, "shardsCount") != 2 || field(layout, "replicasCount") != 2 {
		t.Errorf("layout %v, want 2 shards x 2 replicas", layout)
	}
	var dsn string
	for _, e := range asList(field(only(t, energyd, "StatefulSet"), "spec", "template", "spec", "containers", 0, "env")) {
		if field(e, "name") == "ENERGY_CLICKHOUSE_DSN" {
			dsn, _ = field(e, "value").(string)
		}
	}
	host := fmt.Sprintf("clickhouse-%v.%v.svc:9000", field(chi, "metadata", "name"), field(chi, "metadata", "namespace"))
	if !strings.Contains(dsn, "://"+host+"/") {
		t.Errorf("energyd's DSN %q does not name the installation's Service %s", dsn, host)
	}
	keeperHost := fmt.Sprintf("keeper-%v", field(chk, "metadata", "name"))
	if field(chi, "spec", "configuration", "zookeeper", "nodes", 0, "host") != keeperHost || field(chk, "metadata", "namespace") != field(chi, "metadata", "namespace") {
		t.Errorf("the installation's coordination %v is not the Keeper ensemble's Service %s", field(chi, "spec", "configuration", "zookeeper"), keeperHost)
	}
	if r := field(chk, "spec", "configuration", "clusters", 0, "layout", "replicasCount"); r != 3 {
		t.Errorf("Keeper replicas %v, want 3 (a quorum that survives one loss)", r)
	}
	release := composeClickHouseRelease(t)
	for name, img := range map[string]any{
		"ClickHouseInstallation":       field(chi, "spec", "templates", "podTemplates", 0, "spec", "containers", 0, "image"),
		"ClickHouseKeeperInstallation": field(chk, "spec", "templates", "podTemplates", 0, "spec", "containers", 0, "image"),
	} {
		s, _ := img.(string)
		if _, tag, _ := strings.Cut(s, ":"); tag != release {
			t.Errorf("%s runs %v, the compose files ClickHouse %s", name, img, release)
		}
	}
}

// Every manifest validates strictly (no unknown field anywhere) against the schemas kept in
// deploy/schemas: Kubernetes' own kinds and the CRDs of the Prometheus and ClickHouse
// operators, offline (kubeconform, as make lint-deploy runs it).
func TestKubernetesManifestsValidate(t *testing.T) {
	v, err := validator.New([]string{"../../deploy/schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json"}, validator.Opts{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string][]byte{}
	for _, dir := range kustomizations {
		sources["kustomize "+dir] = kustomize(t, dir)
	}
	for _, f := range exampleSecrets {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources[f] = b
	}
	kinds := map[string]bool{}
	for name, b := range sources {
		for _, r := range v.Validate(name, io.NopCloser(bytes.NewReader(b))) {
			if r.Status == validator.Empty {
				continue
			}
			sig, _ := r.Resource.Signature()
			if r.Status != validator.Valid {
				t.Errorf("%s: %s: %v %v", name, sig.QualifiedName(), r.Err, r.ValidationErrors)
				continue
			}
			kinds[sig.Kind] = true
		}
	}
	for _, k := range []string{"StatefulSet", "Service", "ConfigMap", "PodDisruptionBudget", "NetworkPolicy", "Secret",
		"ServiceMonitor", "PrometheusRule", "ClickHouseInstallation", "ClickHouseKeeperInstallation", "Namespace"} {
		if !kinds[k] {
			t.Errorf("no valid %s among the manifests (validated: %v)", k, kinds)
		}
	}
	// The schemas are strict: a misspelt field fails.
	bad := []byte("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: x}\nspec:\n  serviceName: x\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: x, image: x, lifecycle: {preStopp: {sleep: {seconds: 1}}}}]\n")
	if r := v.ValidateResource(resourceOf(bad)); r.Status != validator.Invalid {
		t.Errorf("a misspelt field validates: status %v, %v", r.Status, r.Err)
	}
}

// The PrometheusRule carries alerts.yml's groups unchanged.
func TestPrometheusRuleIsTheAlertsFile(t *testing.T) {
	rule := only(t, k8sDocuments(t, kustomizations[1]), "PrometheusRule")
	b, err := os.ReadFile("../../deploy/prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var alerts map[string]any
	if err := yaml.Unmarshal(b, &alerts); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(field(rule, "spec", "groups"), alerts["groups"]) {
		t.Error("deploy/k8s/monitoring/prometheusrule.yaml's groups differ from deploy/prometheus/alerts.yml's: copy them over")
	}
}

func resourceOf(b []byte) resource.Resource { return resource.Resource{Path: "inline", Bytes: b} }
