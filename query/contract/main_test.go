package contract

import (
	"os"
	"testing"

	"energy/schema/chtest"
)

// TestMain runs the package's tests against the shared real ClickHouse (one database per test).
func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }
