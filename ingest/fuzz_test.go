package ingest

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// Fuzz targets: go test ./ingest -run '^$' -fuzz FuzzReadArchive -fuzztime 2m (and FuzzDecodeFile).
// They check invariants, not just the absence of panics.

var (
	fuzzKeyOnce sync.Once
	fuzzKey     *openpgp.Entity
)

// fuzzKeys is a fast (X25519) key made once per process, to seed encrypted archives.
func fuzzKeys(t testing.TB) openpgp.EntityList {
	fuzzKeyOnce.Do(func() {
		var err error
		fuzzKey, err = openpgp.NewEntity("fuzz", "", "fuzz@example.invalid", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA, Curve: packet.Curve25519})
		if err != nil {
			t.Fatal(err)
		}
	})
	return openpgp.EntityList{fuzzKey}
}

func encryptTo(t testing.TB, keys openpgp.EntityList, plain []byte, armored bool) []byte {
	var buf bytes.Buffer
	var w io.Writer = &buf
	var aw io.WriteCloser
	if armored {
		var err error
		if aw, err = armor.Encode(&buf, "PGP MESSAGE", nil); err != nil {
			t.Fatal(err)
		}
		w = aw
	}
	pw, err := openpgp.Encrypt(w, keys, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pw.Write(plain)
	pw.Close()
	if aw != nil {
		aw.Close()
	}
	return buf.Bytes()
}

var archiveCodes = map[string]bool{CodeInvalidArchiveFormat: true, CodeDecryptionFailed: true, CodeInvalidFileCount: true, CodeArchiveTooLarge: true}

func FuzzReadArchive(f *testing.F) {
	keys := fuzzKeys(f)
	small := tarGzOf(f, regFile("a.json", `{"maxPowers":[]}`))
	seeds := [][]byte{
		small,
		tarGzOf(f, tarEntry{name: "d/", typ: tar.TypeDir}, regFile("d/a.json", "{}"), tarEntry{name: "l", typ: tar.TypeSymlink, linkname: "/etc"},
			regFile("../x.json", "[]"), tarEntry{name: "h", typ: tar.TypeLink, linkname: "d/a.json"}),
		tarGzOf(f, regFile("1", ""), regFile("2", ""), regFile("3", ""), regFile("4", ""), regFile("5", ""), regFile("6", "")),
		tarGzOf(f),
		gzipOf(f, []byte("not a tar")),
		tarOf(f, regFile("a.json", "{}")),
		encryptTo(f, keys, small, false),
		encryptTo(f, keys, small, true),
		[]byte("-----BEGIN PGP MESSAGE-----\n\n-----END PGP MESSAGE-----\n"),
		{0x85, 0x01}, {0xc1}, {0x1f, 0x8b}, nil,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		members, err := ReadArchive(data, keys)
		if err != nil {
			var ae *ArchiveError
			if !errors.As(err, &ae) || !archiveCodes[ae.Code] || ae.Message == "" {
				t.Fatalf("not an archive error: %#v", err)
			}
			if members != nil {
				t.Fatal("members returned with an error")
			}
			return
		}
		regular, total := 0, 0
		for _, m := range members {
			if m.Regular {
				regular++
				total += len(m.Data)
				if m.Data == nil {
					t.Fatal("regular member without data")
				}
			} else if m.Data != nil {
				t.Fatal("non-regular member with data")
			}
		}
		if regular < 1 || regular > MaxArchiveFiles || len(members) > MaxArchiveMembers || total > MaxArchiveStream {
			t.Fatalf("%d regular of %d members, %d bytes", regular, len(members), total)
		}
	})
}

func FuzzDecodeFile(f *testing.F) {
	for _, s := range []string{
		validFile,
		`{"maxPowers":[{"siteId":"S1"},{},"x",1,null,[]]}`,
		`{"smartElecIndexes":[` + smartElement + `,{"siteCustomerId":"C-1","personCustomerId":"P-1","value":{"1":1.0,"2":-1,"":3}}]}`,
		`{"loadCurves":[` + curveElement + `,{"step":"P1DT","values":[{"beginTs":"x","endTs":"y"},{"endTs":"1970-01-01T00:00:00Z","value":1e2,"reliability":1}]}]}`,
		`{"cyclicGasIndexes":[{"siteId":"S1","siteId":"S2","conversionFactors":{"a":1,"a":2,"":0},"value":1e999999999999}]}`,
		`{"maxPowers":null,"loadCurves":{},"x":[]}`,
		`{"maxPowers":[],"maxPowers":[]}`,
		`[]`, `{`, "\xef\xbb\xbf{}", `{"\u006daxPowers":[{}]}`, `{"maxPowers":[{"siteId":"\ud800","podId":"\xff"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, rep, err := DecodeFile(context.Background(), Member{Name: "f.json", Data: data, Regular: true}, knownSites())
		if err != nil {
			t.Fatal(err)
		}
		if rep.NbOperationsTotal != rep.NbOperationsOK+rep.NbOperationsKO || rep.NbOperationsOK < 0 || rep.NbOperationsKO < 0 {
			t.Fatalf("counts %+v", rep)
		}
		// An independent count of the elements with encoding/json's tokenizer.
		counts, ok := oracleCounts(data)
		if !ok {
			if rep.Error == nil || rep.Error.Code != CodeInvalidJSON || rep.NbOperationsTotal != 0 {
				t.Fatalf("invalid file accepted: %+v", rep)
			}
			return
		}
		total := 0
		for _, n := range counts {
			total += n
		}
		if rep.NbOperationsTotal != total {
			t.Fatalf("counted %d operations, the file has %d (%v)", rep.NbOperationsTotal, total, counts)
		}
		if rep.Error != nil {
			if rep.Error.Code != CodeTooManyRecords || rep.NbOperationsKO != total || len(rep.FailedOperations) != 0 || len(rows.Sites()) != 0 {
				t.Fatalf("file error %+v", rep)
			}
			return
		}
		if len(rep.FailedOperations) != min(rep.NbOperationsKO, MaxFailedOperations) || rep.FailedOperationsTruncated != (rep.NbOperationsKO > MaxFailedOperations) {
			t.Fatalf("%d KO, %d listed, truncated %v", rep.NbOperationsKO, len(rep.FailedOperations), rep.FailedOperationsTruncated)
		}
		failed := map[string]int{}
		last := map[string]int{}
		for _, op := range rep.FailedOperations {
			if prev, seen := last[op.Array]; (seen && op.Index <= prev) || op.Index >= counts[op.Array] || len(op.Errors) == 0 || len(op.Errors) > maxErrorsPerOperation {
				t.Fatalf("failed operation %+v", op)
			}
			for _, e := range op.Errors {
				if e.Code != CodeMissingField && e.Code != CodeInvalidField && e.Code != CodeUnknownSite {
					t.Fatalf("operation error %+v", e)
				}
			}
			last[op.Array] = op.Index
			failed[op.Array]++
		}
		if !rep.FailedOperationsTruncated {
			// One row per valid max power and gas index; at least one per valid smart index.
			if len(rows.MaxPowers) != counts[ArrayMaxPowers]-failed[ArrayMaxPowers] ||
				len(rows.Gas) != counts[ArrayCyclicGasIndexes]-failed[ArrayCyclicGasIndexes] ||
				len(rows.Elec) < counts[ArraySmartElecIndexes]-failed[ArraySmartElecIndexes] ||
				len(rows.LoadCurvePoints) < counts[ArrayLoadCurves]-failed[ArrayLoadCurves] {
				t.Fatalf("rows do not match the OK operations: %v %v", counts, failed)
			}
		}
		for _, r := range rows.LoadCurvePoints {
			if !r.EndTS.After(r.BeginTS) || r.EndTS.Sub(r.BeginTS) > maxStep || r.Reliability > 1 || r.Value < 0 || r.BeginTS.Before(minTime) {
				t.Fatalf("point %+v", r)
			}
		}
	})
}

// oracleCounts counts the elements of the four arrays with encoding/json; ok is false when the
// file is not what DecodeFile must accept (not JSON, not an object, a known member that is not
// an array or null, a known member given twice).
func oracleCounts(data []byte) (map[string]int, bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !json.Valid(data) {
		return nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || top == nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token() // {
	counts := map[string]int{}
	seen := map[string]bool{}
	for dec.More() {
		tok, _ := dec.Token()
		key := tok.(string)
		var raw json.RawMessage
		dec.Decode(&raw)
		if decoders[key] == nil {
			continue
		}
		if seen[key] {
			return nil, false
		}
		seen[key] = true
		if string(raw) == "null" {
			continue
		}
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return nil, false
		}
		counts[key] = len(elems)
	}
	return counts, true
}

func FuzzParseInteger(f *testing.F) {
	for _, s := range []string{"0", "-0", "3", "3.0", "3e2", "1.5", "1e19", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "0.000e5", "120e-1", "1E+2", "1e-0", "100e-2", "1e999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) || kindOf([]byte(s)) != kindNumber || strings.ContainsAny(s, " \t\r\n") {
			return
		}
		got, ok := parseInteger([]byte(s))
		// Oracle: exact rational arithmetic, for exponents small enough to compute.
		mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
		if len(exp) > 4 {
			return
		}
		r, valid := new(big.Rat).SetString(mant)
		if !valid {
			t.Fatalf("oracle cannot read %q", s)
		}
		if exp != "" {
			e, _ := new(big.Int).SetString(strings.TrimPrefix(exp, "+"), 10)
			p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), new(big.Int).Abs(e), nil))
			if e.Sign() < 0 {
				r.Quo(r, p)
			} else {
				r.Mul(r, p)
			}
		}
		want := r.IsInt() && r.Num().IsInt64()
		if ok != want || (ok && r.Num().Int64() != got) {
			t.Fatalf("%q: got %d %v, want %v (%s)", s, got, ok, want, r.RatString())
		}
	})
}

// FuzzJSONChecker: the decoder's single pass accepts exactly what json.Valid accepts.
func FuzzJSONChecker(f *testing.F) {
	for _, s := range []string{
		validFile, `{}`, `[]`, ` 1 `, `-0.5e+10`, `01`, `1.`, `-`, `1e`, `"\u00e9\ud800"`, `"\x"`, "\"\x01\"", "\"\xff\"",
		`{"a":[1,2,{"b":null}],"c":true}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `nul`, `truex`, `{"a":1}}`, "",
		strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth),
		strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1),
		`{"x":` + strings.Repeat("{\"a\":", maxJSONDepth-1) + "1" + strings.Repeat("}", maxJSONDepth),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := validJSON(data), json.Valid(data); got != want {
			t.Fatalf("validJSON %v, json.Valid %v", got, want)
		}
	})
}
