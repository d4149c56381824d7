/**
 * The heartbeat's statement on PostgreSQL: extends to `$1` the leases that owner `$2` holds on the
 * rows `$3` (ids) of `table` (a quoted name), and returns the ids the owner still holds.
 *
 * It never waits for a row lock. A row another transaction has locked is left for the next beat
 * (`SKIP LOCKED`), and it still counts as held when the owner held it at the statement's start.
 * Such a row is usually a check or attempt of this owner that is being recorded now, and that
 * record ends the lease anyway.
 *
 * Waiting would deadlock. A record of several checks in one statement (the store's group commit)
 * locks its monitors, and then their jobs through the queue's trigger, in whatever order its plan
 * visits them. A heartbeat that locks many of the same rows in another order can then wait on it
 * while it waits on the heartbeat. PostgreSQL breaks such a cycle only after `deadlock_timeout`
 * (1 s by default), by failing one of the two statements.
 *
 * A lease taken over since the statement's start is still reported as held by this beat. The next
 * beat finds it lost.
 */
export function renewLeasesStatement(table: string): string {
  return `WITH held AS (SELECT id FROM ${table} WHERE lease_owner = $2 AND id = ANY($3::text[])),
    locked AS (SELECT id FROM ${table} WHERE lease_owner = $2 AND id = ANY($3::text[]) FOR UPDATE SKIP LOCKED),
    renewed AS (UPDATE ${table} t SET lease_expires_at = $1 FROM locked WHERE t.id = locked.id)
    SELECT id FROM held`;
}
