import { StoreError, encodeText, encodeTextOrNull, newId, type KeysetPage, type Role, type TimeKeysetPage } from "@driftwatch/core";
import type { AuditRecord, InviteRecord, MemberRecord, MembershipRecord, NewAuditEntry, NewInvite, NewSession, NewUser } from "@driftwatch/core";
import type { OrganizationPatch, OrganizationRecord, SessionPatch, SessionRecord, UserPatch, UserRecord } from "@driftwatch/core";
import type { SqlContext } from "./context.js";
import type { SqlDriver, SqlExecutor, TableName } from "./dialect.js";
import type { Row } from "./rows.js";

/**
 * Tables an organization's rows live in, children before their parents, so deleting in this
 * order never trips a foreign key. `organizations` itself comes last.
 */
const ORGANIZATION_TABLES: readonly TableName[] = [
  "delivery_attempts",
  "deliveries",
  "screenshots",
  "failure_screenshots",
  "diffs",
  "snapshots",
  "settings",
  "monitors",
  "webhooks",
  "tokens",
  "idempotency_keys",
  "sessions",
  "invites",
  "memberships",
  "audit_log",
  "secrets",
];

const MEMBER_COLUMNS = "m.org_id, m.user_id, m.role, m.created_at, u.email, u.display_name";

/**
 * Users, memberships, sessions, invites and the audit log, and the organization-wide writes
 * (rename, delete), for every SQL database. The last-owner rule holds under concurrency: the
 * organization's owner rows are read locked inside the transaction that changes one (SQLite's
 * `BEGIN IMMEDIATE` locks the whole database; PostgreSQL's `FOR UPDATE` locks the rows, and a
 * waiting transaction re-reads them once the other commits). An invite is consumed by one
 * conditional `UPDATE`, so of two racing calls only one matches.
 */
export abstract class SqlPeopleAdapter {
  protected abstract readonly driver: SqlDriver;
  protected abstract readonly ctx: SqlContext;
  /** Called with null when a write deleted diffs it cannot name (a cache drops them all). */
  protected abstract diffsDeleted(): void;

  #all(db: SqlExecutor, sql: string, params: readonly unknown[]): Promise<Row[]> {
    return this.ctx.all(db, sql, params);
  }

  async #first<T>(sql: string, params: readonly unknown[], map: (row: Row) => T): Promise<T | null> {
    const [row] = await this.#all(this.driver, sql, params);
    return row === undefined ? null : map(row);
  }

  /** Newest first by id, below `after`, at most `take`. */
  async #byIdDescending<T>(table: "invites" | "audit_log", orgId: string, page: KeysetPage, map: (row: Row) => T): Promise<T[]> {
    const after = page.after === null ? "" : " AND id < ?";
    const params = page.after === null ? [orgId, page.take] : [orgId, page.after, page.take];
    const rows = await this.#all(this.driver, `SELECT * FROM ${this.ctx.t[table]} WHERE org_id = ?${after} ORDER BY id DESC LIMIT ?`, params);
    return rows.map(map);
  }

  // organizations ----------------------------------------------------------------------------

  updateOrganization(id: string, patch: OrganizationPatch): Promise<OrganizationRecord | null> {
    const sets: string[] = [];
    const params: unknown[] = [];
    if (patch.name !== undefined) sets.push("name = ?"), params.push(patch.name);
    if (patch.learnNoiseByDefault !== undefined) sets.push("learn_noise_by_default = ?"), params.push(this.ctx.dialect.bool(patch.learnNoiseByDefault));
    if (patch.learningDefaults !== undefined) sets.push("learning_defaults = ?"), params.push(patch.learningDefaults === null ? null : this.ctx.dialect.writeJson(patch.learningDefaults));
    if (sets.length === 0) return this.#first(`SELECT * FROM ${this.ctx.t.organizations} WHERE id = ?`, [id], (row) => this.ctx.rows.organization(row));
    return this.#first(`UPDATE ${this.ctx.t.organizations} SET ${sets.join(", ")} WHERE id = ? RETURNING *`, [...params, id], (row) => this.ctx.rows.organization(row));
  }

  deleteOrganization(id: string): Promise<boolean> {
    return this.driver.transaction(async (tx) => {
      const [org] = await this.#all(tx, `SELECT id FROM ${this.ctx.t.organizations} WHERE id = ?${this.ctx.dialect.lockRows()}`, [id]);
      if (org === undefined) return false;
      for (const table of ORGANIZATION_TABLES) await this.ctx.run(tx, `DELETE FROM ${this.ctx.t[table]} WHERE org_id = ?`, [id]);
      await this.ctx.run(tx, `DELETE FROM ${this.ctx.t.organizations} WHERE id = ?`, [id]);
      this.diffsDeleted();
      return true;
    });
  }

  // users ------------------------------------------------------------------------------------

  async createUser(input: NewUser): Promise<UserRecord> {
    const rows = await this.#all(
      this.driver,
      `INSERT INTO ${this.ctx.t.users} (id, email, display_name, password_hash, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *`,
      [newId("user"), encodeText(input.email), encodeText(input.displayName), input.passwordHash, input.createdAt],
    );
    return this.ctx.rows.user(rows[0]!);
  }

  getUser(id: string): Promise<UserRecord | null> {
    return this.#first(`SELECT * FROM ${this.ctx.t.users} WHERE id = ?`, [id], (row) => this.ctx.rows.user(row));
  }

  getUserByEmail(email: string): Promise<UserRecord | null> {
    // emails arrive lower-cased; lower() matches the unique index
    return this.#first(`SELECT * FROM ${this.ctx.t.users} WHERE lower(email) = ?`, [encodeText(email)], (row) => this.ctx.rows.user(row));
  }

  updateUser(id: string, patch: UserPatch): Promise<UserRecord | null> {
    const sets: string[] = [];
    const values: unknown[] = [];
    if (patch.displayName !== undefined) sets.push("display_name = ?"), values.push(encodeText(patch.displayName));
    if (patch.passwordHash !== undefined) {
      sets.push("password_hash = ?", "password_changed_at = ?");
      values.push(patch.passwordHash, patch.passwordChangedAt ?? null);
    }
    if (sets.length === 0) return this.getUser(id);
    return this.#first(`UPDATE ${this.ctx.t.users} SET ${sets.join(", ")} WHERE id = ? RETURNING *`, [...values, id], (row) => this.ctx.rows.user(row));
  }

  async countUsers(): Promise<number> {
    const [row] = await this.#all(this.driver, `SELECT CAST(COUNT(*) AS INTEGER) AS n FROM ${this.ctx.t.users}`, []);
    return Number(row?.n ?? 0);
  }

  // memberships ------------------------------------------------------------------------------

  async addMembership(orgId: string, userId: string, role: Role, at: string): Promise<MembershipRecord> {
    // an unknown organization or user fails its foreign key (not_found); a second membership its primary key (conflict)
    const rows = await this.#all(
      this.driver,
      `INSERT INTO ${this.ctx.t.memberships} (org_id, user_id, role, created_at) VALUES (?, ?, ?, ?) RETURNING *`,
      [orgId, userId, role, at],
    );
    return this.ctx.rows.membership(rows[0]!);
  }

  getMembership(orgId: string, userId: string): Promise<MembershipRecord | null> {
    return this.#first(`SELECT * FROM ${this.ctx.t.memberships} WHERE org_id = ? AND user_id = ?`, [orgId, userId], (row) => this.ctx.rows.membership(row));
  }

  async listMembers(orgId: string, page: TimeKeysetPage): Promise<MemberRecord[]> {
    const from = `FROM ${this.ctx.t.memberships} m JOIN ${this.ctx.t.users} u ON u.id = m.user_id`;
    const order = "ORDER BY m.created_at DESC, m.user_id DESC LIMIT ?";
    const rows =
      page.after === null
        ? await this.#all(this.driver, `SELECT ${MEMBER_COLUMNS} ${from} WHERE m.org_id = ? ${order}`, [orgId, page.take])
        : await this.#all(
            this.driver,
            `SELECT ${MEMBER_COLUMNS} ${from} WHERE m.org_id = ? AND (m.created_at < ? OR (m.created_at = ? AND m.user_id < ?)) ${order}`,
            [orgId, page.after.at, page.after.at, page.after.id, page.take],
          );
    return rows.map((row) => this.ctx.rows.member(row));
  }

  async listMembershipsOfUser(userId: string): Promise<MembershipRecord[]> {
    const rows = await this.#all(this.driver, `SELECT * FROM ${this.ctx.t.memberships} WHERE user_id = ? ORDER BY created_at, org_id`, [userId]);
    return rows.map((row) => this.ctx.rows.membership(row));
  }

  /**
   * Inside `tx`: the organization's owners and the member `userId`, locked until the
   * transaction ends (in one order, so two such transactions cannot deadlock). Throws
   * `last_owner` when `leaving` and the member is the only owner; null when not a member.
   */
  async #lockForOwnerChange(tx: SqlExecutor, orgId: string, userId: string, leaving: boolean): Promise<Row | null> {
    const rows = await this.#all(
      tx,
      `SELECT user_id, role FROM ${this.ctx.t.memberships} WHERE org_id = ? AND (role = 'owner' OR user_id = ?) ORDER BY user_id${this.ctx.dialect.lockRows()}`,
      [orgId, userId],
    );
    const member = rows.find((row) => row.user_id === userId);
    if (member === undefined) return null;
    if (leaving && member.role === "owner" && rows.filter((row) => row.role === "owner").length <= 1) {
      throw new StoreError("last_owner", `User ${userId} is the last owner of ${orgId}.`);
    }
    return member;
  }

  setMemberRole(orgId: string, userId: string, role: Role): Promise<MembershipRecord | null> {
    return this.driver.transaction(async (tx) => {
      if ((await this.#lockForOwnerChange(tx, orgId, userId, role !== "owner")) === null) return null;
      const rows = await this.#all(tx, `UPDATE ${this.ctx.t.memberships} SET role = ? WHERE org_id = ? AND user_id = ? RETURNING *`, [role, orgId, userId]);
      return this.ctx.rows.membership(rows[0]!);
    });
  }

  removeMembership(orgId: string, userId: string): Promise<boolean> {
    return this.driver.transaction(async (tx) => {
      if ((await this.#lockForOwnerChange(tx, orgId, userId, true)) === null) return false;
      return (await this.ctx.run(tx, `DELETE FROM ${this.ctx.t.memberships} WHERE org_id = ? AND user_id = ?`, [orgId, userId])) > 0;
    });
  }

  async countOwners(orgId: string): Promise<number> {
    const [row] = await this.#all(this.driver, `SELECT CAST(COUNT(*) AS INTEGER) AS n FROM ${this.ctx.t.memberships} WHERE org_id = ? AND role = 'owner'`, [
      orgId,
    ]);
    return Number(row?.n ?? 0);
  }

  // sessions ---------------------------------------------------------------------------------

  async createSession(input: NewSession): Promise<SessionRecord> {
    const rows = await this.#all(
      this.driver,
      `INSERT INTO ${this.ctx.t.sessions} (id, user_id, org_id, session_hash, created_at, expires_at, last_seen_at, user_agent, ip)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      [
        newId("session"),
        input.userId,
        input.orgId,
        input.sessionHash,
        input.createdAt,
        input.expiresAt,
        input.createdAt,
        encodeTextOrNull(input.userAgent),
        encodeTextOrNull(input.ip),
      ],
    );
    return this.ctx.rows.session(rows[0]!);
  }

  findSessionByHash(sessionHash: string): Promise<SessionRecord | null> {
    return this.#first(`SELECT * FROM ${this.ctx.t.sessions} WHERE session_hash = ?`, [sessionHash], (row) => this.ctx.rows.session(row));
  }

  async touchSession(id: string, patch: SessionPatch): Promise<void> {
    const sets: string[] = [];
    const values: unknown[] = [];
    if (patch.lastSeenAt !== undefined) sets.push("last_seen_at = ?"), values.push(patch.lastSeenAt);
    if (patch.orgId !== undefined) sets.push("org_id = ?"), values.push(patch.orgId);
    if (sets.length > 0) await this.ctx.run(this.driver, `UPDATE ${this.ctx.t.sessions} SET ${sets.join(", ")} WHERE id = ?`, [...values, id]);
  }

  async revokeSession(id: string, at: string): Promise<boolean> {
    return (await this.ctx.run(this.driver, `UPDATE ${this.ctx.t.sessions} SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, [at, id])) > 0;
  }

  revokeUserSessions(userId: string, at: string, exceptId?: string): Promise<number> {
    return this.ctx.run(this.driver, `UPDATE ${this.ctx.t.sessions} SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id <> ?`, [
      at,
      userId,
      exceptId ?? "",
    ]);
  }

  trimUserSessions(userId: string, keep: number, at: string): Promise<number> {
    // session ids grow with time (ULIDs), so the newest are the greatest
    return this.ctx.run(
      this.driver,
      `UPDATE ${this.ctx.t.sessions} SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id NOT IN ` +
        `(SELECT id FROM ${this.ctx.t.sessions} WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ?)`,
      [at, userId, userId, keep],
    );
  }

  // invites ----------------------------------------------------------------------------------

  async createInvite(orgId: string, input: NewInvite): Promise<InviteRecord> {
    const rows = await this.#all(
      this.driver,
      `INSERT INTO ${this.ctx.t.invites} (id, org_id, email, role, token_hash, invited_by, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      [newId("invite"), orgId, encodeText(input.email), input.role, input.tokenHash, input.invitedBy, input.createdAt, input.expiresAt],
    );
    return this.ctx.rows.invite(rows[0]!);
  }

  getInvite(orgId: string, id: string): Promise<InviteRecord | null> {
    return this.#first(`SELECT * FROM ${this.ctx.t.invites} WHERE org_id = ? AND id = ?`, [orgId, id], (row) => this.ctx.rows.invite(row));
  }

  findInviteByHash(tokenHash: string): Promise<InviteRecord | null> {
    return this.#first(`SELECT * FROM ${this.ctx.t.invites} WHERE token_hash = ?`, [tokenHash], (row) => this.ctx.rows.invite(row));
  }

  listInvites(orgId: string, page: KeysetPage): Promise<InviteRecord[]> {
    return this.#byIdDescending("invites", orgId, page, (row) => this.ctx.rows.invite(row));
  }

  revokeInvite(orgId: string, id: string, at: string): Promise<InviteRecord | null> {
    // an accepted invite stays as it is; a revoked one keeps its first time
    return this.#first(
      `UPDATE ${this.ctx.t.invites} SET revoked_at = CASE WHEN accepted_at IS NULL THEN COALESCE(revoked_at, ?) ELSE revoked_at END
       WHERE org_id = ? AND id = ? RETURNING *`,
      [at, orgId, id],
      (row) => this.ctx.rows.invite(row),
    );
  }

  consumeInvite(id: string, userId: string, at: string): Promise<InviteRecord | null> {
    return this.#first(
      `UPDATE ${this.ctx.t.invites} SET accepted_at = ?, accepted_by = ?
       WHERE id = ? AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ? RETURNING *`,
      [at, userId, id, at],
      (row) => this.ctx.rows.invite(row),
    );
  }

  // audit ------------------------------------------------------------------------------------

  async appendAudit(orgId: string | null, entry: NewAuditEntry): Promise<AuditRecord> {
    const rows = await this.#all(
      this.driver,
      `INSERT INTO ${this.ctx.t.audit_log} (id, org_id, actor_type, actor_id, action, target_id, data, ip, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      [
        newId("audit"),
        orgId,
        entry.actorType,
        entry.actorId,
        encodeText(entry.action),
        entry.targetId,
        this.ctx.dialect.writeJson(entry.data),
        encodeTextOrNull(entry.ip),
        entry.at,
      ],
    );
    return this.ctx.rows.audit(rows[0]!);
  }

  listAudit(orgId: string, page: KeysetPage): Promise<AuditRecord[]> {
    return this.#byIdDescending("audit_log", orgId, page, (row) => this.ctx.rows.audit(row));
  }
}
