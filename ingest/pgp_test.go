package ingest

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// gnupg drives the stock gpg command in a throwaway home.
type gnupg struct {
	t    *testing.T
	home string
}

func newGnuPG(t *testing.T) *gnupg {
	if _, err := exec.LookPath("gpg"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("gpg is not installed")
		}
		t.Skip("SKIPPED: gpg is not installed; the GnuPG interoperability tests did not run")
	}
	// A short path: gpg-agent's socket path must fit in sockaddr_un.
	home, err := os.MkdirTemp("", "gpg")
	if err != nil {
		t.Fatal(err)
	}
	g := &gnupg{t: t, home: home}
	// The agent calibrates its passphrase hashing to the machine (seconds on a busy one); the
	// tests need no protection worth the wait.
	if err := os.WriteFile(filepath.Join(home, "gpg-agent.conf"), []byte("s2k-count 65536\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd := exec.Command("gpgconf", "--kill", "gpg-agent")
		cmd.Env = append(os.Environ(), "GNUPGHOME="+home)
		cmd.Run()
		os.RemoveAll(home)
	})
	return g
}

func (g *gnupg) run(stdin []byte, args ...string) []byte {
	g.t.Helper()
	cmd := exec.Command("gpg", append([]string{"--batch", "--yes", "--no-tty", "--quiet", "--trust-model", "always"}, args...)...)
	cmd.Env = append(os.Environ(), "GNUPGHOME="+g.home)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		g.t.Fatalf("gpg %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

// key generates a key pair (algo "default" is RSA in GnuPG 2.2, "future-default" is
// ed25519/cv25519) and writes its secret key to a file, armored or not.
func (g *gnupg) key(uid, algo, passphrase string, armored bool) string {
	g.run(nil, "--pinentry-mode", "loopback", "--passphrase", passphrase, "--quick-gen-key", uid, algo, "default", "never")
	args := []string{"--pinentry-mode", "loopback", "--passphrase", passphrase, "--export-secret-keys"}
	if armored {
		args = append(args, "--armor")
	}
	path := filepath.Join(g.home, strings.Fields(uid)[0]+".key")
	if err := os.WriteFile(path, g.run(nil, append(args, uid)...), 0o600); err != nil {
		g.t.Fatal(err)
	}
	return path
}

func (g *gnupg) encrypt(plain []byte, recipient string, extra ...string) []byte {
	return g.run(plain, append(append([]string{"--encrypt", "--recipient", recipient}, extra...), "--output", "-")...)
}

func TestOpenPGPArchivesMadeWithGnuPG(t *testing.T) {
	g := newGnuPG(t)
	rsaFile := g.key("rsa <rsa@example.invalid>", "default", "", true)
	eccFile := g.key("ecc <ecc@example.invalid>", "future-default", "", false)
	rsaKeys, err := LoadKeys([]string{rsaFile})
	if err != nil {
		t.Fatal(err)
	}
	bothKeys, err := LoadKeys([]string{rsaFile, eccFile})
	if err != nil {
		t.Fatal(err)
	}
	plain := tarGzOf(t, regFile("a.json", `{"maxPowers":[]}`), regFile("b.json", "{}"))
	want, err := ReadArchive(plain, nil)
	if err != nil {
		t.Fatal(err)
	}

	accepted := map[string]struct {
		data []byte
		keys []string
	}{
		"binary, RSA":                {g.encrypt(plain, "rsa@example.invalid"), []string{rsaFile}},
		"armored, RSA":               {g.encrypt(plain, "rsa@example.invalid", "--armor"), []string{rsaFile}},
		"binary, ed25519/cv25519":    {g.encrypt(plain, "ecc@example.invalid"), []string{eccFile}},
		"armored, ed25519/cv25519":   {g.encrypt(plain, "ecc@example.invalid", "--armor"), []string{eccFile}},
		"rotation: second key file":  {g.encrypt(plain, "ecc@example.invalid"), []string{rsaFile, eccFile}},
		"uncompressed by gpg":        {g.encrypt(plain, "rsa@example.invalid", "--compress-algo", "none"), []string{rsaFile}},
		"zlib-compressed by gpg":     {g.encrypt(plain, "rsa@example.invalid", "--compress-algo", "zlib"), []string{rsaFile}},
		"bzip2-compressed by gpg":    {g.encrypt(plain, "rsa@example.invalid", "--compress-algo", "bzip2"), []string{rsaFile}},
		"signed by an unknown party": {g.encrypt(plain, "rsa@example.invalid", "--sign", "--local-user", "ecc@example.invalid"), []string{rsaFile}},
	}
	for name, c := range accepted {
		t.Run(name, func(t *testing.T) {
			keys, err := LoadKeys(c.keys)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadArchive(c.data, keys)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("members %+v", got)
			}
		})
	}

	toECC := g.encrypt(plain, "ecc@example.invalid")
	tampered := append([]byte(nil), toECC...)
	tampered[len(tampered)-30] ^= 0x01
	truncated := toECC[:len(toECC)-40]
	refused := map[string]struct {
		data []byte
		keys []string
	}{
		"wrong key":            {toECC, []string{rsaFile}},
		"no key configured":    {toECC, nil},
		"tampered ciphertext":  {tampered, []string{eccFile}},
		"truncated ciphertext": {truncated, []string{eccFile}},
		"passphrase-only":      {g.run(plain, "--symmetric", "--pinentry-mode", "loopback", "--passphrase", "x", "--output", "-"), []string{rsaFile}},
		"armored, wrong key":   {g.encrypt(plain, "ecc@example.invalid", "--armor"), []string{rsaFile}},
	}
	// An OpenPGP message that is not encrypted is not an encrypted archive, nor a gzip file.
	notEncrypted := map[string][]byte{
		"signed, not encrypted":          g.run(plain, "--sign", "--local-user", "rsa@example.invalid", "--output", "-"),
		"stored, not encrypted":          g.run(plain, "--store", "--output", "-"),
		"armored, signed, not encrypted": g.run(plain, "--sign", "--armor", "--local-user", "rsa@example.invalid", "--output", "-"),
	}
	for name, data := range notEncrypted {
		t.Run(name, func(t *testing.T) {
			ae := wantArchiveError(t, mustFail(ReadArchive(data, rsaKeys)), CodeInvalidArchiveFormat)
			if !strings.Contains(ae.Message, "not encrypted") {
				t.Errorf("message %q does not say the message is not encrypted", ae.Message)
			}
		})
	}
	for name, c := range refused {
		t.Run(name, func(t *testing.T) {
			var keys = rsaKeys[:0]
			if c.keys != nil {
				if keys, err = LoadKeys(c.keys); err != nil {
					t.Fatal(err)
				}
			}
			_, err := ReadArchive(c.data, keys)
			ae := wantArchiveError(t, err, CodeDecryptionFailed)
			t.Log(ae.Message)
		})
	}

	t.Run("encrypted archive errors come from the archive inside", func(t *testing.T) {
		_, err := ReadArchive(g.encrypt([]byte("not a gzip file"), "rsa@example.invalid"), bothKeys)
		wantArchiveError(t, err, CodeInvalidArchiveFormat)
		_, err = ReadArchive(g.encrypt(tarGzOf(t), "rsa@example.invalid"), bothKeys)
		wantArchiveError(t, err, CodeInvalidFileCount)
	})
	t.Run("encrypted decompression bomb", func(t *testing.T) {
		data := g.encrypt(gzipBomb(t, func(w io.Writer) { zeroTar(t, w, "a.json", 100<<20) }), "rsa@example.invalid")
		_, err := ReadArchive(data, bothKeys)
		wantArchiveError(t, err, CodeArchiveTooLarge)
	})
	t.Run("armor with leading blank lines", func(t *testing.T) {
		data := append([]byte("\r\n\n  "), g.encrypt(plain, "rsa@example.invalid", "--armor")...)
		if _, err := ReadArchive(data, rsaKeys); err != nil {
			t.Fatal(err)
		}
	})
}

func TestLoadKeysErrors(t *testing.T) {
	g := newGnuPG(t)
	g.run(nil, "--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key", "pub <pub@example.invalid>", "future-default", "default", "never")
	public := filepath.Join(g.home, "public.asc")
	os.WriteFile(public, g.run(nil, "--armor", "--export", "pub@example.invalid"), 0o600)
	locked := g.key("locked <locked@example.invalid>", "future-default", "secret", true)
	garbage := filepath.Join(g.home, "garbage.asc")
	os.WriteFile(garbage, []byte("not a key"), 0o600)
	cases := map[string]string{
		"missing file":     filepath.Join(g.home, "nope.asc"),
		"public key only":  public,
		"passphrase":       locked,
		"not a key at all": garbage,
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := LoadKeys([]string{path})
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("err %v", err)
			}
			t.Log(err)
		})
	}
	if keys, err := LoadKeys(nil); err != nil || len(keys) != 0 {
		t.Fatalf("no files: %v %v", keys, err)
	}
}

// mustFail keeps ReadArchive's error, for one-line checks of refused archives.
func mustFail(_ []Member, err error) error { return err }
