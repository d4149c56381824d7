// GET /api/audit: the organization's audit log, newest first (admin).
import { AuditEntrySchema, PageQuerySchema, pageSchema } from "@driftwatch/schema";
import type { AuditRecord } from "@driftwatch/core";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { authOf } from "../http/auth.js";
import type { PeopleContext } from "../people/context.js";
import { pageOf, problems, security } from "./common.js";

function presentAudit(entry: AuditRecord) {
  return { id: entry.id, at: entry.at, actor: { type: entry.actorType, id: entry.actorId }, action: entry.action, targetId: entry.targetId, data: entry.data, ip: entry.ip };
}

export function registerAuditRoutes(app: FastifyInstance, people: PeopleContext): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/api/audit",
    {
      config: { scope: "admin" },
      schema: {
        tags: ["audit"],
        security,
        summary: "The audit log: sign-ins, membership, invitation and token changes (admin)",
        querystring: PageQuerySchema,
        response: { 200: pageSchema(AuditEntrySchema), ...problems() },
      },
    },
    async (request) => {
      const page = await people.store.listAudit(authOf(request).orgId, pageOf(request.query));
      return { data: page.data.map(presentAudit), nextCursor: page.nextCursor };
    },
  );
}
