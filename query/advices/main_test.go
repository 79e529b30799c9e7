package advices

import (
	"os"
	"testing"

	"energy/schema/chtest"
)

// TestMain runs the job tests against a real ClickHouse (one database per test); the catalog
// tests need none.
func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }
