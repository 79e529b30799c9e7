package ingest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// Archive limits.
const (
	// MaxArchiveStream bounds the decompressed tar stream (headers, data, padding and whatever
	// follows the end-of-archive blocks); beyond it the job ends in ARCHIVE_TOO_LARGE.
	MaxArchiveStream = 64 << 20
	// MaxArchiveFiles is the most regular files an archive may hold.
	MaxArchiveFiles = 5
	// MaxArchiveMembers bounds the non-directory entries (regular files, links, devices...) so
	// that an archive of thousands of symbolic links cannot produce a report of thousands of
	// files: beyond it the job ends in INVALID_FILE_COUNT.
	MaxArchiveMembers = 100
	// maxMemberName bounds the member name kept for the report.
	maxMemberName = 1024
	// maxPlaintext bounds the decrypted OpenPGP payload (the gzip file). A gzip stream barely
	// exceeds what it holds, so anything past the tar limit plus a margin is a bomb.
	maxPlaintext = MaxArchiveStream + 1<<20
)

// Member is one entry of the archive other than a directory.
type Member struct {
	Name    string
	Data    []byte // nil unless Regular
	Regular bool   // false for links, devices, fifos...: reported as INVALID_FILE_FORMAT
}

// ReadArchive decrypts (when the content is an OpenPGP message, binary or ASCII-armored), gunzips
// and untars data in memory. Archive-level failures are returned as *ArchiveError with code
// INVALID_ARCHIVE_FORMAT, DECRYPTION_FAILED, INVALID_FILE_COUNT (0 or more than 5 regular files)
// or ARCHIVE_TOO_LARGE (more than 64 MiB of decompressed tar stream).
//
// Nothing touches the disk: member names are only labels, so "../../etc/passwd.json" is harmless.
// Directories and pax global headers are skipped; every other non-regular entry (symbolic and
// hard links, devices, fifos, sparse files) is returned with Regular false and no data.
func ReadArchive(data []byte, keys openpgp.EntityList) ([]Member, error) {
	switch openPGPKind(data) {
	case notOpenPGP:
		return untar(bytes.NewReader(data))
	case unencryptedOpenPGP:
		return nil, unencrypted()
	}
	body, aerr := decrypt(data, keys)
	if aerr != nil {
		return nil, aerr
	}
	plain := &layerReader{limitReader: limitReader{r: body, left: maxPlaintext}}
	members, err := untar(plain)
	if plain.exceeded {
		return nil, tooLarge()
	}
	if plain.err != nil {
		// A failure inside the decryption layer (integrity check, truncated packet) explains
		// whatever gzip or tar said about the bytes it produced.
		return nil, decryptionFailed(plain.err)
	}
	if err != nil {
		return nil, err
	}
	// The integrity check (MDC or AEAD tag) runs at the end of the plaintext: read it to the end
	// even when the gzip stream stopped earlier.
	if _, err := io.Copy(io.Discard, plain); err != nil {
		if plain.exceeded {
			return nil, tooLarge()
		}
		return nil, decryptionFailed(err)
	}
	return members, nil
}

// untar gunzips and reads the tar stream, keeping regular files' content in memory.
//
// Several archives concatenated (cat a.tar.gz b.tar.gz, as some exporters append) are read
// whole, as GNU tar --ignore-zeros does: gzip members follow one another in the stream, and a
// tar archive that follows another's end-of-archive blocks is read too. Every member of every
// archive counts toward the file, entry and size limits.
func untar(r io.Reader) ([]Member, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, formatError("not a gzip file (%v)", err)
	}
	stream := &limitReader{r: zr, left: MaxArchiveStream}
	tr := tar.NewReader(stream)
	var members []Member
	regular, kept := 0, int64(0)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			if stream.read == 0 {
				return nil, formatError("the gzip file is empty, not a tar archive")
			}
			next, err := nextArchive(stream)
			if err != nil {
				return nil, err
			}
			if next == nil {
				break
			}
			tr = tar.NewReader(next)
			continue
		}
		if err != nil {
			return nil, streamError(stream, "not a valid tar archive", err)
		}
		switch hdr.Typeflag {
		case tar.TypeDir, tar.TypeXGlobalHeader:
			continue
		}
		if len(members) == MaxArchiveMembers {
			return nil, &ArchiveError{Code: CodeInvalidFileCount,
				Message: fmt.Sprintf("the archive holds more than %d entries other than directories", MaxArchiveMembers)}
		}
		m := Member{Name: memberName(hdr.Name)}
		if hdr.Typeflag == tar.TypeReg {
			regular++
			if regular > MaxArchiveFiles {
				return nil, fileCount(regular, true)
			}
			// hdr.Size is a claim; a sparse or lying header cannot make us allocate past the
			// limit, and the member bytes count against the same budget as the stream.
			if hdr.Size > MaxArchiveStream-kept {
				return nil, tooLarge()
			}
			m.Regular = true
			m.Data, err = readMember(tr, hdr.Size)
			if err != nil {
				return nil, streamError(stream, fmt.Sprintf("member %q is truncated or corrupt", m.Name), err)
			}
			kept += int64(len(m.Data))
		}
		members = append(members, m)
	}
	if regular == 0 {
		return nil, fileCount(0, false)
	}
	return members, nil
}

// nextArchive reads past the zero blocks that end a tar archive (and pad it to its record
// size) up to the end of the stream, which it returns as nil, or to the first block of another
// archive, returned with the rest of the stream. Reading to the end also verifies the gzip
// checksum, and sees a bomb hidden in zero padding.
func nextArchive(stream *limitReader) (io.Reader, error) {
	block := make([]byte, 512)
	for {
		n, err := readBlock(stream, block)
		if n > 0 && !allZero(block[:n]) {
			if n < len(block) {
				return nil, streamError(stream, "bytes that are not a tar archive follow the archive", io.ErrUnexpectedEOF)
			}
			return io.MultiReader(bytes.NewReader(block), stream), nil
		}
		switch {
		case err == io.EOF:
			// gzip says EOF only once the last member's checksum and length are verified.
			return nil, nil
		case err == io.ErrUnexpectedEOF:
			return nil, streamError(stream, "the gzip stream is truncated: its end (checksum and length) is missing", err)
		case errors.Is(err, gzip.ErrHeader):
			// Bytes after a complete, verified gzip member (tape padding, for instance): harmless.
			return nil, nil
		case err != nil:
			return nil, streamError(stream, "corrupt gzip data", err)
		}
	}
}

// readBlock fills block like io.ReadFull, but returns the reader's own error: a stream that
// ends cleanly after a short block (io.EOF) is told from a truncated one (io.ErrUnexpectedEOF).
func readBlock(r io.Reader, block []byte) (int, error) {
	n := 0
	for n < len(block) {
		m, err := r.Read(block[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// readMember reads one member's content. The size announced by the header has already been
// checked against what is left of the budget, so allocating it at once keeps every member
// together within the limit, even when the header lies and the data stops short.
func readMember(r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, size)
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// memberName keeps a printable, bounded name for the report.
func memberName(name string) string {
	name = strings.ToValidUTF8(name, "\uFFFD")
	if len(name) > maxMemberName {
		cut := maxMemberName
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + "…"
	}
	return name
}

// How the content of an archive reads as OpenPGP.
const (
	notOpenPGP         = iota // gzip is expected
	encryptedOpenPGP          // an ASCII-armored message, or a binary one that starts with a session key
	unencryptedOpenPGP        // a binary message without a session key: signed, compressed or stored only
)

// openPGPKind recognises an OpenPGP message by content. Encrypted messages (gpg --encrypt
// and gpg --symmetric alike) start with a session-key packet; the first packet must also
// parse, because random bytes often have a first byte that reads as a packet tag (gzip's
// 0x1f never has the high bit set). Anything else is left to the gzip reader, so that corrupt
// data is INVALID_ARCHIVE_FORMAT rather than DECRYPTION_FAILED.
func openPGPKind(data []byte) int {
	trimmed := bytes.TrimLeft(data[:min(len(data), 1024)], " \t\r\n")
	if bytes.HasPrefix(trimmed, []byte("-----BEGIN PGP MESSAGE-----")) {
		return encryptedOpenPGP
	}
	if len(data) == 0 || data[0]&0x80 == 0 {
		return notOpenPGP
	}
	p, err := packet.Read(bytes.NewReader(data))
	if err != nil {
		return notOpenPGP
	}
	switch p.(type) {
	case *packet.EncryptedKey, *packet.SymmetricKeyEncrypted:
		return encryptedOpenPGP
	case *packet.Signature, *packet.OnePassSignature, *packet.Compressed, *packet.LiteralData:
		return unencryptedOpenPGP
	}
	return notOpenPGP
}

func unencrypted() *ArchiveError {
	return &ArchiveError{Code: CodeInvalidArchiveFormat,
		Message: "the archive is an OpenPGP message that is not encrypted (signed or stored only); send the plain .tar.gz, or encrypt it to the service's public key"}
}

// decrypt opens the OpenPGP message and returns its plaintext reader.
func decrypt(data []byte, keys openpgp.EntityList) (io.Reader, *ArchiveError) {
	var r io.Reader = bytes.NewReader(data)
	if !(len(data) > 0 && data[0]&0x80 != 0) {
		block, err := armor.Decode(r)
		if err != nil {
			return nil, &ArchiveError{Code: CodeDecryptionFailed,
				Message: fmt.Sprintf("the archive is an ASCII-armored OpenPGP message that cannot be read: %v", err)}
		}
		if block.Type != "PGP MESSAGE" {
			return nil, &ArchiveError{Code: CodeDecryptionFailed,
				Message: fmt.Sprintf("the archive is an ASCII-armored %q block, not an OpenPGP message", block.Type)}
		}
		r = block.Body
	}
	if len(keys) == 0 {
		return nil, &ArchiveError{Code: CodeDecryptionFailed,
			Message: "the archive is an encrypted OpenPGP message but the service has no decryption key configured"}
	}
	limit := int64(maxPlaintext)
	md, err := openpgp.ReadMessage(r, keys, nil, &packet.Config{MaxDecompressedMessageSize: &limit})
	if err != nil {
		if errors.Is(err, pgperrors.ErrKeyIncorrect) {
			return nil, &ArchiveError{Code: CodeDecryptionFailed,
				Message: "the archive is encrypted to a key the service does not hold (encrypt it to the service's public key)"}
		}
		return nil, decryptionFailed(err)
	}
	if !md.IsEncrypted {
		return nil, unencrypted()
	}
	return md.UnverifiedBody, nil
}

func decryptionFailed(err error) *ArchiveError {
	return &ArchiveError{Code: CodeDecryptionFailed,
		Message: fmt.Sprintf("the encrypted archive cannot be decrypted: %v", err)}
}

func formatError(format string, args ...any) *ArchiveError {
	return &ArchiveError{Code: CodeInvalidArchiveFormat, Message: "the archive is not a .tar.gz file: " + fmt.Sprintf(format, args...)}
}

func tooLarge() *ArchiveError {
	return &ArchiveError{Code: CodeArchiveTooLarge,
		Message: fmt.Sprintf("the archive holds more than %d MiB once decompressed", MaxArchiveStream>>20)}
}

func fileCount(n int, more bool) *ArchiveError {
	if more {
		return &ArchiveError{Code: CodeInvalidFileCount,
			Message: fmt.Sprintf("the archive holds more than %d regular files (at most %d allowed)", n-1, MaxArchiveFiles)}
	}
	return &ArchiveError{Code: CodeInvalidFileCount,
		Message: fmt.Sprintf("the archive holds no regular file (1 to %d JSON files expected)", MaxArchiveFiles)}
}

// streamError classifies a read failure: hitting the size limit wins over the corruption it
// causes downstream.
func streamError(s *limitReader, what string, err error) *ArchiveError {
	if s.exceeded {
		return tooLarge()
	}
	return formatError("%s (%v)", what, err)
}

// errLimit is returned by limitReader past its budget.
var errLimit = errors.New("size limit reached")

// limitReader counts the bytes of the decompressed stream and fails past its budget, so a
// decompression bomb costs at most the budget in CPU and nothing in memory.
type limitReader struct {
	r        io.Reader
	left     int64
	read     int64
	exceeded bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte of look-ahead tells "exactly at the limit" from "beyond it".
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n > 0 {
			l.exceeded = true
			return 0, errLimit
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	l.read += int64(n)
	return n, err
}

// layerReader wraps the decrypted plaintext: it remembers the decryption layer's own failure
// so that it is not mistaken for a gzip or tar error, bounds the plaintext size, and makes the
// end of the plaintext sticky (go-crypto's signed-message reader re-parses trailing packets,
// and fails, when read again after its io.EOF).
type layerReader struct {
	limitReader
	err  error
	done bool
}

func (l *layerReader) Read(p []byte) (int, error) {
	if l.done {
		return 0, io.EOF
	}
	n, err := l.limitReader.Read(p)
	switch {
	case err == io.EOF:
		l.done = true
	case err != nil && err != errLimit && l.err == nil:
		l.err = err
	}
	return n, err
}
