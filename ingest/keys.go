package ingest

import (
	"bytes"
	"fmt"
	"os"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
)

// LoadKeys reads OpenPGP private keys (armored or binary) from files; several files allowed (key rotation).
// Every file must hold at least one private key usable without a passphrase: the service has no
// way to ask for one, so a protected key is a configuration error reported at start-up rather
// than a DECRYPTION_FAILED on every job.
func LoadKeys(files []string) (openpgp.EntityList, error) {
	var all openpgp.EntityList
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("pgp key file %s: %w", f, err)
		}
		keys, err := parseKeys(data)
		if err != nil {
			return nil, fmt.Errorf("pgp key file %s: %w", f, err)
		}
		private := 0
		for _, e := range keys {
			if e.PrivateKey == nil {
				continue
			}
			if locked(e) {
				return nil, fmt.Errorf("pgp key file %s: key %X is protected by a passphrase; export it without one (gpg --passwd, empty passphrase)", f, e.PrimaryKey.Fingerprint)
			}
			private++
		}
		if private == 0 {
			return nil, fmt.Errorf("pgp key file %s holds no private key (export it with gpg --export-secret-keys)", f)
		}
		all = append(all, keys...)
	}
	return all, nil
}

// parseKeys accepts an ASCII-armored or a binary key ring.
func parseKeys(data []byte) (openpgp.EntityList, error) {
	if bytes.Contains(data, []byte("-----BEGIN PGP")) {
		block, err := armor.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("armored key: %w", err)
		}
		return openpgp.ReadKeyRing(block.Body)
	}
	return openpgp.ReadKeyRing(bytes.NewReader(data))
}

// locked reports whether the entity's private key or one of its subkeys' is still encrypted.
func locked(e *openpgp.Entity) bool {
	if e.PrivateKey != nil && e.PrivateKey.Encrypted && !e.PrivateKey.Dummy() {
		return true
	}
	for _, s := range e.Subkeys {
		if s.PrivateKey != nil && s.PrivateKey.Encrypted && !s.PrivateKey.Dummy() {
			return true
		}
	}
	return false
}
