package targets

import (
	"os"
	"testing"

	"energy/schema/chtest"
)

func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }
