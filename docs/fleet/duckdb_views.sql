-- The tables of a memlens Parquet dataset as views, for DuckDB (1.1 or later).
-- Replace ${DATASET} with the folder `memlens export DIR --parquet DATASET` wrote, e.g.
--   sed "s|\${DATASET}|/data/job42/memlens|" duckdb_views.sql | cat - peak_per_rank_step.sql | duckdb
-- rank, step and input (the input's folder) come from the folder names (Hive partitioning).
CREATE OR REPLACE VIEW snapshots AS SELECT * FROM read_parquet('${DATASET}/rank=*/step=*/input=*/snapshots.parquet', hive_partitioning = true);
CREATE OR REPLACE VIEW steps AS SELECT * FROM read_parquet('${DATASET}/rank=*/step=*/input=*/steps.parquet', hive_partitioning = true);
CREATE OR REPLACE VIEW events AS SELECT * FROM read_parquet('${DATASET}/rank=*/step=*/input=*/events.parquet', hive_partitioning = true);
CREATE OR REPLACE VIEW stacks AS SELECT * FROM read_parquet('${DATASET}/rank=*/step=*/input=*/stacks.parquet', hive_partitioning = true);
CREATE OR REPLACE VIEW live_at_peak AS SELECT * FROM read_parquet('${DATASET}/rank=*/step=*/input=*/live_at_peak.parquet', hive_partitioning = true);
CREATE OR REPLACE VIEW pools AS SELECT * FROM read_parquet('${DATASET}/rank=*/step=*/input=*/pools.parquet', hive_partitioning = true);
CREATE OR REPLACE VIEW layers AS SELECT * FROM read_parquet('${DATASET}/rank=*/step=*/input=*/layers.parquet', hive_partitioning = true);
