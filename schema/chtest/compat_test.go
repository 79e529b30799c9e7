package chtest

import (
	"strings"
	"testing"
)

// The replay must be able to fail: a query whose answer depends on the engine's version is
// reported with both answers, and one refused by a single engine is reported too.
func TestCompareAnswersReportsDifferences(t *testing.T) {
	if !compatEnabled() {
		t.Skipf("%s is not 1", CompatEnv)
	}
	engine, err := compatEngine()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sharedServer(); err != nil {
		t.Fatal(err)
	}
	queries := []string{"SELECT number * 2 AS n FROM system.numbers LIMIT 3", "SELECT version() AS v", "SELECT toDateTime(0, 'UTC') AS z", "SELECT toStartOfInterval(toDateTime(0, 'UTC'), INTERVAL 1 HOUR) AS s"}
	_, answers, err := oldAnswers("default", nil, queries)
	if err != nil {
		t.Fatal(err)
	}
	if d := compareAnswers(engine, "default", queries[0], answers[0]); d != "" {
		t.Errorf("same answer reported as a difference:\n%s", d)
	}
	if d := compareAnswers(engine, "default", queries[1], answers[1]); !strings.Contains(d, `18.16: "18.16`) || !strings.Contains(d, `26.x:  "26.`) {
		t.Errorf("version() difference not reported readably:\n%s", d)
	}
	if d := compareAnswers(engine, "default", queries[2], answers[2]); d != "" {
		t.Errorf("zero DateTime text reported as a difference:\n%s", d)
	}
	if d := compareAnswers(engine, "default", queries[3], answers[3]); !strings.Contains(d, "18.16 error") {
		t.Errorf("a query only 26.x accepts was not reported:\n%s", d)
	}
}
