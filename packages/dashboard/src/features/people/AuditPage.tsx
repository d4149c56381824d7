import type { AuditEntry } from "@driftwatch/client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { useClient } from "../../api/context";
import { peopleKeys } from "../../api/keys";
import { useCan } from "../../auth/session-context";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { EmptyState, ErrorState, Loading } from "../../ui/states";

const PAGE_SIZE = 50;

/** The audit log, newest first, a page at a time (admins). */
export function AuditPage(): ReactNode {
  const client = useClient();
  const isAdmin = useCan("admin");
  // the cursors of the pages before the shown one, to go back
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const page = useQuery({
    queryKey: peopleKeys.audit(cursor),
    queryFn: async () => {
      const result = await client.audit.list({ limit: PAGE_SIZE, ...(cursor === null ? {} : { cursor }) });
      return { data: result.data, nextCursor: result.nextCursor };
    },
    enabled: isAdmin,
    placeholderData: keepPreviousData,
  });
  if (!isAdmin) {
    return (
      <Page title="Audit log">
        <EmptyState title="Only admins read the audit log" />
      </Page>
    );
  }
  return (
    <Page title="Audit log">
      {page.isPending ? (
        <Loading what="the audit log" />
      ) : page.isError ? (
        <ErrorState error={page.error} retry={() => void page.refetch()} />
      ) : page.data.data.length === 0 ? (
        <EmptyState title="Nothing recorded yet" />
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Audit entries">
          <table className="audit">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
                <th scope="col">Address</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((e: AuditEntry) => (
                <tr key={e.id}>
                  <td>
                    <RelativeTime value={e.at} />
                  </td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td>
                    {e.actor.type}
                    {e.actor.id ? (
                      <>
                        {" "}
                        <code>{e.actor.id}</code>
                      </>
                    ) : null}
                  </td>
                  <td>{e.targetId ? <code>{e.targetId}</code> : "—"}</td>
                  <td className="break">{Object.keys(e.data).length > 0 ? <code>{JSON.stringify(e.data)}</code> : "—"}</td>
                  <td>{e.ip ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="actions">
        <button type="button" disabled={cursors.length <= 1 || page.isFetching} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </button>
        <button type="button" disabled={!page.data?.nextCursor || page.isFetching} onClick={() => setCursors((c) => [...c, page.data?.nextCursor ?? null])}>
          Older
        </button>
      </div>
    </Page>
  );
}
