package heating

import (
	"os"
	"testing"

	"energy/schema/chtest"
)

// TestMain runs the tests that fit through the database against a real ClickHouse (one database
// per test); the model's own tests need none.
func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }
