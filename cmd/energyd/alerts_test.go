package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type alertRule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	Annotations map[string]string `yaml:"annotations"`
	Labels      map[string]string `yaml:"labels"`
}

func alertRules(t *testing.T) []alertRule {
	t.Helper()
	b, err := os.ReadFile("../../deploy/prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []alertRule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var rules []alertRule
	for _, g := range f.Groups {
		rules = append(rules, g.Rules...)
	}
	return rules
}

// The alerting rules pass their promtool unit tests (make lint-deploy runs them too).
func TestAlertRulesUnitTests(t *testing.T) {
	promtool := needTool(t, "promtool")
	cmd := exec.Command(promtool, "test", "rules", "alerts_test.yml")
	cmd.Dir = "../../deploy/prometheus"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
}

// Each alert says what broke and where its runbook is (a section of deploy/README.md), is
// tested firing and silent by alerts_test.yml, and reads only series energyd exposes.
func TestAlertsAreDocumentedTestedAndReal(t *testing.T) {
	rules := alertRules(t)
	if len(rules) < 8 {
		t.Fatalf("%d alerts, want at least 8", len(rules))
	}
	readme, err := os.ReadFile("../../deploy/README.md")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../deploy/prometheus/alerts_test.yml")
	if err != nil {
		t.Fatal(err)
	}
	var tests struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	if err := yaml.Unmarshal(b, &tests); err != nil {
		t.Fatal(err)
	}
	fires, silent := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				silent[a.Alertname] = true
			}
		}
	}
	source := goSource(t, "../..")
	registered := registeredMetrics(t)
	metric := regexp.MustCompile(`\benergy_[a-z_]+`)
	for _, r := range rules {
		if r.Annotations["summary"] == "" || r.Annotations["description"] == "" || r.Labels["severity"] == "" {
			t.Errorf("%s lacks a summary, a description or a severity", r.Alert)
		}
		anchor := strings.ToLower(r.Alert)
		if r.Annotations["runbook"] != "deploy/README.md#"+anchor {
			t.Errorf("%s: runbook %q, want deploy/README.md#%s", r.Alert, r.Annotations["runbook"], anchor)
		}
		if !regexp.MustCompile(`(?m)^#+ ` + r.Alert + `$`).Match(readme) {
			t.Errorf("deploy/README.md has no section %q, the runbook of %s", r.Alert, r.Alert)
		}
		if !fires[r.Alert] || !silent[r.Alert] {
			t.Errorf("alerts_test.yml does not test %s both firing (%v) and silent (%v)", r.Alert, fires[r.Alert], silent[r.Alert])
		}
		for _, m := range metric.FindAllString(r.Expr, -1) {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_count"), "_sum")
			if !strings.Contains(source, `"`+base+`"`) && !registered[base] {
				t.Errorf("%s reads %s, which energyd does not expose", r.Alert, m)
			}
		}
	}
}
