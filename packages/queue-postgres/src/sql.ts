import { quoteIdentifier } from "@driftwatch/store-postgres";

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
export const INSTALL_VERSION = "driftwatch-queue 2";

/** The version of the installed triggers (null: none). */
export function installedVersionStatement({ s }: QueueSql): string {
  return `SELECT obj_description(to_regprocedure('${s.replaceAll("'", "''")}.driftwatch_enqueue(text,text,text,timestamptz)'), 'pg_proc') AS version`;
}

export function installStatements({ s, b }: QueueSql): string[] {
  return [
    `CREATE INDEX IF NOT EXISTS driftwatch_job_key ON ${b}.job (name, singleton_key) WHERE state < 'completed'`,
    `CREATE INDEX IF NOT EXISTS driftwatch_job_org_due ON ${b}.job (name, (data->>'org'), start_after) WHERE state = 'created'`,
    `CREATE OR REPLACE FUNCTION ${s}.driftwatch_enqueue(queue text, key text, org text, due timestamptz) RETURNS void LANGUAGE plpgsql AS $fn$
     DECLARE waiting integer;
     BEGIN
       UPDATE ${b}.job SET state = 'cancelled', completed_on = now()
         WHERE name = queue AND singleton_key = key AND state < 'active';
       SELECT count(*) INTO waiting FROM ${b}.job
         WHERE name = queue AND state = 'created' AND data->>'org' = org AND start_after <= now();
       INSERT INTO ${b}.job (name, data, priority, start_after, singleton_key, dead_letter, expire_in, keep_until,
                             retry_limit, retry_delay, retry_backoff, policy)
       SELECT q.name, jsonb_build_object('id', key, 'org', org, 'due', due), -waiting, due, key, q.dead_letter,
              COALESCE(q.expire_seconds, 900) * interval '1 second',
              greatest(due, now()) + COALESCE(q.retention_minutes, 20160) * interval '1 minute',
              COALESCE(q.retry_limit, 2), COALESCE(q.retry_delay, 0), COALESCE(q.retry_backoff, false), q.policy
       FROM ${b}.queue q WHERE q.name = queue;
     END $fn$`,
    `CREATE OR REPLACE FUNCTION ${s}.driftwatch_monitor_due() RETURNS trigger LANGUAGE plpgsql AS $fn$
     BEGIN
       IF NEW.state IN ('active', 'failing') AND NEW.next_check_at IS NOT NULL
          AND (NEW.lease_owner IS NULL OR NEW.lease_expires_at <= now())
          AND (TG_OP = 'INSERT' OR OLD.next_check_at IS DISTINCT FROM NEW.next_check_at
               OR OLD.lease_owner IS NOT NULL OR OLD.state NOT IN ('active', 'failing')) THEN
         PERFORM ${s}.driftwatch_enqueue('${CHECK_QUEUE}', NEW.id, NEW.org_id, NEW.next_check_at);
       END IF;
       RETURN NULL;
     END $fn$`,
    `CREATE OR REPLACE FUNCTION ${s}.driftwatch_delivery_due() RETURNS trigger LANGUAGE plpgsql AS $fn$
     BEGIN
       IF NEW.state = 'pending' AND NEW.next_attempt_at IS NOT NULL
          AND (NEW.lease_owner IS NULL OR NEW.lease_expires_at <= now())
          AND (TG_OP = 'INSERT' OR OLD.next_attempt_at IS DISTINCT FROM NEW.next_attempt_at
               OR OLD.lease_owner IS NOT NULL OR OLD.state <> 'pending') THEN
         PERFORM ${s}.driftwatch_enqueue('${DELIVERY_QUEUE}', NEW.id, NEW.org_id, NEW.next_attempt_at);
       END IF;
       RETURN NULL;
     END $fn$`,
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
  return `UPDATE ${b}.job j SET state = 'created', started_on = NULL, start_after = w.at
    FROM unnest($2::uuid[], $3::timestamptz[]) AS w(id, at)
    WHERE j.name = $1 AND j.id = w.id AND j.state = 'active'`;
}

/** The heartbeat on pg-boss's side: a job held by a live worker never expires (pg-boss 10 has no heartbeat of its own). */
export function touchJobsStatement({ b }: QueueSql): string {
  return `UPDATE ${b}.job SET started_on = now() WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active'`;
}

/** The heartbeat on the rows: the leases this owner still holds, extended. */
export function renewStatement({ s }: QueueSql, table: "monitors" | "deliveries"): string {
  return `UPDATE ${s}.${table} SET lease_expires_at = $1 WHERE lease_owner = $2 AND id = ANY($3::text[]) RETURNING id`;
}
