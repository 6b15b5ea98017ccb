// Runs SQL in DuckDB over a memlens Parquet dataset and prints {name: rows} as JSON, or with
// DUCKDB_TIMES=1 {name: {rows: N, ms: M}} (the benchmark's wall time of each query).
// Usage: node duckdb_run.mjs DATASET VIEWS.sql NAME=FILE.sql… [NAME=SQL…]
// An argument NAME=FILE.sql runs that file; NAME=anything else runs the text itself. ${DATASET} in
// the views and queries is replaced by DATASET, as the shipped recipes ask their users to do.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, existsSync } from 'node:fs';

const [dataset, views, ...queries] = process.argv.slice(2);
const withDataset = (sql) => sql.replaceAll('${DATASET}', dataset);
const db = await DuckDBInstance.create(':memory:');
const connection = await db.connect();
await connection.run(withDataset(readFileSync(views, 'utf8')));
const results = {};
for (const query of queries) {
  const eq = query.indexOf('=');
  const name = query.slice(0, eq);
  const source = query.slice(eq + 1);
  const sql = source.endsWith('.sql') && existsSync(source) ? readFileSync(source, 'utf8') : source;
  const started = performance.now();
  const reader = await connection.runAndReadAll(withDataset(sql));
  const rows = reader.getRowObjectsJson();
  results[name] = process.env.DUCKDB_TIMES ? { rows: rows.length, ms: Math.round(performance.now() - started) } : rows;
}
console.log(JSON.stringify(results));
