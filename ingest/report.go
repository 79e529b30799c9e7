package ingest

// Job-level error codes (the job ends in ERROR; nothing is stored).
const (
	CodeInvalidArchiveFormat = "INVALID_ARCHIVE_FORMAT"
	CodeDecryptionFailed     = "DECRYPTION_FAILED"
	CodeInvalidFileCount     = "INVALID_FILE_COUNT"
	CodeArchiveTooLarge      = "ARCHIVE_TOO_LARGE"
)

// File-level error codes (the file's operations are all KO; other files go on).
const (
	CodeInvalidJSON       = "INVALID_JSON"
	CodeInvalidFileFormat = "INVALID_FILE_FORMAT"
	CodeTooManyRecords    = "TOO_MANY_RECORDS"
)

// Operation-level error codes.
const (
	CodeMissingField = "MISSING_FIELD"
	CodeInvalidField = "INVALID_FIELD"
	CodeUnknownSite  = "UNKNOWN_SITE"
)

// MaxFailedOperations bounds failedOperations per file; beyond it the report says truncated.
const MaxFailedOperations = 1000

// ErrorInfo is a code and a sentence.
type ErrorInfo struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ArchiveError is a failure of the archive as a whole.
type ArchiveError ErrorInfo

func (e *ArchiveError) Error() string { return e.Code + ": " + e.Message }

// FieldFailure is one problem with one field of an operation; Field is a path inside the
// element, such as "values[3].beginTs".
type FieldFailure struct {
	Code    string `json:"code"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// FailedOperation is a KO element: Array is one of the four array names, Index is 0-based.
type FailedOperation struct {
	Array  string         `json:"array"`
	Index  int            `json:"index"`
	Errors []FieldFailure `json:"errors"`
}

// FileReport is the outcome of one file of an archive.
type FileReport struct {
	Name                      string            `json:"name"`
	NbOperationsTotal         int               `json:"nbOperationsTotal"`
	NbOperationsOK            int               `json:"nbOperationsOK"`
	NbOperationsKO            int               `json:"nbOperationsKO"`
	Error                     *ErrorInfo        `json:"error,omitempty"`
	FailedOperations          []FailedOperation `json:"failedOperations"`
	FailedOperationsTruncated bool              `json:"failedOperationsTruncated,omitempty"`
}
