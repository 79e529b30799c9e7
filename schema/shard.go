package schema

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/go-faster/city"
)

// SiteHash is ClickHouse's cityHash64(tenant_id, site_id), the sharding key of the readings'
// Distributed tables: CityHash64 (version 1.0.2, as ClickHouse ships it) of each argument,
// combined left to right by CityHash's Hash128to64.
func SiteHash(tenantID, siteID string) uint64 {
	return hash128to64(city.CH64([]byte(tenantID)), city.CH64([]byte(siteID)))
}

// hash128to64 is CityHash's Hash128to64 of the 128-bit value (low, high), with which
// ClickHouse combines the hashes of a multi-argument cityHash64.
func hash128to64(low, high uint64) uint64 {
	const mul = 0x9ddfea08eb382d69
	a := (low ^ high) * mul
	a ^= a >> 47
	b := (high ^ a) * mul
	b ^= b >> 47
	return b * mul
}

// ShardSlots maps a sharding key to a shard as a Distributed table does: each shard (in the
// cluster's order) owns as many consecutive slots as its weight, and a key goes to slot
// key % (sum of the weights).
type ShardSlots []int

// NewShardSlots lays out the slots of shards with these weights.
func NewShardSlots(weights []uint32) ShardSlots {
	var s ShardSlots
	for shard, w := range weights {
		for range w {
			s = append(s, shard)
		}
	}
	return s
}

// Shard returns the 0-based shard of a sharding key.
func (s ShardSlots) Shard(key uint64) int { return s[key%uint64(len(s))] }

// shardReaders reads a site's rows of the sharded tables from the shard that holds them: one
// pool per shard over its replicas in the cluster's order (the first live one answers, as the
// Distributed tables' in_order reads do). A Distributed read of one site asks every shard on
// ClickHouse 18.16 (it cannot skip the shards the sharding key rules out); this does not.
type shardReaders struct {
	slots ShardSlots
	pools []driver.Conn
}

// openShardReaders lays out the cluster's shards from system.clusters and prepares a pool per
// shard (connections are made on first use) with the options of the main pool.
func openShardReaders(ctx context.Context, conn driver.Conn, opts clickhouse.Options, cluster string, t Timeouts) (*shardReaders, error) {
	rows, err := conn.Query(ctx, "SELECT shard_num, shard_weight, host_name, port FROM system.clusters WHERE cluster = ? ORDER BY shard_num, replica_num", cluster)
	if err != nil {
		return nil, fmt.Errorf("read the shards of cluster %s: %w", cluster, err)
	}
	defer rows.Close()
	var weights []uint32
	var addrs [][]string
	last := uint32(0)
	for rows.Next() {
		var num, weight uint32
		var host string
		var port uint16
		if err := rows.Scan(&num, &weight, &host, &port); err != nil {
			return nil, err
		}
		if num != last {
			weights, addrs, last = append(weights, weight), append(addrs, nil), num
		}
		addrs[len(addrs)-1] = append(addrs[len(addrs)-1], net.JoinHostPort(host, strconv.Itoa(int(port))))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(weights) == 0 {
		return nil, fmt.Errorf("cluster %s is not in system.clusters of the node", cluster)
	}
	r := &shardReaders{slots: NewShardSlots(weights)}
	if len(r.slots) == 0 { // Shard would divide by zero
		return nil, fmt.Errorf("cluster %s has no shard of positive weight", cluster)
	}
	for _, a := range addrs {
		o := opts
		o.Addr, o.ConnOpenStrategy = a, clickhouse.ConnOpenInOrder
		o.MaxOpenConns, o.MaxIdleConns = min(opts.MaxOpenConns, 8), min(opts.MaxIdleConns, 4)
		c, err := clickhouse.Open(&o)
		if err != nil {
			r.close()
			return nil, err
		}
		r.pools = append(r.pools, instrument(c, t))
	}
	return r, nil
}

func (r *shardReaders) close() {
	for _, p := range r.pools {
		_ = p.Close()
	}
}

// SiteReader reads one site's rows of the sharded tables (the readings): Conn with the table
// names that Table gives.
type SiteReader struct {
	Conn  driver.Conn
	local bool
}

// Table is the name under which the reader finds a sharded table: its local table on the site's
// shard on a cluster, the table itself on a single node.
func (r SiteReader) Table(name string) string {
	if r.local {
		return name + "_local"
	}
	return name
}

// ReadSite returns the reader of a site's readings: on a cluster the replicas of the shard of
// cityHash64(tenantID, siteID), on a single node the database's own connection.
func (db *DB) ReadSite(tenantID, siteID string) SiteReader {
	if db.shards == nil {
		return SiteReader{Conn: db.Conn}
	}
	return SiteReader{Conn: db.shards.pools[db.shards.slots.Shard(SiteHash(tenantID, siteID))], local: true}
}
