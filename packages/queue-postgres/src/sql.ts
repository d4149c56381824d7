import { quoteIdentifier, renewLeasesStatement } from "@driftwatch/store-postgres";

/** The pg-boss queues driftwatch uses: one job per due check, one per due delivery attempt. */
export const CHECK_QUEUE = "driftwatch-checks";
export const DELIVERY_QUEUE = "driftwatch-deliveries";
/** Where a job goes after it expired `retryLimit` times in a row (its worker died each time). */
export const CHECK_DEAD_LETTER = "driftwatch-checks-dead";
export const DELIVERY_DEAD_LETTER = "driftwatch-deliveries-dead";

/** The pg-boss schema version this package's SQL on pg-boss's job table was written and tested against (pg-boss 10.x). */
export const PGBOSS_SCHEMA_VERSION = 24;

export interface QueueSql {
  /** The driftwatch tables' schema, quoted. */
  s: string;
  /** pg-boss's schema, quoted. */
  b: string;
}

export function queueSql(schema: string, jobSchema: string): QueueSql {
  return { s: quoteIdentifier(schema), b: quoteIdentifier(jobSchema) };
}

/**
 * What makes pg-boss the one queue of due work: every write that makes a monitor due (a new or
 * resumed monitor, a new next check time, a claim handed back) or a delivery due (a new pending
 * delivery, a retry time, a webhook enabled again) enqueues its job in the same transaction,
 * through a trigger, wherever the write comes from (the API, a check, `driftwatch store copy`,
 * a process still on the lease queue during a rolling upgrade). `driftwatch_enqueue` cancels the
 * key's waiting job first, so a monitor or delivery has at most one waiting job; its priority is
 * minus the number of its organization's jobs already due and waiting, so one organization's
 * backlog does not hold back another's work (pg-boss fetches by priority, then age).
 */
/** Marks the installed functions and triggers; a start that finds this version installed changes no schema (no DDL locks beside running processes). */
export const INSTALL_VERSION = "driftwatch-queue 5";

/** The version of the installed triggers (null: none). */
export function installedVersionStatement({ s }: QueueSql): string {
  return `SELECT obj_description(to_regprocedure('${s.replaceAll("'", "''")}.driftwatch_enqueue(text,text,text,timestamptz)'), 'pg_proc') AS version`;
}

/**
 * A function body's statements for each of driftwatch's queues, chosen by the `queue` argument:
 * each statement names its queue as a literal, so PostgreSQL prunes pg-boss's job partitions when
 * it plans the statement and PL/pgSQL keeps that plan (a queue name as a parameter would have it
 * planned again on every call).
 */
function perQueue(statements: (name: string) => string): string {
  const [first, second] = [CHECK_QUEUE, DELIVERY_QUEUE].map((name) => `'${name}'`) as [string, string];
  return `IF queue = ${first} THEN ${statements(first)}
       ELSIF queue = ${second} THEN ${statements(second)}
       ELSE RAISE EXCEPTION 'driftwatch: unknown queue %', queue;
       END IF;`;
}

/**
 * Enqueues the job of `key` (of organization `org`, due at `due`: SQL expressions) on queue `name`
 * (a literal), as PL/pgSQL statements using the variables `waiting integer` and `kept uuid`. A
 * key has at most one job. When it has one (the job of the check or attempt that just ended, or a
 * waiting one), that job is re-armed in place for the new due time: one write instead of a delete
 * and an insert, and pg-boss's retry count starts again (it counts expiries in a row). Its
 * `created_on` is the due time (never before `start_after`), so the fetch reads due jobs as one
 * index range per priority (see fetchStatement).
 */
function enqueueBlock(b: string, name: string, v: { key: string; org: string; due: string }): string {
  const data = `jsonb_build_object('id', ${v.key}, 'org', ${v.org}, 'due', ${v.due})`;
  return `
       -- How many of the organization's other jobs are due and waiting (counted up to 16: beyond,
       -- a backlog is a backlog): the job goes behind them, level with other organizations' first.
       SELECT count(*) INTO waiting FROM (
         SELECT 1 FROM ${b}.job
         WHERE name = ${name} AND state = 'created' AND data->>'org' = ${v.org} AND start_after <= now()
           AND singleton_key IS DISTINCT FROM ${v.key} LIMIT 16) w;
       UPDATE ${b}.job j SET state = 'created', priority = -waiting, start_after = ${v.due}, created_on = ${v.due}, started_on = NULL,
              retry_count = 0, data = ${data}, dead_letter = q.dead_letter,
              expire_in = COALESCE(q.expire_seconds, 900) * interval '1 second',
              keep_until = greatest(${v.due}, now()) + COALESCE(q.retention_minutes, 20160) * interval '1 minute',
              retry_limit = COALESCE(q.retry_limit, 2)
       FROM ${b}.queue q
       WHERE q.name = ${name} AND j.name = ${name}
         AND j.id = (SELECT id FROM ${b}.job WHERE name = ${name} AND singleton_key = ${v.key} AND state <= 'active' LIMIT 1)
       RETURNING j.id INTO kept;
       IF kept IS NULL THEN
         INSERT INTO ${b}.job (name, data, priority, start_after, created_on, singleton_key, dead_letter, expire_in, keep_until,
                               retry_limit, retry_delay, retry_backoff, policy)
         SELECT q.name, ${data}, -waiting, ${v.due}, ${v.due}, ${v.key}, q.dead_letter,
                COALESCE(q.expire_seconds, 900) * interval '1 second',
                greatest(${v.due}, now()) + COALESCE(q.retention_minutes, 20160) * interval '1 minute',
                COALESCE(q.retry_limit, 2), COALESCE(q.retry_delay, 0), COALESCE(q.retry_backoff, false), q.policy
         FROM ${b}.queue q WHERE q.name = ${name};
       ELSE
         -- a second job of the key (an upgrade racing a trigger): this one replaces it
         DELETE FROM ${b}.job WHERE name = ${name} AND singleton_key = ${v.key} AND state <= 'active' AND id <> kept;
       END IF;`;
}

/**
 * The trigger function of a table whose rows are due work (monitors, deliveries): a write that
 * makes the row due (`live`, a due time, no live lease; new, or its due time, lease or liveness
 * changed) enqueues its job, written out here rather than called (one function call less per
 * check); a lease released with nothing due ends the row's job.
 */
function dueTrigger({ s, b }: QueueSql, t: { fn: string; queue: string; due: string; live: (row: string) => string }): string {
  const name = `'${t.queue}'`;
  return `CREATE OR REPLACE FUNCTION ${s}.${t.fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
     DECLARE waiting integer; kept uuid;
     BEGIN
       IF ${t.live("NEW")} AND NEW.${t.due} IS NOT NULL
          AND (NEW.lease_owner IS NULL OR NEW.lease_expires_at <= now())
          AND (TG_OP = 'INSERT' OR OLD.${t.due} IS DISTINCT FROM NEW.${t.due}
               OR OLD.lease_owner IS NOT NULL OR NOT (${t.live("OLD")})) THEN
         ${enqueueBlock(b, name, { key: "NEW.id", org: "NEW.org_id", due: `NEW.${t.due}` })}
       ELSIF TG_OP = 'UPDATE' AND OLD.lease_owner IS NOT NULL AND NEW.lease_owner IS NULL THEN
         -- Its job ends: deleted, not completed (a job per check would otherwise pass through
         -- pg-boss's archive, two more writes each; the check's record is its snapshot, not its job).
         DELETE FROM ${b}.job WHERE name = ${name} AND singleton_key = NEW.id AND state <= 'active';
       END IF;
       RETURN NULL;
     END $fn$`;
}

export function installStatements(sql: QueueSql): string[] {
  const { s, b } = sql;
  return [
    `CREATE INDEX IF NOT EXISTS driftwatch_job_key ON ${b}.job (name, singleton_key) WHERE state < 'completed'`,
    // pg-boss fetches by priority, then age, among due jobs; with a backlog (every monitor due at
    // once) this index hands them over in that order instead of sorting the whole backlog per fetch.
    `CREATE INDEX IF NOT EXISTS driftwatch_job_fetch ON ${b}.job (name, priority DESC, created_on, id) WHERE state < 'active'`,
    // Jobs enqueued by an earlier version were created before their due time: from now on a job's
    // `created_on` is never before its `start_after` (see driftwatch_enqueue and fetchStatement).
    `UPDATE ${b}.job SET created_on = start_after WHERE name IN ('${CHECK_QUEUE}', '${DELIVERY_QUEUE}') AND state < 'active' AND created_on < start_after`,
    `CREATE INDEX IF NOT EXISTS driftwatch_job_org_due ON ${b}.job (name, (data->>'org'), start_after) WHERE state = 'created'`,
    // Version 4's helper; its triggers' work is now written out in them (dueTrigger).
    `DROP FUNCTION IF EXISTS ${s}.driftwatch_finish(text, text)`,
    `CREATE OR REPLACE FUNCTION ${s}.driftwatch_enqueue(queue text, key text, org text, due timestamptz) RETURNS void LANGUAGE plpgsql AS $fn$
     DECLARE waiting integer; kept uuid;
     BEGIN
       ${perQueue((name) => enqueueBlock(b, name, { key: "key", org: "org", due: "due" }))}
     END $fn$`,
    dueTrigger(sql, { fn: "driftwatch_monitor_due", queue: CHECK_QUEUE, due: "next_check_at", live: (row) => `${row}.state IN ('active', 'failing')` }),
    dueTrigger(sql, { fn: "driftwatch_delivery_due", queue: DELIVERY_QUEUE, due: "next_attempt_at", live: (row) => `${row}.state = 'pending'` }),
    `CREATE OR REPLACE FUNCTION ${s}.driftwatch_webhook_enabled() RETURNS trigger LANGUAGE plpgsql AS $fn$
     BEGIN
       IF NEW.enabled AND NOT OLD.enabled THEN
         PERFORM ${s}.driftwatch_enqueue('${DELIVERY_QUEUE}', d.id, d.org_id, d.next_attempt_at)
         FROM ${s}.deliveries d
         WHERE d.org_id = NEW.org_id AND d.webhook_id = NEW.id AND d.state = 'pending'
           AND d.next_attempt_at IS NOT NULL AND (d.lease_owner IS NULL OR d.lease_expires_at <= now());
       END IF;
       RETURN NULL;
     END $fn$`,
    `DROP TRIGGER IF EXISTS driftwatch_monitor_due ON ${s}.monitors`,
    `CREATE TRIGGER driftwatch_monitor_due AFTER INSERT OR UPDATE OF state, next_check_at, lease_owner ON ${s}.monitors
       FOR EACH ROW EXECUTE FUNCTION ${s}.driftwatch_monitor_due()`,
    `DROP TRIGGER IF EXISTS driftwatch_delivery_due ON ${s}.deliveries`,
    `CREATE TRIGGER driftwatch_delivery_due AFTER INSERT OR UPDATE OF state, next_attempt_at, lease_owner ON ${s}.deliveries
       FOR EACH ROW EXECUTE FUNCTION ${s}.driftwatch_delivery_due()`,
    `DROP TRIGGER IF EXISTS driftwatch_webhook_enabled ON ${s}.webhooks`,
    `CREATE TRIGGER driftwatch_webhook_enabled AFTER UPDATE OF enabled ON ${s}.webhooks
       FOR EACH ROW EXECUTE FUNCTION ${s}.driftwatch_webhook_enabled()`,
    `COMMENT ON FUNCTION ${s}.driftwatch_enqueue(text, text, text, timestamptz) IS '${INSTALL_VERSION}'`,
  ];
}

/**
 * The in-place upgrade from the lease queue, and the repair sweep: every monitor that is due
 * (whether or not a lease holds it) and every pending delivery gets a job unless one is waiting
 * or running for it. A monitor held by a process still on the lease queue gets a job that waits
 * for that lease to end (see the claim), so nothing is lost or checked twice while old and new
 * processes run side by side.
 */
export function reconcileStatements({ s, b }: QueueSql): { monitors: string; deliveries: string } {
  return {
    monitors: `SELECT ${s}.driftwatch_enqueue('${CHECK_QUEUE}', m.id, m.org_id, m.next_check_at)
      FROM ${s}.monitors m
      WHERE m.state IN ('active', 'failing') AND m.next_check_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM ${b}.job j WHERE j.name = '${CHECK_QUEUE}' AND j.singleton_key = m.id AND j.state <= 'active')`,
    deliveries: `SELECT ${s}.driftwatch_enqueue('${DELIVERY_QUEUE}', d.id, d.org_id, d.next_attempt_at)
      FROM ${s}.deliveries d JOIN ${s}.webhooks w ON w.id = d.webhook_id AND w.org_id = d.org_id AND w.enabled
      WHERE d.state = 'pending' AND d.next_attempt_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM ${b}.job j WHERE j.name = '${DELIVERY_QUEUE}' AND j.singleton_key = d.id AND j.state <= 'active')`,
  };
}

/** The priority levels a fetch reads: 0 down to -16 (driftwatch_enqueue counts up to 16 waiting jobs). */
const FETCH_LEVELS = 17;

/**
 * The fetch of up to `$2` due jobs of queue `$1` (due by `$3` and by the database's clock), by
 * priority (the fairness across organizations, see driftwatch_enqueue), then due time, marked
 * active as pg-boss's own fetch marks them (started, retried when fetched before). pg-boss's fetch
 * orders by the same keys but filters the due jobs before sorting them: with a backlog (every
 * monitor due at once) every fetch sorted the whole backlog. Here each priority level (0 down to
 * -16) is one range of the `driftwatch_job_fetch` index, read in order and only as far as the
 * claim needs: a job's `created_on` is its due time and never before its `start_after`, so
 * jobs not yet due lie outside the range. `FOR UPDATE SKIP LOCKED` as in pg-boss: two processes
 * fetching at once get different jobs (a level's scan skips the rows another fetch holds; the
 * rows it locked beyond the claim's share are free again when the statement ends).
 */
export function fetchStatement({ b }: QueueSql): string {
  return `WITH cutoff AS (SELECT least(now(), $3::timestamptz) AS at),
    next AS (
      SELECT c.id FROM generate_series(0, ${String(1 - FETCH_LEVELS)}, -1) AS level(p), cutoff
      CROSS JOIN LATERAL (
        SELECT j.id, j.priority, j.created_on FROM ${b}.job j
        WHERE j.name = $1 AND j.state < 'active' AND j.priority = level.p AND j.created_on <= cutoff.at AND j.start_after <= cutoff.at
        ORDER BY j.created_on, j.id LIMIT $2
        FOR UPDATE OF j SKIP LOCKED) c
      ORDER BY c.priority DESC, c.created_on, c.id LIMIT $2)
    UPDATE ${b}.job j SET state = 'active', started_on = now(),
      retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END
    FROM next WHERE j.name = $1 AND j.id = next.id
    RETURNING j.id, j.data`;
}

/**
 * A claim: the rows of the fetched jobs whose due time is still the job's and whose lease is
 * free (or expired: a takeover), leased to the owner in one statement. Returns the rows and the
 * owner of the lease each replaced.
 */
export function claimStatement({ s }: QueueSql, kind: "monitor" | "delivery"): string {
  if (kind === "monitor") {
    return `WITH wanted AS (SELECT * FROM unnest($1::text[], $2::timestamptz[]) AS w(id, due)),
      picked AS (
        SELECT m.id, m.lease_owner FROM ${s}.monitors m JOIN wanted w ON w.id = m.id AND m.next_check_at = w.due
        WHERE m.state IN ('active', 'failing') AND (m.lease_expires_at IS NULL OR m.lease_expires_at <= $3)
        FOR UPDATE OF m)
      UPDATE ${s}.monitors m SET lease_owner = $4, lease_expires_at = $5 FROM picked WHERE m.id = picked.id
      RETURNING m.*, picked.lease_owner AS taken_over_from`;
  }
  return `WITH wanted AS (SELECT * FROM unnest($1::text[], $2::timestamptz[]) AS w(id, due)),
    picked AS (
      SELECT d.id, d.lease_owner FROM ${s}.deliveries d JOIN wanted w ON w.id = d.id AND d.next_attempt_at = w.due
      JOIN ${s}.webhooks h ON h.id = d.webhook_id AND h.org_id = d.org_id AND h.enabled
      WHERE d.state = 'pending' AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $3)
      FOR UPDATE OF d)
    UPDATE ${s}.deliveries d SET lease_owner = $4, lease_expires_at = $5 FROM picked WHERE d.id = picked.id
    RETURNING d.*, picked.lease_owner AS taken_over_from`;
}

/**
 * The rows of jobs a claim could not take, as they are now: still to be worked (`live`), their
 * due time, and the end of a lease another worker holds.
 */
export function rowsStatement({ s }: QueueSql, kind: "monitor" | "delivery"): string {
  if (kind === "monitor") {
    return `SELECT r.id, r.org_id, r.next_check_at AS due, r.lease_expires_at,
        (r.state IN ('active', 'failing') AND r.next_check_at IS NOT NULL) AS live
      FROM ${s}.monitors r WHERE r.id = ANY($1::text[])`;
  }
  return `SELECT r.id, r.org_id, r.next_attempt_at AS due, r.lease_expires_at,
      (r.state = 'pending' AND r.next_attempt_at IS NOT NULL AND h.enabled IS TRUE) AS live
    FROM ${s}.deliveries r LEFT JOIN ${s}.webhooks h ON h.id = r.webhook_id AND h.org_id = r.org_id
    WHERE r.id = ANY($1::text[])`;
}

/** Enqueues the rows (`$2` ids, `$3` organizations, `$4` due times) again, at their current due time. */
export function enqueueStatement({ s }: QueueSql): string {
  return `SELECT ${s}.driftwatch_enqueue($1, w.id, w.org, w.due) FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS w(id, org, due)`;
}

/** Puts fetched jobs (`$2`) back to waiting, each due again at its time in `$3`, as if never fetched. */
export function handBackStatement({ b }: QueueSql): string {
  return `UPDATE ${b}.job j SET state = 'created', started_on = NULL, start_after = w.at, created_on = greatest(j.created_on, w.at)
    FROM unnest($2::uuid[], $3::timestamptz[]) AS w(id, at)
    WHERE j.name = $1 AND j.id = w.id AND j.state = 'active'`;
}

/**
 * The heartbeat on pg-boss's side: a job held by a live worker never expires (pg-boss 10 has no
 * heartbeat of its own). A job whose row lock another transaction holds is skipped, not waited for:
 * that is the trigger re-arming it in the record of its check, and a wait could deadlock with
 * that record (see `renewLeasesStatement` of @driftwatch/store-postgres).
 */
export function touchJobsStatement({ b }: QueueSql): string {
  return `UPDATE ${b}.job j SET started_on = now()
    FROM (SELECT id FROM ${b}.job WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active' FOR UPDATE SKIP LOCKED) l
    WHERE j.name = $1 AND j.id = l.id`;
}

/** The heartbeat on the rows: the leases this owner still holds, extended (see `renewLeasesStatement`). */
export function renewStatement({ s }: QueueSql, table: "monitors" | "deliveries"): string {
  return renewLeasesStatement(`${s}.${table}`);
}

/**
 * The partitions of driftwatch's two queues in pg-boss's job table (pg-boss 10 keeps a queue's
 * jobs in a table of its own), with their dead and live row counts from the statistics and
 * whether this role may vacuum them (it owns them, as the role that created pg-boss's schema does).
 */
export function jobTablesStatement({ b }: QueueSql): string {
  return `SELECT c.oid::regclass::text AS rel, COALESCE(st.n_dead_tup, 0)::int AS dead, COALESCE(st.n_live_tup, 0)::int AS live,
      pg_has_role(current_user, c.relowner, 'USAGE') AS owned
    FROM ${b}.queue q
    JOIN pg_class c ON c.relnamespace = to_regnamespace('${b.replaceAll("'", "''")}') AND c.relname = q.partition_name
    LEFT JOIN pg_stat_user_tables st ON st.relid = c.oid
    WHERE q.name IN ('${CHECK_QUEUE}', '${DELIVERY_QUEUE}')`;
}
