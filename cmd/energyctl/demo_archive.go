package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"time"
)

// This file turns generated demo series into archives that respect the collection limits:
// one content type per archive (what senders are advised to do), at most 5 files per archive, at
// most 10,000 indexes or 1,500 load curves per file and at most 2,500,000 bytes per archive.

// Collection limits (apidocs/README.md, "Archives").
const (
	maxFilesPerArchive = 5
	maxIndexesPerFile  = 10_000
	maxCurvesPerFile   = 1_500
	maxArchiveBytes    = 2_500_000
)

// demoIdentity is the identity part of a record; a file uses one of the two variants.
type demoIdentity struct {
	SiteID           string `json:"siteId,omitempty"`
	SiteCustomerID   string `json:"siteCustomerId,omitempty"`
	PersonCustomerID string `json:"personCustomerId,omitempty"`
}

func (d *demoIdentity) identify(id demoIdentity) { *d = id }

type smartElecIndexRecord struct {
	demoIdentity
	PodID             string           `json:"podId"`
	TS                string           `json:"ts"`
	GenerationTS      string           `json:"generationTs"`
	Nature            string           `json:"nature"`
	IndexBeforeChange *bool            `json:"indexBeforeChange,omitempty"`
	Value             map[string]int64 `json:"value"`
}

type maxPowerRecord struct {
	demoIdentity
	PodID        string `json:"podId"`
	TS           string `json:"ts"`
	GenerationTS string `json:"generationTs"`
	Value        int64  `json:"value"`
}

type cyclicGasIndexRecord struct {
	demoIdentity
	PodID             string             `json:"podId"`
	Nature            string             `json:"nature"`
	TS                string             `json:"ts"`
	GenerationTS      string             `json:"generationTs"`
	IndexBeforeChange *bool              `json:"indexBeforeChange,omitempty"`
	Value             int64              `json:"value"`
	ConversionFactors map[string]float64 `json:"conversionFactors"`
	Unit              string             `json:"unit"`
}

type loadCurveRecord struct {
	demoIdentity
	PodID            string           `json:"podId"`
	MeterReadingDate string           `json:"meterReadingDate"`
	GenerationTS     string           `json:"generationTs"`
	Step             string           `json:"step"`
	Values           []loadCurvePoint `json:"values"`
}

type loadCurvePoint struct {
	BeginTS     string `json:"beginTs,omitempty"`
	EndTS       string `json:"endTs,omitempty"`
	Value       int64  `json:"value"`
	Reliability int    `json:"reliability"`
}

// demoFile is one JSON file of an archive.
type demoFile struct {
	Name    string
	Kind    string // the array it fills
	Records int
	Body    []byte
}

// demoArchive is one .tar.gz ready to submit.
type demoArchive struct {
	Name       string
	Kind       string
	Files      []demoFile
	Operations int
	Data       []byte
}

type identified interface{ identify(demoIdentity) }

// kindFiles writes each site's records of one kind into files of at most limit records, each
// file in one identity variant; the variant alternates with the site and the kind so that both
// appear across files.
func kindFiles[T any, PT interface {
	*T
	identified
}](kind string, kindIdx, limit int, series []demoSeries, records func(*demoSeries) []T) ([]demoFile, error) {
	var files []demoFile
	for i := range series {
		s := &series[i]
		recs := records(s)
		id := demoIdentity{SiteID: s.Site.SiteID}
		variant := "siteId"
		if (i+kindIdx)%2 == 1 {
			id = demoIdentity{SiteCustomerID: s.Site.SiteCustomerID, PersonCustomerID: s.Site.PersonCustomerID}
			variant = "customerId"
		}
		for part, from := 1, 0; from < len(recs); part, from = part+1, from+limit {
			chunk := recs[from:min(from+limit, len(recs))]
			for j := range chunk {
				PT(&chunk[j]).identify(id)
			}
			body, err := json.Marshal(map[string][]T{kind: chunk})
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("%s-%s-%s.json", s.Site.SiteID, kind, variant)
			if len(recs) > limit {
				name = fmt.Sprintf("%s-%s-%s-%d.json", s.Site.SiteID, kind, variant, part)
			}
			files = append(files, demoFile{Name: name, Kind: kind, Records: len(chunk), Body: body})
		}
	}
	return files, nil
}

// buildDemoArchives packs the series into archives, one content type per archive.
func buildDemoArchives(series []demoSeries, year int) ([]demoArchive, error) {
	var byKind [][]demoFile
	add := func(f []demoFile, err error) error {
		if err == nil && len(f) > 0 {
			byKind = append(byKind, f)
		}
		return err
	}
	if err := add(kindFiles("smartElecIndexes", 0, maxIndexesPerFile, series, func(s *demoSeries) []smartElecIndexRecord { return s.Smart })); err != nil {
		return nil, err
	}
	if err := add(kindFiles("maxPowers", 1, maxIndexesPerFile, series, func(s *demoSeries) []maxPowerRecord { return s.MaxPowers })); err != nil {
		return nil, err
	}
	if err := add(kindFiles("cyclicGasIndexes", 0, maxIndexesPerFile, series, func(s *demoSeries) []cyclicGasIndexRecord { return s.Gas })); err != nil {
		return nil, err
	}
	if err := add(kindFiles("loadCurves", 1, maxCurvesPerFile, series, func(s *demoSeries) []loadCurveRecord { return s.LoadCurves })); err != nil {
		return nil, err
	}
	mtime := time.Date(year+1, 1, 2, 0, 0, 0, 0, time.UTC)
	var out []demoArchive
	for _, files := range byKind {
		kind := files[0].Kind
		archives, err := packFiles(files, mtime)
		if err != nil {
			return nil, err
		}
		for i := range archives {
			archives[i].Kind = kind
			archives[i].Name = fmt.Sprintf("demo-%d-%s-%02d.tar.gz", year, kind, i+1)
			out = append(out, archives[i])
		}
	}
	return out, nil
}

// packFiles groups files by at most maxFilesPerArchive and halves any group whose archive
// exceeds maxArchiveBytes.
func packFiles(files []demoFile, mtime time.Time) ([]demoArchive, error) {
	var out []demoArchive
	var pack func(group []demoFile) error
	pack = func(group []demoFile) error {
		data, err := tarGz(group, mtime)
		if err != nil {
			return err
		}
		if len(data) > maxArchiveBytes {
			if len(group) == 1 {
				return fmt.Errorf("file %s alone compresses to %d bytes, over the %d-byte archive limit", group[0].Name, len(data), maxArchiveBytes)
			}
			if err := pack(group[:len(group)/2]); err != nil {
				return err
			}
			return pack(group[len(group)/2:])
		}
		a := demoArchive{Files: group, Data: data}
		for _, f := range group {
			a.Operations += f.Records
		}
		out = append(out, a)
		return nil
	}
	for from := 0; from < len(files); from += maxFilesPerArchive {
		if err := pack(files[from:min(from+maxFilesPerArchive, len(files))]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// tarGz writes files as a gzip-compressed tar with fixed times, so the same input gives the
// same bytes.
func tarGz(files []demoFile, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	for _, f := range files {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: f.Name, Mode: 0o644, Size: int64(len(f.Body)), ModTime: mtime, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
