import { StoreError, type FailureScreenshotRecord, type NewFailureScreenshot, type NewScreenshot, type NewSecret, type ScreenshotRecord, type SecretRecord } from "@driftwatch/core";
import type { SqlContext } from "./context.js";
import type { SqlDriver } from "./dialect.js";
import type { Row } from "./rows.js";

/** The migration that adds `screenshots` and `secrets` in both SQL schemas. */
export const SCREENSHOTS_SECRETS_VERSION = 8;

function screenshotOf(ctx: SqlContext, row: Row): ScreenshotRecord {
  // Kept as base64 text: the same in both databases and through `store copy`.
  const buffer = Buffer.from(String(row.data), "base64");
  return {
    orgId: String(row.org_id),
    monitorId: String(row.monitor_id),
    snapshotId: String(row.snapshot_id),
    type: row.type === "image/webp" ? "image/webp" : "image/png",
    data: new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength),
    width: Number(row.width),
    height: Number(row.height),
    bytes: Number(row.bytes),
    createdAt: ctx.dialect.readTime(row.created_at),
  };
}

function base64Of(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
}

function failureScreenshotOf(ctx: SqlContext, row: Row): FailureScreenshotRecord {
  const buffer = Buffer.from(String(row.data), "base64");
  return {
    orgId: String(row.org_id),
    monitorId: String(row.monitor_id),
    step: ctx.dialect.readJson<FailureScreenshotRecord["step"]>(row.step),
    type: row.type === "image/webp" ? "image/webp" : "image/png",
    data: new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength),
    width: Number(row.width),
    height: Number(row.height),
    bytes: Number(row.bytes),
    createdAt: ctx.dialect.readTime(row.created_at),
  };
}

function secretOf(ctx: SqlContext, row: Row): SecretRecord {
  return {
    id: String(row.id),
    orgId: String(row.org_id),
    name: String(row.name),
    sealedValue: String(row.sealed_value),
    createdAt: ctx.dialect.readTime(row.created_at),
    createdBy: row.created_by === null || row.created_by === undefined ? null : String(row.created_by),
  };
}

/**
 * Screenshots (one row per snapshot, gone with its snapshot by `ON DELETE CASCADE`: retention,
 * monitor and organization deletion) and secrets, for every SQL database.
 */
export class SqlMedia {
  constructor(
    private readonly driver: SqlDriver,
    private readonly ctx: SqlContext,
  ) {}

  async putScreenshot(orgId: string, monitorId: string, shot: NewScreenshot): Promise<void> {
    const t = this.ctx.t;
    // Written only for a snapshot of this organization's monitor (the select finds none otherwise).
    const rows = await this.ctx.all(
      this.driver,
      `INSERT INTO ${t.screenshots} (snapshot_id, org_id, monitor_id, type, width, height, bytes, data, created_at)
       SELECT id, org_id, monitor_id, ?, ?, ?, ?, ?, ? FROM ${t.snapshots} WHERE org_id = ? AND monitor_id = ? AND id = ?
       ON CONFLICT (snapshot_id) DO UPDATE SET type = excluded.type, width = excluded.width, height = excluded.height,
         bytes = excluded.bytes, data = excluded.data, created_at = excluded.created_at
       RETURNING snapshot_id`,
      [shot.type, shot.width, shot.height, shot.data.byteLength, Buffer.from(shot.data.buffer, shot.data.byteOffset, shot.data.byteLength).toString("base64"), shot.createdAt, orgId, monitorId, shot.snapshotId],
    );
    if (rows.length === 0) throw new StoreError("not_found", `Snapshot ${shot.snapshotId} of monitor ${monitorId} not found.`);
  }

  async getScreenshot(orgId: string, monitorId: string, snapshotId: string): Promise<ScreenshotRecord | null> {
    const rows = await this.ctx.all(this.driver, `SELECT * FROM ${this.ctx.t.screenshots} WHERE org_id = ? AND monitor_id = ? AND snapshot_id = ?`, [orgId, monitorId, snapshotId]);
    return rows[0] === undefined ? null : screenshotOf(this.ctx, rows[0]);
  }

  pruneScreenshots(orgId: string, monitorId: string): Promise<number> {
    // Retention deletes snapshots, and their screenshots go with them: only orphans (none, with
    // the foreign key) would be left.
    const t = this.ctx.t;
    return this.ctx.run(
      this.driver,
      `DELETE FROM ${t.screenshots} WHERE org_id = ? AND monitor_id = ? AND NOT EXISTS (SELECT 1 FROM ${t.snapshots} s WHERE s.id = ${t.screenshots}.snapshot_id)`,
      [orgId, monitorId],
    );
  }

  async deleteMonitorScreenshots(orgId: string, monitorId: string): Promise<void> {
    await this.ctx.run(this.driver, `DELETE FROM ${this.ctx.t.screenshots} WHERE org_id = ? AND monitor_id = ?`, [orgId, monitorId]);
    await this.ctx.run(this.driver, `DELETE FROM ${this.ctx.t.failure_screenshots} WHERE org_id = ? AND monitor_id = ?`, [orgId, monitorId]);
  }

  async putFailureScreenshot(orgId: string, monitorId: string, shot: NewFailureScreenshot): Promise<void> {
    const t = this.ctx.t;
    const rows = await this.ctx.all(
      this.driver,
      `INSERT INTO ${t.failure_screenshots} (monitor_id, org_id, step, type, width, height, bytes, data, created_at)
       SELECT id, org_id, ?, ?, ?, ?, ?, ?, ? FROM ${t.monitors} WHERE org_id = ? AND id = ?
       ON CONFLICT (monitor_id) DO UPDATE SET step = excluded.step, type = excluded.type, width = excluded.width, height = excluded.height,
         bytes = excluded.bytes, data = excluded.data, created_at = excluded.created_at
       RETURNING monitor_id`,
      [this.ctx.dialect.writeJson(shot.step), shot.type, shot.width, shot.height, shot.data.byteLength, base64Of(shot.data), shot.createdAt, orgId, monitorId],
    );
    if (rows.length === 0) throw new StoreError("not_found", `Monitor ${monitorId} not found.`);
  }

  async getFailureScreenshot(orgId: string, monitorId: string): Promise<FailureScreenshotRecord | null> {
    const rows = await this.ctx.all(this.driver, `SELECT * FROM ${this.ctx.t.failure_screenshots} WHERE org_id = ? AND monitor_id = ?`, [orgId, monitorId]);
    return rows[0] === undefined ? null : failureScreenshotOf(this.ctx, rows[0]);
  }

  async createSecret(orgId: string, input: NewSecret): Promise<SecretRecord> {
    const rows = await this.ctx.all(
      this.driver,
      `INSERT INTO ${this.ctx.t.secrets} (id, org_id, name, sealed_value, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
      [input.id, orgId, input.name, input.sealedValue, input.createdAt, input.createdBy],
    );
    return secretOf(this.ctx, rows[0]!);
  }

  async listSecrets(orgId: string): Promise<SecretRecord[]> {
    const rows = await this.ctx.all(this.driver, `SELECT * FROM ${this.ctx.t.secrets} WHERE org_id = ? ORDER BY name LIMIT 1000`, [orgId]);
    return rows.map((row) => secretOf(this.ctx, row));
  }

  async getSecretByName(orgId: string, name: string): Promise<SecretRecord | null> {
    const rows = await this.ctx.all(this.driver, `SELECT * FROM ${this.ctx.t.secrets} WHERE org_id = ? AND name = ?`, [orgId, name]);
    return rows[0] === undefined ? null : secretOf(this.ctx, rows[0]);
  }

  async deleteSecret(orgId: string, id: string): Promise<boolean> {
    return (await this.ctx.run(this.driver, `DELETE FROM ${this.ctx.t.secrets} WHERE org_id = ? AND id = ?`, [orgId, id])) > 0;
  }
}
