/**
 * Secrets users store for their monitors (a browser step's password, referred to by `name`).
 * Only the sealed value is stored (`SecretBox.seal(value, secretContext(orgId, id))`); the store
 * never sees the value.
 */
export interface NewSecret {
  id: string;
  name: string;
  sealedValue: string;
  createdAt: string;
  /** The user who stored it (null: a token or the CLI). */
  createdBy: string | null;
}

export interface SecretRecord extends NewSecret {
  orgId: string;
}

export interface SecretStore {
  /** Raises `StoreError` `conflict` when the organization has a secret of that name. */
  createSecret(orgId: string, input: NewSecret): Promise<SecretRecord>;
  /** The organization's secrets, by name (at most `MAX_SECRETS_PER_ORGANIZATION`). */
  listSecrets(orgId: string): Promise<SecretRecord[]>;
  getSecretByName(orgId: string, name: string): Promise<SecretRecord | null>;
  deleteSecret(orgId: string, id: string): Promise<boolean>;
}

/** Most secrets one organization keeps (the API refuses more). */
export const MAX_SECRETS_PER_ORGANIZATION = 200;

/** What a secret's sealed value is bound to: a sealed value copied to another row does not open. */
export function secretContext(orgId: string, id: string): string {
  return `secret:${orgId}:${id}`;
}

/** What opens a sealed value (core's `SecretBox`). */
interface Opener {
  open(sealed: string, context: string): string;
}

/**
 * Resolves a secret's name in an organization to its value: the stored sealed value opened with
 * the server's box (undefined when the organization has no secret of that name). A value that no
 * key opens throws `secret_unreadable`.
 */
export function createSecretResolver(store: Pick<SecretStore, "getSecretByName">, box: Opener | null): (orgId: string, name: string) => Promise<string | undefined> {
  return async (orgId, name) => {
    const record = await store.getSecretByName(orgId, name);
    if (record === null) return undefined;
    if (box === null) return undefined;
    return box.open(record.sealedValue, secretContext(orgId, record.id));
  };
}
