-- Drops the by-site copy of the load curve that migration 0025 added. Measured on the 1,000-site
-- benchmark data set once merged: the copy took 195 MiB against 72 MiB for load_curve_points
-- (without column codecs, which 18.16 lacks, a site's year of timestamps repeats too far apart for
-- LZ4 to find: the monthly table sees the next site's month within its window), and its view added
-- about 15 % to the server CPU of every load-curve INSERT, for 1.5 ms less of server time on a
-- 1,200-hour read. The load-curve reads use load_curve_points, as before 0025.
DROP TABLE IF EXISTS {{sharded "load_curve_points_by_site_writer"}} {{onCluster}};
DROP TABLE IF EXISTS {{sharded "load_curve_points_by_site"}} {{onCluster}};
DROP TABLE IF EXISTS {{table "load_curve_points_by_site"}} {{onCluster}};
