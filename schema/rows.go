package schema

import "context"

// RowScanner is one result row: what a scan function reads its columns from.
type RowScanner interface{ Scan(dest ...any) error }

// ScanAll runs query and returns every row read by scan, in the query's order.
func ScanAll[T any](ctx context.Context, db *DB, scan func(RowScanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.Conn.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ScanOne runs query and returns its first row read by scan; found is false when it has none.
func ScanOne[T any](ctx context.Context, db *DB, scan func(RowScanner) (T, error), query string, args ...any) (v T, found bool, err error) {
	rows, err := db.Conn.Query(ctx, query, args...)
	if err != nil {
		return v, false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return v, false, rows.Err()
	}
	if v, err = scan(rows); err != nil {
		return v, false, err
	}
	return v, true, rows.Err()
}

// InsertRow inserts one row: insert is "INSERT INTO t (columns)", values are in their order.
func InsertRow(ctx context.Context, db *DB, insert string, values ...any) error {
	b, err := db.Conn.PrepareBatch(ctx, insert)
	if err != nil {
		return err
	}
	if err := b.Append(values...); err != nil {
		_ = b.Abort()
		return err
	}
	return b.Send()
}
