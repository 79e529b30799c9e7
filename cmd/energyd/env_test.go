package main

import (
	"os"
	"testing"
)

// unsetenv removes an environment variable for the test and restores it afterwards.
func unsetenv(t *testing.T, name string) {
	t.Helper()
	old, had := os.LookupEnv(name)
	os.Unsetenv(name)
	t.Cleanup(func() {
		if had {
			os.Setenv(name, old)
		}
	})
}
