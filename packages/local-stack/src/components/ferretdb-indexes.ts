/**
 * Index twins that let PostgreSQL serve FerretDB's pushed-down filters.
 *
 * FerretDB 1.24 keeps each MongoDB index as a btree on an expression such as `(_jsonb -> '_id')`, but it
 * pushes an equality filter `{ field: value }` down as `_jsonb -> 'field' @> value`. A btree cannot serve
 * `@>`, so without help every find, update and delete by `_id` (or by any indexed field) is a sequential
 * scan whose cost grows with the collection: 815 ms per read at 17,000 documents, measured when the twins
 * went in.
 *
 * The stack therefore gives the leading key of every btree index on a FerretDB table a twin: a GIN index
 * with `jsonb_path_ops` on the same expression, which serves `@>` (0.05 ms for the same read). Only the
 * leading key: equality filters name it, and each twin costs every write to the table.
 * - An event trigger adds the twins when FerretDB creates an index (a new collection's `_id` index or a
 *   `createIndexes`), and another drops a twin when no btree on its table has its expression any more.
 * - Tables that exist before the triggers (a stack started by an earlier version) get theirs at start.
 * - FerretDB passes the field name as a parameter (`_jsonb -> $1`), which only a custom plan folds into
 *   the indexed expression, so the database plans every statement with its parameters
 *   (`plan_cache_mode = force_custom_plan`): a generic plan would always scan.
 * - Twins keep no pending list (`fastupdate = off`). With one, PostgreSQL puts new keys in a list that
 *   every scan of the index reads through from start to end until it is merged, and between merges
 *   the lists grew to 4,000-6,000 keys on the snapshots' `_id` twin and 80,000-90,000 on the delivery
 *   log's in 30 s at 40 debits/s: each snapshot read by `_id` paid for them. Without it an insert puts
 *   its key in the index at once: in alternating runs PostgreSQL spent 2.8-2.9 ms of a debit against
 *   3.3-3.5 (bench/HISTORY.md). Twins made by an earlier stack are switched at start, their lists merged.
 * - Sequential scans are off in that database (`enable_seqscan = off`): a filter a twin serves always
 *   uses it, one that nothing serves still scans. FerretDB's documents are mostly TOASTed, so a table
 *   of large snapshots has a small heap, and once analyzed the planner costs a scan of it below the
 *   twin, though every row must be detoasted to evaluate the filter. Measured: in two of four 15 s
 *   benchmark runs the transactions collection was read by 3,000-4,600 sequential scans, 4-5 ms a read
 *   instead of 0.3 ms, and PostgreSQL's CPU per debit was 30-72 ms instead of 18-25 ms.
 * - A twin serves every equality filter on its field, also one beside `_id`: PostgreSQL then joins the
 *   twin's whole entry for that value to the `_id` lookup. A write by `_id` that checks a field leading an
 *   index names the value as a one-value `$in`, which FerretDB does not push down (the store's `besideId`).
 * Twins are named `rp_gin_` and a hash of table and expression, a prefix FerretDB's own names (derived
 * from collection names, then a hash) do not take in this stack. The expression is kept in the twin's
 * comment. Nested fields are not twinned: FerretDB indexes `a.b` as `_jsonb -> 'a' -> 'b'` but filters
 * it as `_jsonb #> '{a,b}'`, so a twin of the index could not serve the filter anyway.
 *
 * All of it is idempotent, and runs in FerretDB's backing database each time the stack starts FerretDB.
 */
export const ginTwinsSql = (database: string): string => `
ALTER DATABASE ${database} SET plan_cache_mode = force_custom_plan;
ALTER DATABASE ${database} SET enable_seqscan = off;

CREATE OR REPLACE FUNCTION rp_add_gin_twins(tbl oid) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  key record;
  twin text;
  existing record;
BEGIN
  FOR key IN
    SELECT DISTINCT pg_get_indexdef(i.indexrelid, 1, true) AS expr
    FROM pg_index i
    JOIN pg_class ic ON ic.oid = i.indexrelid
    JOIN pg_am am ON am.oid = ic.relam AND am.amname = 'btree'
    WHERE i.indrelid = tbl AND i.indkey[0] = 0
  LOOP
    -- Only a single-level key of FerretDB's document column: '(_jsonb -> ''field''::text)'.
    CONTINUE WHEN key.expr !~ '^\\(_jsonb -> ''([^'']|'''')*''::text\\)$';
    twin := 'rp_gin_' || substr(md5(tbl::text || key.expr), 1, 24);
    SELECT c.oid, c.reloptions INTO existing FROM pg_class c WHERE c.relname = twin
      AND c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = tbl);
    IF existing.oid IS NULL THEN
      EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %s USING gin (%s jsonb_path_ops) WITH (fastupdate = off)',
        twin, tbl::regclass, key.expr);
      EXECUTE format('COMMENT ON INDEX %I.%I IS %L',
        (SELECT nspname FROM pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid WHERE c.oid = tbl),
        twin, key.expr);
    ELSIF NOT coalesce('fastupdate=off' = ANY (existing.reloptions), false) THEN
      -- A twin made by an earlier version of the stack: no pending list from now on, and the one it
      -- has merged into the index.
      EXECUTE format('ALTER INDEX %s SET (fastupdate = off)', existing.oid::regclass);
      PERFORM gin_clean_pending_list(existing.oid::regclass);
    END IF;
  END LOOP;
END
$fn$;

CREATE OR REPLACE FUNCTION rp_gin_twins_on_create() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
DECLARE
  tbl oid;
BEGIN
  FOR tbl IN
    SELECT DISTINCT i.indrelid
    FROM pg_event_trigger_ddl_commands() d
    JOIN pg_index i ON i.indexrelid = d.objid
    JOIN pg_class ic ON ic.oid = i.indexrelid
    JOIN pg_am am ON am.oid = ic.relam AND am.amname = 'btree'
    WHERE d.object_type = 'index'
  LOOP
    PERFORM rp_add_gin_twins(tbl);
  END LOOP;
END
$fn$;

CREATE OR REPLACE FUNCTION rp_gin_twins_on_drop() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
DECLARE
  twin record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_event_trigger_dropped_objects()
                 WHERE object_type = 'index' AND original AND object_name NOT LIKE 'rp_gin_%') THEN
    RETURN;
  END IF;
  FOR twin IN
    SELECT n.nspname, c.relname, i.indrelid, obj_description(c.oid, 'pg_class') AS expr
    FROM pg_class c
    JOIN pg_index i ON i.indexrelid = c.oid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relname LIKE 'rp_gin_%'
  LOOP
    IF NOT EXISTS (
      SELECT 1
      FROM pg_index i
      JOIN pg_class ic ON ic.oid = i.indexrelid
      JOIN pg_am am ON am.oid = ic.relam AND am.amname = 'btree'
      WHERE i.indrelid = twin.indrelid AND pg_get_indexdef(i.indexrelid, 1, true) = twin.expr
    ) THEN
      EXECUTE format('DROP INDEX %I.%I', twin.nspname, twin.relname);
    END IF;
  END LOOP;
END
$fn$;

DROP EVENT TRIGGER IF EXISTS rp_gin_twins_on_create;
CREATE EVENT TRIGGER rp_gin_twins_on_create ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION rp_gin_twins_on_create();
DROP EVENT TRIGGER IF EXISTS rp_gin_twins_on_drop;
CREATE EVENT TRIGGER rp_gin_twins_on_drop ON sql_drop WHEN TAG IN ('DROP INDEX')
  EXECUTE FUNCTION rp_gin_twins_on_drop();

SELECT rp_add_gin_twins(t.oid)
FROM pg_class t
JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE t.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'public')
  AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = t.oid AND a.attname = '_jsonb');
`;
