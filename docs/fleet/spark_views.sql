-- The tables of a memlens Parquet dataset as views, for Spark SQL (3.3 or later).
-- Replace ${DATASET} with the dataset's folder or URI (hdfs://, s3a://, a local path), or pass it:
--   spark-sql --hivevar DATASET=s3a://bucket/job42/memlens -f spark_views.sql -f peak_per_rank_step.sql
-- rank, step and input (the input's folder) come from the folder names (partition discovery from basePath).
CREATE OR REPLACE TEMPORARY VIEW snapshots USING parquet OPTIONS (path '${DATASET}/rank=*/step=*/input=*/snapshots.parquet', basePath '${DATASET}');
CREATE OR REPLACE TEMPORARY VIEW steps USING parquet OPTIONS (path '${DATASET}/rank=*/step=*/input=*/steps.parquet', basePath '${DATASET}');
CREATE OR REPLACE TEMPORARY VIEW events USING parquet OPTIONS (path '${DATASET}/rank=*/step=*/input=*/events.parquet', basePath '${DATASET}');
CREATE OR REPLACE TEMPORARY VIEW stacks USING parquet OPTIONS (path '${DATASET}/rank=*/step=*/input=*/stacks.parquet', basePath '${DATASET}');
CREATE OR REPLACE TEMPORARY VIEW live_at_peak USING parquet OPTIONS (path '${DATASET}/rank=*/step=*/input=*/live_at_peak.parquet', basePath '${DATASET}');
CREATE OR REPLACE TEMPORARY VIEW pools USING parquet OPTIONS (path '${DATASET}/rank=*/step=*/input=*/pools.parquet', basePath '${DATASET}');
CREATE OR REPLACE TEMPORARY VIEW layers USING parquet OPTIONS (path '${DATASET}/rank=*/step=*/input=*/layers.parquet', basePath '${DATASET}');
