package consumption

import (
	"context"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// siteReadSettings suit the per-site reads of index readings: a few hundred to a few thousand
// rows of one narrow key range. One thread reads them as fast as several and spares ClickHouse
// the set-up of a parallel pipeline on every request, which is most of the cost of such a read.
var siteReadSettings = clickhouse.Settings{"max_threads": 1}

// siteRead is ctx with the settings of a per-site read.
func siteRead(ctx context.Context) context.Context {
	return clickhouse.Context(ctx, clickhouse.WithSettings(siteReadSettings))
}
